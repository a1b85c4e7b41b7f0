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


_POWERS = 10.0 ** np.arange(16)  # exact doubles


def floats(tokens):
    """[float(t) for t in tokens] as a float64 array, bit for bit; ValueError as float().

    tokens: non-empty strings without whitespace (the fields of str.split). A column of
    plain decimals of one width with the dot in one place (e.g. all written with '%.6f'
    between 0 and 1) is converted all at once from its bytes: the digits of a token make
    an integer M < 10**15, and M / 10**k, both exact doubles, is a single correctly
    rounded division (Clinger's fast path), the correctly rounded value float() returns
    too. Any other column goes through float().
    """
    grid = fixed_width_rows(tokens)
    values = None if grid is None else _fixed_width(grid)
    return np.array(tokens, dtype=np.float64) if values is None else values


def fixed_width_rows(tokens):
    """The tokens as the rows of a (count, width) uint8 matrix when all are ASCII and of
    one width (e.g. '000123.jpg'), else None."""
    count = len(tokens)
    if count == 0:
        return None
    try:
        raw = np.frombuffer(" ".join(tokens).encode("ascii"), dtype=np.uint8)
    except UnicodeEncodeError:
        return None
    width, extra = divmod(raw.size + 1, count)
    if extra or width < 2:
        return None
    grid = np.append(raw, np.uint8(32)).reshape(count, width)
    return grid[:, :-1] if (grid[:, -1] == 32).all() else None


def _fixed_width(grid):
    """The values of fixed-width tokens whose dot (if any) sits in one column and whose
    other characters are all digits, at most 15 of them; else None."""
    dot = np.flatnonzero(grid[0] == 46)
    if dot.size > 1 or (dot.size and not (grid[:, dot[0]] == 46).all()):
        return None
    columns = np.delete(np.arange(grid.shape[1]), dot)
    values = grid[:, columns] - np.uint8(48)  # wraps: below 10 only for a digit
    if columns.size == 0 or columns.size > 15 or not (values < 10).all():
        return None
    places = grid.shape[1] - 1 - int(dot[0]) if dot.size else 0
    return values.astype(np.float64).dot(_POWERS[columns.size - 1::-1]) / _POWERS[places]
