"""A fourth kind, defined only here (tests/test_fourth_kind.py): `guide_example`, line transcription
scored by character and word error rates, where lower is better and a rate can exceed 1.

It is written as a kind of the program is (relative imports of the scoring package: the
registry imports it as scoring.tracks.guide_example) and touches no file of program/ or tools/: a
competition folder carries it as kinds/guide_example.py (tools/make_bundle.py puts it beside the
scoring program and in every starting kit).

Files: ref/<Manuscript>.tsv and res/<Manuscript>.tsv, one line per text line,
`<line id><TAB><transcription>`, UTF-8. CER of a manuscript: the summed Levenshtein
distances between the submitted and the reference transcriptions of its lines, over the
summed lengths of the references; WER the same on words. Leaderboard: the means over
manuscripts.
"""

import os

import numpy as np

from .. import matching
from .. import options as opt
from ..columns import Column, Metric
from ..errors import ReferenceDataError, SubmissionError
from ..itemview import ItemView, Ratio, leaderboard
from ..names import key_name
from ..readers.text import TEXT_ERRORS, decode_lines, read_bytes
from ..result import Paragraph, Table, TrackResult
from . import refusals

OPTIONS = {
    "case": ("sensitive", opt.choice("sensitive", "insensitive")),
    "public_details": (False, opt.boolean()),
}

METRICS = {
    "cer": Metric("CER", "character error rate: edit distance over the reference's characters, mean over "
                         "manuscripts", lower_is_better=True, bounds=(0.0, None)),
    "wer": Metric("WER", "word error rate: edit distance in words over the reference's words, mean over "
                         "manuscripts", lower_is_better=True, bounds=(0.0, None)),
    # The pooled rate beside the mean over manuscripts: total errors over total characters.
    "cer_pooled": Metric("pooled CER", "character error rate of all lines together: the summed edit distances over "
                                       "the summed reference characters", lower_is_better=True, bounds=(0.0, None)),
}
RANKED = ("cer", "wer")  # the metrics given per manuscript too


# ---------------------------------------------------------------- reader


def manuscripts(track):
    names = sorted(name[:-4] for name in os.listdir(track.path) if name.endswith(".tsv"))
    if not names:
        raise ReferenceDataError("%s holds no <Manuscript>.tsv file of line transcriptions." % track.label)
    return names


def reference_files(track):
    """The files the reader reads: every other file of the track's folder is refused by name."""
    return [name + ".tsv" for name in manuscripts(track)]


def read_lines(path, shown, error):
    """[(line id, text)] of a transcription file, ids distinct."""
    rows, seen = [], {}
    for number, line in enumerate(decode_lines(read_bytes(path, shown, error), shown, error), start=1):
        if not line.strip():
            continue
        if "\t" not in line:
            raise error("%s line %d has no tab; expected '<line id><TAB><transcription>'." % (shown, number))
        identifier, text = line.split("\t", 1)
        if identifier in seen:
            raise error("%s line %d repeats the line %s (first on line %d); list each line once."
                        % (shown, number, identifier, seen[identifier]))
        seen[identifier] = number
        rows.append((identifier, text))
    return rows


def read_reference(track):
    return [(name, read_lines(os.path.join(track.path, name + ".tsv"), track.ref_name(name + ".tsv"),
                              ReferenceDataError)) for name in manuscripts(track)]


def submitted_files(submission, reference):
    """{<Manuscript>.tsv: the submitted file's name} of every manuscript (matching.find_files:
    a missing one refused, with "did you mean" or a hint)."""
    expected = [name + ".tsv" for name, _ in reference]
    return matching.find_files(submission, expected, "one <Manuscript>.tsv per manuscript, e.g. %s" % expected[0])


def read_submission(submission, found, name, reference):
    shown = submission.name(found)
    submitted = dict(read_lines(submission.path(found), shown, SubmissionError))
    known = set(identifier for identifier, _ in reference)
    unknown = [identifier for identifier in submitted if identifier not in known]
    if unknown:
        raise SubmissionError("%s names the line %s, which is not a line of manuscript %s." % (shown, unknown[0], name))
    absent = [identifier for identifier, _ in reference if identifier not in submitted]
    if absent:
        raise SubmissionError("%s lacks %d of the %d lines of manuscript %s, e.g. %s; transcribe every line."
                              % (shown, len(absent), len(reference), name, absent[0]))
    return [submitted[identifier] for identifier, _ in reference]


# ---------------------------------------------------------------- kernel


def edit_distance(a, b):
    """Levenshtein distance between two sequences (insertions, deletions, substitutions)."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


# ---------------------------------------------------------------- scoring


def columns(track, options):
    out = [Column(name, name, metric) for name, metric in METRICS.items()]
    for manuscript in manuscripts(track):
        out += [Column(key_name(manuscript) + "_" + name, name, METRICS[name], manuscript) for name in RANKED]
    return out


def score(track, submission, options, log):
    reference = read_reference(track)
    fold = (lambda text: text.lower()) if options["case"] == "insensitive" else (lambda text: text)
    terms = dict((name, []) for name in ("char_errors", "chars", "word_errors", "words"))
    items, sizes, per_manuscript = [], [], []
    files = submitted_files(submission, reference)
    for name, lines in reference:
        hypotheses = read_submission(submission, files[name + ".tsv"], name, lines)
        for (identifier, truth), hypothesis in zip(lines, hypotheses):
            truth, hypothesis = fold(truth), fold(hypothesis)
            terms["char_errors"].append(edit_distance(hypothesis, truth))
            terms["chars"].append(len(truth))
            terms["word_errors"].append(edit_distance(hypothesis.split(), truth.split()))
            terms["words"].append(len(truth.split()))
            items.append("%s/%s" % (name, identifier))
        sizes.append(len(lines))
        per_manuscript.append(name)
    scores = [("cer", METRICS["cer"].score(Ratio(("char_errors", "chars")), ranked=True)),
              ("wer", METRICS["wer"].score(Ratio(("word_errors", "words")), ranked=True)),
              ("cer_pooled", METRICS["cer_pooled"].score(Ratio(("char_errors", "chars")), ranked=True, pooled=True))]
    for h, name in enumerate(per_manuscript):
        scores += [(key_name(name) + "_cer", METRICS["cer"].score(Ratio(("char_errors", "chars")), stratum=h)),
                   (key_name(name) + "_wer", METRICS["wer"].score(Ratio(("word_errors", "words")), stratum=h))]
    result = TrackResult("guide_example")
    result.view = ItemView(per_manuscript, sizes, items, dict((k, np.asarray(v, dtype=np.float64))
                                                              for k, v in terms.items()),
                           scores, "cer", reference_columns=["chars", "words"], unit="line")
    for key, value in leaderboard(result.view).items():
        result.set_score(key, value)
    result.meaning = "The character error rate: edit distance over the reference's characters (lower is better)."
    result.highlights = [("wer", result.scores["wer"])]
    summary = result.section("Summary")
    summary.add(Paragraph("cer and wer: per manuscript, the summed edit distances over the summed reference "
                          "lengths (characters, words), then the mean over manuscripts; lower is better."))
    summary.add(Table(["manuscript", "lines", "cer", "wer"],
                      [[name, size, result.scores[key_name(name) + "_cer"], result.scores[key_name(name) + "_wer"]]
                       for name, size in zip(per_manuscript, sizes)], "Per manuscript"))
    return result


# ---------------------------------------------------------------- public items, stand-in, dummy


def public_items(track):
    return {"manuscripts": [{"name": name, "lines": [identifier for identifier, _ in lines]}
                            for name, lines in read_reference(track)]}


def _write(items, directory, text):
    from ..public import write_text

    for manuscript in items["manuscripts"]:
        write_text(os.path.join(directory, manuscript["name"] + ".tsv"),
                   "".join("%s\t%s\n" % (identifier, text) for identifier in manuscript["lines"]))


def stand_in_reference(items, directory):
    _write(items, directory, "x")


def dummy_submission(items, directory):
    _write(items, directory, "")


def sample_reference(directory):
    """A small made-up reference for the registry-wide tests (tests/test_every_kind.py)."""
    from ..public import write_text

    write_text(os.path.join(directory, "\u05e1\u05e4\u05e8 \u05d4\u05d9\u05e9\u05e8.tsv"),
               "1\tIn the beginning\n2\twas the word\n")
    write_text(os.path.join(directory, "Codex.tsv"), "a\tarma virumque cano\nb\tTroiae qui primus\n")


def reference_as_submission(track, options, directory):
    """The reference's own transcriptions (tests/test_every_kind.py: the best value)."""
    from ..public import write_text

    for name, lines in read_reference(track):
        write_text(os.path.join(directory, name + ".tsv"), "".join("%s\t%s\n" % line for line in lines))


# ---------------------------------------------------------------- hints

FILES = "one <Manuscript>.tsv of line transcriptions per manuscript"
REFERENCE = "one <Manuscript>.tsv of '<line id><TAB><transcription>' lines per manuscript, at the top of its folder"


def looks_like(rel, path):
    return rel.lower().endswith(".tsv")


# ---------------------------------------------------------------- pages and manual

LABEL = "Line transcription"
TASK = "Line transcription: for every text line of the test set, give its text as read on the page."


def submission_format(options):
    return ("One `<Manuscript>.tsv` per manuscript of the test set, at the top level of the zip: one line per text "
            "line, its id as given, a tab, then its transcription (UTF-8). Every line of the manuscript once; %s.\n"
            % ("case matters" if options["case"] == "sensitive" else "case is ignored"))


def example(items, options):
    manuscript = items["manuscripts"][0]
    lines = (manuscript["lines"] * 2)[:2]
    res = {manuscript["name"] + ".tsv": "%s\tIn the beginning\n%s\twas the word\n" % tuple(lines)}
    ref = {manuscript["name"] + ".tsv": "%s\tIn the beginning\n%s\twas the word\n" % tuple(lines)}
    return res, ref, None


def metrics_text(options):
    return ("Per manuscript, the character error rate `cer`: the summed edit distances (insertions, deletions, "
            "substitutions) between your transcriptions and the reference's, over the summed lengths of the "
            "reference lines; `wer` the same in words. The ranking score `cer` is the mean over manuscripts; "
            "`cer_pooled` the summed edit distances of all lines over all their reference characters (a manuscript "
            "with more text weighs more). Lower is better, from 0 (perfect); a rate can exceed 1 when you insert more "
            "than the reference holds.\n")


def privacy(options):
    return "After each submission you see your scores and the rates of every manuscript.\n"


def count_items(items):
    lines = sum(len(m["lines"]) for m in items["manuscripts"])
    return "%d lines in %d manuscripts (%s)" % (lines, len(items["manuscripts"]),
                                               ", ".join(m["name"] for m in items["manuscripts"]))


ERRORS = [
    ("a manuscript file missing", "The submission has no {file}; expected one <Manuscript>.tsv per manuscript, "
                                  "e.g. {file}{hint}.", None),
    ("a line without a tab", "{file} line 2 has no tab; expected '<line id><TAB><transcription>'.", None),
    ("a line twice", "{file} line 3 repeats the line {line_id} (first on line 1); list each line once.", None),
    ("an unknown line", "{file} names the line zz, which is not a line of manuscript {manuscript}.", None),
    ("lines missing", "{file} lacks {absent} of the {count} lines of manuscript {manuscript}, e.g. {line_id}; "
                      "transcribe every line.", None),
] + TEXT_ERRORS  # the sentences of the text reader it reads its files with ({file}, {line}: theirs)
errors = refusals(ERRORS)


def _first_file(change):
    """A mistake of the manual (tools/mistakes.py): the first manuscript's file of a dummy
    submission, its lines (without their ends) changed by change(lines) -> lines, or None
    to remove the file."""
    def mistake(res, kind=None):
        path = os.path.join(res, sorted(name for name in os.listdir(res) if name.endswith(".tsv"))[0])
        with open(path, encoding="utf-8") as stream:
            lines = stream.read().splitlines()
        changed = change(lines)
        os.remove(path)
        if changed is not None:
            with open(path, "w", encoding="utf-8") as stream:
                stream.write("".join(line + "\n" for line in changed))
    return mistake


#: The mistakes that make the rows of ERRORS in the manual (tools/mistakes.py).
MISTAKES = {
    "a manuscript file missing": _first_file(lambda lines: None),
    "a line without a tab": _first_file(lambda lines: lines[:1] + ["no tab here"] + lines[1:]),
    "a line twice": _first_file(lambda lines: lines[:2] + [lines[0]] + lines[2:]),
    "an unknown line": _first_file(lambda lines: lines + ["zz\t"]),
    "lines missing": _first_file(lambda lines: lines[1:]),
}


def error_values(items):
    manuscript = items["manuscripts"][0]
    return {"file": manuscript["name"] + ".tsv", "manuscript": manuscript["name"], "line_id": manuscript["lines"][0],
            "count": len(manuscript["lines"]), "absent": 1, "line": 2, "hint": ""}
