"""Numbers as every reader takes them, the same on every Python and numpy (issue 24): the
grammar of the participants' manuals, values bit for bit those of Python's float() (a
correctly rounded conversion), and the distance CSV read cell by cell as the manual says,
whatever numpy would accept.

The definition the tests hold the readers to, written here from the manual's sentence
(docs/participants/authentication.md, "A CSV cell is a number"): an optional sign, then digits with at
most one dot (at least one digit) and an optional exponent (e or E, an optional sign,
digits), or inf, infinity or nan in any case; ASCII only. Its value is the double nearest
to the decimal (ties to even), which Python's float() returns on every version.
"""

import csv
import decimal
import io
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.errors import SubmissionError
from scoring.readers import authentication as reader
from scoring.readers.text import decimal_values, floats, parse_number

DEFINITION = re.compile(r"[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?|inf|infinity|nan)",
                        re.ASCII | re.IGNORECASE)


def number_or_error(token):
    if DEFINITION.fullmatch(token) is None:
        return "ValueError"
    return float(token)


def fixed_width(value, digits, places):
    text = "%0*d" % (digits, value)
    return text[:digits - places] + "." + text[digits - places:] if places <= digits else text


def near_halfway(seed):
    """A decimal of 17 to 19 significant digits within a unit of its last digit of the
    midpoint between two neighbouring doubles: where a conversion rounded twice goes wrong."""
    rng = np.random.RandomState(seed)
    low = float(rng.uniform(1e-6, 1e6)) * (10.0 ** rng.randint(-8, 9))
    high = float(np.nextafter(low, np.inf))
    middle = (decimal.Decimal(low) + decimal.Decimal(high)) / 2
    digits = int(rng.randint(17, 20))
    text = "%.*e" % (digits - 1, middle)
    mantissa, exponent = text.split("e")
    last = int(mantissa[-1]) + int(rng.randint(-1, 2))
    if 0 <= last <= 9:
        mantissa = mantissa[:-1] + str(last)
    return mantissa + "e" + exponent


decimal_token = st.builds(
    lambda sign, whole, frac, dot: sign + whole + ("." + frac if dot else ""),
    st.sampled_from(["", "-", "+"]), st.text("0123456789", max_size=20), st.text("0123456789", max_size=20),
    st.booleans())
exponent_token = st.builds(lambda mantissa, e, sign, exponent: mantissa + e + sign + exponent,
                           decimal_token, st.sampled_from(["e", "E"]), st.sampled_from(["", "-", "+"]),
                           st.text("0123456789", min_size=0, max_size=5))
written = st.builds(lambda value, form: form % value,
                    st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from(["%r", "%.17g", "%.18e", "%.6f", "%g", "%.3e", "%.20f"]))
token = st.one_of(decimal_token, exponent_token, written, st.integers(0, 10 ** 6).map(near_halfway),
                  st.text("0123456789.-+eE_xna ", min_size=1, max_size=6),
                  st.sampled_from(["nan", "-inf", "Infinity", "1e-7", "0x10", "1_0", "\u0661", ".", "0.75abc",
                                   "9007199254740993", "1e23", "2.2250738585072011e-308", "4.9e-324",
                                   "1.7976931348623157e308", "1e309", "-0", "00000000000000000000000001.5"]))


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.lists(token, min_size=1, max_size=12),
                 # One width, one dot column: the all-at-once path for fixed-width columns.
                 st.tuples(st.integers(1, 15), st.integers(0, 15)).flatmap(lambda shape: st.lists(
                     st.integers(0, 10 ** shape[0] - 1).map(lambda v: fixed_width(v, *shape)),
                     min_size=1, max_size=12))))
def test_floats_follow_the_definition_bit_for_bit(tokens):
    tokens = [t.strip() for t in tokens if t.strip()]
    if not tokens:
        return
    expected = [number_or_error(t) for t in tokens]
    if "ValueError" in expected:
        with pytest.raises(ValueError):
            floats(tokens)
        return
    got = floats(tokens)
    assert got.dtype == np.float64
    # Bit for bit: -0.0 differs from 0.0, and a last-digit difference fails.
    assert got.tobytes() == np.array(expected, dtype=np.float64).tobytes()


@settings(max_examples=400, deadline=None)
@given(st.lists(token, min_size=1, max_size=40), st.sampled_from([" ", ",", "  "]))
def test_decimal_values_follow_the_definition_or_leave_the_token(tokens, separator):
    tokens = [t for t in tokens if t and separator not in t]
    if not tokens:
        return
    data = separator.join(tokens).encode("utf-8")
    lengths = np.array([len(t.encode("utf-8")) for t in tokens])
    starts = np.concatenate(([0], np.cumsum(lengths + len(separator))[:-1]))
    values, slow = decimal_values(np.frombuffer(data, dtype=np.uint8), starts, starts + lengths)
    for i, t in enumerate(tokens):
        if i not in slow:
            assert number_or_error(t) != "ValueError", t
            assert np.array(float(t)).tobytes() == values[i].tobytes(), t
    # Left to parse_number: only what the arrays do not convert exactly.
    convertible = re.compile(r"[-+]?0*([0-9]*)\.?([0-9]*)(?:[eE][-+]?0*([0-9]{1,4}))?")
    for i in slow.tolist():
        match = convertible.fullmatch(tokens[i])
        if match and DEFINITION.fullmatch(tokens[i]) and np.finfo(np.longdouble).nmant >= 63:
            whole, fraction, exponent = match.group(1), match.group(2), int(match.group(3) or 0)
            significant = (whole + fraction).lstrip("0") if not whole else whole + fraction
            power = abs(exponent) + len(fraction)
            assert len(significant) > 19 or power > 27 or len(tokens[i]) > 40 or is_halfway_for_long_double(
                tokens[i]), tokens[i]


def is_halfway_for_long_double(text):
    """Whether the long double nearest to the decimal lies exactly halfway between two
    doubles (the one case the long double path leaves to float())."""
    exact = decimal.Decimal(text)
    low = float(exact)
    for a, b in ((np.nextafter(low, -np.inf), low), (low, np.nextafter(low, np.inf))):
        middle = (decimal.Decimal(float(a)) + decimal.Decimal(float(b))) / 2
        if abs(exact - middle) <= abs(middle) * decimal.Decimal(2) ** -63:
            return True
    return False


def test_floats_hand_cases():
    assert floats(["0.123456", "0.500000"]).tolist() == [0.123456, 0.5]  # one width
    assert floats(["-.25", "5.", "+7", "-0"]).tolist() == [-0.25, 5.0, 7.0, -0.0]
    assert np.signbit(floats(["-0"])[0])
    assert floats(["123456789012345", "0.1234567890123456789"]).tolist() == [123456789012345.0,
                                                                          0.12345678901234568]
    # Exponents, and the long mantissas that pandas (repr) and numpy.savetxt ('%.18e') write.
    assert floats(["1e-7", "2.5E+3", "0.012345678901234567", "1.234567890123456789e-01"]).tolist() == [
        1e-7, 2500.0, 0.012345678901234567, 0.1234567890123456789]
    # 2**53 + 1 lies halfway between two doubles: ties to even, as float() does.
    assert floats(["9007199254740993", "9007199254740995"]).tolist() == [9007199254740992.0, 9007199254740996.0]
    assert floats(["inf", "-Infinity", "+INF"]).tolist() == [np.inf, -np.inf, np.inf]
    assert np.isnan(floats(["nan"])[0])
    for bad in (["1.2.3"], ["--1"], ["1-"], ["."], ["0x10"], ["1_0"], ["\u0661"], ["1e"], ["e5"], ["0.75abc"],
                ["infinit"], ["1e5e5"], ["+-1"]):
        with pytest.raises(ValueError):
            floats(bad)


def test_parse_number_is_ascii_and_strict():
    assert parse_number("1e5") == 1e5 and parse_number(b"-0.5") == -0.5
    for text in ("1_000", "\u0661\u0662", " 1", "1 ", "0x1p3", "", "nan(1)", "1,5"):
        with pytest.raises(ValueError):
            parse_number(text)


# ------------------------------------------------------------------- the distance CSV


def reference_matrix(text, n):
    """The labeled matrix as the manual defines it, read with the csv module: the names
    stripped, each cell stripped of spaces and tabs, then of one pair of quotes around
    it and the spaces and tabs inside them, then a number of the definition."""
    rows = [row for row in csv.reader(io.StringIO(text)) if row and any(c.strip() for c in row)]
    values = []
    for row in rows[1:]:
        cells = []
        for cell in row[1:]:
            cell = cell.strip(" \t")
            if len(cell) >= 2 and cell[0] == cell[-1] == '"':
                cell = cell[1:-1].strip(" \t")
            cells.append(number_or_error(cell))
        values.append(cells)
    return [row[0].strip() for row in rows[1:]], values


def cell_text(value, form, quoted, spaced):
    text = form % value if form != "%r" else repr(float(value))
    if quoted:
        text = '"%s"' % (" " + text if spaced else text)
    return (" " + text + "\t") if spaced else text


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 7).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.lists(st.one_of(st.floats(allow_nan=False, width=64), st.sampled_from([0.0, 1e308, -1e308, 5e-324])),
                      min_size=n, max_size=n), min_size=n, max_size=n),
    st.lists(st.tuples(st.sampled_from(["%r", "%.6f", "%.18e", "%g"]), st.booleans(), st.booleans()),
             min_size=n * n, max_size=n * n),
    st.sampled_from(["\n", "\r\n"]))))
def test_general_csv_path_reads_the_definition(tmp_path_factory, case):
    n, matrix, forms, ending = case
    names = ["img %d.jpg" % i for i in range(n)]
    lines = ["," + ",".join(names)]
    for i, row in enumerate(matrix):
        cells = [cell_text(v, *forms[i * n + j]) for j, v in enumerate(row)]
        lines.append('"%s",' % names[i] + ",".join(cells))
    text = ending.join(lines) + ending
    path = tmp_path_factory.mktemp("csv") / "M_distances.csv"
    path.write_bytes(text.encode("utf-8"))
    expected_names, expected = reference_matrix(text, n)
    got_names, got = reader.read_distances_csv(str(path), "M_distances.csv")
    assert got_names == names == expected_names
    assert got.tobytes() == np.array(expected, dtype=np.float64).tobytes()


def write_csv(tmp_path, cells, name="M_distances.csv"):
    names = ["a.jpg", "b.jpg"]
    text = ",a.jpg,b.jpg\n" + "".join("%s,%s\n" % (n, ",".join(row)) for n, row in zip(names, cells))
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    return str(path)


@pytest.mark.parametrize("cells,expected", [
    ([['"0.0"', '"0.5"'], ['"0.5"', '"0.0"']], [[0.0, 0.5], [0.5, 0.0]]),       # quoted (pandas QUOTE_ALL)
    ([[" 0", " 1e-3"], ["\t1e-3 ", ' " 0 " ']], [[0.0, 1e-3], [1e-3, 0.0]]),    # spaces and tabs around
    ([["0", "inf"], ["inf", "0"]], [[0.0, np.inf], [np.inf, 0.0]]),             # inf: the farthest
    ([["0", "1e308"], ["-1e308", "0"]], [[0.0, 1e308], [-1e308, 0.0]]),         # any float
])
def test_accepted_cells(tmp_path, cells, expected):
    names, matrix = reader.read_distances_csv(write_csv(tmp_path, cells), "M_distances.csv")
    assert names == ["a.jpg", "b.jpg"] and matrix.tolist() == expected


@pytest.mark.parametrize("cells,sentence", [
    ([["0", "0.75abc"], ["1", "0"]], "M_distances.csv line 2, column 3 holds '0.75abc'; expected a number."),
    ([["0", "1_0"], ["1", "0"]], "M_distances.csv line 2, column 3 holds '1_0'; expected a number."),
    ([["0", "\u0661"], ["1", "0"]], "M_distances.csv line 2, column 3 holds '\u0661'; expected a number."),
    ([["0", "0x10"], ["1", "0"]], "M_distances.csv line 2, column 3 holds '0x10'; expected a number."),
    ([["0", '"0,5"'], ["1", "0"]], "M_distances.csv line 2, column 3 holds '0,5'; expected a number with a dot for "
                                   "decimals, e.g. 0.5."),
    ([["0", "nan"], ["1", "0"]], "M_distances.csv line 2, column 3 (a.jpg to b.jpg) is nan; every distance must "
                                 "be a number (inf for the farthest)."),
])
def test_refused_cells(tmp_path, cells, sentence):
    with pytest.raises(SubmissionError) as raised:
        reader.read_distances_csv(write_csv(tmp_path, cells), "M_distances.csv")
    assert raised.value.sentence == sentence


def test_lines_ended_by_cr_alone(tmp_path):
    path = tmp_path / "M_distances.csv"
    path.write_bytes(b",a.jpg,b.jpg\r a.jpg,0,0.25\rb.jpg,0.25,0\r".replace(b"\r ", b"\r"))
    names, matrix = reader.read_distances_csv(str(path), "M_distances.csv")
    assert names == ["a.jpg", "b.jpg"] and matrix.tolist() == [[0.0, 0.25], [0.25, 0.0]]
