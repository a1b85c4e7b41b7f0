"""Matching the submission's files with the names the phase expects.

Every reader finds its files here, in the submission's index (files.py), and every
refusal of a missing file is written here, the same for every track:

- submission_for: where a track's files are (its folder, or the one folder the
  participant zipped);
- find_files: every expected file, or a refusal naming a near name found, a hint
  (hints.py) or what the folder holds instead;
- one_of: the one file among alternative names (X.npz or X.csv), refusing both;
- absent_file: the refusal of one missing file, near_folder: a folder meant for a missing one;
- unused: the files of a folder that the phase does not read (to warn about).

Names are compared as names.py decides: in NFC, as the zip tool meant them,
case-sensitive (a name differing by case is named, with how it differs and what to rename).
"""

import os

from . import hints, layout, names
from .errors import SubmissionError
from .files import Submission


def submission_for(track, index, all_tracks, log, kinds):
    """The Submission of `track`: res/<dir>/ or res/, or the one top-level folder of the
    submission when the participant zipped a folder. kinds: the registry (name -> kind
    module), handed down so that a hint can name files of another kind of track."""
    submission = _submission_for(track, index, all_tracks, log)
    submission.kind = track.kind
    submission.kinds = kinds
    return submission


def _submission_for(track, index, all_tracks, log):
    rel = track.rel
    root = index.folders[()]
    own = names.canonical(rel) in root.folders if rel else True
    top = next(iter(root.folders.values())) if len(root.folders) == 1 and not root.files else None
    if top is not None:
        if rel:
            expected = set(names.canonical(t.rel) for t in all_tracks)
        else:
            expected = set(names.canonical(name) for name in layout.visible_entries(track.path)
                           if os.path.isdir(os.path.join(track.path, name)))
        if names.canonical(top) not in expected and not (rel and own):
            log.info("The submission holds a single folder, %s/; its content is scored as the submission." % top)
            base = (top, rel) if rel else (top,)
            return Submission(index, base, top + "/" + (rel + "/" if rel else ""))
    if not own:
        expected = set(names.canonical(t.rel) for t in all_tracks)
        others = [name for key, name in sorted(root.folders.items()) if key not in expected]
        hint = hints.near_folder(rel, others) or hints.top_holds(
            [name + "/" for name in others] + sorted(entries[0].name for entries in root.files.values()))
        raise SubmissionError(
            "The submission has no folder %s/; this phase expects one folder per track: %s%s."
            % (rel, ", ".join(t.rel + "/" for t in all_tracks), hint))
    return Submission(index, (rel,) if rel else (), rel + "/" if rel else "")


def unused(submission, used, folder=()):
    """The names of the files of a folder of the track that are none of `used`."""
    taken = set(names.canonical(name) for name in used)
    return [name for name in submission.files(*folder) if names.canonical(name) not in taken]


def did_you_mean(submission, rel, guess, more=""):
    """The refusal of a missing file `rel` when the file `guess` of its folder was
    probably meant for it."""
    folder, wanted = rel.split("/")[:-1], rel.split("/")[-1]
    expected, found = submission.name(rel), submission.name(*(folder + [guess]))
    how = names.how_it_differs(guess, wanted)
    return SubmissionError("The submission has no %s%s; found %s, %s: rename it %s%s." % (
        expected, more, found, how, wanted, " if it is meant for it" if how == names.CLOSE else ""))


def absent_file(submission, rel, what, unused_names=(), more="", folders=()):
    """The refusal of the missing file `rel` (relative to the track's folder): a name of
    unused_names (the folder's files that the phase does not read) that was probably
    meant for it, else the hint that applies (hints.missing_file). folders: the track's
    other folders that the phase reads (another manuscript's), where a file of the same
    name is its own, not a copy of this one."""
    guess = names.near_name(rel.split("/")[-1], unused_names) if unused_names else None
    if guess is not None:
        return did_you_mean(submission, rel, guess, more)
    hint = hints.missing_file(submission, rel, submission.kind, unused_names, folders)
    return SubmissionError("The submission has no %s%s; expected %s%s." % (submission.name(rel), more, what, hint))


def near_folder(submission, folder, expected_folders):
    """The folder of the track, none of expected_folders, that was probably meant for the
    missing folder `folder` (a manuscript's), or None."""
    expected = set(names.canonical(name) for name in expected_folders)
    return names.near_name(folder, [name for name in submission.folders() if names.canonical(name) not in expected])


def find_files(submission, expected, what, folder=(), claimed=()):
    """{expected name: the submitted file's name} of every expected file of a folder of
    the track; the first missing one is refused (a near name first: what was found, how it
    differs, what to rename it).
    claimed: names of the folder that the track reads otherwise (never a near name)."""
    found, absent = {}, []
    for name in expected:
        present = submission.find(name, *folder)
        if present is None:
            absent.append(name)
        else:
            found[name] = present
    if absent:
        more = ""
        if len(absent) == len(expected) > 1:
            more = " (both are missing)" if len(expected) == 2 else " (all %d are missing)" % len(expected)
        elif len(absent) > 1:
            more = " (%d of the %d expected files are missing, e.g. %s)" % (
                len(absent), len(expected), names.shown_list(absent, 3))
        others = unused(submission, list(found.values()) + list(claimed), folder)
        near = names.NameIndex(others)
        prefix = "/".join(folder) + "/" if folder else ""
        for name in absent:
            guess = near.near(name)
            if guess is not None:
                raise did_you_mean(submission, prefix + name, guess, more)
        raise absent_file(submission, prefix + absent[0], what, others, more)
    return found


def one_of(submission, alternatives, folder=()):
    """The name of the one submitted file among alternative names (e.g. X.npz, X.csv),
    or None; both are refused."""
    present = [found for found in (submission.find(name, *folder) for name in alternatives) if found is not None]
    if len(present) > 1:
        raise SubmissionError("The submission holds both %s and %s; keep one." % (
            submission.name(*(tuple(folder) + (present[0],))), submission.name(*(tuple(folder) + (present[1],)))))
    return present[0] if present else None
