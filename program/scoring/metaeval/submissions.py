"""Unpack each submission (a res directory or a zip) and score it with the track scorers."""

import os
import shutil
import stat
import tempfile
import zipfile
import zlib

from .. import runner
from ..errors import ReferenceDataError, SubmissionError


def safe_extract(zip_path, target):
    """Extract a zip into target, or refuse it in one sentence naming the zip and member.

    Refused: members that leave the target or resolve to it, links, encrypted members,
    compression methods Python cannot read, a corrupt member (bad CRC), a file and a
    folder of the same name, more data than the disk has room for; an OSError (disk full,
    name too long) becomes a sentence too.
    """
    root = os.path.realpath(target)
    try:
        archive = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError) as error:
        raise SubmissionError("%s is not a readable zip file (%s)." % (zip_path, error))
    with archive:
        members = archive.infolist()
        for member in members:
            _check_member(zip_path, root, member)
        needed = sum(member.file_size for member in members)
        free = shutil.disk_usage(root).free
        if needed > free:
            raise SubmissionError("%s unpacks into %.1f GB but the disk has %.1f GB free; refused."
                                  % (zip_path, needed / 1e9, free / 1e9))
        for member in members:
            _extract_member(zip_path, root, archive, member)


def _check_member(zip_path, root, member):
    name = member.filename
    mode = member.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise SubmissionError("%s holds a symbolic link, %s; links are refused." % (zip_path, name))
    if member.flag_bits & 0x1:
        raise SubmissionError("%s holds %s, an encrypted member; submit a zip without a password." % (zip_path, name))
    if member.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2,
                                    zipfile.ZIP_LZMA):
        raise SubmissionError("%s holds %s compressed with method %d, which cannot be read; zip it again with the "
                              "usual (deflate) compression." % (zip_path, name, member.compress_type))
    destination = os.path.realpath(os.path.join(root, name))
    if os.path.isabs(name) or not (destination == root or destination.startswith(root + os.sep)):
        raise SubmissionError("%s holds %s, a path that leaves the extraction folder; refused."
                              % (zip_path, name))
    if destination == root and not name.endswith("/"):
        raise SubmissionError("%s holds %s, a file whose path is the extraction folder itself; refused."
                              % (zip_path, name))


def _extract_member(zip_path, root, archive, member):
    name = member.filename
    destination = os.path.realpath(os.path.join(root, name))
    try:
        if name.endswith("/"):
            os.makedirs(destination, exist_ok=True)
            return
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        if os.path.exists(destination):
            raise SubmissionError("%s holds %s twice, or as both a file and a folder; refused." % (zip_path, name))
        with archive.open(member) as source, open(destination, "wb") as sink:
            shutil.copyfileobj(source, sink)
    except (zipfile.BadZipFile, zlib.error, EOFError) as error:
        raise SubmissionError("%s: the member %s is corrupt (%s); zip the submission again." % (zip_path, name, error))
    except (RuntimeError, NotImplementedError) as error:
        raise SubmissionError("%s: the member %s cannot be read (%s)." % (zip_path, name, error))
    except (FileExistsError, NotADirectoryError, IsADirectoryError):
        raise SubmissionError("%s holds %s twice, or as both a file and a folder; refused." % (zip_path, name))
    except OSError as error:
        raise SubmissionError("%s: the member %s cannot be unpacked (%s)." % (zip_path, name,
                                                                             error.strerror or error))


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
            os.makedirs(os.path.join(base, "res"))
            safe_extract(submission, os.path.join(base, "res"))
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
