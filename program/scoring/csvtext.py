"""The one CSV writer of the program: the standard library's csv, comma-separated, LF line
ends, fields quoted only where they must be. Cells are written as str() gives them: a
caller formats its floats itself ("%.10g"), so that a file is the same on every stack.

Two uses, two functions. A table people open (private/, compare.py's ranking.csv,
pairs.csv, ranks.csv) is written inert by csv_text: a spreadsheet runs a cell that starts
with =, +, -, @, a tab or a carriage return as a formula (a team named
`=1+cmd|' /C calc'!A0`), so such a text cell gets a single quote in front, as OWASP's
"CSV Injection" page recommends (https://owasp.org/www-community/attacks/CSV_Injection);
a number (-0.25, +1, -inf: readers/text.NUMBER) stays a number. Control characters,
bidirectional controls and invisible characters in text cells are written as escapes
(errors.printable). A file the program reads back as data (a starting kit's sample
submission, compare.py's placeholder labels) is written as is by csv_data.
"""

import csv
import io
import re

from .errors import HIDDEN, printable
from .readers.text import NUMBER

#: The first characters that make a spreadsheet cell a formula (OWASP).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def inert(cell):
    """A cell for a table people open: a text cell escaped (printable) and quoted against
    formulas; a number, or anything that is not text, as it is."""
    if not isinstance(cell, str) or NUMBER.match(cell):
        return cell
    cell = printable(cell)
    return "'" + cell if cell.startswith(FORMULA_STARTS) else cell


def csv_data(header, rows):
    """CSV text of cells exactly as given: for files the program reads back."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


_HIDDEN = re.compile("[%s]" % HIDDEN)


def _suspect(text):
    """Whether some cell of a CSV text may need inert(): a cell starting with a formula's
    first character (or a negative number), a quoted cell (it may hold a line end), a
    control, bidirectional or invisible character. Most tables hold none, and these
    searches of the whole text cost a fraction of writing it."""
    if '"' in text or not text.replace("\n", " ").isprintable():  # controls, Cf (bidi, zero-width), Zl, Zp
        return True
    if not text.isascii() and _HIDDEN.search(text):  # the invisible letters and marks (Hangul fillers...)
        return True
    return text.startswith(FORMULA_STARTS) or any(
        c in text and (("," + c) in text or ("\n" + c) in text) for c in "=+-@")  # one character first: memchr


def csv_text(header, rows):
    """CSV text of a table people open: every cell inert()."""
    rows = rows if isinstance(rows, list) else list(rows)
    text = csv_data(header, rows)
    if not _suspect(text):
        return text
    return csv_data([inert(c) for c in header], ([inert(c) for c in row] for row in rows))


def csv_bytes(header, rows):
    return csv_text(header, rows).encode("utf-8")
