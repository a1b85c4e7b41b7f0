"""Reader of the events track (ChaLearn cultural events): one file per category.

Reference: `<Category>.txt`, lines `<image id> <label>` (1 positive, 0 or -1 negative).
Submission: `<Category>.txt`, lines `<image id> <confidence>`. Whitespace-separated
(spaces or tabs), UTF-8 with or without a BOM, LF or CRLF, blank lines ignored.

A file whose every line is '<id><space or tab><value>' in ASCII (the usual case) is
parsed from its bytes with array operations: ids become columns of 64-bit words
(compared as arrays, matched through a hash table and checked word for word), numbers
are converted exactly (see text.decimal_values; a number is text.NUMBER, the same on every
Python and numpy). Any other file goes through one str.split of its text, and only when
something is wrong is it re-read line by line to name the line in the message.
"""

import operator
import os

import numpy as np

from .. import hints, names
from ..errors import ReferenceDataError, SubmissionError
from .text import decimal_rows, decimal_values, decode_lines, floats, parse_number, read_bytes

LABELS = {"1": True, "+1": True, "0": False, "-1": False}
#: Put in place of every newline before splitting: a token no text file holds (NUL is refused).
_MARK = "\x00"


class IdRows(object):
    """Image ids read from a file's bytes, as rows of 64-bit words: row j holds bytes
    8 j to 8 j + 7 of every id, little-endian, NUL past the id's end (a byte no
    accepted file holds), so that two lists of ids are equal exactly when their rows
    are. Compared and matched as arrays, turned into strings only when a message or
    the dictionary needs them."""

    def __init__(self, rows):
        self.rows = tuple(rows)  # (count,) uint64 arrays
        self._strings = None

    def __len__(self):
        return self.rows[0].size

    def __eq__(self, other):
        return (isinstance(other, IdRows) and len(self.rows) == len(other.rows) and
                all(np.array_equal(mine, theirs) for mine, theirs in zip(self.rows, other.rows)))

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __getitem__(self, i):
        return self.strings()[i]

    def strings(self):
        if self._strings is None:
            items = np.empty((len(self), len(self.rows)), dtype="<u8")
            for j, row in enumerate(self.rows):
                items[:, j] = row
            packed = items.view("S%d" % (8 * len(self.rows))).ravel()  # trailing NULs dropped
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


#: Ids wider than this go through the text path (their words would be mostly padding).
_WIDEST_ID = 200


class Pairs(object):
    """A file of lines '<field><space or tab><field>' on the fast path: its bytes (a
    uint8 array) and, for entry i on line i + 1, the start of its line, its separator
    and the end of its second field (arrays, computed on first use from what the proof
    found). line: the length of every line (line end included) when they have one,
    else 0; id_width: the width of every first field when they have one, else 0;
    tail: the line end's length; lengths: each line's length without its line end."""

    def __init__(self, buf, count, line=0, id_width=0, tail=1, starts=None, lengths=None, separators=None,
                 ends=None):
        self.buf, self.count, self.line, self.id_width, self.tail = buf, count, line, id_width, tail
        self._starts, self._lengths, self._separators, self._ends = starts, lengths, separators, ends
        self._words = {}

    @property
    def starts(self):
        if self._starts is None:
            self._starts = np.arange(0, self.count * self.line, self.line, dtype=np.int64)
        return self._starts

    @property
    def separators(self):
        if self._separators is None:
            self._separators = self.starts + self.id_width
        return self._separators

    @property
    def ends(self):
        if self._ends is None:
            self._ends = self.starts + (self.line - self.tail if self._lengths is None else self._lengths)
        return self._ends

    def second_widths(self):
        """The width of every second field (one number when the lines have one length)."""
        if self.line:
            return self.line - self.tail - self.id_width - 1
        if self._lengths is not None:
            return self._lengths - (self.id_width + 1)
        return self.ends - self.separators - 1

    def second_field(self, i):
        return bytes(self.buf[self.separators[i] + 1:self.ends[i]]).decode("ascii")

    def second_fields(self):
        """(count, width) matrix of the second fields when they have one width and
        sit evenly spaced (a view of the bytes), else None."""
        if not (self.line and self.id_width):
            return None
        width = self.line - self.tail - self.id_width - 1
        return np.lib.stride_tricks.as_strided(self.buf[self.id_width + 1:], (self.count, width), (self.line, 1))

    def word(self, j, keep=True):
        """The little-endian 64-bit word at byte 8 j of every line, a (count,) uint64
        array (bytes past the end of the file read as 0), read once; keep=False hands
        the array over (to be changed in place: a later call reads it again)."""
        words = self._words.get(j) if keep else self._words.pop(j, None)
        if words is None:
            words = _words_at(self.buf, self.count, 8 * j, self.line, None if self.line else self.starts)
            if keep:
                self._words[j] = words
        return words

    def byte_column(self, k):
        """Byte k of every line (0 past the end of the file), from word(k // 8)."""
        return self.word(k // 8).astype("<u8", copy=False).view(np.uint8)[k % 8::8].copy()


def _words_at(buf, count, offset, line, starts):
    """The little-endian words at `offset` bytes from the start of each of count lines,
    line bytes apart (read through a view) or at `starts` (gathered from a view holding
    a word at every byte); bytes past the end of buf read as 0."""
    reach = buf.size - 8 - offset  # a line starting at most here has its word inside buf
    if line:
        fit = min(count, reach // line + 1) if reach >= 0 else 0
    else:
        fit = count if int(starts[-1]) <= reach else int(np.searchsorted(starts, reach, "right"))
    if line or not fit:
        words = np.empty(count, dtype=np.uint64)
        if fit:
            words[:fit] = np.ndarray(buffer=buf, dtype="<u8", offset=offset, shape=(fit,), strides=(line,))
    else:  # gathered at the starts, the lines past reach at a start that fits (read again below)
        every = np.ndarray(buffer=buf, dtype="<u8", offset=offset, shape=(reach + 1,), strides=(1,))
        words = every[starts if fit == count else np.minimum(starts, reach)].astype(np.uint64, copy=False)
    if fit < count:  # the last lines: from a copy of their bytes followed by zeros
        first = fit * line if line else int(starts[fit])
        rest = np.arange(count - fit) * line if line else starts[fit:] - first
        tail = np.zeros(buf.size - first + offset + 8, dtype=np.uint8)
        tail[:buf.size - first] = buf[first:]
        words[fit:] = _words_at(tail, count - fit, offset, 0, rest)
    return words


def byte_pairs(data):
    """The Pairs of a file of lines '<field><space or tab><field>', or None for any
    other file (blank or indented lines, several separators, non-ASCII bytes, control
    characters...), which the text path then reads. A BOM, CRLF line ends and trailing
    blank lines are accepted."""
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
    found = _fixed_width_pairs(data, buf) or _id_column_pairs(data, buf)
    if found is None and not np.count_nonzero(buf > 127):
        found = _blank_pairs(buf)
    return found


#: Bytes per block of a pass over a whole file: a block's temporaries are reused by the
#: next block, where a file-sized one takes fresh pages (a page fault every 4 KB, which
#: costs more than the comparisons made on it).
_BLOCK = 1 << 16


def _scan(buf, line_starts=False):
    """(how many bytes of buf are below 33 or above 127, and with line_starts the start
    of every line: 0 and each byte after a line feed), block by block."""
    outside = 0
    starts = [np.zeros(1, dtype=np.intp)]
    signed = buf.view(np.int8)  # bytes above 127 are negative
    for i in range(0, buf.size, _BLOCK):
        outside += int(np.count_nonzero(signed[i:i + _BLOCK] < 33))
        if line_starts:
            found = np.flatnonzero(buf[i:i + _BLOCK] == 10)
            found += i + 1
            starts.append(found)
    return outside, np.concatenate(starts) if line_starts else None


def _blank_pairs(buf):
    """byte_pairs' answer for any file, from the positions of its blanks, or None.
    buf: the bytes without BOM and trailing blank lines."""
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
    widths = separators - starts
    width = int(widths[0])
    return Pairs(buf, lines, id_width=width if (widths == width).all() else 0, tail=period - 1, starts=starts,
                 separators=separators, ends=np.append(blanks[1::period], end))


def _first_line(data, size):
    """(its length with its line end, the line end's length, its separator), or None
    when the file's first line is its only one or has no blank between two fields."""
    newline = data.find(b"\n", 0, size)
    if newline < 2:
        return None
    tail = 2 if data[newline - 1] == 13 else 1  # the line end, CR LF or LF
    first = [p for p in (data.find(b" ", 0, newline), data.find(b"\t", 0, newline)) if p >= 0]
    if not first or not 1 <= min(first) < newline + 1 - tail - 1:  # a field on either side
        return None
    return newline + 1, tail, min(first)


def _fixed_width_pairs(data, buf):
    """byte_pairs' answer when every line has one length and its separator in one
    column (what a program printing fixed-width fields writes), proved on the (lines,
    length) matrix of the bytes: its bytes below 33 or above 127 are exactly the
    separator column and the line end's column(s). None otherwise (the next proof then
    decides). buf: the bytes without BOM and trailing blank lines."""
    first = _first_line(data, buf.size)
    if first is None:
        return None
    length, tail, separator = first
    if (buf.size + tail) % length:
        return None
    count = (buf.size + tail) // length
    # Cheap refusals first: the last line's start, and a line end halfway.
    if data.rfind(b"\n", 0, buf.size) != buf.size - (length - tail) - 1 or data[count // 2 * length - 1] != 10:
        return None
    pairs = Pairs(buf, count, line=length, id_width=separator, tail=tail)
    # The columns read from the lines' words (ids need most of them): a separator in
    # every line, a line end in every line but the last (which has none).
    if not _all_in(pairs.byte_column(separator), (32, 9)):
        return None
    for column, end in ((length - 1, 10), (length - 2, 13 if tail == 2 else None)):
        if end is not None and not (pairs.byte_column(column)[:-1] == end).all():
            return None
    if _scan(buf)[0] != count + (count - 1) * tail:  # no other blank, nothing but ASCII
        return None
    return pairs


def _all_in(column, accepted):
    found = column == accepted[0]
    for value in accepted[1:]:
        found |= column == value
    return bool(found.all())


def _id_column_pairs(data, buf):
    """byte_pairs' answer when every line has its separator in the first line's
    column (first fields of one width, second fields of any: the reference's labels 1,
    0 and -1), proved from the positions of the line feeds: each line is long enough
    to hold a blank at that column and a field after it, every line ends as the first
    does, and the file holds no other byte below 33. None otherwise (the general pass
    then decides). buf: the bytes without BOM and trailing blank lines."""
    first = _first_line(data, buf.size)
    if first is None:
        return None
    _, tail, separator = first
    outside, starts = _scan(buf, line_starts=True)
    count = starts.size
    if outside != count + (count - 1) * tail:  # nothing but ASCII, and as many blanks as claimed
        return None
    lengths = np.empty(count, dtype=np.intp)  # each line's, without its line end
    lengths[-1] = buf.size - starts[-1]
    np.subtract(starts[1:], starts[:-1], out=lengths[:-1])
    lengths[:-1] -= tail
    if int(lengths.min()) < separator + 2:
        return None
    if tail == 2 and not _all_in(buf[starts[1:] - 2], (13,)):
        return None
    pairs = Pairs(buf, count, id_width=separator, tail=tail, starts=starts, lengths=lengths)
    # The claimed blanks, each in its line: separators at one column and line ends; the
    # count above then leaves no other blank.
    return pairs if _all_in(pairs.byte_column(separator), (32, 9)) else None


def id_rows(pairs):
    """IdRows of the first fields of Pairs, or None when one is too wide."""
    width, widths = pairs.id_width, None
    if not width:
        widths = pairs.separators - pairs.starts
        width = int(widths.max())
    if width > _WIDEST_ID:
        return None
    rows = [pairs.word(j, keep=False) for j in range((width + 7) // 8)]
    if widths is not None:
        for j, row in enumerate(rows):
            row &= _LOW_BYTES[np.clip(widths - 8 * j, 0, 8)]
    elif width % 8:  # the last row holds the ids' last bytes, then the bytes after them
        rows[-1] &= _LOW_BYTES[width % 8]
    return IdRows(rows)


#: _LOW_BYTES[k]: the mask of a little-endian word's first k bytes.
_LOW_BYTES = np.array([(1 << 8 * k) - 1 for k in range(9)], dtype=np.uint64)


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
            raise error("%s line %d has %s (%r); expected two, '<image id> <value>', separated by "
                        "spaces or a tab." % (shown, number, names.counted(len(cells), "field"), line.strip()[:60]))
        first.append(cells[0])
        second.append(cells[1])
        lines.append(number)
    return first, second, lines


def line_number(lines, index):
    return index + 1 if lines is None else lines[int(index)]


# ---------------------------------------------------------------- reference


def category_names(track_path):
    """The categories of a track: one <Category>.txt per category in ref/ (archive litter
    such as macOS's ._<Category>.txt left out)."""
    return sorted(os.path.splitext(name)[0] for name in os.listdir(track_path)
                  if name.endswith(".txt") and not names.is_litter(name)
                  and os.path.isfile(os.path.join(track_path, name)))


def read_reference(track):
    found = category_names(track.path)
    if not found:
        raise ReferenceDataError("%s holds no <Category>.txt file; expected e.g. Harvest_Festival.txt with lines "
                                 "'<image id> <label>'." % track.label)
    categories = []
    for name in found:
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
                if _hash_table(category) is None:  # two ids share a key: maybe one id twice
                    names.refuse_repeats(ids.strings(), shown, ReferenceDataError)
            else:
                names.refuse_repeats(ids, shown, ReferenceDataError, lines)
        categories.append(category)
    return categories


def _read_labels_fast(data):
    """(IdRows, positive mask) of a reference file on the fast path, else (None, None)
    (the text path then reads it and names any bad line)."""
    pairs = byte_pairs(data)
    if pairs is None:
        return None, None
    # A label's first two bytes: 0 or 1 alone, or + or - then 1.
    if pairs.id_width:  # one column of separators: two columns of bytes after it
        first, second = pairs.byte_column(pairs.id_width + 1), pairs.byte_column(pairs.id_width + 2)
    else:
        after = pairs.separators + 1
        first, second = pairs.buf[after], pairs.buf.take(np.minimum(after + 1, pairs.buf.size - 1))
    widths = pairs.second_widths()
    one, two = widths == 1, widths == 2
    positive = first == 49
    sign = first == 43
    valid = one & (positive | (first == 48)) | two & (sign | (first == 45)) & (second == 49)
    ids = id_rows(pairs)  # after the byte columns: it takes the words they were read from
    if ids is None or not np.all(valid):
        return None, None
    return ids, one & positive | two & sign


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


# ---------------------------------------------------------------- submission


def read_confidences(path, shown, category, missing):
    """Confidences aligned on the category's ids, and the number of ids not submitted.

    missing: 'error' (a missing id, or an empty file, is an error) or 'last' (missing
    ids get -inf: ranked below every submitted one, tied together; an empty file lists
    none).
    """
    data = read_bytes(path, shown)
    pairs = byte_pairs(data)
    ids = None if pairs is None else id_rows(pairs)
    if ids is not None:
        lines = None
        grid = pairs.second_fields()
        if grid is not None:
            confidences, slow = decimal_rows(grid)
        else:
            confidences, slow = decimal_values(pairs.buf, pairs.separators + 1, pairs.ends)
        for i in slow.tolist():
            confidences[i] = _to_float(pairs.second_field(i), i, lines, shown)
        texts = None
    else:
        ids, texts, lines = split_pairs(data, shown, SubmissionError)
        if not ids and missing == "last":  # an empty file: every image not submitted
            return np.full(len(category.ids), -np.inf), len(category.ids)
        if not ids:
            raise SubmissionError("%s is empty; expected one line '<image id> <confidence>' per image of category "
                                  "%s." % (shown, category.name))
        confidences = _to_floats(texts, lines, shown)
    bad = np.flatnonzero(~np.isfinite(confidences))
    if bad.size:
        i = bad[0]
        text = texts[i] if texts is not None else pairs.second_field(i)
        raise SubmissionError("%s line %d has the confidence %r; expected a finite number."
                              % (shown, line_number(lines, i), text))
    n = len(category.ids)
    if ids == category.ids:
        return confidences, 0
    matched = category.lookup.get("matched")  # (ids, index, counts, inverse permutation or None)
    if matched is not None and ids == matched[0]:  # the same order as the previous file
        if matched[3] is None and len(ids) == n:  # every id once (a repeated one is refused): a permutation
            inverse = np.empty(n, dtype=np.intp)
            inverse[matched[1]] = np.arange(n)
            matched = category.lookup["matched"] = matched[:3] + (inverse,)
    else:
        matched = category.lookup["matched"] = (ids,) + _match_ids(ids, lines, shown, category) + (None,)
    _, index, counts, inverse = matched
    if inverse is not None:
        return confidences.take(inverse), 0
    absent = n - len(ids)  # a repeated id is refused: the others are each once
    aligned = np.empty(n) if absent == 0 else np.full(n, -np.inf)
    aligned[index] = confidences
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
        names.refuse_repeats(as_list(ids), shown, SubmissionError, lines)
    return index, counts


def _match_by_dictionary(ids, lines, shown, category):
    position = category.position()
    try:
        return np.array(operator.itemgetter(*ids)(position) if len(ids) > 1 else [position[ids[0]]],
                        dtype=np.int64)
    except KeyError:
        composed = _match_composed(ids, category)
        if composed is not None:
            return composed
        i = next(i for i, image in enumerate(ids) if image not in position)
        fix = "list only the images of the test set."
        near = hints.near_image(ids[i], category.ids)
        if near is not None:
            fix = ("the test set has %s, which differs in its extension: write each image id as the test set does, "
                   "%s." % (near, near))
        raise SubmissionError("%s line %d names the image %s, which is not among the %d images of category %s; %s"
                              % (shown, line_number(lines, i), ids[i], len(category.ids), category.name, fix))


def _match_composed(ids, category):
    """The reference index of every submitted id compared in their composed Unicode form
    (names.canonical: an id typed decomposed on macOS is the same id), or None when an id
    is still unknown or two reference ids share a form. Only on the error path."""
    position = {}
    for j, image in enumerate(category.ids):
        if position.setdefault(names.canonical(image), j) != j:
            return None
    try:
        return np.array([position[names.canonical(image)] for image in ids], dtype=np.int64)
    except KeyError:
        return None


_PRIME = np.uint64(1099511628211)
#: 2**64 / the golden ratio: multiplied by a key, its top bits are a table slot (Fibonacci hashing).
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _row_keys(rows):
    """A 64-bit key of each id: its one word for ids of up to 8 bytes (two ids share a
    key only if they are equal), else a hash of its words (wrapping arithmetic, as FNV's
    multiplier)."""
    keys = rows[0].copy()
    for row in rows[1:]:
        keys *= _PRIME
        keys ^= row
    return keys


def _slots(keys, bits):
    return ((keys * _GOLDEN) >> np.uint64(64 - bits)).astype(np.intp)


def _hash_table(category):
    """(the keys of the reference ids, a table of their indices by slot, its bits),
    built once per id list: open addressing with linear probing, at most a quarter
    full; None when the ids are not IdRows or two of them share a key."""
    if "table" not in category.lookup:
        found = None
        if isinstance(category.ids, IdRows):
            keys = _row_keys(category.ids.rows)
            ordered = np.sort(keys)
            if not (ordered[1:] == ordered[:-1]).any():
                bits = max(keys.size - 1, 1).bit_length() + 2
                found = (keys, _fill_table(keys, bits), bits)
        category.lookup["table"] = found
    return category.lookup["table"]


def _fill_table(keys, bits):
    """Every index i of keys at its key's slot or the first free slot after it (wrapping)."""
    table = np.full(1 << bits, -1, dtype=np.int32 if keys.size < 2 ** 31 else np.int64)
    slot = _slots(keys, bits)
    pending = np.arange(keys.size)
    while pending.size:
        wanted = slot[pending]
        free = table[wanted] < 0
        table[wanted[free]] = pending[free]  # of several pending indices wanting one free slot, one lands
        pending = pending[table[wanted] != pending]
        slot[pending] = (slot[pending] + 1) & (table.size - 1)
    return table


def _match_rows(ids, category):
    """The reference index of every submitted id when ids, submitted and reference, are
    IdRows: a lookup of each id's key in the reference's hash table and a check of every
    match word for word. None when that does not apply or an id is unknown (the
    dictionary then finds the line to name)."""
    reference = _hash_table(category)
    if reference is None or not isinstance(ids, IdRows):
        return None
    ref_rows, rows = category.ids.rows, ids.rows
    if len(rows) > len(ref_rows):
        return None
    rows += (np.zeros(len(ids), dtype=np.uint64),) * (len(ref_rows) - len(rows))  # NUL, as shorter ids are padded
    ref_keys, table, bits = reference
    keys = _row_keys(rows)
    slot = _slots(keys, bits)
    index = table[slot].astype(np.intp)  # (the table holds int32, half the size for the cache)
    # A key found at its slot is a reference id's; a free slot (-1) ends the search for
    # an unknown id, whose key differs from every reference key (the last one too).
    todo = np.flatnonzero(ref_keys[index] != keys)
    while todo.size:  # the next slot, until the key or a free slot
        if (index[todo] < 0).any():
            return None
        slot[todo] = (slot[todo] + 1) & (table.size - 1)
        index[todo] = table[slot[todo]]
        todo = todo[ref_keys[index[todo]] != keys[todo]]
    if len(ref_rows) > 1 and not all(np.array_equal(ref.take(index), row) for ref, row in zip(ref_rows, rows)):
        return None  # (an id of one word is its own key)
    return index


def _to_float(text, i, lines, shown):
    try:
        return parse_number(text)
    except ValueError:
        raise SubmissionError("%s line %d has the confidence %r; expected a number such as 0.127031."
                              % (shown, line_number(lines, i), text[:30]))


def _to_floats(texts, lines, shown):
    try:
        return floats(texts)
    except ValueError:
        pass
    return np.array([_to_float(text, i, lines, shown) for i, text in enumerate(texts)], dtype=np.float64)
