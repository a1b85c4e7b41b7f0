"""Unpack each submission (a res directory or a zip) and score it with the track scorers."""

import os
import shutil
import tempfile
import zipfile

from .. import runner, unpack
from ..errors import ReferenceDataError, SubmissionError


class Workspace(object):
    """A temporary INPUT directory per submission: ref -> the reference, res -> the submission."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="compare-")

    def input_for(self, index, ref_dir, submission):
        base = os.path.join(self.root, "s%03d" % index)
        os.makedirs(base)
        os.symlink(os.path.abspath(ref_dir), os.path.join(base, "ref"))
        if os.path.isdir(submission):
            os.symlink(os.path.abspath(submission), os.path.join(base, "res"))
        elif os.path.isfile(submission) and zipfile.is_zipfile(submission):
            unpack.extract(submission, os.path.join(base, "res"), submission, SubmissionError)
        else:
            raise SubmissionError("%s is neither a directory nor a zip file." % submission)
        return base

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def score(input_dir, log):
    """(scores, results) of one submission, exactly as evaluate.py computes them."""
    scores, results = runner.score_submission(input_dir, log)
    for result in results:
        if result.stand_in:
            raise ReferenceDataError(
                "The reference data of track %s are a stand-in (its track.yaml says stand_in: true: names and "
                "sizes, no ground truth); compare the submissions against the real reference data."
                % (result.title,))
    return scores, results
