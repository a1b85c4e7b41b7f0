#!/usr/bin/env python3
"""Check a submission before uploading it: python3 check_submission.py SUBMISSION [--items FILE].

SUBMISSION is the zip you would upload, or the folder you would zip. FILE is the public
list of the phase's test items written by the competition's build (public_items.json,
beside this script in the starting kit): image names, page names and sizes, category
names, and each track's options; no ground truth.

The check runs the scoring program's own code (the scoring/ package beside this script)
on your submission against a stand-in reference with the same names and sizes, so a
refusal is the very sentence the scoring program would print, with the same exit status
(1 for an invalid submission). The scores it computes mean nothing and are not shown.
"""

import argparse
import os
import shutil
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import scoring  # noqa: E402

with scoring.loading("install them in a virtual environment and run the checker with its Python: python3 -m venv "
                     "venv, then venv/bin/python -m pip install -r requirements.txt and venv/bin/python "
                     "check_submission.py SUBMISSION (on Windows venv\\Scripts\\python; README.md of the "
                     "starting kit)"):
    from scoring import public, runner, unpack
    from scoring.bidi import terminal
    from scoring.cli import guarded
    from scoring.errors import SubmissionError
    from scoring.log import Log


def unpacked(submission, res):
    """The submission as the platforms unpack it: a zip is extracted into res/ (names made
    safe as Python's ZipFile.extractall, which their workers use, makes them; within the
    bounds of scoring.unpack); a folder is read where it is (res/ a link to it), so that
    its links, pipes and hard links meet the scoring program's own refusals, unfollowed."""
    if os.path.isdir(submission):
        os.symlink(os.path.abspath(submission), res)
    elif zipfile.is_zipfile(submission):
        unpack.extract(submission, res, os.path.basename(submission), SubmissionError, strict=False)
    elif os.path.exists(submission):
        raise SubmissionError("%s is neither a zip file nor a folder; upload a zip of your result files."
                              % os.path.basename(submission))
    else:
        raise SubmissionError("%s does not exist." % submission)


def check(submission, items, log):
    """Score the submission against the stand-in reference of `items`; writes nothing
    but a temporary folder. Raises the scoring program's errors."""
    work = tempfile.mkdtemp(prefix="check-submission-")
    try:
        public.stand_in_reference(items, os.path.join(work, "ref"))
        unpacked(submission, os.path.join(work, "res"))
        scores, _ = runner.score_submission(work, log)
        return scores
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="check_submission.py", description=__doc__.splitlines()[0])
    parser.add_argument("submission", help="the zip you would upload, or the folder you would zip")
    parser.add_argument("--items", default=os.path.join(HERE, "public_items.json"),
                        help="the phase's public item list (default: public_items.json beside this script)")
    parser.add_argument("--debug", action="store_true", help="print a traceback for every error")
    parser.add_argument("--version", action="version", version="%(prog)s " + scoring.__version__)
    args = parser.parse_args(argv)
    try:
        items = public.load(args.items)
    except (OSError, ValueError) as error:
        sys.stderr.write("Cannot read the public item list: %s\n" % terminal(error))
        return 2
    log = Log()
    status, scores = guarded(
        lambda: check(args.submission, items, log), args.debug,
        "Internal error in the scoring program (not your submission's fault): please report it to the organizers.",
        "Submission error: the submission needs more memory than the scoring machine has.")
    if status:
        return status
    warnings = sum(1 for line in log.lines if line.startswith("WARNING: "))
    sys.stdout.write("The submission is valid: the scoring program would score it (%s%s).\n"
                     % (counted(len(scores), "score"), ", %s above" % counted(warnings, "warning") if warnings else ""))
    return 0


def counted(number, noun):
    """'1 score', '2 scores'."""
    return "%d %s%s" % (number, noun, "" if number == 1 else "s")


if __name__ == "__main__":
    sys.exit(main())
