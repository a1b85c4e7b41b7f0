"""Unpack each submission (a res directory or a zip) and score it with the track scorers."""

import os
import shutil
import stat
import tempfile
import zipfile

from .. import runner
from ..errors import SubmissionError


def safe_extract(zip_path, target):
    """Extract a zip into target, refusing members that leave it, links and devices."""
    root = os.path.realpath(target)
    try:
        archive = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError) as error:
        raise SubmissionError("%s is not a readable zip file (%s)." % (zip_path, error))
    with archive:
        for member in archive.infolist():
            name = member.filename
            mode = member.external_attr >> 16
            if stat.S_ISLNK(mode):
                raise SubmissionError("%s holds a symbolic link, %s; links are refused." % (zip_path, name))
            destination = os.path.realpath(os.path.join(root, name))
            if os.path.isabs(name) or not (destination == root or destination.startswith(root + os.sep)):
                raise SubmissionError("%s holds %s, a path that leaves the extraction folder; refused."
                                      % (zip_path, name))
            if name.endswith("/"):
                os.makedirs(destination, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(destination), exist_ok=True)
            with archive.open(member) as source, open(destination, "wb") as sink:
                shutil.copyfileobj(source, sink)


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
        elif zipfile.is_zipfile(submission):
            os.makedirs(os.path.join(base, "res"))
            safe_extract(submission, os.path.join(base, "res"))
        else:
            raise SubmissionError("%s is neither a directory nor a zip file." % submission)
        return base

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def score(input_dir, log):
    """(scores, results) of one submission, exactly as evaluate.py computes them."""
    return runner.score_submission(input_dir, log)
