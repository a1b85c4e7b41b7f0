"""Hints that point a participant to the fix when an expected file is not found.

Called only on the error path (a file is missing, an id is unknown). They read the
submission's index (files.FileIndex), never the folder again, and compare names as
names.py does. Each returns a short clause to append to the sentence, or "".

- a copy of the file elsewhere: in a folder whose name differs (by case, or by spaces,
  dashes and underscores), flattened out of its folder, or inside extra folders;
- a zip inside the zip (the platforms unzip once);
- files that belong to another track;
- what the folder holds instead (a bounded list), when nothing else applies;
- a folder named almost as expected, or what the top of the submission holds;
- an event id without its extension.
"""

import os

from . import names


def _same_file(found, expected):
    """Whether a file name is the expected one but for case, separators or extension."""
    return (names.loose(found) == names.loose(expected)
            or names.loose(names.stem(found)) == names.loose(names.stem(expected)))


def misplaced(submission, rel, others=()):
    """Where a copy of the missing file `rel` (relative to the track's folder) is, and what to
    do; others: the track's other folders the phase reads, whose files are their own."""
    expected = submission.name(rel)
    folders, filename = expected.split("/")[:-1], expected.split("/")[-1]
    wanted = names.canonical(expected)
    own = tuple(names.canonical(submission.name(folder)) + "/" for folder in others)
    copies = [path for path in submission.index.paths()
              if names.canonical(path) != wanted and _same_file(path.split("/")[-1], filename)
              and not names.canonical(path).startswith(own)]
    if not copies:
        return ""
    loose_folders = [names.loose(f) for f in folders]
    # the nearest copy: the same folders but for their spelling, then the fewest extra folders
    found = min(copies, key=lambda p: ([names.loose(f) for f in p.split("/")[:-1]] != loose_folders,
                                       abs(p.count("/") - len(folders)), p))
    found_folders = found.split("/")[:-1]
    if [names.loose(f) for f in found_folders] == loose_folders:
        differ = [i for i, (mine, theirs) in enumerate(zip(found_folders, folders))
                  if names.canonical(mine) != names.canonical(theirs)]
        if differ:
            mine, theirs = found_folders[differ[0]], folders[differ[0]]
            if mine.lower() == theirs.lower():
                return " (found %s: folder names are case-sensitive, rename the folder %s/ to %s/)" % (found, mine,
                                                                                                    theirs)
            return " (found %s: rename the folder %s/ to %s/)" % (found, mine, theirs)
        return ""
    if len(found_folders) < len(folders):
        return " (found %s: it belongs in the folder %s/, as %s)" % (found, "/".join(folders), expected)
    if len(found_folders) == len(folders):  # a folder named otherwise
        i = next(i for i, (mine, theirs) in enumerate(zip(found_folders, folders)) if names.loose(mine) !=
                 names.loose(theirs))
        return " (found %s: rename the folder %s/ to %s/)" % (found, found_folders[i], folders[i])
    if not folders:
        return " (found %s: put the files at the top level of the zip, not inside folders)" % found
    return " (found %s, inside extra folders: move it to %s)" % (found, expected)


def near_folder(expected, available):
    """' (found X/: ... rename it Y/)' for a folder named almost as the expected one."""
    guess = names.near_name(expected, available)
    if guess is None:
        return ""
    if guess.lower() == expected.lower():
        return " (found %s/: folder names are case-sensitive, rename it %s/)" % (guess, expected)
    return " (found %s/: rename it %s/)" % (guess, expected)


def top_holds(found):
    """' (the submission holds a, b at its top)' for a missing track folder."""
    return " (the submission holds %s at its top)" % names.shown_list(found) if found else ""


def inner_zip(submission):
    """A zip inside the submission: the platforms unzip the upload once, not what it holds."""
    zips = [path for path in submission.index.paths() if path.lower().endswith(".zip")]
    if not zips:
        return ""
    return (" (the submission holds %s, a zip inside the zip: the platform unzips your upload once, so zip the "
            "result files themselves)" % zips[0])


def kinds_of_files(submission):
    """{track kind: an example file} for the files of the submission's index that look like
    one (each kind's looks_like, from the registry the submission carries)."""
    kinds = [(name, getattr(submission.kinds[name], "looks_like", None)) for name in submission.kinds]
    found = {}
    for entry in submission.index.entries:
        for name, looks_like in kinds:
            if looks_like is not None and looks_like(entry.path, os.path.join(submission.res_root, entry.disk)):
                found.setdefault(name, entry.path)
                break
    return found


def other_track(submission, kind):
    """Files that belong to another kind of track than `kind`, and none of this one."""
    found = kinds_of_files(submission)
    if not found or kind in found:
        return ""
    other = sorted(found)[0]
    return (" (the submission holds files of the %s track (%s), such as %s: submit them to that track's phase)"
            % (other, submission.kinds[other].FILES, found[other]))


def found_instead(submission, folder, unused):
    """What a folder of the track holds that the phase does not read, when an expected
    file is missing there: ' (lines/Latin2/ holds page_pred.png, which ...)'."""
    if not unused:
        return ""
    holder = submission.name(*folder) + "/" if folder else (submission.shown_prefix or "the submission")
    if len(unused) == 1:
        return " (%s holds %s, a name the phase does not expect)" % (holder, names.shown_list(unused))
    return " (%s holds %d files whose names the phase does not expect: %s)" % (
        holder, len(unused), names.shown_list(unused))


def missing_file(submission, rel, kind=None, unused=(), others=()):
    """The first hint that applies to the missing file `rel` of a track of this kind;
    unused: the names of the files of its folder that the phase does not read; others: the
    track's other folders that the phase reads (misplaced)."""
    hint = misplaced(submission, rel, others) or inner_zip(submission)
    if not hint and kind is not None:
        hint = other_track(submission, kind)
    if not hint:
        hint = found_instead(submission, tuple(rel.split("/")[:-1]), list(unused))
    return hint


def near_image(image, ids):
    """The image id of the test set meant by an event id given without its extension (or
    with another), or None."""
    stem = os.path.splitext(image)[0]
    matches = [known for known in ids if os.path.splitext(known)[0] == stem]
    if len(matches) == 1:
        return matches[0]
    return None
