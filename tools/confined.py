"""The organizer's files as the build reads them: only from the competition folder, and
nothing of the reference data in what is public.

An organizer's folder may hold symbolic links: reference files kept in a store (git-annex,
DVC, one copy shared by two phases), a shortcut left while testing. The build follows a link
only where it resolves inside the competition folder; what is public (a starting kit, its
sample submission, the competition's own kinds) may be neither a link into the reference
data nor the same file as one of them (a hard link). A link back to a folder that holds it
(`loop -> .`), a named pipe (reading one blocks forever), a socket or a device is refused.
Every refusal is one sentence naming the file by its path in the competition folder. The
tree is walked with a list, never recursively, at most MAX_DEPTH folders deep and MAX_FILES
files (shutil.copytree recurses, follows links everywhere, and differs between Python 3.7
and 3.11 on loops).
"""

import os
import shutil
import stat

from scoring.layout import FILE_KINDS

MAX_DEPTH = 64
MAX_FILES = 200000


class Refused(Exception):
    """One sentence: the file the build will not read, and why."""


class Secret(object):
    """What public files must not be: links into these folders, or these files (device, inode)."""

    def __init__(self, folders, ids):
        self.folders = [os.path.realpath(folder) for folder in folders]
        self.ids = ids


def inside(path, folder):
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def regular_files(directory, root, shown, secret=None):
    """(folders, files) under directory: folders as '/'-separated relative paths, files as
    (relative path, the real path to read), both sorted. root: the competition folder;
    shown: how sentences name directory (e.g. starting_kit/lines); secret: for what is
    public, the reference data (a Secret)."""
    root = os.path.realpath(root)
    folders, files = [], []
    start = _followed(directory, root, shown, secret)
    stack = [(start, "", (_identity(os.stat(start)),))]
    while stack:
        path, rel, ancestors = stack.pop()
        try:
            found = sorted(os.listdir(path))
        except OSError as error:
            raise Refused("%s cannot be listed (%s)." % (_name(shown, rel), error.strerror))
        for name in found:
            child = rel + "/" + name if rel else name
            full = os.path.join(path, name)
            try:
                info = os.lstat(full)
            except OSError as error:
                raise Refused("%s cannot be examined (%s)." % (_name(shown, child), error.strerror))
            real = full
            if stat.S_ISLNK(info.st_mode):
                real = _followed(full, root, _name(shown, child), secret)
                info = os.stat(real)
            if stat.S_ISDIR(info.st_mode):
                if _identity(info) in ancestors:
                    raise Refused("%s is a folder that holds itself through a symbolic link (a loop); remove the "
                                  "link." % _name(shown, child))
                if len(ancestors) > MAX_DEPTH:
                    raise Refused("%s nests folders more than %d levels deep; the build reads at most %d."
                                  % (_name(shown, child), MAX_DEPTH, MAX_DEPTH))
                folders.append(child)
                stack.append((real, child, ancestors + (_identity(info),)))
            elif stat.S_ISREG(info.st_mode):
                if secret is not None and _identity(info) in secret.ids:
                    raise Refused("%s is the same file as one of the reference data (a hard link); what the "
                                  "participants get is public: put a file of its own there." % _name(shown, child))
                files.append((child, real))
                if len(files) > MAX_FILES:
                    raise Refused("%s holds more than %d files; the build reads at most %d."
                                  % (shown, MAX_FILES, MAX_FILES))
            else:
                kind = next((text for test, text in FILE_KINDS if test(info.st_mode)), "not a regular file")
                raise Refused("%s is %s; the build reads regular files and folders only: remove it."
                              % (_name(shown, child), kind))
    return sorted(folders), sorted(files)


def public_file(path, root, shown, secret):
    """The real path of one public file (a page), refused as regular_files refuses."""
    real = _followed(path, os.path.realpath(root), shown, secret)
    info = os.stat(real)
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else next(
            (text for test, text in FILE_KINDS if test(info.st_mode)), "not a regular file")
        raise Refused("%s is %s; expected a regular file." % (shown, kind))
    if secret is not None and _identity(info) in secret.ids:
        raise Refused("%s is the same file as one of the reference data (a hard link); what the participants get "
                      "is public: put a file of its own there." % shown)
    return real


def copy(files_and_folders, target, link=False):
    """Copy (folders, files) as regular_files gives them into target: hard links to the
    organizer's files where link is true and the system allows, else copies."""
    folders, files = files_and_folders
    os.makedirs(target, exist_ok=True)
    for rel in folders:
        os.makedirs(os.path.join(target, rel), exist_ok=True)
    for rel, real in files:
        destination = os.path.join(target, rel)
        if link:
            try:
                os.link(real, destination)
                continue
            except OSError:
                pass
        shutil.copy2(real, destination)


def file_ids(files):
    """(device, inode) of each (relative path, real path) of files."""
    return set(_identity(os.stat(real)) for _, real in files)


def _followed(path, root, shown, secret):
    """The real path of path, refused if it leaves root, reaches the reference data from
    what is public, or resolves to nothing."""
    real = os.path.realpath(path)
    if not inside(real, root):
        raise Refused("%s leads outside the competition folder; the build reads nothing outside it (no symbolic "
                      "link out of it is followed): put the file itself there." % shown)
    if secret is not None and any(inside(real, folder) for folder in secret.folders):
        raise Refused("%s leads into the reference data (development/ or final/); what the participants get is "
                      "public: put a file of its own there." % shown)
    try:
        os.stat(real)
    except OSError as error:
        raise Refused("%s is a symbolic link that leads nowhere (%s); remove it or point it at a file of the "
                      "competition folder." % (shown, error.strerror))
    return real


def _identity(info):
    return (info.st_dev, info.st_ino)


def _name(shown, rel):
    return shown.rstrip("/") + "/" + rel if rel else shown
