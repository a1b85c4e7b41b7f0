"""Text and CSV files as participants write them: UTF-8 with or without a BOM, CRLF or
LF, trailing blank lines; anything else is refused with the file and the line.
"""

import csv
import os
import re

import numpy as np

from .. import names
from ..errors import SubmissionError
from ..layout import check_regular
from ..memory import memory_guard

#: The longest field of a CSV line (characters): no name or label comes near it, and a
#: field beyond it is refused in a sentence naming its line (csv_rows sets the csv
#: module's limit to it).
FIELD_LIMIT = 131072
#: The longest line of a text file (bytes, line end excluded): a line of labels or
#: confidences holds a name and a number, a field of FIELD_LIMIT characters takes at most
#: 4 bytes each. A longer line is refused as soon as it is read (read_bytes, bounded_line),
#: before it fills the memory. The distance matrices' rows have their own limit.
LINE_LIMIT = 1 << 20
#: Files up to this size (bytes) are read at once by read_bytes, larger ones a chunk of
#: _READ_CHUNK bytes at a time.
_WHOLE = 1 << 26
_READ_CHUNK = 1 << 20


def decode_lines(data, shown_name, error=SubmissionError):
    """The lines of a UTF-8 text file (BOM and CR removed, trailing blank lines dropped)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise error(
            "%s line %d is not UTF-8 text (byte 0x%02x); save the file as UTF-8."
            % (shown_name, line, data[exc.start])
        )
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise error("%s line %d holds a NUL byte; expected a text file." % (shown_name, line))
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def line_too_long(shown_name, line, limit, error=SubmissionError):
    """The one refusal of a line longer than a reader's limit."""
    return error("%s line %d is longer than %d bytes; expected one short record a line (a line end may be "
                 "missing)." % (shown_name, line, limit))


def bounded_line(stream, shown_name, line, error=SubmissionError, limit=LINE_LIMIT):
    """The next line of a binary stream (its line end kept), refused once it passes
    `limit` bytes without a line end: never more than limit + 2 bytes read. `line`: its
    number, for the sentence."""
    text = stream.readline(limit + 2)
    if len(_LINE_END.split(text, 1)[0]) > limit:  # lines ended by CR alone are split by the caller
        raise line_too_long(shown_name, line, limit, error)
    return text


def read_bytes(path, shown_name, error=SubmissionError, limit=LINE_LIMIT):
    """The bytes of a regular file (anything else is refused before it is opened); a line
    longer than `limit` bytes (a line ends at LF, CRLF or CR) is refused naming its line.
    A file of up to _WHOLE bytes is read at once, then its lines measured; a larger one a
    chunk at a time, refused as soon as a line passes the limit (a 2 GB line is never
    read whole)."""
    check_regular(path, shown_name, error)
    try:
        with memory_guard("%s is larger than the memory the scoring machine has left." % shown_name, error):
            with open(path, "rb") as stream:
                if os.fstat(stream.fileno()).st_size <= _WHOLE:
                    data = stream.read()
                    start = _long_line(data, limit)
                else:
                    data, start = _read_chunks(stream, limit)
    except (OSError, IOError) as exc:
        raise error("%s cannot be read (%s)." % (shown_name, exc.strerror or exc))
    if start is not None:
        raise line_too_long(shown_name, _line_number(data[:start]), limit, error)
    return data


def _long_line(data, limit):
    """Where the first line longer than `limit` starts in `data`, or None: a jump of up to
    limit + 1 bytes at a time to the last line end within reach."""
    start = 0
    while len(data) - start > limit:
        reach = start + limit + 1
        end = max(data.rfind(b"\n", start, reach), data.rfind(b"\r", start, reach))
        if end < 0:
            return start
        start = end + 1
    return None


def _read_chunks(stream, limit):
    """(bytes read, where a line longer than `limit` starts or None), reading a chunk at
    a time and stopping at the first such line."""
    size = min(_READ_CHUNK, limit)  # a line between two line ends of one chunk is within the limit
    parts, start, done = [], 0, 0  # start: where the line being read starts
    while True:
        chunk = stream.read(size)
        found = _LINE_END.search(chunk)
        if done + (found.start() if found else len(chunk)) - start > limit:
            return b"".join(parts), start
        if not chunk:
            return b"".join(parts), None
        if found:
            start = done + max(chunk.rfind(b"\n"), chunk.rfind(b"\r")) + 1
        parts.append(chunk)
        done += len(chunk)


_LINE_END = re.compile(b"[\r\n]")


def _line_number(before):
    """The number of the line that starts after the bytes `before` (LF, CRLF and CR end lines)."""
    return before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1


def csv_rows(lines, shown_name, error):
    """[(line number, cells)] of CSV lines, one record per line.

    A quoted field may not run over a line's end (an unmatched quote would swallow the
    lines after it into one field) and no field may exceed FIELD_LIMIT characters; either
    is refused naming the line where the record starts. The lines come from decode_lines
    (split at every line end, NUL bytes refused): the csv module's other errors (a NUL, a
    line end in an unquoted field, and those of its strict mode) cannot occur here.
    """
    csv.field_size_limit(FIELD_LIMIT)
    reader = csv.reader(lines)
    rows = []
    previous = 0
    unclosed = ("%s line %d opens a quoted field that the line does not close; remove the stray double quote "
                "or close it on the same line.")
    try:
        for cells in reader:
            if reader.line_num != previous + 1:
                raise error(unclosed % (shown_name, previous + 1))
            previous = reader.line_num
            rows.append((previous, cells))
    except csv.Error as exc:
        if reader.line_num > previous + 1:
            raise error(unclosed % (shown_name, previous + 1))
        if "field limit" not in str(exc):
            raise  # none can: see above
        raise error("%s line %d holds a field longer than %d characters; expected short names and labels."
                    % (shown_name, previous + 1, FIELD_LIMIT))
    return rows


def read_csv_table(path, shown_name, columns, optional=(), error=SubmissionError):
    """Rows of a comma-separated file with a header naming `columns`.

    Returns (header index by lower-case column name, [(line number, cells)]). The
    header is required, columns are matched case-insensitively, quoted fields are
    allowed, and every row must have as many cells as the header.
    """
    lines = decode_lines(read_bytes(path, shown_name, error), shown_name, error)
    if not lines:
        raise error("%s is empty; expected a header line '%s' and one line per image."
                    % (shown_name, ",".join(columns)))
    header_line = lines[0]
    rows = [cells for _, cells in csv_rows(lines, shown_name, error)]
    header = [cell.strip().lower() for cell in rows[0]]
    if len(header) == 1:
        for separator, name in ((";", "semicolons"), ("\t", "tabs")):
            if separator in header_line:
                raise error("%s separates its columns with %s; expected commas, e.g. '%s'."
                            % (shown_name, name, ",".join(columns)))
    missing = [c for c in columns if c not in header]
    if missing:
        raise error("%s line 1 should be the header '%s' (found '%s'); add the header line."
                    % (shown_name, ",".join(columns), header_line[:80]))
    unknown = [c for c in header if c not in columns and c not in optional]
    if unknown:
        raise error("%s has an unexpected column %r; expected the columns %s."
                    % (shown_name, unknown[0], ", ".join(columns + list(optional))))
    if len(set(header)) != len(header):
        raise error("%s repeats a column in its header; expected %s." % (shown_name, ",".join(columns)))
    index = dict((name, i) for i, name in enumerate(header))
    body = []
    for number, cells in enumerate(rows[1:], start=2):
        if not cells or (len(cells) == 1 and not cells[0].strip()):
            raise error("%s line %d is blank; remove blank lines." % (shown_name, number))
        if len(cells) != len(header):
            raise error("%s line %d has %s; expected %d (%s)."
                        % (shown_name, number, names.counted(len(cells), "field"), len(header), ",".join(rows[0])))
        if [c.strip().lower() for c in cells] == header:
            raise error("%s line %d repeats the header; keep a single header line." % (shown_name, number))
        body.append((number, [c.strip() for c in cells]))
    return index, body


#: A number as every reader takes it, on every Python and numpy: an optional sign, digits
#: with at most one dot (at least one digit), an optional exponent; or inf, infinity or
#: nan in any case, with an optional sign. ASCII only: Python's float() also takes '1_0',
#: other scripts' digits and surrounding Unicode spaces, and numpy's parsers differ from
#: version to version; neither decides here.
NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)\Z",
                    re.ASCII | re.IGNORECASE)


def parse_number(text):
    """The value of a number (NUMBER, a str or bytes), correctly rounded as float() rounds
    it; ValueError for anything else."""
    if not (NUMBER.match(text) if isinstance(text, str) else NUMBER.match(text.decode("latin-1"))):
        raise ValueError("not a number: %r" % text[:30])
    return float(text)


def cell_text(cell):
    """A CSV cell as the text of its number: spaces and tabs around it removed, then one
    pair of double quotes around it and the spaces and tabs inside them."""
    cell = cell.strip(" \t")
    if len(cell) >= 2 and cell[0] == '"' and cell[-1] == '"':
        cell = cell[1:-1].strip(" \t")
    return cell


#: 10**k for k <= 22: the powers of ten a double holds exactly.
_POWERS = 10.0 ** np.arange(23)
#: Above this (2**53) an integer of digits may not be an exact double.
_EXACT = 2 ** 53


def floats(tokens):
    """[parse_number(t) for t in tokens] as a float64 array, bit for bit; ValueError for a
    token that is not a number (NUMBER).

    tokens: non-empty strings without whitespace (the fields of str.split).
    """
    if not tokens:
        return np.zeros(0)
    try:
        buf = np.frombuffer(" ".join(tokens).encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return np.array([parse_number(t) for t in tokens], dtype=np.float64)
    ends = np.cumsum([len(t) + 1 for t in tokens]) - 1
    values, slow = decimal_values(buf, ends - np.array([len(t) for t in tokens]), ends)
    for i in slow.tolist():
        values[i] = parse_number(tokens[i])
    return values


def decimal_values(buf, starts, ends):
    """The values of the tokens buf[starts[i]:ends[i]] of a uint8 buffer, and the
    indices of the tokens left to parse_number(): (float64 array, int array).

    A token of the form [sign] digits [. digits] [e|E [sign] digits] (NUMBER without
    inf and nan; at most 19 digits before the e and 4 after it, counted from the first
    nonzero one) is converted from its bytes to the correctly rounded value that
    float() returns. Its digits make an integer M and its dot and exponent a power of
    ten 10**p: when M <= 2**53 and |p| <= 22, M * 10**p is one correctly rounded
    operation on two exact doubles (Clinger's fast path); else, when |p| <= 27 and long
    double has a mantissa of 64 bits or more (x86's 80-bit format, or quad), one
    correctly rounded operation on two exact long doubles (M < 2**64; 10**27 = 2**27 *
    5**27, 5**27 < 2**64), then rounded to a double: the right double unless the long
    double lies exactly halfway between two doubles (the exact value may then lie on
    either side), a token then left to parse_number. Every other token (inf, nan, more
    digits, anything malformed) is left at 0 in the array and listed: the caller
    converts it with parse_number(), which raises the ValueError it deserves.
    """
    lengths = ends - starts
    if lengths.size and int(lengths.min()) == int(lengths.max()) <= _WIDEST:
        return decimal_rows(strided_rows(buf, starts, int(lengths.max())))
    return _in_chunks(buf, starts, ends)


def decimal_rows(grid):
    """decimal_values of tokens of one width: the rows of a (count, width) uint8 matrix."""
    count, width = grid.shape
    values = _one_layout(grid) if 0 < width <= _WIDEST else None
    if values is not None:
        return values, np.zeros(0, dtype=np.int64)
    starts = np.arange(count) * width
    return _in_chunks(np.ascontiguousarray(grid).ravel(), starts, starts + width)


def _in_chunks(buf, starts, ends):
    """decimal_values by _number_values, _CHUNK tokens at a time."""
    count = starts.size
    if count == 0:
        return np.zeros(0), np.zeros(0, dtype=np.int64)
    padded = np.concatenate((np.zeros(_WIDEST, dtype=np.uint8), buf))  # room left of the first token
    starts, ends = starts + _WIDEST, ends + _WIDEST
    parts = [_number_values(padded, starts[i:i + _CHUNK], ends[i:i + _CHUNK]) for i in range(0, count, _CHUNK)]
    return (np.concatenate([values for values, _ in parts]),
            np.concatenate([slow + i * _CHUNK for i, (_, slow) in enumerate(parts)]))


#: Whether long double has a mantissa of 64 bits or more (x86's 80-bit format, or quad;
#: not on Windows nor on macOS arm64, where the long double path is left out).
_LONG = np.finfo(np.longdouble).nmant >= 63


def _long_powers():
    powers = [np.longdouble(1)]
    for _ in range(27):
        powers.append(powers[-1] * np.longdouble(10))  # exact: 10**k = 2**k * 5**k, 5**27 < 2**64
    return np.array(powers, dtype=np.longdouble)


_LONG_POWERS = _long_powers() if _LONG else None
#: Tokens converted at a time: their arrays stay in the cache from one column to the next.
_CHUNK = 1 << 14
#: The longest token converted from its bytes.
_WIDEST = 40


def _number_values(buf, starts, ends):
    """decimal_values of a chunk of tokens of buf (which starts with _WIDEST zero bytes).

    The tokens are laid out right-aligned in a matrix of bytes, one row per position
    (row j: every token's byte j places left of its end), so that every test is an
    operation on whole rows of bytes: a token is a number when it holds only digits,
    dots, e/E and signs, a sign only first or right after the e, at most one e, one to
    19 digits before it from the first nonzero one on (its mantissa M < 10**19 < 2**64),
    at most one dot and before the e, one to 4 digits after the e (from the first
    nonzero one on). M is read by Horner's rule over all the rows, x 10 + digit, where
    a byte left of the token or its sign counts as the digit 0, and x 1 + 0 at the dot
    and from the e on; the exponent likewise, x 10 + digit at its digits only."""
    count = starts.size
    lengths = ends - starts
    width = max(1, min(int(lengths.max()), _WIDEST))
    columns = np.array(strided_rows(buf, ends - width, width).T, order="C")
    position = np.arange(width, dtype=np.uint8)[:, None]
    inside = position >= (width - np.clip(lengths, 0, width)).astype(np.uint8)
    value = columns - np.uint8(48)  # a digit's value; any other byte wraps above 9
    digit = (value < 10) & inside
    dot = (columns == 46) & inside
    e = ((columns | np.uint8(32)) == 101) & inside
    first = buf[ends - np.maximum(lengths, 1)]
    negative = first == 45
    others = _count(inside & ~(digit | dot | e)) - ((first == 43) | negative)  # a sign is allowed first
    es = _count(e)
    ok = (lengths >= 1) & (lengths <= width) & (es <= 1)
    end = np.full(count, width, dtype=np.uint8)  # the row where the mantissa ends: the e's, or past the token
    stop = dot
    power = np.zeros(count, dtype=np.int64)
    if es.any():
        end = np.where(es > 0, (e * position).max(axis=0), end)
        tail = position > end  # the exponent's rows
        after_e = np.zeros_like(e)
        after_e[1:] = e[:-1]
        minus = columns == 45
        others -= _count(after_e & (minus | (columns == 43)))  # a sign right after the e: allowed
        exponent_digit = digit & tail
        digit &= ~tail
        ok &= (es == 0) | ((_count(exponent_digit) >= 1) & (_leading(exponent_digit, value, width) <= 4))
        ok &= _count(dot & tail) == 0
        rows = slice(int(end.min()) + 1, width)  # the exponents' rows: Horner over them alone
        exponent = _horner(np.uint8(10) - np.uint8(9) * ~exponent_digit[rows],
                           value[rows] * exponent_digit[rows]).astype(np.int64)
        power = np.where((after_e & minus).any(axis=0), -exponent, exponent)
        stop = dot | tail | e
    dots = _count(dot)
    dotted = dots > 0
    dot_row = (dot * position).max(axis=0)
    significant = _leading(digit, value, end)
    significant -= dotted & (end - dot_row < significant)  # the dot among them
    ok &= (others == 0) & (_count(digit) >= 1) & (dots <= 1) & (significant <= 19)
    rows = slice(0, int(end.max()))  # from the e on, x 1 + 0: Horner stops before the last e
    mantissa = _horner(np.uint8(10) - np.uint8(9) * stop[rows], value[rows] * digit[rows])
    power -= np.where(dotted, end.astype(np.int64) - 1 - dot_row, 0)  # the digits after the dot
    values = np.zeros(count)
    fast = ok & (mantissa <= np.uint64(_EXACT)) & (np.abs(power) <= 22)
    _scale(values, mantissa.astype(np.float64), power, fast, _POWERS)
    rest = ok & ~fast
    if _LONG and rest.any():
        near = np.flatnonzero(rest & (np.abs(power) <= 27))
        exact = np.zeros(near.size, dtype=np.longdouble)
        _scale(exact, mantissa[near].astype(np.longdouble), power[near], np.ones(near.size, dtype=bool),
               _LONG_POWERS)
        rounded = exact.astype(np.float64)
        above = (np.nextafter(rounded, np.inf).astype(np.longdouble) + rounded) / 2  # exact halfway points
        below = (np.nextafter(rounded, -np.inf).astype(np.longdouble) + rounded) / 2
        values[near] = rounded
        rest[near] = (exact == above) | (exact == below)
    np.negative(values, out=values, where=negative)
    return values, np.flatnonzero(~ok | rest)


def _leading(digit, value, end):
    """Per token, the number of rows from its first nonzero digit (a row of `digit`) up
    to the row `end` (excluded), or 0 without one."""
    return ((digit & (value != 0)) * (end - np.arange(digit.shape[0], dtype=np.uint8)[:, None])).max(axis=0)


def _horner(multiplier, addend):
    """Per token (column), total = total * multiplier[j] + addend[j] over the rows j."""
    total = np.zeros(multiplier.shape[1], dtype=np.uint64)
    for j in range(multiplier.shape[0]):
        total *= multiplier[j]
        total += addend[j]
    return total


def _count(flags):
    """The number of True in each column of a (rows, tokens) bool matrix of at most 255 rows."""
    return flags.view(np.uint8).sum(axis=0, dtype=np.uint8)


def _scale(out, mantissa, power, chosen, powers):
    """out[chosen] = mantissa * 10**power: one correctly rounded operation on exact values."""
    below = chosen & (power < 0)
    above = chosen & (power >= 0)
    out[below] = mantissa[below] / powers[-power[below]]
    out[above] = mantissa[above] * powers[power[above]]


def strided_rows(buf, starts, width):
    """The (count, width) matrix of the bytes buf[starts[i]:starts[i] + width] (each
    within buf, a contiguous uint8 array): a view when the starts are evenly spaced
    (lines of one length), else a gathered copy."""
    count = starts.size
    if count > 1:
        stride = int(starts[1] - starts[0])
        if stride > 0 and int(starts[-1] - starts[0]) == stride * (count - 1) and \
                (np.diff(starts) == stride).all():
            return np.lib.stride_tricks.as_strided(buf[int(starts[0]):], (count, width), (stride, 1))
    # Each row read as one item of a width-byte void type at its start: a gather of whole
    # rows rather than of a matrix of byte indices, which is several times slower.
    rows = np.ndarray(buffer=buf, dtype="V%d" % width, shape=(buf.size - width + 1,), strides=(1,))
    return rows[starts].view(np.uint8).reshape(count, width)


def _one_layout(grid):
    """The values of tokens of one width, unsigned, with their dot (if any) in one
    column and digits (at most 15) everywhere else; else None."""
    digits = np.array(grid.T, order="C")  # row j: every token's byte j, contiguous (a copy)
    dot = np.flatnonzero(digits[:, 0] == 46)
    if dot.size > 1 or (dot.size and not (digits[dot[0]] == 46).all()):
        return None
    if not 0 < digits.shape[0] - dot.size <= 15:
        return None
    digits -= np.uint8(48)  # wraps: below 10 only for a digit
    if dot.size:
        digits[dot[0]] = 0
    if int(digits.max()) > 9:
        return None
    # Row by row into one array (a BLAS product is slower on numpy 1.17); every partial
    # value is an integer below 10**15, exact.
    value = np.zeros(digits.shape[1])
    for j in range(digits.shape[0]):
        if j not in dot:
            value *= 10
            value += digits[j]
    value /= _POWERS[digits.shape[0] - 1 - int(dot[0]) if dot.size else 0]
    return value


#: The sentences of this module a participant may get, for the manuals (tracks/<kind>.py,
#: errors()): (problem, sentence with {file} for the file, None: whatever the options).
#: Those of every text file, then those of a CSV table (read_csv_table).
TEXT_ERRORS = [
    ("not UTF-8", "{file} line {line} is not UTF-8 text (byte 0xe9); save the file as UTF-8.", None),
    ("a NUL byte", "{file} line {line} holds a NUL byte; expected a text file.", None),
    ("a file that cannot be read", "{file} cannot be read (Permission denied).", None),
    ("not a file", "{file} is a folder, not a regular file{folder_holds}; put the file itself in its place.", None),
    ("larger than the memory", "{file} is larger than the memory the scoring machine has left.", None),
    ("a line too long", "{file} line {line} is longer than %d bytes; expected one short record a line (a line end may "
                        "be missing)." % LINE_LIMIT, None),
]
CSV_ERRORS = [
    ("an unclosed quote", "{file} line {line} opens a quoted field that the line does not close; remove the stray "
                          "double quote or close it on the same line.", None),
    ("a field too long", "{file} line {line} holds a field longer than %d characters; expected short names and "
                         "labels." % FIELD_LIMIT, None),
    ("an empty file", "{file} is empty; expected a header line '{columns}' and one line per image.", None),
    ("another separator", "{file} separates its columns with {separator}; expected commas, e.g. '{columns}'.",
     None),
    ("no header", "{file} line 1 should be the header '{columns}' (found '{line_one_text}'); add the header line.",
     None),
    ("an unknown column", "{file} has an unexpected column 'score'; expected the columns {column_list}.", None),
    ("a column twice", "{file} repeats a column in its header; expected {columns}.", None),
    ("a blank line", "{file} line {line} is blank; remove blank lines.", None),
    ("a line of another length", "{file} line {line} has {field_count}; expected {count_columns} ({columns}).",
     None),
    ("the header twice", "{file} line {line} repeats the header; keep a single header line.", None),
]
