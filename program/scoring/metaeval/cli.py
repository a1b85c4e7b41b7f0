"""compare.py: score several submissions with the track scorers (or read the per-item
views evaluate.py left under private/, with --scored) and compare them.

Writes OUT/ranking.csv, OUT/pairs.csv, OUT/ranks.csv, OUT/report.html, the per-case values
with the R script that ranks them with challengeR (OUT/cases.csv, OUT/challenger.R), and the
paper's material (OUT/latex/*.tex, OUT/svg/*.svg); one progress line per submission on
stderr. Exit status as evaluate.py: 1 a submission is invalid,
2 the reference data (or the command line), 3 a bug.
"""

import argparse
import io
import math
import os
import sys
import time

from ..bidi import terminal
from ..errors import ReferenceDataError, SubmissionError
from ..cli import guarded
from ..log import Log
from ..runner import phase_tracks, shown_title
from .. import __version__, bootstrap, layout, views as view_files
from ..itemview import leaderboard
from ..metrics import significance
from ..tracks import TRACKS
from . import analysis, cases, collected, page, rexport, submissions, unlabeled


def parse(argv):
    parser = argparse.ArgumentParser(
        prog="compare.py",
        description="Meta-evaluation for organizers: confidence intervals, paired significance of the leaderboard "
                    "scores, ranking stability, ranking without ground truth and agreement between metrics.")
    parser.add_argument("submissions", nargs="+", help="res directories or zip files, one per submission; with "
                                                       "--scored, evaluate.py output directories; or one folder "
                                                       "written by tools/collect.py (its manifest.csv names them)")
    parser.add_argument("--version", action="version", version="%(prog)s " + __version__)
    parser.add_argument("--ref", help="the reference directory (what evaluate.py reads as ref/)")
    parser.add_argument("--scored", action="store_true",
                        help="the arguments are evaluate.py output directories: compare the per-item views they "
                             "hold under private/views/ without scoring again (no --ref needed)")
    parser.add_argument("--names", help="comma-separated labels of the submissions (default: file names)")
    parser.add_argument("--out", default="compare_output", help="directory for the CSV files and report.html")
    parser.add_argument("--resamples", type=int, default=bootstrap.DEFAULT_RESAMPLES,
                        help="bootstrap resamples (default %d)" % bootstrap.DEFAULT_RESAMPLES)
    parser.add_argument("--permutations", type=int, default=significance.DEFAULT_PATTERNS,
                        help="sign patterns of the randomisation tests when they are not enumerated exactly "
                             "(default %d)" % significance.DEFAULT_PATTERNS)
    parser.add_argument("--adjustment", choices=("maxT", "holm"), default="maxT",
                        help="multiplicity adjustment over the pairs (default: Westfall-Young max-T)")
    parser.add_argument("--seed", type=int, default=bootstrap.DEFAULT_SEED, help="bootstrap and permutation seed")
    parser.add_argument("--no-ground-truth", action="store_true",
                        help="ignore the reference labels: only the ground-truth-free analysis")
    parser.add_argument("--reference", help="name of the submission used as reference classifier "
                                            "(default: the consensus majority vote)")
    parser.add_argument("--missing-cases", default="track", metavar="TREATMENT",
                        help="how the per-case analysis (challengeR's methods and views) treats the cases a "
                             "submission did not give, as challengeR's na.treat: track (the value the track scored "
                             "them with, the default), na.rm (left out), worst (the score's worst value) or a "
                             "number")
    parser.add_argument("--debug", action="store_true", help="print a traceback for every error")
    return parser.parse_args(argv)


def submission_names(args, given=None):
    if given is not None:
        names = given
    elif args.names:
        names = [n.strip() for n in args.names.split(",")]
        if len(names) != len(args.submissions):
            raise ReferenceDataError("--names gives %d names for %d submissions; give one per submission."
                                     % (len(names), len(args.submissions)))
    else:
        names = [os.path.splitext(os.path.basename(os.path.normpath(p)))[0] for p in args.submissions]
    if len(set(names)) != len(names):
        raise ReferenceDataError("Two submissions share the name %r; label them with --names."
                                 % sorted(n for n in names if names.count(n) > 1)[0])
    if args.reference is not None and args.reference not in names:
        raise ReferenceDataError("--reference %s names no submission; the names are %s."
                                 % (args.reference, ", ".join(names)))
    if args.resamples < 10 or args.permutations < 100:
        raise ReferenceDataError("--resamples must be at least 10 and --permutations at least 100.")
    if args.missing_cases not in cases.TREATMENTS and not _number(args.missing_cases):
        raise ReferenceDataError("--missing-cases %s is not one of track, na.rm, worst or a number."
                                 % args.missing_cases)
    return names


def _number(text):
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def say(progress, line):
    """One line to the organizer's terminal: names in it cannot drive the terminal, nor
    reorder or hide text, right-to-left names isolated (bidi.terminal)."""
    progress.write(terminal(line) + "\n")
    progress.flush()


def _progress(progress, index, count, name, seconds, per_track):
    shown = "; ".join("%s %s=%.4f" % (label, view.primary, value) for label, view, value in per_track)
    say(progress, "[%d/%d] %s %s in %.1f s: %s" % (index + 1, count, name, "read" if seconds is None else "scored",
                                                  seconds or 0.0, shown))


def score_all(args, names, ref, progress):
    """(track labels, per submission [(view, foregrounds)] in the phase's track order). A
    track's label is its title, as its page shows it (runner.shown_title): the organizer's."""
    labels = [shown_title(track, options, prefix) for track, _, options, prefix in phase_tracks(ref)]
    workspace = submissions.Workspace()
    scored = []
    try:
        for index, (path, name) in enumerate(zip(args.submissions, names)):
            start = time.time()
            input_dir = workspace.input_for(index, ref, path)
            try:
                _, results = submissions.score(input_dir, Log(stream=io.StringIO()))
            except SubmissionError as error:
                raise SubmissionError("submission %s: %s" % (name, error.sentence))
            scored.append([(r.view, r.foregrounds) for r in results])
            _progress(progress, index, len(names), name, time.time() - start,
                      [(label, r.view, r.scores[r.view.primary]) for label, r in zip(labels, results)])
    finally:
        workspace.close()
    return labels, scored


def read_all(args, names, progress):
    """As score_all, from the views that evaluate.py wrote under each output's private/."""
    tracks, scored = None, []
    for index, (path, name) in enumerate(zip(args.submissions, names)):
        found = view_files.read_scored(path)
        these = [meta.get("title") or meta["kind"] for meta, _, _ in found]
        if tracks is None:
            tracks = these
        elif these != tracks:
            raise ReferenceDataError("%s holds the views of tracks %s, the first output %s; compare outputs of "
                                     "one phase." % (path, these, tracks))
        scored.append([(view, foregrounds) for _, view, foregrounds in found])
        _progress(progress, index, len(names), name, None,
                  [(label, view, view_files_primary(view)) for label, (_, view, _) in zip(these, found)])
    return tracks, scored


def view_files_primary(view):
    return leaderboard(view)[view.primary]


def compare(args, names, progress=None, manifest=None):
    progress = progress or sys.stderr  # the stream of the moment, not the one at import
    without_labels = {}
    if args.scored:
        labels, scored = read_all(args, names, progress)
    else:
        if args.ref is None or not os.path.isdir(args.ref):
            raise ReferenceDataError("--ref %s is not a directory; give the reference directory (ref/), or "
                                     "--scored with evaluate.py output directories." % args.ref)
        without_labels = unlabeled.unlabeled_tracks(args.ref)
        scratch = submissions.Workspace()
        try:
            ref = args.ref
            if without_labels:
                say(progress, "No labels in %s: ground-truth-free analysis only for %s." % (
                    args.ref, ", ".join(t or "the root track" for t in sorted(without_labels))))
                ref = unlabeled.placeholder_reference(args.ref, scratch.root, without_labels)
            labels, scored = score_all(args, names, ref, progress)
        finally:
            scratch.close()
        rels = [t.rel for t in layout.find_tracks(args.ref, TRACKS)]
    checked = []
    if manifest is not None:
        text, checked = collected.check(manifest, names, [[leaderboard(view) for view, _ in s] for s in scored])
    analyses = []
    for t, label in enumerate(labels):
        views = [s[t][0] for s in scored]
        foregrounds = [s[t][1] for s in scored]
        say(progress, "Analysing track %s over %d submissions." % (label, len(names)))
        ground_truth = not args.no_ground_truth and not (without_labels and rels[t] in without_labels)
        options = analysis.Options(args.resamples, args.seed, args.permutations, args.adjustment, ground_truth,
                                   args.reference, args.missing_cases)
        analyses.append(analysis.analyse(label, names, views, options, foregrounds))
    if not os.path.isdir(args.out):
        os.makedirs(args.out)
    closing = page.closing_note(analyses)
    report, beside = page.report_html(analyses, closing)
    written = [("ranking.csv", page.ranking_csv(analyses)), ("pairs.csv", page.pairs_csv(analyses)),
               ("ranks.csv", page.ranks_csv(analyses)), ("cases.csv", rexport.cases_csv(analyses)),
               ("challenger.R", rexport.r_script(analyses)), ("report.html", report)] + sorted(beside.items())
    if manifest is not None:
        written.append(("leaderboard_check.csv", text))
    for filename, text in written:
        path = os.path.join(args.out, *filename.split("/"))
        if not os.path.isdir(os.path.dirname(path)):
            os.makedirs(os.path.dirname(path))
        with open(path, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
    for line in closing + checked:
        say(progress, line)
    return analyses


def run(args):
    """compare() on the arguments, or on the submissions of a tools/collect.py folder."""
    if not collected.is_collected(args.submissions):
        return compare(args, submission_names(args))
    if args.names:
        raise ReferenceDataError("--names cannot be given with a folder of tools/collect.py: the teams' names come "
                                 "from its manifest.csv.")
    args.submissions, names, rows = collected.read(args.submissions[0], args.scored)
    return compare(args, submission_names(args, names), manifest=rows)


def main(argv=None):
    args = parse(argv)
    status, _ = guarded(lambda: run(args), args.debug,
                        "Internal error in compare.py; please report it.",
                        "compare.py ran out of memory while scoring or analysing the submissions; compare fewer "
                        "submissions at a time, or run it on a machine with more memory.")
    if status:
        return status
    say(sys.stderr, "Wrote ranking.csv, pairs.csv, ranks.csv, cases.csv, challenger.R, report.html, latex/ and svg/ "
                    "in %s." % args.out)
    return 0
