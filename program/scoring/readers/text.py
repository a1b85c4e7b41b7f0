"""Text and CSV files as participants write them: UTF-8 with or without a BOM, CRLF or
LF, trailing blank lines; anything else is refused with the file and the line.
"""

import csv

import numpy as np

from ..errors import SubmissionError
from ..layout import check_regular
from ..memory import memory_guard

#: The csv module's own limit on a field's length (its default), kept as is: no name or
#: label comes near it, and a field beyond it is refused in a sentence naming its line.
FIELD_LIMIT = 131072


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


def read_bytes(path, shown_name, error=SubmissionError):
    """The bytes of a regular file (anything else is refused before it is opened)."""
    check_regular(path, shown_name, error)
    try:
        with memory_guard("%s is larger than the memory the scoring machine has left." % shown_name, error):
            with open(path, "rb") as stream:
                return stream.read()
    except (OSError, IOError) as exc:
        raise error("%s cannot be read (%s)." % (shown_name, exc.strerror or exc))


def csv_rows(lines, shown_name, error):
    """[(line number, cells)] of CSV lines, one record per line.

    A quoted field may not run over a line's end (an unmatched quote would swallow the
    lines after it into one field) and no field may exceed FIELD_LIMIT characters; either
    is refused naming the line where the record starts.
    """
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
        if "field limit" in str(exc):
            raise error("%s line %d holds a field longer than %d characters; expected short names and labels."
                        % (shown_name, previous + 1, FIELD_LIMIT))
        raise error("%s line %d is not valid CSV (%s)." % (shown_name, previous + 1, exc))
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
                    % (shown_name, ",".join(columns + list(optional)), header_line[:80]))
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
            raise error("%s line %d has %d fields; expected %d (%s)."
                        % (shown_name, number, len(cells), len(header), ",".join(rows[0])))
        if [c.strip().lower() for c in cells] == header:
            raise error("%s line %d repeats the header; keep a single header line." % (shown_name, number))
        body.append((number, [c.strip() for c in cells]))
    return index, body


#: 10**k for k <= 22: the powers of ten a double holds exactly.
_POWERS = 10.0 ** np.arange(23)
#: Above this (2**53) an integer of digits may not be an exact double.
_EXACT = 2 ** 53


def floats(tokens):
    """[float(t) for t in tokens] as a float64 array, bit for bit; ValueError as float().

    tokens: non-empty strings without whitespace (the fields of str.split).
    """
    if not tokens:
        return np.zeros(0)
    try:
        buf = np.frombuffer(" ".join(tokens).encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return np.array(tokens, dtype=np.float64)
    ends = np.cumsum([len(t) + 1 for t in tokens]) - 1
    values, slow = decimal_values(buf, ends - np.array([len(t) for t in tokens]), ends)
    for i in slow.tolist():
        values[i] = float(tokens[i])
    return values


def decimal_values(buf, starts, ends):
    """The values of the tokens buf[starts[i]:ends[i]] of a uint8 buffer, and the
    indices of the tokens left to float(): (float64 array, int array).

    A token of the form [sign] digits [. digits] (at least one digit, at most 18, at
    most 22 after the dot) is converted from its bytes: its digits make an integer
    M, and when M <= 2**53, M / 10**k is a single correctly rounded division of two
    exact doubles (Clinger's fast path), the correctly rounded value float() returns
    too. Every other token (exponents, 'nan', more digits, anything malformed) is left
    at 0 in the array and listed: the caller converts it with float(), which raises
    the ValueError a malformed token deserves.
    """
    lengths = ends - starts
    count = lengths.size
    if count == 0:
        return np.zeros(0), np.zeros(0, dtype=np.int64)
    width = int(lengths.max())
    if width > 40 or int(lengths.min()) < 1:
        return np.zeros(count), np.arange(count)
    if int(lengths.min()) == width:
        return decimal_rows(strided_rows(buf, starts, width))
    return _decimal_columns(buf.take(np.minimum(starts[:, None] + np.arange(width), buf.size - 1)), lengths)


def decimal_rows(grid):
    """decimal_values of tokens of one width: the rows of a (count, width) uint8 matrix."""
    count, width = grid.shape
    if width > 40:
        return np.zeros(count), np.arange(count)
    values = _one_layout(grid)
    if values is not None:
        return values, np.zeros(0, dtype=np.int64)
    return _decimal_columns(grid, np.full(count, width))


def _decimal_columns(grid, lengths):
    """decimal_values of the tokens grid[i, :lengths[i]], column by column."""
    count, width = grid.shape
    negative = grid[:, 0] == 45
    ok = lengths >= 1
    mantissa = np.zeros(count, dtype=np.int64)
    digits = np.zeros(count, dtype=np.int64)
    places = np.zeros(count, dtype=np.int64)
    dots = np.zeros(count, dtype=np.int64)
    for j in range(width):
        column = grid[:, j]
        inside = lengths > j
        value = column - np.uint8(48)  # wraps: below 10 only for a digit
        digit = (value < 10) & inside
        dot = (column == 46) & inside
        if j == 0:
            ok &= digit | dot | negative | (column == 43)
        else:
            ok &= digit | dot | ~inside
        mantissa = np.where(digit, mantissa * 10 + value, mantissa)
        digits += digit
        places += digit & (dots > 0)
        dots += dot
    ok &= (dots <= 1) & (digits >= 1) & (digits <= 18) & (places <= 22)
    ok &= mantissa <= _EXACT
    values = mantissa.astype(np.float64) / _POWERS[np.minimum(places, 22)]
    np.negative(values, out=values, where=negative)
    values[~ok] = 0.0
    return values, np.flatnonzero(~ok)


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
    # rows, 4 to 5 times faster than taking a matrix of byte indices (numpy 1.17 and 2.x).
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
    # Row by row into one array (no BLAS product: with numpy 1.17 one took 10 ms for
    # 30,000 rows); every partial value is an integer below 10**15, exact.
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
    ("not a file", "{file} is a folder; expected a regular file.", None),
    ("larger than the memory", "{file} is larger than the memory the scoring machine has left.", None),
]
CSV_ERRORS = [
    ("an unclosed quote", "{file} line {line} opens a quoted field that the line does not close; remove the stray "
                          "double quote or close it on the same line.", None),
    ("a field too long", "{file} line {line} holds a field longer than 131072 characters; expected short names and "
                         "labels.", None),
    ("not CSV", "{file} line {line} is not valid CSV ({reason}).", None),
    ("an empty file", "{file} is empty; expected a header line '{columns}' and one line per image.", None),
    ("another separator", "{file} separates its columns with {separator}; expected commas, e.g. '{columns}'.",
     None),
    ("no header", "{file} line 1 should be the header '{all_columns}' (found '{first_line}'); add the header line.",
     None),
    ("an unknown column", "{file} has an unexpected column 'score'; expected the columns {column_list}.", None),
    ("a column twice", "{file} repeats a column in its header; expected {columns}.", None),
    ("a blank line", "{file} line {line} is blank; remove blank lines.", None),
    ("a line of another length", "{file} line {line} has {fields} fields; expected {count_columns} ({all_columns}).",
     None),
    ("the header twice", "{file} line {line} repeats the header; keep a single header line.", None),
]
