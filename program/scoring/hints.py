"""Hints that point a participant to the fix when an expected file is not found.

Called only on the error path (a file is missing, an id is unknown), so they may walk
the submission. Each returns a short clause to append to the sentence, or "".

- a copy of the file elsewhere: in a folder whose name differs only by case (folder
  names are case-sensitive), flattened out of its folder, or inside extra folders;
- a zip inside the zip (the platforms unzip once);
- files that belong to another track;
- an event id without its extension.
"""

import os

from . import layout


def _files(root):
    """Paths relative to root ('/'-separated) of every visible file, sorted."""
    found = []
    for directory, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not layout.is_junk(d))
        for name in sorted(filenames):
            if not layout.is_junk(name):
                found.append(os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/"))
    return found


def _stem(name):
    return os.path.splitext(name)[0].lower()


def misplaced(submission, rel):
    """Where a copy of the missing file `rel` (relative to the track's folder) is, and what to do."""
    expected = submission.name(rel)
    folders, filename = expected.split("/")[:-1], expected.split("/")[-1]
    copies = [path for path in _files(submission.res_root)
              if path != expected and (path.split("/")[-1].lower() == filename.lower()
                                       or _stem(path.split("/")[-1]) == _stem(filename))]
    if not copies:
        return ""
    # the nearest copy: the same folders but for case, then the fewest extra folders
    found = min(copies, key=lambda p: ([f.lower() for f in p.split("/")[:-1]] != [f.lower() for f in folders],
                                       abs(p.count("/") - len(folders)), p))
    found_folders = found.split("/")[:-1]
    if [f.lower() for f in found_folders] == [f.lower() for f in folders]:
        differ = [i for i, (mine, theirs) in enumerate(zip(found_folders, folders)) if mine != theirs]
        if differ:
            return (" (found %s: folder names are case-sensitive, rename the folder %s/ to %s/)"
                    % (found, found_folders[differ[0]], folders[differ[0]]))
        return ""
    if len(found_folders) < len(folders):
        return " (found %s: it belongs in the folder %s/, as %s)" % (found, "/".join(folders), expected)
    if not folders:
        return " (found %s: put the files at the top level of the zip, not inside folders)" % found
    return " (found %s, inside extra folders: move it to %s)" % (found, expected)


def folder_case(res_root, rel):
    """A track folder named with another case than the phase's."""
    for name in layout.visible_entries(res_root):
        if name != rel and name.lower() == rel.lower() and os.path.isdir(os.path.join(res_root, name)):
            return " (found %s/: folder names are case-sensitive, rename it %s/)" % (name, rel)
    return ""


def inner_zip(submission):
    """A zip inside the submission: the platforms unzip the upload once, not what it holds."""
    zips = [path for path in _files(submission.res_root) if path.lower().endswith(".zip")]
    if not zips:
        return ""
    return (" (the submission holds %s, a zip inside the zip: the platform unzips your upload once, so zip the "
            "result files themselves)" % zips[0])


def kinds_of_files(root):
    """{track kind: an example file} for the files of the submission that look like one
    (each kind's looks_like)."""
    from .tracks import TRACKS

    kinds = [(name, getattr(TRACKS[name], "looks_like", None)) for name in TRACKS]
    found = {}
    for path in _files(root):
        for name, looks_like in kinds:
            if looks_like is not None and looks_like(path, os.path.join(root, path)):
                found.setdefault(name, path)
                break
    return found


def other_track(submission, kind):
    """Files that belong to another kind of track than `kind`, and none of this one."""
    from .tracks import TRACKS

    found = kinds_of_files(submission.res_root)
    if not found or kind in found:
        return ""
    other = sorted(found)[0]
    return (" (the submission holds files of the %s track (%s), such as %s: submit them to that track's phase)"
            % (other, TRACKS[other].FILES, found[other]))


def missing_file(submission, rel, kind=None):
    """The first hint that applies to the missing file `rel` of a track of this kind."""
    hint = misplaced(submission, rel) or inner_zip(submission)
    if not hint and kind is not None:
        hint = other_track(submission, kind)
    return hint


def near_image(image, ids):
    """' did you mean X?' for an event id given without its extension (or with another)."""
    stem = os.path.splitext(image)[0]
    matches = [known for known in ids if os.path.splitext(known)[0] == stem]
    if len(matches) == 1:
        return matches[0]
    return None
