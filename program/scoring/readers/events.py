"""Reader of the events track (ChaLearn cultural events): one file per category.

Reference: `<Category>.txt`, lines `<image id> <label>` (1 positive, 0 or -1 negative).
Submission: `<Category>.txt`, lines `<image id> <confidence>`. Whitespace-separated
(spaces or tabs), UTF-8 with or without a BOM, LF or CRLF, blank lines ignored.

A file whose every line is '<id><space or tab><value>' in ASCII (the usual case) is
parsed from its bytes with array operations: ids become the rows of a byte matrix
(matched by hashing and checked byte for byte), numbers are converted exactly (see
text.decimal_values). Any other file goes through one str.split of its text, and only
when something is wrong is it re-read line by line to name the line in the message.
"""

import difflib
import operator
import os

import numpy as np

from .. import hints
from ..errors import ReferenceDataError, SubmissionError
from .text import decimal_values, decode_lines, floats, read_bytes, strided_rows

LABELS = {"1": True, "+1": True, "0": False, "-1": False}
#: Put in place of every newline before splitting: a token no text file holds (NUL is refused).
_MARK = "\x00"


class IdRows(object):
    """Image ids as the rows of a (count, width) byte matrix, shorter ids padded with NUL
    bytes (which no accepted file holds); compared, hashed and matched as arrays, turned
    into strings only when a message or the dictionary needs them."""

    def __init__(self, rows):
        self.rows = rows
        self._strings = None

    def __len__(self):
        return self.rows.shape[0]

    def __eq__(self, other):
        if not isinstance(other, IdRows) or self.rows.shape != other.rows.shape:
            return False
        # By blocks of rows: an early answer for ids in another order, and no temporary
        # array of the whole file's size (fresh pages cost more than the comparison).
        for start in range(0, self.rows.shape[0], 4096):
            if not (self.rows[start:start + 4096] == other.rows[start:start + 4096]).all():
                return False
        return True

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __getitem__(self, i):
        return self.strings()[i]

    def strings(self):
        if self._strings is None:
            packed = np.ascontiguousarray(self.rows).view("S%d" % self.rows.shape[1]).ravel()  # trailing NULs dropped
            self._strings = [b.decode("ascii") for b in packed.tolist()]
        return self._strings


def as_list(ids):
    return ids.strings() if isinstance(ids, IdRows) else ids


class Category(object):
    """The reference of one category: image ids in file order and who is positive.

    Categories listing the same ids (as ChaLearn's files do) share `ids` and `lookup`:
    the id -> index map, built on first use, and the last submitted order matched.
    """

    def __init__(self, name, ids, positive, lookup=None):
        self.name = name
        self.ids = ids  # a list of str, or IdRows
        self.positive = positive  # (n,) bool
        self.lookup = lookup if lookup is not None else {}

    @property
    def positives(self):
        return int(np.count_nonzero(self.positive))

    def position(self):
        if "position" not in self.lookup:
            ids = as_list(self.ids)
            self.lookup["position"] = dict(zip(ids, range(len(ids))))
        return self.lookup["position"]


#: Ids wider than this go through the text path (the byte matrix would be mostly padding).
_WIDEST_ID = 200


def byte_pairs(data):
    """The fast path of a file of lines '<field><space or tab><field>': (bytes as a
    uint8 array, start of each line, its separator, end of its second field), entry i
    on line i + 1; None for any other file (blank or indented lines, several
    separators, non-ASCII bytes, control characters...), which the text path then
    reads. A BOM, CRLF line ends and trailing blank lines are accepted."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    end = len(data)
    while end and data[end - 1] in b" \t\r\n":  # trailing blank lines
        end -= 1
        if len(data) - end > 64:
            return None
    if end == 0:
        return None
    buf = np.frombuffer(data, dtype=np.uint8, count=end)
    if buf.max() > 126:
        return None
    found = _fixed_width_pairs(data, buf) or _blank_pairs(buf)
    return None if found is None else (buf,) + found


def _blank_pairs(buf):
    """byte_pairs' (starts, separators, ends) of any file, from the positions of its
    blanks, or None. buf: the bytes without BOM and trailing blank lines."""
    end = buf.size
    blanks = np.flatnonzero(buf < 33)  # separators, line ends, control characters
    kind = buf[blanks]
    # A valid file's blanks repeat one period: separator, newline (or separator, CR, newline).
    period = 3 if blanks.size > 1 and kind[1] == 13 else 2
    lines = (blanks.size + period - 1) // period
    if blanks.size != lines * period - (period - 1):
        return None
    separators, newlines = blanks[0::period], blanks[period - 1::period]
    kinds = kind[0::period]
    if not (((kinds == 32) | (kinds == 9)).all() and (kind[period - 1::period] == 10).all()):
        return None
    gaps = np.diff(blanks)  # a field between a separator and a line end, and after a line end
    if lines > 1 and int(gaps[period - 1::period].min()) < 2:
        return None
    if int(blanks[0]) == 0 or int(blanks[-1]) == end - 1 or int(gaps[0::period].min(initial=2)) < 2:
        return None
    if period == 3 and not ((kind[1::3] == 13).all() and (gaps[1::3] == 1).all()):
        return None
    starts = np.concatenate(([0], newlines + 1))
    ends = np.append(blanks[1::period], end)
    return starts, separators, ends


def _fixed_width_pairs(data, buf):
    """byte_pairs' (starts, separators, ends) when every line has one length and its
    separator in one column (what a program printing fixed-width fields writes),
    proved on the (lines, length) matrix of the bytes: its blanks (bytes below 33) are
    exactly the separator column and the line end's column(s). None otherwise (the
    general pass then decides). buf: the bytes without BOM and trailing blank lines."""
    newline = data.find(b"\n", 0, buf.size)
    if newline < 2:
        return None
    length = newline + 1
    tail = 2 if data[newline - 1] == 13 else 1  # the line end, CR LF or LF
    first = [p for p in (data.find(b" ", 0, newline), data.find(b"\t", 0, newline)) if p >= 0]
    if not first or (buf.size + tail) % length:
        return None
    separator = min(first)
    count = (buf.size + tail) // length
    if not 1 <= separator < length - tail - 1:  # a field on either side
        return None
    last = buf[(count - 1) * length:]  # the last line, without its line end
    if int(np.count_nonzero(last < 33)) != 1 or last[separator] not in (32, 9):
        return None
    grid = buf[:(count - 1) * length].reshape(count - 1, length)
    column = grid[:, separator]
    if not (int(np.count_nonzero(grid < 33)) == (count - 1) * (1 + tail) and (grid[:, -1] == 10).all() and
            ((column == 32) | (column == 9)).all() and (tail == 1 or (grid[:, -2] == 13).all())):
        return None
    starts = np.arange(count, dtype=np.int64) * length
    return starts, starts + separator, starts + (length - tail)


def id_rows(buf, starts, stops):
    """IdRows of the fields buf[starts[i]:stops[i]], or None when one is too wide."""
    lengths = stops - starts
    width = int(lengths.max())
    if width > _WIDEST_ID:
        return None
    if int(lengths.min()) == width:
        rows = strided_rows(buf, starts, width)  # a view of the file's bytes when its lines have one length
    else:
        rows = buf.take(np.minimum(starts[:, None] + np.arange(width), buf.size - 1))
        rows[np.arange(width) >= lengths[:, None]] = 0
    return IdRows(rows)


def split_pairs(data, shown, error):
    """The two columns of a whitespace-separated file: (first, second, lines).

    lines is None when entry i sits on line i + 1 (the fast path), else the list of
    line numbers. Any line without exactly two fields is an error naming it.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and _MARK not in text:
        if not text.endswith("\n"):
            text += "\n"
        tokens = text.replace("\n", " %s " % _MARK).split()
        marks = text.count("\n")
        while len(tokens) > 1 and tokens[-1] == _MARK and tokens[-2] == _MARK:
            tokens.pop()  # trailing blank lines
            marks -= 1
        count = len(tokens) // 3
        # Exactly one mark after every second field and none elsewhere: two fields per line.
        if len(tokens) == 3 * count and marks == count and tokens[2::3] == [_MARK] * count:
            return tokens[0::3], tokens[1::3], None
    return _split_pairs_by_line(data, shown, error)


def _split_pairs_by_line(data, shown, error):
    """The slow, exact pass: line by line, blank lines skipped, errors with their line."""
    first, second, lines = [], [], []
    for number, line in enumerate(decode_lines(data, shown, error), start=1):
        cells = line.split()
        if not cells:
            continue
        if len(cells) != 2:
            raise error("%s line %d has %d fields (%r); expected two, '<image id> <value>', separated by "
                        "spaces or a tab." % (shown, number, len(cells), line.strip()[:60]))
        first.append(cells[0])
        second.append(cells[1])
        lines.append(number)
    return first, second, lines


def line_number(lines, index):
    return index + 1 if lines is None else lines[int(index)]


# ---------------------------------------------------------------- reference


def category_names(track_path):
    return sorted(os.path.splitext(name)[0] for name in os.listdir(track_path)
                  if name.endswith(".txt") and os.path.isfile(os.path.join(track_path, name)))


def read_reference(track):
    names = category_names(track.path)
    if not names:
        raise ReferenceDataError("%s holds no <Category>.txt file; expected e.g. La_Tomatina.txt with lines "
                                 "'<image id> <label>'." % track.label)
    categories = []
    for name in names:
        shown = track.ref_name(name + ".txt")
        data = read_bytes(os.path.join(track.path, name + ".txt"), shown, ReferenceDataError)
        ids, positive = _read_labels_fast(data)
        lines = None
        if ids is None:
            ids, texts, lines = split_pairs(data, shown, ReferenceDataError)
            if not ids:
                raise ReferenceDataError("%s lists no image; expected lines '<image id> <label>'." % shown)
            positive = _positive_mask(texts, lines, shown)
        previous = categories[-1] if categories else None
        if previous is not None and ids == previous.ids:
            category = Category(name, previous.ids, positive, previous.lookup)
        else:
            category = Category(name, ids, positive)
            if isinstance(ids, IdRows):
                if _sorted_keys(category) is None:  # two ids hash alike: maybe one id twice
                    _refuse_duplicates(ids.strings(), None, shown, ReferenceDataError)
            else:
                _refuse_duplicates(ids, lines, shown, ReferenceDataError)
        categories.append(category)
    return categories


def _read_labels_fast(data):
    """(IdRows, positive mask) of a reference file on the fast path, else (None, None)
    (the text path then reads it and names any bad line)."""
    parsed = byte_pairs(data)
    if parsed is None:
        return None, None
    buf, starts, separators, ends = parsed
    ids = id_rows(buf, starts, separators)
    # Labels 1 and 0 (one character), +1 and -1 (two): the last character is the digit.
    last, width = buf[ends - 1], ends - separators - 1
    sign = buf[np.maximum(ends - 2, 0)]
    one = (width == 1) & ((last == 48) | (last == 49)) | (width == 2) & (last == 49) & ((sign == 43) | (sign == 45))
    if ids is None or not one.all():
        return None, None
    return ids, (last == 49) & ((width == 1) | (sign == 43))


def _positive_mask(texts, lines, shown):
    """True for label 1, False for 0 or -1; any other label is an organizer error."""
    found = set(texts)
    if not found <= set(LABELS):
        i = next(i for i, text in enumerate(texts) if text not in LABELS)
        raise ReferenceDataError("%s line %d has the label %r; expected 1 (positive), 0 or -1 (negative)."
                                 % (shown, line_number(lines, i), texts[i]))
    # Each label holds one digit, its last character: positive where it is 1, not after a '-'.
    chars = np.frombuffer("".join(texts).encode("ascii"), dtype=np.uint8)
    one = chars == 49
    one[1:] &= chars[:-1] != 45
    return one[chars >= 48]


def _refuse_duplicates(ids, lines, shown, error):
    if len(set(ids)) == len(ids):
        return
    first = {}
    for i, image in enumerate(ids):
        if image in first:
            raise error("%s line %d repeats the image %s (first on line %d); list each image once."
                        % (shown, line_number(lines, i), image, line_number(lines, first[image])))
        first[image] = i


# ---------------------------------------------------------------- submission


def normalized(name):
    """A file name as a participant may have mangled it: case, spaces, dashes, no .txt."""
    stem = name[:-4] if name.lower().endswith(".txt") else name
    return "_".join(stem.lower().replace("-", " ").replace("_", " ").split())


#: At most this many submitted names are compared in full with a missing one (the
#: nearest in length): the "did you mean" search stays fast among 40,000 decoy names.
NEAR_CANDIDATES = 200


class NameIndex(object):
    """The submitted file names by their normalized form, built once for every lookup."""

    def __init__(self, available):
        self.by_key = {}
        for name in available:
            self.by_key.setdefault(normalized(name), name)

    def near(self, expected):
        """The submitted file most likely meant for `expected`, or None."""
        target = normalized(expected)
        if target in self.by_key:
            return self.by_key[target]
        # difflib's ratio 2M/(a+b) reaches 0.8 only if the shorter is at least 2/3 of the longer.
        keys = [k for k in self.by_key if 3 * min(len(k), len(target)) >= 2 * max(len(k), len(target))]
        keys = sorted(keys, key=lambda k: (abs(len(k) - len(target)), k))[:NEAR_CANDIDATES]
        close = difflib.get_close_matches(target, keys, n=1, cutoff=0.8)
        return self.by_key[close[0]] if close else None


def near_name(expected, available):
    """The submitted file most likely meant for `expected`, or None."""
    return NameIndex(available).near(expected)


def check_files(submission, categories, log):
    """Every category has its file; near names are pointed out, unknown files ignored."""
    entries = submission.entries()
    expected = [c.name + ".txt" for c in categories]
    wanted, present = set(expected), set(entries)
    absent = [name for name in expected if name not in present]
    if absent:
        unused = [e for e in entries if e not in wanted and submission.isfile(e)]
        more = ""
        if len(absent) > 1:
            more = " (%d category files are missing in all, e.g. %s)" % (len(absent), ", ".join(absent[:3]))
        index = NameIndex(unused)
        for name in absent:
            guess = index.near(name)
            if guess is not None:
                raise SubmissionError("The submission has no %s; did you mean %s? Name each file exactly as its "
                                      "category%s." % (submission.name(name), submission.name(guess), more))
        raise submission.missing(absent[0], "one <Category>.txt per category, e.g. %s, with lines "
                                 "'<image id> <confidence>'%s" % (expected[0], more))
    extra = [e for e in entries if e not in wanted and e.lower().endswith(".txt")]
    if extra:
        log.warn("The submission holds %d .txt files that name no category (ignored), e.g. %s."
                 % (len(extra), ", ".join(extra[:3])))


def read_confidences(path, shown, category, missing):
    """Confidences aligned on the category's ids, and the number of ids not submitted.

    missing: 'error' (a missing id is an error) or 'last' (missing ids get -inf:
    ranked below every submitted one, tied together).
    """
    data = read_bytes(path, shown)
    parsed = byte_pairs(data)
    ids = None
    if parsed is not None:
        buf, starts, separators, ends = parsed
        ids = id_rows(buf, starts, separators)
    if ids is not None:
        lines = None
        confidences, slow = decimal_values(buf, separators + 1, ends)
        for i in slow.tolist():
            text = bytes(buf[separators[i] + 1:ends[i]]).decode("ascii")
            confidences[i] = _to_float(text, i, lines, shown)
        texts = None
    else:
        ids, texts, lines = split_pairs(data, shown, SubmissionError)
        if not ids:
            raise SubmissionError("%s is empty; expected one line '<image id> <confidence>' per image of category "
                                  "%s." % (shown, category.name))
        confidences = _to_floats(texts, lines, shown)
    bad = np.flatnonzero(~np.isfinite(confidences))
    if bad.size:
        i = bad[0]
        text = texts[i] if texts is not None else bytes(buf[separators[i] + 1:ends[i]]).decode("ascii")
        raise SubmissionError("%s line %d has the confidence %r; expected a finite number."
                              % (shown, line_number(lines, i), text))
    n = len(category.ids)
    if ids == category.ids:
        return confidences, 0
    matched = category.lookup.get("matched")
    if matched is not None and ids == matched[0]:
        index, counts = matched[1], matched[2]  # the same order as the previous file
    else:
        index, counts = _match_ids(ids, lines, shown, category)
        category.lookup["matched"] = (ids, index, counts)
    aligned = np.full(n, -np.inf)
    aligned[index] = confidences
    absent = int(np.count_nonzero(counts == 0))
    if absent and missing == "error":
        examples = [category.ids[j] for j in np.flatnonzero(counts == 0)[:3]]
        raise SubmissionError("%s lacks %d of the %d images of category %s, e.g. %s; list every image with a "
                              "confidence." % (shown, absent, n, category.name, ", ".join(examples)))
    return aligned, absent


def _match_ids(ids, lines, shown, category):
    """The reference index of every submitted id, and how often each is submitted."""
    n = len(category.ids)
    index = _match_rows(ids, category)
    if index is None:
        index = _match_by_dictionary(as_list(ids), lines, shown, category)
    counts = np.bincount(index, minlength=n)
    if (counts > 1).any():
        _refuse_duplicates(as_list(ids), lines, shown, SubmissionError)
    return index, counts


def _match_by_dictionary(ids, lines, shown, category):
    position = category.position()
    try:
        return np.array(operator.itemgetter(*ids)(position) if len(ids) > 1 else [position[ids[0]]],
                        dtype=np.int64)
    except KeyError:
        i = next(i for i, image in enumerate(ids) if image not in position)
        fix = "list only the images of the test set."
        near = hints.near_image(ids[i], category.ids)
        if near is not None:
            fix = "did you mean %s? Write each image id as the test set does, with its extension." % near
        raise SubmissionError("%s line %d names the image %s, which is not among the %d images of category %s; %s"
                              % (shown, line_number(lines, i), ids[i], len(category.ids), category.name, fix))


_PRIME = np.uint64(1099511628211)


def _row_keys(rows):
    """A 64-bit hash of each row of bytes (wrapping arithmetic, as FNV's multiplier)."""
    keys = np.zeros(rows.shape[0], dtype=np.uint64)
    for column in rows.T:
        keys *= _PRIME
        keys += column
    return keys


def _sorted_keys(category):
    """(sorted hashes of the reference ids, their order, the ids as items of a void type
    for gathering whole rows), computed once per id list; None when the ids are not
    IdRows or two of them hash alike."""
    if "keys" not in category.lookup:
        found = None
        if isinstance(category.ids, IdRows):
            rows = np.ascontiguousarray(category.ids.rows)
            keys = _row_keys(rows)
            order = np.argsort(keys)
            keys = keys[order]
            if not (keys[1:] == keys[:-1]).any():
                found = (keys, order, rows.view("V%d" % rows.shape[1]).ravel())
        category.lookup["keys"] = found
    return category.lookup["keys"]


def _match_rows(ids, category):
    """The reference index of every submitted id when ids, submitted and reference, are
    IdRows: by hashing each id's bytes, a binary search among the reference's sorted
    hashes and a byte-for-byte check of every match. None when that does not apply or
    an id is unknown (the dictionary then finds the line to name)."""
    reference = _sorted_keys(category)
    if reference is None or not isinstance(ids, IdRows):
        return None
    ref_rows, rows = category.ids.rows, ids.rows
    if rows.shape[1] > ref_rows.shape[1]:
        return None
    if rows.shape[1] < ref_rows.shape[1]:  # pad to the reference's width, as its shorter ids are
        rows = np.concatenate((rows, np.zeros((rows.shape[0], ref_rows.shape[1] - rows.shape[1]), np.uint8)), 1)
    sorted_keys, order, ref_items = reference
    keys = _row_keys(rows)
    mine = np.argsort(keys)  # sorted needles: a cache-friendly search (3x faster than in file order)
    index = np.empty(keys.size, dtype=np.int64)
    index[mine] = order[np.minimum(np.searchsorted(sorted_keys, keys[mine]), sorted_keys.size - 1)]
    if not (ref_items[index].view(np.uint8).reshape(rows.shape) == rows).all():
        return None
    return index


def _to_float(text, i, lines, shown):
    try:
        return float(text)
    except ValueError:
        raise SubmissionError("%s line %d has the confidence %r; expected a number such as 0.127031."
                              % (shown, line_number(lines, i), text[:30]))


def _to_floats(texts, lines, shown):
    try:
        return floats(texts)
    except ValueError:
        pass
    return np.array([_to_float(text, i, lines, shown) for i, text in enumerate(texts)], dtype=np.float64)
