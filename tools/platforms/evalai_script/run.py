"""python run.py ANNOTATION SUBMISSION WORK: unzip the phase's reference data (EvalAI's test
annotation file, a zip) into WORK/input/ref and the participant's file into WORK/input/res,
as Codabench's and Codalab's workers unzip them (Python's zipfile), then become the scoring
program, `python program/evaluate.py WORK/input WORK/output` (the same process, so that
the caller's time limit covers the unzipping too). Exit status and last stderr line as the
scoring program's: 1 and a sentence for a submission that is no zip, 2 for reference data
that are none. The path of ANNOTATION is never printed.
"""

import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "program", "evaluate.py")


def unzip(path, destination):
    """True if the zip at path was extracted into destination."""
    os.makedirs(destination)
    try:
        with zipfile.ZipFile(path) as archive:
            archive.extractall(destination)
    except (OSError, zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError):
        return False
    return True


def main(argv):
    annotation, submission, work = argv[1:4]
    source = os.path.join(work, "input")
    if not unzip(annotation, os.path.join(source, "ref")):
        sys.stderr.write("Reference data error (for the organizers): This phase's test annotation file is not a "
                         "readable zip; upload the challenge zip that tools/make_bundle.py wrote.\n")
        return 2
    if not unzip(submission, os.path.join(source, "res")):
        sys.stderr.write("Submission error: The file you uploaded is not a readable zip file; upload a zip of your "
                         "result files, laid out as the starting kit's sample_submission/.\n")
        return 1
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, PROGRAM, source, os.path.join(work, "output")])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
