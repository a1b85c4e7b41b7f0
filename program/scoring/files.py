"""The submission's files, listed once.

index_submission walks res/ once, before anything is opened: it refuses what must not be
read (symbolic links, named pipes, sockets, devices, a file that is a file of ref/ or has
a name outside res/, folders nested more than MAX_DEPTH levels) and lists every other file
under the path its participant meant (names.meant: '\\' between folders, UTF-8 names unpacked as cp437),
archive litter and the platform's own status file left out. A track reads its files
through a Submission, a view of that index from the track's folder: every reader and hint
asks it (names compared in NFC, names.canonical), and none lists a folder again.
"""

import os
import stat

from . import names, unpack
from .errors import ReferenceDataError, SubmissionError, printable
from .layout import FILE_KINDS, check_regular_refusal, is_platform_metadata

#: How deep folders may nest in a submission (a zip or a tar can carry thousands of levels):
#: unpack's bound, so that no zip unpacks into what the index refuses.
MAX_DEPTH = unpack.MAX_DEPTH

EMPTY = "The submission is empty; the zip must hold the result files."


class Entry(object):
    """One file of the submission: its path under res/ on disk ('/'-separated) and the
    parts of the path it meant (names as written, repaired)."""

    __slots__ = ("disk", "parts")

    def __init__(self, disk, parts):
        self.disk = disk
        self.parts = parts

    @property
    def name(self):
        return self.parts[-1]

    @property
    def path(self):
        return "/".join(self.parts)


class Folder(object):
    """A folder of the index: its files ({canonical name: [Entry]}) and its sub-folders
    ({canonical name: the name as written}), and the files by canonical stem, made once."""

    __slots__ = ("files", "folders", "_stems")

    def __init__(self):
        self.files = {}
        self.folders = {}
        self._stems = None

    def stems(self):
        if self._stems is None:
            self._stems = {}
            for key, entries in self.files.items():
                self._stems.setdefault(names.stem(key), []).append(entries[0].name)
        return self._stems


class FileIndex(object):
    """Every file of a submission by the path it meant: one walk of res/."""

    def __init__(self, res_root, entries, repairs):
        self.res_root = os.path.realpath(res_root)
        self.entries = entries  # [Entry], in walk order (sorted by disk path)
        self.repairs = repairs  # {repair word: (count, an example (disk path, meant path))}
        self.folders = {(): Folder()}
        for entry in entries:
            self._add(entry)

    def _add(self, entry):
        keys = tuple(names.canonical(part) for part in entry.parts)
        for depth in range(len(keys) - 1):
            self.add_folder(keys[:depth + 1], entry.parts[depth])
        self.folders[keys[:-1]].files.setdefault(keys[-1], []).append(entry)

    def add_folder(self, keys, written):
        """A folder (canonical parts) and, under its parent, its name as written."""
        if keys in self.folders:
            return
        if len(keys) > 1:
            self.add_folder(keys[:-1], None)
        self.folders[keys] = Folder()
        self.folders[keys[:-1]].folders.setdefault(keys[-1], written or keys[-1])

    def paths(self):
        """The meant path of every file ('/'-separated), in walk order."""
        return [entry.path for entry in self.entries]

    def log_repairs(self, log):
        """One log line per kind of repaired name, with a count and an example."""
        for repair in ("backslash", "cp437", "nfd"):
            if repair in self.repairs:
                count, (disk, meant) = self.repairs[repair]
                example = "e.g. %s" % meant if disk == meant else "e.g. %s as %s" % (disk, meant)
                log.info("%d file name%s of the submission: %s (%s)."
                         % (count, "" if count == 1 else "s", names.REPAIRS[repair], example))


def index_submission(res_root, ref_root):
    """The FileIndex of res/, refusing (SubmissionError) whatever must not be read, and
    a submission without a file (an empty zip, or one holding only archive litter).

    Symbolic links, named pipes (opening one blocks forever), sockets and devices are
    refused. The reference data are known by what they are, not by their path: a file that
    is a file of ref/ (the same device and inode, ref/'s links followed: its files and track
    folders may be links into a store) is refused, and so is a file with a name outside
    res/ (a hard link to a worker's file: more links than res/ holds names of it); res/ and
    ref/ that are one folder, or one inside the other, are the platform's error. Folders
    nest at most MAX_DEPTH levels. The tree is walked with a list, not by recursion, so
    that no depth exhausts the interpreter's stack.
    """
    if not os.path.isdir(res_root):
        raise SubmissionError(EMPTY)
    refuse_crossed(res_root, ref_root)
    entries, folders, repairs = [], [], {}
    identities = []  # (relative path, (device, inode), links) of every regular file
    pending = [("", 0, (), False)]
    while pending:
        rel, depth, parts, litter = pending.pop()
        for name in sorted(_list(res_root, rel)):
            child = rel + "/" + name if rel else name
            info = _lstat(res_root, child)
            if stat.S_ISDIR(info.st_mode):
                if depth + 1 > MAX_DEPTH:
                    raise SubmissionError(
                        "The submission nests folders more than %d levels deep (%s...); zip the result files "
                        "at the top level or in the folders the phase expects." % (MAX_DEPTH, child[:120]))
                meant, how = names.meant(name)
                hidden = litter or any(names.is_litter(part) for part in [name] + meant)
                if not hidden:
                    _count(repairs, how, child, "/".join(parts + tuple(meant)))
                    folders.append(parts + tuple(meant))
                pending.append((child, depth + 1, parts + tuple(meant), hidden))
            elif stat.S_ISREG(info.st_mode):
                identities.append((child, (info.st_dev, info.st_ino), info.st_nlink))
                meant, how = names.meant(name)
                if litter or any(names.is_litter(part) for part in [name] + meant):
                    continue
                _count(repairs, how, child, "/".join(parts + tuple(meant)))
                entries.append(Entry(child, parts + tuple(meant)))
            elif stat.S_ISLNK(info.st_mode):
                raise SubmissionError(
                    "The submission contains a symbolic link, %s; submit regular files only "
                    "(links are refused so that nothing outside the submission is read)." % child)
            else:
                kind = next((text for test, text in FILE_KINDS if test(info.st_mode)), "not a regular file")
                raise SubmissionError("The submission's %s is %s; submit regular files and folders only."
                                      % (child, kind))
    refuse_links_out(identities, ref_root)  # before any file is opened, the platform's status file too
    entries = [entry for entry in entries
               if entry.disk != "metadata" or not is_platform_metadata(res_root, "metadata")]
    if not entries:
        raise SubmissionError(EMPTY)
    entries.sort(key=lambda entry: entry.disk)
    index = FileIndex(res_root, entries, repairs)
    for parts in folders:  # empty folders too: a folder may be found empty
        index.add_folder(tuple(names.canonical(part) for part in parts), parts[-1])
    return index


def _count(repairs, how, disk, meant):
    for repair in how:
        count, example = repairs.get(repair, (0, (disk, meant)))
        repairs[repair] = (count + 1, example)


def _list(root, rel):
    try:
        return os.listdir(os.path.join(root, rel) if rel else root)
    except OSError as exc:
        raise SubmissionError("The submission's folder %s cannot be listed (%s)." % (rel or ".", exc.strerror))


def _lstat(root, rel):
    try:
        return os.lstat(os.path.join(root, rel))
    except OSError as exc:
        raise SubmissionError("The submission's %s cannot be examined (%s); use shorter names and fewer "
                              "nested folders." % (rel[:120] + ("..." if len(rel) > 120 else ""), exc.strerror))


def refuse_crossed(res_root, ref_root):
    """The platform's error: res/ and ref/ are one folder, or one lies inside the other (the
    ground truth would be scored as the submission)."""
    res, ref = os.path.realpath(res_root), os.path.realpath(ref_root)
    if not os.path.isdir(ref):
        return
    how = ("is" if res == ref else "lies inside" if _inside(res, ref) else "holds" if _inside(ref, res) else None)
    if how:
        raise ReferenceDataError(
            "The submission folder res/ %s the reference data folder ref/ (after following links); the platform "
            "must give the submission and the reference data as two separate folders; nothing was scored." % how)


def _inside(path, folder):
    return path.startswith(folder.rstrip(os.sep) + os.sep)


def refuse_links_out(identities, ref_root):
    """Refuse a file of res/ (identities: (relative path, (device, inode), link count) of
    each) that is a file of ref/, or has a name outside res/."""
    reference = _file_ids(ref_root)
    for child, key, _ in identities:
        if key in reference:
            raise SubmissionError("The submission's %s is a hard link to a file of the reference data; "
                                  "submit your own result files." % child)
    linked = [(child, key, links) for child, key, links in identities if links > 1]
    inside = {}
    for _, key, _ in linked:
        inside[key] = inside.get(key, 0) + 1
    for child, key, links in linked:
        if links > inside[key]:
            raise SubmissionError(
                "The submission's %s is a hard link to a file outside the submission (%d names, %d of them in the "
                "submission); submit your own result files, each a file of its own." % (child, links, inside[key]))


#: The most entries of ref/ (links followed) whose identity is taken: a link to / would
#: otherwise walk the worker's whole disk.
MAX_REFERENCE_ENTRIES = 1000000


def _file_ids(root):
    """(device, inode) of every regular file under `root`, symbolic links followed (a
    reference file or track folder may be a link into a store); each folder is walked once,
    so that a link loop ends, and at most MAX_REFERENCE_ENTRIES entries are examined."""
    ids, seen = set(), set()
    pending = [root]
    examined = 0
    while pending:
        directory = pending.pop()
        try:
            info = os.stat(directory)
            found = os.listdir(directory)
        except OSError:
            continue
        if (info.st_dev, info.st_ino) in seen:
            continue
        seen.add((info.st_dev, info.st_ino))
        examined += len(found)
        if examined > MAX_REFERENCE_ENTRIES:
            raise ReferenceDataError("The reference data folder ref/ holds more than %d files and folders (its "
                                     "symbolic links followed); does a link lead out of the reference data?"
                                     % MAX_REFERENCE_ENTRIES)
        for name in found:
            path = os.path.join(directory, name)
            try:
                info = os.stat(path)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                pending.append(path)
            elif stat.S_ISREG(info.st_mode):
                ids.add((info.st_dev, info.st_ino))
    return ids


def _keys(parts):
    return tuple(names.canonical(part) for part in parts)


class Submission(object):
    """The participant's files for one track: the index seen from the track's folder.

    Every method takes names as the phase writes them (any Unicode form) and answers
    with names as the participant wrote them (repaired); name() shows a path in a
    sentence, path() gives the file to open, confined to res/."""

    def __init__(self, index, base=(), shown_prefix=""):
        self.index = index
        self.res_root = index.res_root
        self.base = _keys(base)  # the track's folder in the index
        self.shown_prefix = shown_prefix  # how messages name the base, e.g. 'authentication/'
        self.kind = None  # the kind of the track it is for, set by matching.submission_for
        self.kinds = {}  # the registry of kinds (name -> module), for hints about other tracks

    def _folder(self, parts):
        return self.index.folders.get(self.base + _keys(parts))

    def name(self, *parts):
        """How messages name a file: its path inside the submission as zipped."""
        return self.shown_prefix + "/".join(parts)

    def isdir(self, *parts):
        return self._folder(parts) is not None

    def files(self, *folder):
        """Sorted names of the files of a folder of the track ([] if absent)."""
        found = self._folder(folder)
        return sorted(entries[0].name for entries in found.files.values()) if found else []

    def folders(self, *folder):
        """Sorted names of the sub-folders of a folder of the track."""
        found = self._folder(folder)
        return sorted(found.folders.values()) if found else []

    def entries(self, *folder):
        """Sorted names of the files and folders of a folder of the track."""
        return sorted(self.files(*folder) + self.folders(*folder))

    def find(self, name, *folder):
        """The name of the file that `name` means in a folder of the track (the same in
        NFC), or None; two files meaning that one name are refused."""
        found = self._folder(folder)
        entries = found.files.get(names.canonical(name)) if found else None
        if not entries:
            if found is not None and names.canonical(name) in found.folders:
                self.refuse_folder(folder + (found.folders[names.canonical(name)],))
            return None
        if len(entries) > 1:
            raise SubmissionError(
                "The submission holds %d files named %s, written differently in the zip (%s); keep one."
                % (len(entries), self.name(*(folder + (name,))),
                   ", ".join(ascii(entry.disk) for entry in entries)))
        return entries[0].name

    def refuse_folder(self, parts):
        """Refuse a folder where the phase expects a file of that name (a file unzipped 'to a
        folder', or zipped inside a folder of its own name), saying what it holds."""
        inside = self.entries(*parts)
        holds = (" (it holds %s)" % names.shown_list(inside)) if inside else " (an empty one)"
        check_regular_refusal(self.name(*parts), "a folder", SubmissionError, holds)

    def isfile(self, *parts):
        return self.find(parts[-1], *parts[:-1]) is not None

    def with_stem(self, stem, *folder):
        """The names of the files of a folder whose name without extension is `stem`."""
        found = self._folder(folder)
        return sorted(found.stems().get(names.canonical(stem), [])) if found else []

    def path(self, *parts):
        """The absolute path of a file of this track, refused if it leaves res/."""
        found = self._folder(parts[:-1])
        entries = found.files.get(names.canonical(parts[-1])) if found else None
        if not entries:
            raise SubmissionError("The submission has no %s." % printable(self.name(*parts)))
        full = os.path.join(self.res_root, entries[0].disk)
        if os.path.islink(full) or not os.path.realpath(full).startswith(self.res_root + os.sep):
            raise SubmissionError(
                "%s leaves the submission folder or is a link; submit regular files only." % self.name(*parts))
        return full


def write_text(path, text):
    """A UTF-8 text file with LF line ends (the kinds' stand-in and dummy files)."""
    with open(path, "w", encoding="utf-8", newline="\n") as stream:
        stream.write(text)
