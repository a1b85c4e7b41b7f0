"""The one CSV writer of the program (private/ tables, compare.py's CSV files): the
standard library's csv, comma-separated, LF line ends, fields quoted only where they
must be. Cells are written as str() gives them: a caller formats its floats itself
("%.10g"), so that a file is the same on every stack."""

import csv
import io


def csv_text(header, rows):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def csv_bytes(header, rows):
    return csv_text(header, rows).encode("utf-8")
