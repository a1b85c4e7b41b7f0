"""python run.py ANNOTATION SUBMISSION WORK: unzip the phase's reference data (EvalAI's test
annotation file, a zip) into WORK/input/ref and the participant's file into WORK/input/res,
as Codabench's and Codalab's workers unzip them (names made safe as Python's
ZipFile.extractall makes them), within the bounds of the scoring program's own extractor
(program/scoring/unpack.py: members, bytes, free disk, each member's declared size), then
become the scoring program, `python program/evaluate.py WORK/input WORK/output` (the same process, so that
the caller's time limit covers the unzipping too). Exit status and last stderr line as the
scoring program's: 1 and a sentence for a submission that is no zip or is refused, 2 for
reference data that are none. The path of ANNOTATION is never printed.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "program", "evaluate.py")
sys.path.insert(0, os.path.dirname(PROGRAM))

from scoring import unpack  # noqa: E402  (standard library only)
from scoring.errors import ReferenceDataError, ScoringError, SubmissionError  # noqa: E402


def main(argv):
    annotation, submission, work = argv[1:4]
    source = os.path.join(work, "input")
    try:  # the organizer's reference data are bounded by the free disk alone, a submission by unpack's limits
        unpack.extract(annotation, os.path.join(source, "ref"), "This phase's test annotation file",
                       ReferenceDataError, max_bytes=None,
                       unreadable="This phase's test annotation file is not a readable zip; upload the challenge "
                                  "zip that tools/make_bundle.py wrote.")
        unpack.extract(submission, os.path.join(source, "res"), "The file you uploaded", SubmissionError,
                       strict=False, unreadable="The file you uploaded is not a readable zip file; upload a zip of "
                                                "your result files, laid out as the starting kit's sample_submission/.")
    except ScoringError as error:
        sys.stderr.write("%s: %s\n" % (error.audience, error.sentence))
        return error.exit_status
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, PROGRAM, source, os.path.join(work, "output")])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
