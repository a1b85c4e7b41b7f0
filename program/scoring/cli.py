"""The entry point: arguments -> run(input, output) -> exit status.

Exit status 0 scored, 1 invalid submission, 2 invalid reference data, 3 a bug in the
scoring program. On 1 and 2 the last line of stderr is one sentence saying what is
wrong; a traceback is printed only for a bug, or with --debug.
"""

import argparse
import sys
import traceback

from . import __version__, platform, unmapped
from .bidi import terminal
from .errors import ScoringError
from .log import Log
from .report import format_score, write_failure_page
from .runner import run


def guarded(action, debug, internal_message, memory_message=None, on_failure=None):
    """(exit status, result of action()): a ScoringError becomes its status and one last
    stderr line; a MemoryError, or a library that found no address space to be loaded in,
    becomes memory_message (status 1); any other exception is a bug (traceback, status 3).
    on_failure(status, line) is then called with that last line."""
    try:
        return 0, action()
    except ScoringError as error:
        if debug:
            traceback.print_exc()
        status, line = error.exit_status, "%s: %s" % (error.audience, error.sentence)
    except MemoryError:
        if memory_message is None:
            raise
        if debug:
            traceback.print_exc()
        status, line = 1, memory_message
    except Exception as error:
        if memory_message is None or not unmapped(error):
            traceback.print_exc()
            status, line = 3, internal_message
        else:  # a library (Pillow, scipy) loaded on demand found no room: a MemoryError
            if debug:
                traceback.print_exc()
            status, line = 1, memory_message
    if on_failure is not None:
        on_failure(status, line)
    sys.stderr.write(terminal(line) + "\n")
    return status, None


def titles(input_dir):
    """(the competition's title, [each track's title]) of the phase, for a refused run's page
    to be titled like the others; ('', []) when the reference data cannot tell them."""
    import os

    from .runner import phase_tracks, track_title

    try:
        prepared = phase_tracks(os.path.join(input_dir, "ref"))
    except (ScoringError, OSError, MemoryError, ImportError):  # best effort: the refusal's sentence says what is wrong
        return "", []
    competition = next((options["competition"] for _, _, options, _ in prepared if options["competition"]), "")
    return competition, [track_title(track, options) for track, _, options, _ in prepared]


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="evaluate.py",
        description="Score a Codalab submission: INPUT holds ref/ and res/, OUTPUT receives scores.txt.",
    )
    parser.add_argument("input", help="directory holding ref/ (reference data) and res/ (submission)")
    parser.add_argument("output", help="directory for scores.txt, scores.json, detailed_results.html, private/")
    parser.add_argument("--debug", action="store_true", help="print a traceback for every error")
    parser.add_argument("--version", action="version", version="%(prog)s " + __version__)
    args = parser.parse_args(argv)
    v15 = platform.is_v15_worker(args.output)
    log = Log()
    log.info("Scoring program %s." % __version__)
    status, scores = guarded(
        lambda: run(args.input, args.output, log), args.debug,
        "Internal error in the scoring program (not your submission's fault): please report it to the organizers.",
        "Submission error: the submission needs more memory than the scoring machine has.",
        lambda status, line: write_failure_page(args.output, status, line, log.lines, titles(args.input)))
    if v15:
        platform.settle()
    if status:
        return status
    for key, value in scores:
        sys.stdout.write("%s: %s\n" % (key, format_score(value)))
    return 0
