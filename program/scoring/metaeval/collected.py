"""A folder written by tools/collect.py, taken as it is: its manifest.csv names the teams and
their folders, and holds the platform's leaderboard scores, which are checked against the
scores compare.py computes or reads (a platform that rounds, or a submission scored by another
version of the program, shows up there instead of being trusted)."""

import csv
import re
import os
from decimal import Decimal, InvalidOperation

from ..csvtext import csv_text
from ..errors import ReferenceDataError

MANIFEST = "manifest.csv"
FIXED = ["team", "submission_id", "status", "date", "collected", "folder", "upload_bytes", "upload_sha256",
         "primary", "primary_score"]


def is_collected(paths):
    return len(paths) == 1 and os.path.isfile(os.path.join(paths[0], MANIFEST))


class Row(object):
    def __init__(self, team, ident, folder, scores):
        self.team, self.ident, self.folder, self.scores = team, ident, folder, scores


#: A cell that tools/collect.py quoted against spreadsheet formulas (its inert()).
_QUOTED = re.compile("'+[=+\\-@\t\r]")


def _as_written(cell):
    """A manifest cell as the platform wrote it: the one quote collect.py put in front of a
    cell a spreadsheet would run as a formula taken off."""
    return cell[1:] if _QUOTED.match(cell) else cell


def read(folder, scored):
    """(paths, names, rows) of the collected submissions: output/ with --scored, else submission.zip.

    A team with several collected submissions (collect.py --which all) gets each as
    "team (submission id)"."""
    path = os.path.join(folder, MANIFEST)
    try:
        with open(path, encoding="utf-8", newline="") as stream:
            table = list(csv.reader(stream))
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise ReferenceDataError("%s cannot be read (%s)." % (path, error))
    if not table or table[0][:len(FIXED)] != FIXED or table[0][-1:] != ["note"]:
        raise ReferenceDataError("%s is not a manifest of tools/collect.py: its first line should begin with %s and "
                                 "end with note." % (path, ",".join(FIXED)))
    header = table[0]
    keys = header[len(FIXED):-1]
    rows = []
    for number, cells in enumerate(table[1:], 2):
        if len(cells) != len(header):
            raise ReferenceDataError("%s, line %d: %d fields where the header has %d." % (path, number, len(cells),
                                                                                         len(header)))
        cells = [_as_written(c) for c in cells]
        cell = dict(zip(header, cells))
        if cell["collected"] != "yes":
            continue
        scores = dict((k, v) for k, v in zip(keys, cells[len(FIXED):-1]) if v != "")
        if cell["primary"] and cell["primary_score"]:
            scores.setdefault(cell["primary"], cell["primary_score"])
        rows.append(Row(cell["team"], cell["submission_id"], cell["folder"], scores))
    if not rows:
        raise ReferenceDataError("%s lists no collected submission; run tools/collect.py again." % path)
    teams = [row.team for row in rows]
    names = [row.team if teams.count(row.team) == 1 else "%s (%s)" % (row.team, row.ident) for row in rows]
    paths = []
    for row in rows:
        base = os.path.join(folder, *row.folder.split("/"))
        wanted = os.path.join(base, "output") if scored else os.path.join(base, "submission.zip")
        if os.path.realpath(base) == os.path.realpath(folder) or not os.path.realpath(base).startswith(
                os.path.realpath(folder) + os.sep):
            raise ReferenceDataError("%s: the folder %s of %s leaves %s; refused." % (path, row.folder, row.team,
                                                                                    folder))
        if scored and not os.path.isdir(os.path.join(wanted, "private")):
            raise ReferenceDataError("%s holds no private/ folder of evaluate.py's per-item views (EvalAI keeps no "
                                     "scoring output for its hosts); compare the uploads with --ref REF %s instead."
                                     % (wanted, folder))
        if not scored and not os.path.isfile(wanted):
            raise ReferenceDataError("%s is missing (submission %s of %s); run tools/collect.py again to complete "
                                     "the folder." % (wanted, row.ident, row.team))
        paths.append(wanted)
    return paths, names, rows


def check(rows, names, leaderboards):
    """(csv text, sentences): each manifest score set beside compare.py's own value of that key.

    leaderboards: per submission, one {key: value} per track. A platform's value agrees when
    it is compare.py's value rounded to the platform's decimals (Codabench keeps ten)."""
    lines, mismatched, compared = [], [], 0
    for row, name, tracks in zip(rows, names, leaderboards):
        for key in sorted(row.scores):
            own = [board[key] for board in tracks if key in board]
            if len(own) != 1:
                continue
            try:
                platform = Decimal(row.scores[key])
            except InvalidOperation:
                continue
            exponent = platform.as_tuple().exponent
            margin = Decimal(5) * Decimal(10) ** (exponent - 1) if isinstance(exponent, int) and exponent < 0 else 0
            agrees = abs(Decimal(repr(own[0])) - platform) <= margin + Decimal("1e-12") * max(1, abs(platform))
            compared += 1
            lines.append([row.team, row.ident, key, row.scores[key], repr(own[0]), "yes" if agrees else "no"])
            if not agrees:
                mismatched.append("Leaderboard check: %s (submission %s): %s is %s on the platform, %r by compare.py."
                                  % (name, row.ident, key, row.scores[key], own[0]))
    text = csv_text(["team", "submission_id", "column", "platform", "compare", "agrees"], lines)
    if not compared:
        return text, ["Leaderboard check: the manifest holds no score of these tracks' keys; nothing was checked."]
    summary = ("Leaderboard check: %d of %d scores of the manifest agree with compare.py's own "
               "(leaderboard_check.csv)." % (compared - len(mismatched), compared))
    return text, [summary] + mismatched
