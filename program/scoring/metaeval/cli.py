"""compare.py: score several submissions with the track scorers and compare them.

Writes OUT/ranking.csv and OUT/report.html; one progress line per submission on stderr.
Exit status as evaluate.py: 1 a submission is invalid, 2 the reference data, 3 a bug.
"""

import argparse
import io
import os
import sys
import time

from ..errors import ReferenceDataError, SubmissionError
from ..cli import guarded
from ..log import Log
from .. import layout
from ..tracks import TRACKS
from . import adapters, analysis, bootstrap, page, pixels, submissions, unlabeled


def parse(argv):
    parser = argparse.ArgumentParser(
        prog="compare.py",
        description="Meta-evaluation for organizers: confidence intervals, paired significance, "
                    "ranking without ground truth and agreement between metrics, over several submissions.")
    parser.add_argument("submissions", nargs="+", help="res directories or zip files, one per submission")
    parser.add_argument("--ref", required=True, help="the reference directory (what evaluate.py reads as ref/)")
    parser.add_argument("--names", help="comma-separated labels of the submissions (default: file names)")
    parser.add_argument("--out", default="compare_output", help="directory for ranking.csv and report.html")
    parser.add_argument("--resamples", type=int, default=bootstrap.DEFAULT_RESAMPLES,
                        help="bootstrap resamples (default %d)" % bootstrap.DEFAULT_RESAMPLES)
    parser.add_argument("--seed", type=int, default=bootstrap.DEFAULT_SEED, help="bootstrap seed")
    parser.add_argument("--no-ground-truth", action="store_true",
                        help="ignore the reference labels: only the ground-truth-free analysis")
    parser.add_argument("--reference", help="name of the submission used as reference classifier "
                                            "(default: the consensus majority vote)")
    parser.add_argument("--debug", action="store_true", help="print a traceback for every error")
    return parser.parse_args(argv)


def submission_names(args):
    if args.names:
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
    return names


def score_all(args, names, ref, progress):
    """Per submission the list of TrackResults, in the phase's track order."""
    workspace = submissions.Workspace()
    all_results = []
    foregrounds = []
    try:
        for index, (path, name) in enumerate(zip(args.submissions, names)):
            start = time.time()
            input_dir = workspace.input_for(index, ref, path)
            log = Log(stream=io.StringIO())
            try:
                scores, results = submissions.score(input_dir, log)
            except SubmissionError as error:
                raise SubmissionError("submission %s: %s" % (name, error.sentence))
            all_results.append(results)
            if any(r.kind == "lines" for r in results):
                # Decoded once here, kept packed: the pixels of the ground-truth-free analysis.
                foregrounds.append(pixels.collect_foregrounds(input_dir, results, log))
            shown = ", ".join("%s=%.4f" % (k, v) for k, v in scores[:3])
            progress.write("[%d/%d] %s scored in %.1f s: %s\n" % (index + 1, len(names), name,
                                                                  time.time() - start, shown))
            progress.flush()
    finally:
        workspace.close()
    return all_results, foregrounds


def compare(args, names, progress=sys.stderr):
    if not os.path.isdir(args.ref):
        raise ReferenceDataError("--ref %s is not a directory; give the reference directory (ref/)." % args.ref)
    tracks = layout.find_tracks(args.ref, TRACKS)
    without_labels = unlabeled.unlabeled_tracks(args.ref)
    scratch = submissions.Workspace()
    try:
        ref = args.ref
        if without_labels:
            progress.write("No labels in %s: ground-truth-free analysis only for %s.\n" % (
                args.ref, ", ".join(t or "the root track" for t in sorted(without_labels))))
            ref = unlabeled.placeholder_reference(args.ref, scratch.root, without_labels)
        all_results, foregrounds = score_all(args, names, ref, progress)
    finally:
        scratch.close()
    analyses = []
    for t, track in enumerate(tracks):
        results = [r[t] for r in all_results]
        views = [adapters.view(r) for r in results]
        label = track.kind + (" (%s)" % track.rel if track.rel and [k.kind for k in tracks].count(track.kind) > 1
                              else "")
        progress.write("Analysing track %s over %d submissions.\n" % (label, len(names)))
        ground_truth = not args.no_ground_truth and track.rel not in without_labels
        override = None
        if foregrounds and all(track.rel in f for f in foregrounds):
            progress.write("Pixel statistics of the line maps (ground-truth-free analysis).\n")
            override = pixels.gram_from_packed([f[track.rel] for f in foregrounds],
                                               names.index(args.reference) if args.reference else None)
        a = analysis.analyse(label, names, views, args.resamples, args.seed,
                             ground_truth=ground_truth, reference=args.reference, binary_override=override)
        analyses.append(a)
    if not os.path.isdir(args.out):
        os.makedirs(args.out)
    with open(os.path.join(args.out, "ranking.csv"), "w") as stream:
        stream.write(page.ranking_csv(analyses))
    closing = page.closing_note(analyses)
    with open(os.path.join(args.out, "report.html"), "w", encoding="utf-8") as stream:
        stream.write(page.report_html(analyses, closing))
    for line in closing:
        progress.write(line + "\n")
    return analyses


def main(argv=None):
    args = parse(argv)
    status, _ = guarded(lambda: compare(args, submission_names(args)), args.debug,
                        "Internal error in compare.py; please report it.",
                        "compare.py ran out of memory while scoring or analysing the submissions; compare fewer "
                        "submissions at a time, or run it on a machine with more memory.")
    if status:
        return status
    sys.stderr.write("Wrote %s and %s.\n" % (os.path.join(args.out, "ranking.csv"),
                                             os.path.join(args.out, "report.html")))
    return 0
