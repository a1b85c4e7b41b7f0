"""The Codalab directory layout: tracks in ref/, their options, regular files only.

A track directory is INPUT/ref itself or a direct sub-directory of it holding a
track.yaml. The submission mirrors that layout (docs/organizers.md, "How a phase is laid
out"): files.py indexes it,
matching.py finds each track's files in it.
"""

import os
import stat

from . import names, yamltext
from .errors import ReferenceDataError
from .options import brief
from .unpack import MAX_DEPTH

#: The keys of the status file that the platforms' workers write as res/metadata: Codabench's
#: prediction step writes it beside the participant's files (compute_worker/compute_worker.py,
#: Run.push_output; the scoring step unzips that output as input/res), and Codalab v1.5 writes
#: the same keys (worker.py, run()).
PLATFORM_METADATA_KEYS = frozenset(["exitCode", "elapsedTime", "ingestionExitCode", "ingestionElapsedTime"])
PLATFORM_METADATA_MAX_BYTES = 4096


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
        content = yamltext.read(path, name, _NotMetadata, "%(file)s")
    except _NotMetadata:
        return False
    mappings = content if isinstance(content, list) else [content]
    return bool(mappings) and all(
        isinstance(m, dict) and m and all(k in PLATFORM_METADATA_KEYS for k in m) for m in mappings)


class _NotMetadata(Exception):
    pass


def visible_entries(directory):
    """Sorted names in `directory`, archive litter left out (names.is_litter)."""
    return sorted(name for name in os.listdir(directory) if not names.is_litter(name))


#: The kinds of file that are not regular files, as sentences name them.
FILE_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
              (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


class TrackDir(object):
    """One track of the reference data: where it is, what kind, and its options."""

    def __init__(self, path, rel, kind, config, shown_root="ref"):
        self.path = path  # absolute path of the track directory in ref/
        self.rel = rel  # '' for a root track, else the sub-directory name
        self.kind = kind  # the kind's name (tracks.TRACKS), from track.yaml's `track:`
        self.config = config  # the raw mapping of track.yaml
        self.shown_root = shown_root  # how messages name the reference root: ref, or the organizer's folder

    @property
    def label(self):
        """How messages name this track's reference files: ref/ or ref/<dir>/ (or the
        organizer's own folder, e.g. development/falsid/, when the build reads it)."""
        return self.shown_root.rstrip("/") + "/" + (self.rel + "/" if self.rel else "")

    def ref_name(self, *parts):
        return self.label + "/".join(parts)


def read_track_yaml(path, label):
    check_regular(path, label, ReferenceDataError)
    config = yamltext.read(path, label, ReferenceDataError,
                           "%(file)s is not valid YAML%(where)s; expected a mapping such as 'track: <kind>'.")
    if not isinstance(config, dict) or "track" not in config:
        raise ReferenceDataError(
            "%s must be a mapping with at least a 'track' key naming the kind of the track, 'track: <kind>'." % label
        )
    return config


def find_tracks(ref_root, known_kinds, shown_root="ref"):
    """Track directories of a phase: ref/ itself, or its direct sub-directories.
    shown_root: how messages name ref_root (the build names the organizer's folder)."""
    if not os.path.isdir(ref_root):
        raise ReferenceDataError(  # named as shown, not by its path: the worker's paths are not the page's
            "The reference data folder %s/ is missing; the scoring program reads them from INPUT/%s/ (attach the "
            "phase's reference data)." % (shown_root.rstrip("/"), shown_root.rstrip("/"))
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
            "No track.yaml found in %s/ or in any of its sub-directories; each track of a phase "
            "needs one naming its kind, 'track: <kind>' (one of %s)."
            % (shown_root.rstrip("/"), ", ".join(sorted(known_kinds)))
        )
    tracks = []
    for rel, path in candidates:
        label = shown_root.rstrip("/") + "/" + (rel + "/" if rel else "") + "track.yaml"
        config = read_track_yaml(os.path.join(path, "track.yaml"), label)
        kind = config["track"]
        if kind not in known_kinds:
            raise ReferenceDataError(
                "%s names the track %s; expected one of %s." % (label, brief(kind), ", ".join(sorted(known_kinds)))
            )
        tracks.append(TrackDir(path, rel, kind, config, shown_root))
    return tracks


def track_files(track):
    """Every file under a track's folder but its track.yaml, as '/'-separated paths relative
    to it, archive litter (names.is_litter) left out, sorted. Walked with a list, not by
    recursion (os.walk recurses before Python 3.12), at most MAX_DEPTH folders deep, as the
    submission is (files.index_submission); a link to a folder is not followed."""
    found, pending = [], [("", 0)]
    while pending:
        rel, depth = pending.pop()
        folder = os.path.join(track.path, *rel.split("/")) if rel else track.path
        if depth > MAX_DEPTH:
            raise ReferenceDataError("%s nests folders more than %d levels deep (%s...); the reference data of a "
                                     "track are the files its kind reads, a few folders deep at most."
                                     % (track.label, MAX_DEPTH, rel[:120]))
        try:
            entries = os.listdir(folder)
        except OSError as exc:
            raise ReferenceDataError("%s cannot be listed (%s)." % (track.ref_name(rel) or track.label,
                                                                     exc.strerror))
        for name in entries:
            if names.is_litter(name):
                continue
            child = rel + "/" + name if rel else name
            path = os.path.join(folder, name)
            if os.path.isdir(path) and not os.path.islink(path):
                pending.append((child, depth + 1))
            elif os.path.isdir(path):
                continue  # os.walk's way: a link to a folder is listed as no file and not walked
            elif not (rel == "" and name == "track.yaml"):
                found.append(child)
    return sorted(found)


def refuse_unread(track, read, holds):
    """Nothing of the organizer's is ignored in silence: every file of the track's folder is
    one its kind reads (read: the kind's reference_files(track)), or the phase is refused
    naming the files that are not. holds: what the kind's reference data are, in a few words
    (its REFERENCE)."""
    taken = set(read)
    unread = [rel for rel in track_files(track) if rel not in taken]
    if not unread:
        return
    nested = next((rel for rel in unread if "/" in rel), None)
    how = ""
    if nested is not None:
        how = (" If a name holds '/', write it with '\u2215' (U+2215 DIVISION SLASH) in the file's name, as in %s "
               "(docs/organizers.md, \"Names that a file name cannot hold\")." % nested.replace("/", "\u2215", 1))
    which = (track.ref_name(unread[0]) + " is" if len(unread) == 1 else
             "%d files of %s are" % (len(unread), track.label) + " (%s)" % names.shown_list(unread)) + " not read"
    raise ReferenceDataError("%s: the reference data of a track of kind %s are %s; move every other file out of %s "
                             "or remove it.%s" % (which, track.kind, holds, track.label, how))


def key_prefixes(tracks):
    """Key prefix per track: '' unless two tracks of the same kind share the phase."""
    kinds = [track.kind for track in tracks]
    return [
        (names.key_name(track.rel) + "_") if kinds.count(track.kind) > 1 else ""
        for track in tracks
    ]


def check_regular(path, shown, error):
    """Refuse anything but a regular file (a FIFO would block the read forever, a device
    never end), before opening it."""
    try:
        info = os.stat(path)
    except OSError as exc:
        raise error("%s cannot be read (%s)." % (shown, exc.strerror))
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else next(
            (text for test, text in FILE_KINDS if test(info.st_mode)), "something else")
        check_regular_refusal(shown, kind, error)
    return info


def check_regular_refusal(shown, kind, error, holds=""):
    """The refusal of `shown`, which is `kind` (a folder, a named pipe...) where a file is
    expected; holds: what a folder holds, in brackets."""
    raise error("%s is %s, not a regular file%s; put the file itself in its place." % (shown, kind, holds))
