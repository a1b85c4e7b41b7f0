"""Unpack a zip within bounds: the one extractor of compare.py, check_submission.py and the
EvalAI evaluation script (which imports it from the program/ beside it; standard library only).

A zip's directory declares each member's size, and a few megabytes can declare terabytes
(a "zip bomb"). Before anything is written, the members are counted (at most MAX_MEMBERS)
and their declared sizes added up (at most MAX_BYTES, and no more than the free disk); then
each member is written in chunks, counting its bytes, and refused as soon as it holds more
than it declared. Every refusal is one sentence naming the zip as the caller shows it and
the member.

Two ways to read the members' names. strict (compare.py): a member that leaves the folder,
a link, a file and a folder of one name are refused. Otherwise (what a submission meets on
the platforms, whose workers unzip with Python's ZipFile.extractall): names are made safe as
extractall makes them (drive, '..' and '.' parts dropped) and a later member of one name
replaces an earlier one; the bounds hold the same.
"""

import os
import shutil
import stat
import zipfile
import zlib

#: The most members a zip may hold: a submission is a few result files per item (the demo's
#: largest phase has 45 maps); listing and writing 100,000 members takes a minute.
MAX_MEMBERS = 20000
#: The most bytes a zip may unpack into, whatever the free disk (4 GB).
MAX_BYTES = 4 * 1000 ** 3
#: How deep a member's folders may nest: the index of res/ reads no deeper (files.py), and
#: os.makedirs recurses once per folder.
MAX_DEPTH = 64
CHUNK = 1 << 20
#: The compression methods Python's zipfile reads.
METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)


def extract(zip_path, target, shown, error, strict=True, unreadable=None, max_members=MAX_MEMBERS,
            max_bytes=MAX_BYTES):
    """Unpack the zip at zip_path into the folder target (made if absent), or raise
    error(sentence): shown names the zip in sentences (a path, or "The file you uploaded");
    unreadable, if given, is the sentence for a file that is no zip; max_bytes None: the free
    disk alone bounds the bytes (the organizer's reference data may be larger than a submission)."""
    os.makedirs(target, exist_ok=True)
    root = os.path.realpath(target)
    try:
        archive = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError, ValueError, NotImplementedError, EOFError) as exc:
        reason = getattr(exc, "strerror", None) or exc  # an OSError's text would hold the path
        raise error(unreadable or "%s is not a readable zip file (%s)." % (shown, reason))
    with archive:
        members = archive.infolist()
        if len(members) > max_members:
            raise error("%s holds %d members (the first %s); at most %d are unpacked, refused: zip the result files "
                        "alone." % (shown, len(members), members[0].filename, max_members))
        destinations = [_destination(shown, root, member, strict, error) for member in members]
        needed = sum(member.file_size for member in members)
        largest = max(members, key=lambda member: member.file_size) if members else None
        if max_bytes is not None and needed > max_bytes:
            raise error("%s declares %s unpacked (%s alone %s), more than the %s a zip may unpack into; refused."
                        % (shown, _size(needed), largest.filename, _size(largest.file_size), _size(max_bytes)))
        free = shutil.disk_usage(root).free
        if needed > free:
            raise error("%s unpacks into %s (%s alone %s) but the disk has %s free; refused."
                        % (shown, _size(needed), largest.filename, _size(largest.file_size), _size(free)))
        for member, destination in zip(members, destinations):
            _write(shown, archive, member, destination, strict, error)


def _size(count):
    return "%.1f GB" % (count / 1e9) if count >= 1e8 else "%.1f MB" % (count / 1e6)


def _destination(shown, root, member, strict, error):
    """Where a member goes, or error: what strict refuses, and what no extraction can write."""
    name = member.filename
    if member.flag_bits & 0x1:
        raise error("%s holds %s, an encrypted member; zip it again without a password." % (shown, name))
    if member.compress_type not in METHODS:
        raise error("%s holds %s compressed with method %d, which cannot be read; zip it again with the usual "
                    "(deflate) compression." % (shown, name, member.compress_type))
    if name.rstrip("/").count("/") + name.endswith("/") > MAX_DEPTH:
        raise error("%s holds %s, nested more than %d folders deep; zip the result files at the top level or in the "
                    "folders the phase expects." % (shown, name, MAX_DEPTH))
    if strict:
        if stat.S_ISLNK(member.external_attr >> 16):
            raise error("%s holds a symbolic link, %s; links are refused." % (shown, name))
        destination = os.path.realpath(os.path.join(root, name))
        if os.path.isabs(name) or not (destination == root or destination.startswith(root + os.sep)):
            raise error("%s holds %s, a path that leaves the extraction folder; refused." % (shown, name))
    else:  # as ZipFile._extract_member makes a name safe
        parts = os.path.splitdrive(name.replace("/", os.sep))[1].split(os.sep)
        destination = os.path.normpath(os.path.join(root, *[p for p in parts if p not in ("", ".", "..")]))
    if destination == root and not name.endswith("/"):
        raise error("%s holds %s, a file whose path is the extraction folder itself; refused." % (shown, name))
    return destination


def _write(shown, archive, member, destination, strict, error):
    """One member written in chunks, refused once it holds more bytes than it declares."""
    name = member.filename
    try:
        if name.endswith("/"):
            os.makedirs(destination, exist_ok=True)
            return
        os.makedirs(os.path.dirname(destination), exist_ok=True)
        if strict and os.path.lexists(destination):
            raise error("%s holds %s twice, or as both a file and a folder; refused." % (shown, name))
        written = 0
        with archive.open(member) as source, open(destination, "wb") as sink:
            while True:
                chunk = source.read(CHUNK)
                if not chunk:
                    break
                written += len(chunk)
                if written > member.file_size:
                    raise error("%s: the member %s holds more than the %d bytes it declares; refused (its sizes "
                                "lie)." % (shown, name, member.file_size))
                sink.write(chunk)
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise error("%s: the member %s is corrupt (%s); zip the files again." % (shown, name, exc))
    except (RuntimeError, NotImplementedError) as exc:
        raise error("%s: the member %s cannot be read (%s)." % (shown, name, exc))
    except (FileExistsError, NotADirectoryError, IsADirectoryError):
        raise error("%s holds %s twice, or as both a file and a folder; refused." % (shown, name))
    except OSError as exc:
        raise error("%s: the member %s cannot be unpacked (%s)." % (shown, name, exc.strerror or exc))
