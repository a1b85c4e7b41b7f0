"""Reader of the authentication track (FalsID): ground truth, labels, distances.

Turns the files of ref/ and res/ into canonical arrays aligned on the ground truth's
image order, or raises an error naming the file, the line and what was expected.
"""

import io
import os
import struct
import zipfile

import numpy as np

from .. import memory, names
from ..errors import ReferenceDataError, SubmissionError
from ..layout import check_regular
from ..memory import memory_guard
from .text import (NUMBER, bounded_line, cell_text, csv_rows, decimal_values, decode_lines, line_too_long, parse_number,
                   read_bytes, read_csv_table)

AUTHENTIC, IMITATION = 0, 1


class Subset(object):
    """The ground truth of one subset: image names and labels (0 authentic, 1 imitation)."""

    def __init__(self, name, filenames, labels):
        self.name = name
        self.filenames = filenames
        self.labels = np.asarray(labels, dtype=np.int8)


def parse_label(text, subset_name):
    """0 or 1 for '0'/'1', 'authentic'/'imitation', '<Subset>'/'not-<Subset>' (the
    subset's name in any case and Unicode form); else None."""
    value = names.canonical(text.strip()).lower()
    subset = names.canonical(subset_name).lower()
    if value in ("0", "authentic", subset):
        return AUTHENTIC
    if value in ("1", "imitation", "not-" + subset):
        return IMITATION
    return None


def allowed_labels(subset_name):
    return "0/1, authentic/imitation or %s/not-%s" % (subset_name, subset_name)


def subset_files(track_path):
    """The subsets' files of a track: one <Subset>.csv per subset in ref/ (archive litter
    such as macOS's ._<Subset>.csv left out)."""
    return sorted(name for name in os.listdir(track_path)
                  if name.lower().endswith(".csv") and not names.is_litter(name)
                  and os.path.isfile(os.path.join(track_path, name)))


def subset_names(track_path):
    """The subsets of a track, from their files (subset_files)."""
    return [os.path.splitext(name)[0] for name in subset_files(track_path)]


def read_ground_truth(track):
    found = subset_names(track.path)
    if not found:
        raise ReferenceDataError(
            "%s holds no <Subset>.csv ground-truth file; expected one per subset (e.g. Writer_A.csv) with columns "
            "filename,label."
            % track.label
        )
    subsets = []
    for name in found:
        shown = track.ref_name(name + ".csv")
        index, rows = read_csv_table(os.path.join(track.path, name + ".csv"), shown,
                                     ["filename", "label"], error=ReferenceDataError)
        filenames, labels = [], []
        for line, cells in rows:
            filename, text = cells[index["filename"]], cells[index["label"]]
            label = parse_label(text, name)
            if label is None:
                raise ReferenceDataError("%s line %d has the label %r; expected %s."
                                         % (shown, line, text, allowed_labels(name)))
            filenames.append(filename)
            labels.append(label)
        names.refuse_repeats(filenames, shown, ReferenceDataError, [line for line, _ in rows])
        if not filenames:
            raise ReferenceDataError("%s lists no image." % shown)
        subsets.append(Subset(name, filenames, labels))
    return subsets


def match_names(submitted, truth, shown, log):
    """For each ground-truth name, the index of its entry in `submitted`.

    Exact names first; a name still unmatched is matched on its composed form
    (names.canonical: a name typed decomposed, as macOS writes it, is the same name),
    then on that form without the extension, each when unambiguous on both sides.
    Missing names are an error; extra names are ignored with a warning.
    """
    position = dict((name, i) for i, name in enumerate(submitted))
    order = [position.get(name) for name in truth]
    for key, how in ((names.canonical, "in their composed Unicode form"),
                     (lambda name: os.path.splitext(names.canonical(name))[0], "without their extension")):
        unmatched_truth = [j for j, i in enumerate(order) if i is None]
        if not unmatched_truth:
            break
        used = set(i for i in order if i is not None)
        by_key_submitted = {}
        for i, name in enumerate(submitted):
            if i not in used:
                by_key_submitted.setdefault(key(name), []).append(i)
        by_key_truth = {}
        for j in unmatched_truth:
            by_key_truth.setdefault(key(truth[j]), []).append(j)
        matched = 0
        for value, truth_indices in by_key_truth.items():
            candidates = by_key_submitted.get(value, [])
            if len(truth_indices) == 1 and len(candidates) == 1:
                order[truth_indices[0]] = candidates[0]
                matched += 1
        if matched:
            example = next(j for j in unmatched_truth if order[j] is not None)
            log.info("%s: %d names matched %s (e.g. %s as %s)."
                     % (shown, matched, how, submitted[order[example]], truth[example]))
    missing = [truth[j] for j, i in enumerate(order) if i is None]
    if missing:
        raise SubmissionError(
            "%s lacks %d of the %d images of the ground truth, e.g. %s; every image must be listed."
            % (shown, len(missing), len(truth), ", ".join(missing[:3]))
        )
    extra = len(submitted) - len(truth)
    if extra > 0:
        used = set(order)
        examples = [name for i, name in enumerate(submitted) if i not in used][:3]
        log.warn("%s lists %d names that are not in the ground truth (ignored), e.g. %s."
                 % (shown, extra, ", ".join(examples)))
    return np.asarray(order, dtype=np.int64)


def read_subset_labels(path, shown, subset):
    index, rows = read_csv_table(path, shown, ["filename", "label"], optional=["subset"])
    listed, labels, lines = [], [], []
    for line, cells in rows:
        text = cells[index["label"]]
        label = parse_label(text, subset.name)
        if label is None:
            raise SubmissionError("%s line %d has the label %r; expected %s."
                                  % (shown, line, text, allowed_labels(subset.name)))
        listed.append(cells[index["filename"]])
        labels.append(label)
        lines.append(line)
    names.refuse_repeats(listed, shown, SubmissionError, lines)
    return listed, labels


def read_merged_labels(path, shown, subsets):
    """labels.csv covering all subsets: (names, labels) per subset name."""
    index, rows = read_csv_table(path, shown, ["filename", "label"], optional=["subset"])
    by_lower = dict((names.canonical(s.name).lower(), s) for s in subsets)
    owner = {}
    for s in subsets:
        for filename in s.filenames:
            owner.setdefault(filename, []).append(s.name)
            owner.setdefault(os.path.splitext(filename)[0], []).append(s.name)
    per_subset = dict((s.name, ([], [], [])) for s in subsets)
    for line, cells in rows:
        filename, text = cells[index["filename"]], cells[index["label"]]
        named = None
        if "subset" in index:
            named = by_lower.get(names.canonical(cells[index["subset"]]).lower())
            if named is None:
                guess = names.near_name(cells[index["subset"]], [s.name for s in subsets])
                given = cells[index["subset"]]
                raise SubmissionError("%s line %d names the subset %r; %s" % (
                    shown, line, given, "the test set has %s, %s: write it %s." % (
                        guess, names.how_it_differs(given, guess), guess) if guess else
                    "expected one of %s." % names.shown_list([s.name for s in subsets])))
        value = names.canonical(text).lower()
        by_label = by_lower.get(value[4:] if value.startswith("not-") else value)
        if named is not None and by_label is not None and by_label is not named:
            raise SubmissionError("%s line %d says subset %s but the label %r names %s; make them agree."
                                  % (shown, line, named.name, text, by_label.name))
        subset = named or by_label
        if subset is None:
            candidates = owner.get(filename) or owner.get(os.path.splitext(filename)[0]) or []
            if len(set(candidates)) != 1:
                raise SubmissionError(
                    "%s line %d: the subset of %s cannot be told from its name or its label %r; add a subset "
                    "column or use labels like <Subset>/not-<Subset> (e.g. %s/not-%s)."
                    % (shown, line, filename, text, subsets[0].name, subsets[0].name))
            subset = by_lower[names.canonical(candidates[0]).lower()]
        label = parse_label(text, subset.name)
        if label is None:
            raise SubmissionError("%s line %d has the label %r for subset %s; expected %s."
                                  % (shown, line, text, subset.name, allowed_labels(subset.name)))
        listed, labels, lines = per_subset[subset.name]
        listed.append(filename)
        labels.append(label)
        lines.append(line)
    for listed, _, lines in per_subset.values():
        names.refuse_repeats(listed, shown, SubmissionError, lines)
    return dict((name, (v[0], v[1])) for name, v in per_subset.items())


# ---------------------------------------------------------------- distances


def check_memory(n, itemsize, shown):
    needed = n * n * itemsize
    if not memory.fits(needed):
        available = memory.available_memory()
        raise SubmissionError(
            "%s is a %d x %d matrix that needs %.1f GB of memory but the scoring machine has %.1f GB free; "
            "submit it as %s_distances.npz with float32 distances, or check its size."
            % (shown, n, n, needed / 1e9, available / 1e9, shown.rsplit("_distances", 1)[0].split("/")[-1])
        )


def readable(path, shown):
    """Refuse a file the system does not let the program open (its permissions), naming it,
    before a reader whose own errors would call it malformed."""
    try:
        open(path, "rb").close()
    except (OSError, IOError) as exc:
        raise SubmissionError("%s cannot be read (%s)." % (shown, exc.strerror or exc))


def read_distances_npz(path, shown):
    """names and distances of an .npz, every size decided from the arrays' headers before
    anything is decompressed: a few kilobytes may declare gigabytes."""
    check_regular(path, shown, SubmissionError)
    readable(path, shown)
    try:
        archive = np.load(path, allow_pickle=False)
    except Exception:
        raise SubmissionError("%s is not a readable .npz archive; save it with numpy.savez(names=..., distances=...)."
                              % shown)
    with archive:
        members = set(archive.files)
        if not set(["names", "distances"]) <= members:
            raise SubmissionError("%s holds the arrays %s; expected 'names' and 'distances'."
                                  % (shown, ", ".join(sorted(members)) or "none"))
        try:
            shape, _, dtype, member = _npy_header(archive, "names", shown)
            if len(shape) != 1 or dtype.kind not in "US":
                raise SubmissionError("%s: 'names' must be a 1-D array of strings (found %s of shape %s)."
                                      % (shown, dtype, shape))
            n = shape[0]
            if not memory.fits(n * dtype.itemsize):
                raise SubmissionError("%s: 'names' declares %d strings of %d bytes, more than the memory the "
                                      "scoring machine has; check the array." % (shown, n, dtype.itemsize))
            _refuse_impossible_size(member, shape, dtype, shown, "names")
            shape, _, dtype, member = _npy_header(archive, "distances", shown)
            if dtype.kind not in "fiu":
                raise SubmissionError("%s: 'distances' must hold numbers (found %s)." % (shown, dtype))
            if len(shape) != 2 or shape[0] != shape[1]:
                raise SubmissionError("%s: the distance matrix is %s; expected a square %d x %d matrix."
                                      % (shown, " x ".join(str(s) for s in shape) or "a scalar", n, n))
            if shape[0] != n:
                raise SubmissionError("%s has %d names for a %d x %d matrix; expected one name per row."
                                      % (shown, n, shape[0], shape[1]))
            check_memory(n, max(8, dtype.itemsize), shown)
            _refuse_impossible_size(member, shape, dtype, shown, "distances")
            with memory_guard("%s: decoding its arrays needs more memory than the scoring machine has." % shown,
                              SubmissionError):
                names = archive["names"]
                distances = _read_stored_member(path, archive, "distances")
                if distances is None:
                    distances = archive["distances"]
        except ValueError as exc:
            if "pickle" in str(exc) or "object" in str(exc).lower():
                raise SubmissionError("%s holds object arrays; save names as strings and distances as floats "
                                      "(pickled objects are refused)." % shown)
            raise SubmissionError("%s: the array 'distances' cannot be read (%s); save it with numpy.savez."
                                  % (shown, exc))
        except (IOError, OSError, EOFError, zipfile.BadZipfile, NotImplementedError, RuntimeError) as exc:
            raise SubmissionError("%s: an array cannot be read (%s); save it again with numpy.savez."
                                  % (shown, getattr(exc, "strerror", None) or exc))  # no path of the worker
    names = [n.decode("utf-8", "replace") if isinstance(n, bytes) else str(n) for n in names.tolist()]
    where = lambda i, j: "distances[%d, %d]" % (i, j)  # noqa: E731
    if distances.dtype.kind != "f":
        if distances.shape == (len(names), len(names)):
            _refuse_beyond_exact(distances, names, shown, where)
        distances = distances.astype(np.float64)
    return names, _checked_matrix(distances, names, shown, where)


#: numpy's own bound on a .npy header (numpy.lib.format, 1.24+): a real one is ~100 bytes.
MAX_HEADER = 10000


def _npy_header(archive, key, shown):
    """(shape, fortran_order, dtype) of the member key.npy, from its first bytes only.

    The header's length is bounded before it is read (a version 2 header may declare
    4 GB) and parsed by numpy under a guard: a deeply nested header makes Python 3.7's
    parser raise MemoryError, newer ones RecursionError.
    """
    try:
        info = archive.zip.getinfo(key + ".npy")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise SubmissionError("%s: the array %r is compressed with method %d; save it with numpy.savez or "
                                  "numpy.savez_compressed." % (shown, key, info.compress_type))
        with archive.zip.open(info) as stream:
            start = stream.read(8)
            if len(start) < 8 or start[:6] != b"\x93NUMPY" or start[6] not in (1, 2):
                raise SubmissionError("%s: the array %r is not a .npy array of format 1 or 2; save it with "
                                      "numpy.savez." % (shown, key))
            size_bytes = stream.read(2 if start[6] == 1 else 4)
            length = struct.unpack("<H" if start[6] == 1 else "<I", size_bytes)[0] if len(size_bytes) in (2, 4) else 0
            if not 0 < length <= MAX_HEADER:
                raise SubmissionError("%s: the array %r declares a header of %d bytes; a .npy header is at most "
                                      "%d." % (shown, key, length, MAX_HEADER))
            header = stream.read(length)
    except (KeyError, OSError, EOFError, zipfile.BadZipfile, NotImplementedError, RuntimeError) as exc:
        raise SubmissionError("%s: an array cannot be read (%r: %s); save it again with numpy.savez."
                              % (shown, key, getattr(exc, "strerror", None) or exc))
    parse = np.lib.format.read_array_header_1_0 if start[6] == 1 else np.lib.format.read_array_header_2_0
    try:
        shape, fortran_order, dtype = parse(io.BytesIO(size_bytes + header))
    except Exception:  # ValueError, SyntaxError, MemoryError (3.7), RecursionError, tokenize.TokenError (3.12)
        # numpy's own words differ from version to version: the sentence is the program's.
        raise SubmissionError("%s: the header of the array %r cannot be read (expected a dictionary like {'descr': "
                              "'<f8', 'fortran_order': False, 'shape': (3, 3)}); save it with numpy.savez."
                              % (shown, key))
    if dtype.hasobject:
        raise SubmissionError("%s holds object arrays; save names as strings and distances as floats "
                              "(pickled objects are refused)." % shown)
    shape = tuple(shape)
    return shape, fortran_order, dtype, (info, len(start) + len(size_bytes) + length)


#: Deflate cannot expand its input more than about 1032 times.
DEFLATE_RATIO = 1100


def _refuse_impossible_size(member, shape, dtype, shown, key):
    """The bytes that `shape` and `dtype` declare must be in the member: its uncompressed
    size (from the zip's directory) and, for a deflated member, what its compressed size
    can expand to. A few kilobytes never become the gigabytes a header declares."""
    info, header = member
    needed = header + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if info.file_size < needed or (info.compress_type == zipfile.ZIP_DEFLATED
                                   and needed > info.compress_size * DEFLATE_RATIO):
        raise SubmissionError("%s: the array %r declares %s values (%d bytes) but the archive holds %d bytes "
                              "(%d compressed) for it; save it again with numpy.savez."
                              % (shown, key, " x ".join(str(v) for v in shape), needed, info.file_size,
                                 info.compress_size))


def _read_stored_member(path, archive, key):
    """The array `key` of an uncompressed .npz (numpy.savez's default) mapped from the file
    itself, copy-on-write: its pages are the kernel's cached pages of the file, neither
    copied nor zero-filled first, which saves most of the system time of a read into a
    fresh array. None when the member is
    compressed or not a plain .npy, or the file cannot be mapped (the caller then uses
    numpy.load's way). Object arrays are refused as numpy.load refuses them (ValueError),
    and a file that ends inside the array as a short read was (EOFError)."""
    try:
        info = archive.zip.getinfo(key + ".npy")
    except (AttributeError, KeyError):
        return None
    if info.compress_type != zipfile.ZIP_STORED:
        return None
    with open(path, "rb") as stream:
        stream.seek(info.header_offset)
        local = stream.read(30)
        if len(local) != 30 or local[:4] != b"PK\x03\x04":
            return None
        name_length, extra_length = struct.unpack("<HH", local[26:30])
        stream.seek(info.header_offset + 30 + name_length + extra_length)
        version = np.lib.format.read_magic(stream)
        if version == (1, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(stream)
        elif version == (2, 0):
            shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            return None
        if dtype.hasobject:
            raise ValueError("Object arrays cannot be loaded when allow_pickle=False")
        offset = stream.tell()
        size = os.fstat(stream.fileno()).st_size
    count = int(np.prod(shape, dtype=np.int64))
    if offset + count * dtype.itemsize > size:
        raise EOFError("the array ends after %d of its %d bytes" % (max(0, size - offset), count * dtype.itemsize))
    if count == 0:
        array = np.empty(0, dtype=dtype)
    else:
        try:
            array = np.asarray(np.memmap(path, dtype=dtype, mode="c", offset=offset, shape=(count,)))
        except (OSError, ValueError):  # a file system that cannot map files: numpy.load's way
            return None
    if fortran_order:
        return array.reshape(shape[::-1]).transpose()
    return array.reshape(shape)


def _checked_matrix(distances, names, shown, where):
    """A square float matrix of len(names) rows, refused if it holds a NaN. Every other
    float is a distance: floats order exactly at any magnitude, and inf is farther (-inf
    nearer) than every number."""
    n = len(names)
    if distances.ndim != 2 or distances.shape[0] != distances.shape[1]:
        raise SubmissionError("%s: the distance matrix is %s; expected a square %d x %d matrix."
                              % (shown, " x ".join(str(s) for s in distances.shape), n, n))
    if distances.shape[0] != n:
        raise SubmissionError("%s has %d names for a %d x %d matrix; expected one name per row."
                              % (shown, n, distances.shape[0], distances.shape[1]))
    bad = _first_nan(distances)
    if bad is not None:
        i, j = bad
        raise SubmissionError("%s %s (%s to %s) is nan; every distance must be a number (inf for the farthest)."
                              % (shown, where(i, j), names[i], names[j]))
    return distances


def _first_nan(distances):
    """(row, column) of the first NaN, or None: the maximum of each slice of rows of about
    1 MB, taken while it is in the cache (a NaN makes it NaN), and only a slice whose
    maximum is NaN searched cell by cell."""
    rows = max(1, (1 << 20) // max(1, distances.shape[1] * distances.itemsize))
    for start in range(0, distances.shape[0], rows):
        block = distances[start:start + rows]
        if block.size and np.isnan(block.max()):
            i, j = np.argwhere(np.isnan(block))[0]
            return start + int(i), int(j)
    return None


#: The largest integer distance accepted: up to 2^53 a float64 holds every integer exactly;
#: beyond it neighbouring integers (9007199254740993 and ...992) would become equal, ties
#: that were not submitted. Floats need no bound: they are read as the floats they are.
LARGEST_INTEGER = 2 ** 53


def _refuse_beyond_exact(distances, names, shown, where):
    """Integer distances are read as float64: any magnitude above 2^53 is refused."""
    limit = LARGEST_INTEGER
    if distances.size == 0 or (distances.max() <= limit and distances.min() >= -limit):
        return  # two passes without a copy of the matrix
    big = (distances > limit) | (distances < -limit)
    i, j = (int(v) for v in np.argwhere(big)[0])
    raise SubmissionError("%s %s (%s to %s) is the integer %s, beyond 2^53 = 9007199254740992, where integers stop "
                          "being exact as float64 (neighbouring integers become equal); scale the distances down "
                          "or save them as floats." % (shown, where(i, j), names[i], names[j], distances[i, j]))


def _split_name(line):
    """(name, rest) of a data line (bytes) of the labeled CSV: the name decoded and
    stripped, the rest the bytes after the name's comma; (None, None) without a comma
    after the name or for a name that is not UTF-8. The name may be quoted as CSV quotes
    it ("" for a double quote inside)."""
    if line.startswith(b'"'):
        position = 1
        while True:
            end = line.find(b'"', position)
            if end < 0:
                return None, None
            if line.startswith(b'"', end + 1):
                position = end + 2
                continue
            if not line.startswith(b",", end + 1):
                return None, None
            name, rest = line[1:end].replace(b'""', b'"'), line[end + 2:]
            break
    else:
        comma = line.find(b",")
        if comma < 0:
            return None, None
        name, rest = line[:comma], line[comma + 1:]
    try:
        return name.decode("utf-8").strip(), rest
    except UnicodeDecodeError:
        return None, None


def read_distances_csv(path, shown):
    """A square labeled matrix: header ',name1,name2,...', then 'name_i,d_i1,d_i2,...'.

    Rows of one layout (names of one width, cells like 0.123456 of one width, as
    programs write them) are converted from their bytes a block of rows at a time,
    straight into the matrix; any other file is read a block of rows at a time, every
    cell a number of text.NUMBER (quotes and spaces around it allowed), whatever numpy
    would accept. A failure is re-read row by row to name the first bad cell.
    """
    check_regular(path, shown, SubmissionError)
    readable(path, shown)
    with open(path, "rb") as stream:
        head = bounded_line(stream, shown, 1, limit=ROW_LIMIT)
        if b"\r" in head.rstrip(b"\r\n"):  # lines ended by CR alone (classic Mac OS)
            data = read_bytes(path, shown, limit=ROW_LIMIT)
            stream = io.BytesIO(data.replace(b"\r\n", b"\n").replace(b"\r", b"\n"))
            head = stream.readline()
        header = decode_lines(head, shown)
        if not header:
            raise SubmissionError("%s is empty; expected a header row of file names." % shown)
        cells = csv_rows(header[:1], shown, SubmissionError)[0][1]
        if len(cells) < 2:
            raise SubmissionError("%s line 1 should be the header ',name1,name2,...' (found %r); "
                                  "separate the cells with commas." % (shown, header[0][:60]))
        names = [c.strip() for c in cells[1:]]
        if all(_is_number(c) for c in cells[1:]):
            raise SubmissionError("%s line 1 holds numbers; expected a header row of file names "
                                  "(top-left cell empty)." % shown)
        n = len(names)
        check_memory(n, 8, shown)
        row_names = []
        distances = _parse_fixed_width(stream, n, row_names, shown)
        fixed_width = distances is not None
        if not fixed_width:
            del row_names[:]
            stream.seek(len(head))
            distances = _parse_rows(stream, n, row_names, shown)
    if distances is None or len(row_names) != n:
        _diagnose_csv(path, shown, n)
        raise SubmissionError("%s is not a %d x %d labeled matrix; expected a header row and one row per image."
                              % (shown, n, n))
    for i, (row, column) in enumerate(zip(row_names, names)):
        if row != column:
            raise SubmissionError("%s line %d is named %s but column %d is %s; rows and columns must list "
                                  "the same names in the same order." % (shown, i + 2, row, i + 1, column))
    if fixed_width:
        return names, distances  # at most 15 digits a cell: no NaN
    where = lambda i, j: "line %d, column %d" % (i + 2, j + 2)  # noqa: E731
    return names, _checked_matrix(distances, names, shown, where)


#: The longest line of a distance matrix (bytes): a row of n cells, or the header of n
#: names. A line of 64 MiB holds millions of cells, whose matrix (terabytes) no machine
#: holds, or names far longer than anyone gives; a longer line is refused as soon as that
#: much of it is read, not after filling the memory.
ROW_LIMIT = 1 << 26
#: Bytes of rows read at a time by the fixed-width path.
_BLOCK_BYTES = 1 << 24
#: Bytes of rows converted at a time: a group stays in the cache while each digit column
#: is read from it, rather than read from memory once per digit.
_GROUP_BYTES = 1 << 19


def _parse_fixed_width(stream, n, row_names, shown):
    """The (n, n) distances of rows that all share the first row's layout, read from
    `stream` (after the header) a block of rows at a time into the matrix: each row is
    a name of one width, a comma, then n cells of one width separated by commas, each
    cell digits with the dot (if any) in one column, at most 15 digits, then one line
    end (LF or CRLF) like the first row's. A cell's digits make an integer M < 10**15
    and M / 10**k is one correctly rounded division of exact doubles (Clinger's fast
    path), the value float() and numpy.loadtxt give. None when any row departs from the
    layout or the file does not end after n rows (the caller then reads it the general
    way); row_names receives the stripped names."""
    first = bounded_line(stream, shown, 2, limit=ROW_LIMIT)
    layout = _row_layout(first, n)
    if layout is None:
        return None
    name_width, cell_width, length = layout
    cells = first[name_width + 1:length - (2 if first.endswith(b"\r\n") else 1)].split(b",", 1)[0]
    dot = cells.find(b".")
    digit_columns = [j for j in range(cell_width) if j != dot]
    if len(digit_columns) > 15 or not cells.replace(b".", b"", 1).isdigit():
        return None
    places = cell_width - 1 - dot if dot >= 0 else 0
    # The bytes after the name's comma: n cells and their commas, the last comma's place
    # taken by the line end (1 or 2 bytes).
    mask = np.tile(np.frombuffer(b"0" * cell_width + b",", dtype=np.uint8), n)
    if dot >= 0:
        mask[dot::cell_width + 1] = 46
    mask = np.concatenate((mask[:-1], np.frombuffer(first[name_width + n * (cell_width + 1):], dtype=np.uint8)))
    limit = np.where(mask == 48, 9, 0).astype(np.uint8)
    exact = np.int32 if len(digit_columns) <= 9 else np.int64
    distances = memory.large_empty((n, n), np.float64)
    rows = max(1, min(n, _BLOCK_BYTES // length))
    block = np.empty(rows * length, dtype=np.uint8)
    block[:length] = np.frombuffer(first, dtype=np.uint8)
    done, have = 0, length
    while done < n:
        count = min(rows, n - done)
        want = count * length
        got = have + _read_available(stream, memoryview(block)[have:want])
        have = 0
        if got == want - 1 and done + count == n and block[got - 1] != 10:
            block[got] = 10  # the last row without its line end
            got += 1
        if got != want:
            return None
        matrix = block[:want].reshape(count, length)
        if not _block_values(matrix, layout, (limit, mask), dot, digit_columns, exact, places,
                             distances[done:done + count]):
            return None
        names = matrix[:, :name_width].copy().view("S%d" % name_width).ravel().tolist()
        try:
            row_names.extend(name.decode("utf-8").strip() for name in names)
        except UnicodeDecodeError:
            return None
        done += count
    if stream.read(1):
        return None  # more than n rows, or blank lines: the general path decides
    return distances


_POWERS = 10.0 ** np.arange(16)  # exact doubles


def _row_layout(line, n):
    """(name width, cell width, line length) of a row 'name,cell,...,cell' + line end
    with n cells of one width and a plain name; None otherwise."""
    if not line.endswith(b"\n") or line.startswith(b'"'):
        return None
    end = len(line) - (2 if line.endswith(b"\r\n") else 1)
    name_width = line.find(b",")
    if name_width < 1:
        return None
    cell_width = line.find(b",", name_width + 1) - name_width - 1
    if n == 1:
        cell_width = end - name_width - 1
    if cell_width < 1 or end - name_width - 1 != n * (cell_width + 1) - 1:
        return None
    return name_width, cell_width, len(line)


def _block_values(matrix, layout, pattern, dot, digit_columns, exact, places, out):
    """Fill `out` (count, n) with the values of the cells of `matrix` (count rows of
    one length); False when a row departs from the layout.

    pattern: (limit, mask) rows over the cells and line end: each byte XOR mask must be
    at most limit, that is a digit ('0' ^ byte <= 9) where a digit goes and exactly the
    dot, comma or line end elsewhere. One contiguous pass checks a group of rows."""
    name_width, cell_width, length = layout
    n = out.shape[1]
    names = matrix[:, :name_width]
    if not ((matrix[:, name_width] == 44).all() and (names != 44).all() and (names[:, 0] != 34).all()):
        return False  # a comma in a name, or a quoted name: the general path splits those
    limit, mask = pattern
    group = max(1, _GROUP_BYTES // length)
    value = np.empty((min(group, matrix.shape[0]), n), dtype=exact)
    for start in range(0, matrix.shape[0], group):
        cells = np.bitwise_xor(matrix[start:start + group, name_width + 1:], mask)  # digits become their values
        if not (cells <= limit).all():
            return False
        digits = value[:cells.shape[0]]
        digits[...] = cells[:, digit_columns[0]::cell_width + 1][:, :n]
        for j in digit_columns[1:]:
            digits *= 10
            digits += cells[:, j::cell_width + 1][:, :n]
        np.divide(digits, _POWERS[places], out=out[start:start + group])
    return True


def _read_available(stream, buffer):
    """Fill `buffer` from `stream` as far as the file goes; the number of bytes read."""
    filled = 0
    while filled < len(buffer):
        got = stream.readinto(buffer[filled:])
        if not got:
            break
        filled += got
    return filled


def _parse_rows(stream, n, row_names, shown):
    """The (n, n) distances of the rows after the header, read from `stream` a block of
    whole lines at a time (LF or CRLF; blank lines skipped); None when a row is not a
    name and n numbers (see _cell_values). row_names receives the rows' names. A line
    longer than ROW_LIMIT is refused once that much of it is read."""
    distances = memory.large_empty((n, n), np.float64)
    values = distances.reshape(-1)
    done = 0
    lines = 1  # the lines before the block: the header's
    tail = b""
    while True:
        chunk = stream.read(_BLOCK_BYTES)
        block = tail + chunk
        cut = block.rfind(b"\n") + 1 if chunk else len(block)
        first = block.find(b"\n", 0, ROW_LIMIT + 2)  # the lines after it lie in chunk, shorter than the limit
        if first < 0 and len(block) > ROW_LIMIT + 1 or block[max(first - 1, 0):first] != b"\r" and first > ROW_LIMIT:
            raise line_too_long(shown, lines + 1, ROW_LIMIT)
        if chunk and cut == 0:
            tail = block  # no line end in it yet
            continue
        lines += block.count(b"\n", 0, cut)
        block, tail = block[:cut], block[cut:]
        rests = []
        for line in block.replace(b"\r\n", b"\n").split(b"\n"):
            if not line or line.isspace():
                continue
            name, rest = _split_name(line)
            if rest is None or rest.count(b",") != n - 1:
                return None
            row_names.append(name)
            rests.append(rest)
        if done + len(rests) > n:
            return None
        if rests:
            cells = _cell_values(b",".join(rests))
            if cells is None:
                return None
            values[done * n:(done + len(rests)) * n] = cells
            done += len(rests)
        if not chunk:
            return distances if done == n else None


_SPACES = np.zeros(256, dtype=bool)
_SPACES[[32, 9]] = True


def _cell_values(data):
    """The numbers of the comma-separated cells of `data` (bytes) as a float64 array, or
    None if a cell is not a number (text.NUMBER after text.cell_text: spaces and tabs
    around it, then a pair of double quotes around it, removed). The cells' bounds are
    found and trimmed as arrays, their numbers converted by text.decimal_values, and only
    the cells it leaves (inf, nan, long or malformed numbers) one by one."""
    buf = np.frombuffer(data, dtype=np.uint8)
    commas = np.flatnonzero(buf == 44)
    starts = np.concatenate(([0], commas + 1))
    ends = np.concatenate((commas, [buf.size]))
    padded = np.concatenate((buf, [44]))  # a comma past the end: buf[end] for the last cell
    for quote in ((False, True) if b" " in data or b"\t" in data or b'"' in data else ()):
        if quote:
            quoted = (padded[starts] == 34) & (padded[np.maximum(ends - 1, 0)] == 34) & (ends - starts >= 2)
            starts += quoted
            ends -= quoted
        while True:
            leading = _SPACES[padded[starts]] & (starts < ends)
            trailing = _SPACES[padded[np.maximum(ends - 1, 0)]] & (starts < ends)
            if not (leading.any() or trailing.any()):
                break
            starts += leading
            ends -= trailing
    values, slow = decimal_values(buf, starts, ends)
    if not slow.size:
        return values
    # float() reads a cell of digits, dots, e, E and signs alone exactly as NUMBER does.
    convert = float if not data.translate(None, _PLAIN_BYTES) else parse_number
    starts, ends = starts[slow].tolist(), ends[slow].tolist()
    try:
        values[slow] = [convert(data[start:end]) for start, end in zip(starts, ends)]
    except ValueError:
        return None
    return values


#: The bytes of a block of cells that float() reads exactly as text.NUMBER (no inf, nan,
#: '_', spaces or quotes).
_PLAIN_BYTES = b"0123456789.eE+-,"


def _is_number(cell):
    return NUMBER.match(cell_text(cell)) is not None


def _diagnose_csv(path, shown, n):
    """Re-read row by row to name the first malformed line and cell."""
    lines = decode_lines(read_bytes(path, shown, limit=ROW_LIMIT), shown)
    rows = 0
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        rows += 1
        name, rest = _split_name(line.encode("utf-8"))
        if rest is None and "," in line and line.lstrip().startswith('"'):
            raise SubmissionError("%s line %d: the image name in quotes is not followed by a comma; expected "
                                  "'name,d1,...,d%d' (a quoted name ends with a quote just before its comma, and a "
                                  "quote inside it is written \"\")." % (shown, number, n))
        if rest is None:
            raise SubmissionError("%s line %d has no comma; expected 'name,d1,...,d%d'."
                                  % (shown, number, n))
        rest = rest.decode("utf-8")
        cells = rest.split(",")
        if len(cells) != n:
            fields = csv_rows([rest], shown, SubmissionError)[0][1] if '"' in rest else []
            commas = [column for column, field in enumerate(fields, start=2) if "," in field]
            if len(fields) == n and commas:  # a quoted cell such as "0,5"
                raise SubmissionError("%s line %d, column %d holds %r; expected a number with a dot for decimals, "
                                      "e.g. 0.5." % (shown, number, commas[0], fields[commas[0] - 2][:30]))
            raise SubmissionError("%s line %d has %d distances; expected %d, one per column of the header."
                                  % (shown, number, len(cells), n))
        for column, cell in enumerate(cells, start=2):
            if not _is_number(cell):
                raise SubmissionError("%s line %d, column %d holds %r; expected a number."
                                      % (shown, number, column, cell.strip(" \t")[:30]))
    if rows != n:
        raise SubmissionError("%s has %d rows of distances for %d columns; expected a square matrix."
                              % (shown, rows, n))


def is_symmetric(distances, tile=512):
    """Whether distances equals its transpose, compared tile by tile (both tiles of a
    pair fit in the cache, so reading the transposed one stays cheap)."""
    n = distances.shape[0]
    for i in range(0, n, tile):
        for j in range(i, n, tile):
            if not np.array_equal(distances[i:i + tile, j:j + tile], distances[j:j + tile, i:i + tile].T):
                return False
    return True
