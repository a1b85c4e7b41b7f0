"""The Codalab directory layout: tracks in ref/, their mirror in res/, safe paths.

A track directory is INPUT/ref itself or a direct sub-directory of it holding a
track.yaml. The submission mirrors that layout (SPEC section 2). Every path read from
res/ must stay inside res/, and only regular files are read from it: links, named pipes,
sockets, devices and hard links to ref/ are refused before anything is opened.
"""

import os
import re
import stat

import yaml

from .errors import ReferenceDataError, SubmissionError
from .options import brief

#: Debris that archivers and file managers leave in zips; never part of a submission.
JUNK_NAMES = frozenset(["__MACOSX", ".DS_Store", "Thumbs.db", "desktop.ini"])


#: The keys of the status file that the platforms' workers write as res/metadata: Codabench's
#: prediction step writes it beside the participant's files (compute_worker/compute_worker.py,
#: Run.push_output; the scoring step unzips that output as input/res), and Codalab v1.5 writes
#: the same keys (worker.py, run()).
PLATFORM_METADATA_KEYS = frozenset(["exitCode", "elapsedTime", "ingestionExitCode", "ingestionElapsedTime"])
PLATFORM_METADATA_MAX_BYTES = 4096


def is_junk(name):
    return name in JUNK_NAMES or name.startswith("._")


def is_platform_metadata(res_root, name):
    """True if res/<name> is the platform's status file, not a participant's: a regular file
    named metadata at the top of res/ holding a YAML mapping (or a list of them) whose keys
    are all platform status keys. Anything else named metadata is the participant's."""
    path = os.path.join(res_root, name)
    if name != "metadata" or os.path.islink(path) or not os.path.isfile(path):
        return False
    if os.path.getsize(path) > PLATFORM_METADATA_MAX_BYTES:
        return False
    try:
        with open(path, "rb") as handle:
            content = yaml.safe_load(handle)
    except (yaml.YAMLError, OSError, UnicodeDecodeError):
        return False
    mappings = content if isinstance(content, list) else [content]
    return bool(mappings) and all(
        isinstance(m, dict) and m and all(k in PLATFORM_METADATA_KEYS for k in m) for m in mappings)


def participant_entries(res_root):
    """Sorted names at the top of res/, debris and the platform's status file left out."""
    return [name for name in visible_entries(res_root) if not is_platform_metadata(res_root, name)]


def visible_entries(directory):
    """Sorted names in `directory`, debris left out."""
    return sorted(name for name in os.listdir(directory) if not is_junk(name))


class TrackDir(object):
    """One track of the reference data: where it is, what kind, and its options."""

    def __init__(self, path, rel, kind, config):
        self.path = path  # absolute path of the track directory in ref/
        self.rel = rel  # '' for a root track, else the sub-directory name
        self.kind = kind  # the kind's name (tracks.TRACKS), from track.yaml's `track:`
        self.config = config  # the raw mapping of track.yaml

    @property
    def label(self):
        """How messages name this track's reference files: ref/ or ref/<dir>/."""
        return "ref/" + (self.rel + "/" if self.rel else "")

    def ref_name(self, *parts):
        return self.label + "/".join(parts)


class _NoAliasLoader(yaml.SafeLoader):
    """YAML's safe loader without aliases: `*name` may repeat a node so that a 1 KB file
    expands into gigabytes (a "billion laughs"); a track.yaml has no use for them."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, "aliases are refused", event.start_mark)
        return super(_NoAliasLoader, self).compose_node(parent, index)


def read_track_yaml(path, label):
    check_regular(path, label, ReferenceDataError)
    try:
        with open(path, "rb") as handle:
            config = yaml.load(handle, Loader=_NoAliasLoader)
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = " at line %d" % (mark.line + 1)
        if getattr(exc, "problem", None) == "aliases are refused":
            raise ReferenceDataError("%s uses a YAML alias (*name)%s; write the value out instead (aliases are "
                                     "refused: a few of them can expand into gigabytes)." % (label, where))
        raise ReferenceDataError(
            "%s is not valid YAML%s; expected a mapping such as 'track: <kind>'." % (label, where)
        )
    except (OSError, UnicodeDecodeError) as exc:
        raise ReferenceDataError("%s cannot be read (%s)." % (label, exc))
    except RecursionError:
        raise ReferenceDataError("%s nests its values too deeply; expected a flat mapping such as "
                                 "'track: <kind>'." % label)
    if not isinstance(config, dict) or "track" not in config:
        raise ReferenceDataError(
            "%s must be a mapping with at least a 'track' key naming the kind of the track, 'track: <kind>'." % label
        )
    return config


def find_tracks(ref_root, known_kinds):
    """Track directories of a phase: ref/ itself, or its direct sub-directories."""
    if not os.path.isdir(ref_root):
        raise ReferenceDataError(
            "The reference directory %s does not exist; the scoring program expects INPUT/ref." % ref_root
        )
    candidates = []
    # exists, not isfile: a track.yaml that is not a regular file is refused in read_track_yaml.
    if os.path.exists(os.path.join(ref_root, "track.yaml")):
        candidates.append(("", ref_root))
    else:
        for name in visible_entries(ref_root):
            sub = os.path.join(ref_root, name)
            if os.path.isdir(sub) and os.path.exists(os.path.join(sub, "track.yaml")):
                candidates.append((name, sub))
    if not candidates:
        raise ReferenceDataError(
            "No track.yaml found in ref/ or in any of its sub-directories; each track of a phase "
            "needs one naming its kind, 'track: <kind>' (one of %s)." % ", ".join(sorted(known_kinds))
        )
    tracks = []
    for rel, path in candidates:
        label = "ref/" + (rel + "/" if rel else "") + "track.yaml"
        config = read_track_yaml(os.path.join(path, "track.yaml"), label)
        kind = config["track"]
        if kind not in known_kinds:
            raise ReferenceDataError(
                "%s names the track %s; expected one of %s." % (label, brief(kind), ", ".join(sorted(known_kinds)))
            )
        tracks.append(TrackDir(path, rel, kind, config))
    return tracks


def key_prefixes(tracks):
    """Key prefix per track: '' unless two tracks of the same kind share the phase."""
    kinds = [track.kind for track in tracks]
    return [
        (key_name(track.rel) + "_") if kinds.count(track.kind) > 1 else ""
        for track in tracks
    ]


def key_name(text):
    """A name as it appears in a scores key: lower case, non-alphanumerics as '_'."""
    return re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_")


def refuse_empty(res_root):
    """An empty zip (or one holding only archive debris) is refused in plain words."""
    if os.path.isdir(res_root):
        for directory, dirnames, filenames in os.walk(res_root):
            dirnames[:] = [d for d in dirnames if not is_junk(d)]
            if any(not is_junk(name) and not (directory == res_root and is_platform_metadata(res_root, name))
                   for name in filenames):
                return
    raise SubmissionError("The submission is empty; the zip must hold the result files.")


#: How deep folders may nest in a submission (a zip or a tar can carry thousands of levels).
MAX_DEPTH = 64

_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def refuse_unsafe_entries(res_root, ref_root):
    """Before anything is opened: only folders and regular files in res/.

    Symbolic links, named pipes (opening one blocks forever), sockets and devices are
    refused, and so is a hard link to a file of ref/ (it would score the ground truth);
    folders nest at most MAX_DEPTH levels. The tree is walked with a list, not by
    recursion, so that no depth exhausts the interpreter's stack.
    """
    linked = []  # (relative path, (device, inode)) of regular files with several names
    pending = [("", 0)]
    while pending:
        rel, depth = pending.pop()
        for name in sorted(_list(res_root, rel)):
            child = rel + "/" + name if rel else name
            info = _lstat(res_root, child)
            if stat.S_ISDIR(info.st_mode):
                if depth + 1 > MAX_DEPTH:
                    raise SubmissionError(
                        "The submission nests folders more than %d levels deep (%s...); zip the result files "
                        "at the top level or in the folders the phase expects." % (MAX_DEPTH, child[:120]))
                pending.append((child, depth + 1))
            elif stat.S_ISREG(info.st_mode):
                if info.st_nlink > 1:
                    linked.append((child, (info.st_dev, info.st_ino)))
            elif stat.S_ISLNK(info.st_mode):
                raise SubmissionError(
                    "The submission contains a symbolic link, %s; submit regular files only "
                    "(links are refused so that nothing outside the submission is read)." % child)
            else:
                kind = next((text for test, text in _KINDS if test(info.st_mode)), "not a regular file")
                raise SubmissionError("The submission's %s is %s; submit regular files and folders only."
                                      % (child, kind))
    if linked:
        reference = _file_ids(ref_root)
        for child, key in linked:
            if key in reference:
                raise SubmissionError("The submission's %s is a hard link to a file of the reference data; "
                                      "submit your own result files." % child)


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
                              "nested folders." % (rel[:120], exc.strerror))


def _file_ids(root):
    """(device, inode) of every regular file under `root` (links followed only at the root)."""
    ids = set()
    pending = [os.path.realpath(root)]
    while pending:
        directory = pending.pop()
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            path = os.path.join(directory, name)
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if stat.S_ISDIR(info.st_mode):
                pending.append(path)
            elif stat.S_ISREG(info.st_mode):
                ids.add((info.st_dev, info.st_ino))
    return ids


def check_regular(path, shown, error):
    """Refuse anything but a regular file (a FIFO would block the read forever, a device
    never end), before opening it."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise error("%s cannot be read (%s)." % (shown, exc.strerror))
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else next(
            (text for test, text in _KINDS if test(info.st_mode)), "not a regular file")
        raise error("%s is %s; expected a regular file." % (shown, kind))
    return info


class Submission(object):
    """The participant's files for one track, with every path confined to res/."""

    def __init__(self, res_root, base, shown_prefix=""):
        self.res_root = os.path.realpath(res_root)
        self.base = base  # absolute directory holding this track's files
        self.shown_prefix = shown_prefix  # how messages name the base, e.g. 'authentication/'
        self.kind = None  # the kind of the track it is for, set by submission_for

    def path(self, *parts):
        """The absolute path of a file of this track, refused if it leaves res/."""
        rel = "/".join(parts)
        full = os.path.join(self.base, *parts)
        if os.path.islink(full) or not os.path.realpath(full).startswith(self.res_root + os.sep):
            raise SubmissionError(
                "%s leaves the submission folder or is a link; submit regular files only." % self.name(rel)
            )
        return full

    def name(self, *parts):
        """How messages name a file: its path inside the submission as zipped."""
        return self.shown_prefix + "/".join(parts)

    def exists(self, *parts):
        return os.path.exists(os.path.join(self.base, *parts))

    def isfile(self, *parts):
        return os.path.isfile(self.path(*parts))

    def isdir(self, *parts):
        return os.path.isdir(os.path.join(self.base, *parts))

    def entries(self, *parts):
        """Sorted visible names in a directory of the submission ([] if absent)."""
        directory = os.path.join(self.base, *parts)
        if not os.path.isdir(directory):
            return []
        if os.path.realpath(directory) == self.res_root:
            return participant_entries(directory)
        return visible_entries(directory)

    def missing(self, rel, expected_what):
        """A SubmissionError for a missing file, with a hint to the fix (hints.py) if any."""
        from . import hints

        hint = hints.missing_file(self, rel, self.kind)
        return SubmissionError("The submission has no %s; expected %s%s." % (self.name(rel), expected_what, hint))


def submission_for(track, res_root, all_tracks, log):
    """Where the submission's files for `track` are: res/<dir>/ or res/, or the one
    top-level folder of the submission when the participant zipped a folder."""
    if not os.path.isdir(res_root):
        raise SubmissionError("The submission is empty; the zip must hold the result files.")
    submission = _submission_for(track, res_root, all_tracks, log)
    submission.kind = track.kind
    return submission


def _submission_for(track, res_root, all_tracks, log):
    rel = track.rel
    primary = os.path.join(res_root, rel) if rel else res_root
    top = _single_top_folder(res_root)
    if top is not None:
        if rel:
            expected = set(t.rel for t in all_tracks)
        else:
            expected = set(name for name in visible_entries(track.path)
                           if os.path.isdir(os.path.join(track.path, name)))
        use_top = top not in expected and not (rel and os.path.isdir(primary))
        if use_top:
            log.info("The submission holds a single folder, %s/; its content is scored as the submission." % top)
            base = os.path.join(res_root, top, rel) if rel else os.path.join(res_root, top)
            return Submission(res_root, base, top + "/" + (rel + "/" if rel else ""))
    if rel and not os.path.isdir(primary):
        from . import hints

        raise SubmissionError(
            "The submission has no folder %s/; this phase expects one folder per track (%s)%s."
            % (rel, ", ".join(t.rel + "/" for t in all_tracks), hints.folder_case(res_root, rel))
        )
    return Submission(res_root, primary, rel + "/" if rel else "")


def _single_top_folder(res_root):
    """The one folder at the top of res/ when the participant zipped a folder; the
    platform's status file beside it does not count (see is_platform_metadata)."""
    names = participant_entries(res_root)
    if len(names) == 1 and os.path.isdir(os.path.join(res_root, names[0])):
        return names[0]
    return None
