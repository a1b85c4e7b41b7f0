"""The events track end to end: the sample phase, tolerated formats, every error of
SPEC section 5 with its file and line, and the options of track.yaml."""

import os
import shutil

import numpy as np
import pytest
from conftest import ROOT, assert_clean_failure, run_scorer
from phases import write_phase
from hypothesis import given, settings
from hypothesis import strategies as st
from scoring.errors import SubmissionError
from scoring.metrics.ranking import ranked_counts
from scoring.names import near_name
from scoring.readers.events import Category, _split_pairs_by_line, line_number, split_pairs
from scoring.tracks.events import HARDEST, hardest_images

SAMPLE_REF = os.path.join(ROOT, "input", "ref", "events")
SAMPLE_RES = os.path.join(ROOT, "input", "res", "events")


REF = {
    "La_Tomatina.txt": "a.jpg 1\nb.jpg 0\nc.jpg 1\nd.jpg -1\n",
    "Holi_Festival.txt": "a.jpg 0\nb.jpg 1\nc.jpg -1\nd.jpg 0\n",
}
RES = {
    # La_Tomatina: a + (0.9), b - (0.8), c + (0.7), d - (0.1): + - + - -> 5/6.
    "La_Tomatina.txt": "a.jpg 0.9\nb.jpg 0.8\nc.jpg 0.7\nd.jpg 0.1\n",
    # Holi_Festival: b + first -> 1.
    "Holi_Festival.txt": "d.jpg 0.2\nc.jpg 0.3\nb.jpg 5\na.jpg -1\n",
}


def test_hand_worked_map(tmp_path):
    run = run_scorer(write_phase(tmp_path / "input", REF, RES, "track: events\n"), tmp_path / "out")
    assert run.status == 0, run.stderr
    assert run.scores() == {"map": pytest.approx((5 / 6 + 1.0) / 2, abs=1e-10)}
    page = open(os.path.join(run.output, "detailed_results.html")).read()
    # Worst first in the table.
    assert page.index("La_Tomatina") < page.index("Holi_Festival")
    assert page.count("<svg") == 2  # one precision/recall chart per category
    hardest = open(os.path.join(run.output, "private", "events", "hardest_images.csv")).read().splitlines()
    # Worst category first; its positives from the lowest rank up, then its negatives from the highest.
    assert hardest[:5] == ["category,image,label,confidence,rank", "La_Tomatina,c.jpg,1,0.7,3",
                           "La_Tomatina,a.jpg,1,0.9,1", "La_Tomatina,b.jpg,0,0.8,2", "La_Tomatina,d.jpg,0,0.1,4"]
    assert "c.jpg" not in page  # per-image results stay private by default


def test_charts_of_the_lowest_aps_only(tmp_path):
    """Beyond CHARTED categories the page draws the charts of the lowest APs only, worst
    first (ties by name, as in the table); the table still lists every category. C00 to
    C12 rank their positive last of three images (precision 1/3 at recall 1, the monotone
    precision 1/3 from recall 0: AP 1/3), C13 and C14 first (AP 1): C00 to C11 are drawn."""
    from scoring.tracks.events import CHARTED

    assert CHARTED == 12
    ref, res = {}, {}
    for k in range(15):
        ref["C%02d.txt" % k] = "a.jpg 1\nb.jpg 0\nc.jpg 0\n"
        res["C%02d.txt" % k] = "a.jpg %s\nb.jpg 0.5\nc.jpg 0.4\n" % ("0.1" if k < 13 else "0.9")
    run = run_scorer(write_phase(tmp_path / "input", ref, res, "track: events\n"), tmp_path / "out")
    assert run.status == 0, run.stderr
    page = open(os.path.join(run.output, "detailed_results.html")).read()
    assert page.count("<svg") == CHARTED
    assert "Precision/recall of the 12 categories of lowest AP" in page
    charted = page[page.index("Precision/recall of the 12"):]
    assert "C11" in charted and not any(name in charted for name in ("C12", "C13", "C14"))
    assert "C13" in page and "C14" in page  # in the table


def test_ids_typed_decomposed_match_the_composed_reference(tmp_path):
    """Image ids with accents, composed (NFC) in the reference and decomposed (NFD, as
    macOS writes them) in the submission: the same ids, the same mAP."""
    import unicodedata
    accented = dict((name, text.replace(".jpg", "_été.jpg")) for name, text in REF.items())
    composed = dict((name, text.replace(".jpg", "_été.jpg")) for name, text in RES.items())
    decomposed = dict((name, unicodedata.normalize("NFD", text)) for name, text in composed.items())
    assert decomposed != composed
    for res in (composed, decomposed):
        run = run_scorer(write_phase(tmp_path / "input", accented, res, "track: events\n"), tmp_path / "out")
        assert run.status == 0, run.stderr
        assert run.scores() == {"map": pytest.approx((5 / 6 + 1.0) / 2, abs=1e-10)}


def test_formats_tolerated(tmp_path):
    res = {
        "La_Tomatina.txt": b"\xef\xbb\xbfa.jpg\t0.9\r\nb.jpg  0.8\r\n\r\nc.jpg 0.7 \r\nd.jpg\t1e-1\r\n\r\n\r\n",
        "Holi_Festival.txt": "  d.jpg 0.2\nc.jpg 0.3\nb.jpg 5\na.jpg -1",
    }
    run = run_scorer(write_phase(tmp_path / "input", REF, res, "track: events\n"), tmp_path / "out")
    assert run.status == 0, run.stderr
    assert run.scores()["map"] == pytest.approx((5 / 6 + 1.0) / 2, abs=1e-10)


def test_sample_phase_matches_an_independent_computation(tmp_path):
    root = tmp_path / "input"
    shutil.copytree(SAMPLE_REF, str(root / "ref"))
    shutil.copytree(SAMPLE_RES, str(root / "res"))
    run = run_scorer(root, tmp_path / "out")
    assert run.status == 0, run.stderr
    aps = []
    for name in sorted(os.listdir(SAMPLE_REF)):
        if not name.endswith(".txt"):
            continue
        truth = dict(line.split() for line in open(os.path.join(SAMPLE_REF, name)))
        confidence = dict((k, float(v)) for k, v in (line.split() for line in open(os.path.join(SAMPLE_RES, name))))
        aps.append(trapezoid_ap([truth[k] == "1" for k in truth], [confidence[k] for k in truth]))
    assert len(aps) == 12
    assert run.scores()["map"] == pytest.approx(float(np.mean(aps)), abs=1e-9)


def trapezoid_ap(labels, scores):
    """SPEC section 5 step by step, in plain Python (ties as one operating point)."""
    positives = sum(labels)
    points = []
    tp = count = 0
    for level in sorted(set(scores), reverse=True):
        members = [label for label, score in zip(labels, scores) if score == level]
        tp += sum(members)
        count += len(members)
        points.append((tp / positives, tp / count))
    envelope = [max(p for _, p in points[i:]) for i in range(len(points))]
    area, last_r, last_p = 0.0, 0.0, envelope[0]
    for (r, _), p in zip(points, envelope):
        area += (r - last_r) * (p + last_p) / 2
        last_r, last_p = r, p
    return area


@pytest.mark.parametrize("res_text, fragments", [
    ("a.jpg 0.9\nb.jpg 0.8\nc.jpg abc\nd.jpg 0.1\n", ["La_Tomatina.txt line 3", "'abc'"]),
    ("a.jpg 0.9\nb.jpg nan\nc.jpg 0.7\nd.jpg 0.1\n", ["La_Tomatina.txt line 2", "finite"]),
    ("a.jpg 0.9\nb.jpg inf\nc.jpg 0.7\nd.jpg 0.1\n", ["La_Tomatina.txt line 2", "finite"]),
    ("a.jpg 0.9\nb.jpg 0.8 0.1\nc.jpg 0.7\nd.jpg\n", ["La_Tomatina.txt line 2", "3 fields"]),
    ("a.jpg 0.9\nb.jpg\nc.jpg 0.7 0.2\nd.jpg 0.1\n", ["La_Tomatina.txt line 2", "has 1 field ('b.jpg')"]),
    ("a.jpg 0.9\nb.jpg 0.8\nz.jpg 0.7\nd.jpg 0.1\n", ["La_Tomatina.txt line 3", "z.jpg", "not among"]),
    ("a.jpg 0.9\nb.jpg 0.8\nc.jpg 0.7\na.jpg 0.1\nd.jpg 0.1\n", ["La_Tomatina.txt line 4", "first on line 1"]),
    ("a.jpg 0.9\nb.jpg 0.8\nc.jpg 0.7\n", ["La_Tomatina.txt lacks 1 of the 4", "d.jpg"]),
    (b"a.jpg 0.9\nb.jpg 0.8\n\xe9.jpg 0.7\nd.jpg 0.1\n", ["La_Tomatina.txt line 3", "UTF-8"]),
    ("\n\n", ["La_Tomatina.txt is empty"]),
    ("a.jpg 0.9\n\n\n\nb.jpg 0.8\nc.jpg 0.7\nd.jpg 0.1 x\n", ["La_Tomatina.txt line 7", "3 fields"]),
])
def test_submission_errors(tmp_path, res_text, fragments):
    res = dict(RES)
    res["La_Tomatina.txt"] = res_text
    run = run_scorer(write_phase(tmp_path / "input", REF, res, "track: events\n"), tmp_path / "out")
    assert_clean_failure(run, 1, *fragments)


@pytest.mark.parametrize("submitted", ["la_tomatina.txt", "La Tomatina.txt", "La_Tomatina", "La_Tomatin.txt"])
def test_did_you_mean(tmp_path, submitted):
    res = dict(RES)
    res[submitted] = res.pop("La_Tomatina.txt")
    run = run_scorer(write_phase(tmp_path / "input", REF, res, "track: events\n"), tmp_path / "out")
    how = {"la_tomatina.txt": "which differs only in case (names are case-sensitive)",
           "La Tomatina.txt": "which differs only in its spaces, dashes, underscores or case",
           "La_Tomatina": "which differs in its extension", "La_Tomatin.txt": "a name close to it"}[submitted]
    assert_clean_failure(run, 1, "The submission has no La_Tomatina.txt; found %s, %s: rename it La_Tomatina.txt"
                         % (submitted, how))


def test_missing_file_without_near_name(tmp_path):
    res = dict(RES)
    del res["La_Tomatina.txt"]
    run = run_scorer(write_phase(tmp_path / "input", REF, res, "track: events\n"), tmp_path / "out")
    assert_clean_failure(run, 1, "The submission has no La_Tomatina.txt")


def test_missing_last_ranks_absent_ids_below(tmp_path):
    res = dict(RES)
    # a + (0.9), c + (0.1), b and d absent: + + then the tie {b-, d-}: AP 1.
    res["La_Tomatina.txt"] = "a.jpg 0.9\nc.jpg 0.1\n"
    # b + absent: a, c, d submitted (all negatives), then b: points (0, 0) x3 and (1, 1/4):
    # envelope 1/4 everywhere: AP 1/4.
    res["Holi_Festival.txt"] = "a.jpg 3\nc.jpg 2\nd.jpg 1\n"
    run = run_scorer(write_phase(tmp_path / "input", REF, res, "track: events\nmissing: last\n"), tmp_path / "out")
    assert run.status == 0, run.stderr
    assert run.scores()["map"] == pytest.approx((1.0 + 0.25) / 2, abs=1e-10)
    assert "ranked last" in run.stderr


@pytest.mark.parametrize("how", ["absent", "empty", "blank lines"])
def test_missing_last_ranks_every_image_of_a_category_not_given_last(tmp_path, how):
    """Under missing: last a category file left out or empty is a missing case: its 4
    images tied at one operating point, precision 2/4 from recall 0 to 1: AP 1/2 (by the
    trapezoidal rule over the monotone precision); Holi_Festival's AP is 1."""
    res = dict(RES)
    if how == "absent":
        del res["La_Tomatina.txt"]
    else:
        res["La_Tomatina.txt"] = "" if how == "empty" else "\n\n"
    run = run_scorer(write_phase(tmp_path / "input", REF, res, "track: events\nmissing: last\n"), tmp_path / "out")
    assert run.status == 0, run.stderr
    assert run.scores()["map"] == pytest.approx((0.5 + 1.0) / 2, abs=1e-10)
    if how == "absent":
        sentence = "No La_Tomatina.txt: every image of category La_Tomatina is ranked last, tied (missing: last)."
        assert sentence in run.stderr
        assert sentence in open(os.path.join(run.output, "detailed_results.html")).read()
    else:
        assert "4 of 4 images not submitted, ranked last" in run.stderr
    # Under missing: error the same submission is refused.
    run = run_scorer(write_phase(tmp_path / "error", REF, res, "track: events\n"), tmp_path / "out-error")
    assert run.status == 1


def test_missing_last_still_refuses_a_near_name_and_a_submission_without_any_category(tmp_path):
    res = dict(RES)
    res["la_tomatina.txt"] = res.pop("La_Tomatina.txt")
    run = run_scorer(write_phase(tmp_path / "near", REF, res, "track: events\nmissing: last\n"), tmp_path / "o1")
    assert_clean_failure(run, 1, "la_tomatina.txt")
    run = run_scorer(write_phase(tmp_path / "none", REF, {"notes.md": "nothing\n"}, "track: events\nmissing: last\n"),
                     tmp_path / "o2")
    assert_clean_failure(run, 1, "The submission has no")


def test_category_without_positive_is_left_out(tmp_path):
    ref = dict(REF)
    ref["Up_Helly_Aa.txt"] = "a.jpg 0\nb.jpg -1\nc.jpg 0\nd.jpg 0\n"
    res = dict(RES)
    res["Up_Helly_Aa.txt"] = "a.jpg 0.1\nb.jpg 0.2\nc.jpg 0.3\nd.jpg 0.4\n"
    run = run_scorer(write_phase(tmp_path / "input", ref, res, "track: events\n"), tmp_path / "out")
    assert run.status == 0, run.stderr
    assert run.scores()["map"] == pytest.approx((5 / 6 + 1.0) / 2, abs=1e-10)
    assert "Up_Helly_Aa has no positive image" in run.stderr


@pytest.mark.parametrize("ref_change, fragments", [
    ({"La_Tomatina.txt": "a.jpg 0\nb.jpg 0\nc.jpg -1\nd.jpg 0\n",
      "Holi_Festival.txt": "a.jpg 0\nb.jpg 0\nc.jpg -1\nd.jpg 0\n"}, ["No category", "positive"]),
    ({"La_Tomatina.txt": "a.jpg 1\nb.jpg 2\nc.jpg 1\nd.jpg 0\n"}, ["ref/La_Tomatina.txt line 2", "'2'"]),
    ({"La_Tomatina.txt": "a.jpg 1\nb.jpg 0\na.jpg 1\nd.jpg 0\n"}, ["ref/La_Tomatina.txt line 3", "a.jpg"]),
    ({"La_Tomatina.txt": "a.jpg 1\nb.jpg\n"}, ["ref/La_Tomatina.txt line 2"]),
    ({"La_Tomatina.txt": "\n\n"}, ["ref/La_Tomatina.txt lists no image"]),
])
def test_reference_errors(tmp_path, ref_change, fragments):
    ref = dict(REF)
    ref.update(ref_change)
    run = run_scorer(write_phase(tmp_path / "input", ref, RES, "track: events\n"), tmp_path / "out")
    assert_clean_failure(run, 2, *fragments)


def test_bad_option(tmp_path):
    run = run_scorer(write_phase(tmp_path / "input", REF, RES, "track: events\nmissing: drop\n"), tmp_path / "out")
    assert_clean_failure(run, 2, "missing", "'drop'")


def test_public_details_shows_hardest_images(tmp_path):
    phase = write_phase(tmp_path / "input", REF, RES, "track: events\npublic_details: true\n")
    run = run_scorer(phase, tmp_path / "out")
    assert run.status == 0, run.stderr
    page = open(os.path.join(run.output, "detailed_results.html")).read()
    assert "Hardest images" in page


# ---------------------------------------------------------------- reader units


def test_fast_and_slow_paths_agree():
    data = b"x 1\ny 2\n"
    assert split_pairs(data, "f", SubmissionError) == (["x", "y"], ["1", "2"], None)
    first, second, lines = split_pairs(b"\nx 1\n\n  y\t2\r\n", "f", SubmissionError)
    assert (first, second, lines) == (["x", "y"], ["1", "2"], [2, 4])


def test_near_name():
    assert near_name("La_Tomatina.txt", ["LA-TOMATINA.TXT", "other.txt"]) == "LA-TOMATINA.TXT"
    assert near_name("La_Tomatina.txt", ["Holi_Festival.txt"]) is None


field = st.text(st.sampled_from("ab1.-_é\x7f\x1f"), min_size=1, max_size=4)  # str.split splits at US (\x1f), not at DEL
separator = st.sampled_from([" ", "\t", "  ", " \t"])
line = st.one_of(
    st.tuples(field, separator, field).map("".join),
    st.tuples(field, separator, field, separator, field).map("".join),
    field, st.just(""), st.just("  "),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(line, max_size=8), st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans())
def test_fast_path_agrees_with_the_line_by_line_pass(lines, end, bom, final_end):
    text = end.join(lines) + (end if final_end else "")
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    try:
        expected = _split_pairs_by_line(data, "f", SubmissionError)
    except SubmissionError as error:
        with pytest.raises(SubmissionError) as raised:
            split_pairs(data, "f", SubmissionError)
        assert raised.value.sentence == error.sentence
        return
    first, second, numbers = split_pairs(data, "f", SubmissionError)
    assert (first, second) == expected[:2]
    assert [line_number(numbers, i) for i in range(len(first))] == expected[2]


@settings(max_examples=300, deadline=None)
@given(st.lists(line, max_size=8), st.sampled_from(["\n", "\r\n", "\r"]), st.booleans(), st.booleans())
def test_byte_path_agrees_with_the_line_by_line_pass(lines, end, bom, final_end):
    from scoring.readers.events import byte_pairs
    text = end.join(lines) + (end if final_end else "")
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8")
    parsed = byte_pairs(data)
    if parsed is None:
        return  # left to the text path, compared above
    buf, starts, separators, ends = parsed.buf, parsed.starts, parsed.separators, parsed.ends
    first = [bytes(buf[a:b]).decode() for a, b in zip(starts, separators)]
    second = [bytes(buf[a + 1:b]).decode() for a, b in zip(separators, ends)]
    expected = _split_pairs_by_line(data, "f", SubmissionError)
    assert (first, second, list(range(1, len(first) + 1))) == expected


def test_byte_path_takes_plain_files_only():
    from scoring.readers.events import byte_pairs
    for data in (b"a 1\nb\t2", b"\xef\xbb\xbfa 1\r\nb 2\r\n\r\n  \n"):
        assert byte_pairs(data) is not None
    for data in (b"", b"\n", b"a 1\n\nb 2\n", b" a 1\n", b"a  1\n", b"a 1 2\n", b"a\xc3\xa9 1\n", b"a 1\rb 2\n",
                 b"a 1\n\x00"):
        assert byte_pairs(data) is None, data


ascii_field = st.text(st.sampled_from("ab1.-_ \t\r"), min_size=3, max_size=3)


def trimmed(data):
    """The bytes byte_pairs hands to its two passes: no BOM, no trailing blank lines."""
    data = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    data = data.rstrip(b" \t\r\n")
    return data, np.frombuffer(data, dtype=np.uint8)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(ascii_field, st.sampled_from([" ", "\t", "x", "  "]), ascii_field), min_size=1,
                max_size=6),
       st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_fixed_width_lines_agree_with_the_blanks_pass(cells, end, final_end):
    # Lines of one length or nearly (three bytes, a separator, three bytes), some with a
    # blank or CR inside a field, two blanks or no separator: the proof on the byte matrix
    # never takes a file the pass over every blank's position refuses, and gives the same
    # fields when it takes one.
    from scoring.readers.events import _fixed_width_pairs
    assert_proof_agrees_with_the_blanks_pass(_fixed_width_pairs, cells, end, final_end)


def assert_proof_agrees_with_the_blanks_pass(proof, cells, end, final_end):
    """The file of these cells' lines: if proof(data, buf) takes it, _blank_pairs does
    too, with the same fields."""
    from scoring.readers.events import _blank_pairs
    data, buf = trimmed((end.join("".join(c) for c in cells) + (end if final_end else "")).encode("ascii"))
    if not data:
        return
    found, general = proof(data, buf), _blank_pairs(buf)
    if found is not None:
        assert general is not None
        for name in ("starts", "separators", "ends", "count", "id_width", "tail"):
            assert np.array_equal(getattr(found, name), getattr(general, name)), name


@settings(max_examples=400, deadline=None)
@given(st.integers(1, 4).flatmap(lambda width: st.lists(st.tuples(
           st.text(st.sampled_from("ab1.-_ \t\r"), min_size=width, max_size=width),
           st.sampled_from([" ", "\t", "x", "  "]),
           st.text(st.sampled_from("ab1.-_ \t\r"), max_size=4)), min_size=1, max_size=6)),
       st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_one_id_column_agrees_with_the_blanks_pass(cells, end, final_end):
    # First fields of one width, second fields of any (the reference's labels 1, 0 and
    # -1), some with a blank or CR inside a field, two blanks, no separator or an empty
    # field: the proof from the line feeds' positions never takes a file the pass over
    # every blank's position refuses, and gives the same fields when it takes one.
    from scoring.readers.events import _id_column_pairs
    assert_proof_agrees_with_the_blanks_pass(_id_column_pairs, cells, end, final_end)


def test_one_id_column():
    from scoring.readers.events import _fixed_width_pairs, _id_column_pairs
    data, buf = trimmed(b"000001.jpg 1\r\n000002.jpg -1\r\n000003.jpg 0\r\n")
    assert _fixed_width_pairs(data, buf) is None
    pairs = _id_column_pairs(data, buf)
    assert (pairs.starts.tolist(), pairs.separators.tolist(), pairs.ends.tolist()) == ([0, 14, 29], [10, 24, 39],
                                                                                       [12, 27, 41])
    # A short line whose column holds the next line's second blank; a line without its
    # separator at the column; an empty second field; a blank inside a field.
    for data in (b"abc d\nx\na b c\n", b"ab 1\nabc 1\n", b"ab 1\nab \n", b"ab 1\nab 2 3\n"):
        assert _id_column_pairs(*trimmed(data)) is None, data


id_text = st.text(st.sampled_from("ab1.-_xyz+"), min_size=1, max_size=20)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(id_text, st.text(st.sampled_from("0123456789.-"), min_size=1, max_size=3)), min_size=1,
                max_size=8), st.sampled_from(["\n", "\r\n"]), st.booleans(), st.booleans())
def test_id_rows_read_every_id(rows, end, final_end, one_value):
    # Ids of 1 to 20 bytes (one to three words), of one width or several, on lines of
    # one length or several: every proof of byte_pairs, and the last line's words read
    # past the end of the file.
    from scoring.readers import events as reader
    if one_value:
        rows = [(image, rows[0][1]) for image, _ in rows]
    data = end.join("%s %s" % row for row in rows) + (end if final_end else "")
    ids = reader.id_rows(reader.byte_pairs(data.encode("ascii")))
    assert ids.strings() == [image for image, _ in rows] and len(ids) == len(rows)
    # Equal to the ids of a file listing them with other values, and to no other list.
    assert ids == reader.id_rows(reader.byte_pairs("".join("%s 0.5\n" % image for image, _ in rows).encode("ascii")))
    other = [image for image, _ in rows]
    other[-1] += "x"
    assert ids != reader.id_rows(reader.byte_pairs("".join("%s 0\n" % image for image in other).encode("ascii")))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a.jpg", "bb.jpg", "ccc.jpg"]),
                          st.sampled_from(["1", "0", "-1", "+1", "2", "11", "-0", "+0", "x1", "-11", "01", "1-1"])),
                min_size=1, max_size=8), st.booleans())
def test_labels_on_the_byte_path_as_the_text_path_reads_them(rows, one_id):
    from scoring.readers import events as reader
    if one_id:
        rows = [("%06d.jpg" % i, label) for i, (_, label) in enumerate(rows)]
    ids, positive = reader._read_labels_fast("".join("%s %s\n" % row for row in rows).encode("ascii"))
    labels = [label for _, label in rows]
    if all(label in reader.LABELS for label in labels):
        assert ids.strings() == [image for image, _ in rows]
        assert positive.tolist() == [reader.LABELS[label] for label in labels]
    else:
        assert ids is None  # left to the text path, which names the line


def test_fixed_width_lines():
    from scoring.readers.events import _fixed_width_pairs
    for data, first, second in ((b"ab 1\ncd 2\n", [b"ab", b"cd"], [b"1", b"2"]),
                                (b"ab\t1\r\ncd 2\r\n\r\n", [b"ab", b"cd"], [b"1", b"2"]),
                                (b"x 0.5\ny 0.7\nz 1.0", [b"x", b"y", b"z"], [b"0.5", b"0.7", b"1.0"])):
        data, buf = trimmed(data)
        pairs = _fixed_width_pairs(data, buf)
        starts, separators, ends = pairs.starts, pairs.separators, pairs.ends
        assert [bytes(buf[a:b]) for a, b in zip(starts, separators)] == first
        assert [bytes(buf[a + 1:b]) for a, b in zip(separators, ends)] == second
    # Lines of two lengths, an empty second field, a blank inside a field: the general pass decides.
    for data in (b"ab 1\nc 22\n", b"ab 1\ncd  \nef 3\n", b"ab 1\nc\td\n", b"a  1\nb  2\n"):
        assert _fixed_width_pairs(*trimmed(data)) is None, data


def test_one_submitted_order_for_every_category(tmp_path):
    # Three categories, their files in one order that is not the reference's (matched
    # once, then reused), and a fourth with one image missing (missing: last).
    images, order = ["a.jpg", "b.jpg", "c.jpg", "d.jpg"], ["d.jpg", "b.jpg", "a.jpg", "c.jpg"]
    labels = {"La_Tomatina": "1001", "Holi_Festival": "0110", "Diwali": "1100", "Up_Helly_Aa": "0011"}
    ref = {name + ".txt": "".join("%s %s\n" % (image, "1" if bit == "1" else "-1") for image, bit in zip(images, bits))
           for name, bits in labels.items()}
    scores = {"La_Tomatina": [0.4, 0.3, 0.2, 0.1], "Holi_Festival": [0.1, 0.2, 0.3, 0.4],
              "Diwali": [0.5, 0.5, 0.25, 0.75], "Up_Helly_Aa": [0.9, 0.8, 0.7]}
    res = {name + ".txt": "".join("%s %r\n" % pair for pair in zip(order, values)) for name, values in scores.items()}
    run = run_scorer(write_phase(tmp_path / "input", ref, res, "track: events\nmissing: last\n"), tmp_path / "out")
    assert run.status == 0, run.stderr
    aps = []
    for name, bits in labels.items():
        confidence = dict(zip(order, scores[name]))
        submitted = [confidence.get(image, float("-inf")) for image in images]
        aps.append(trapezoid_ap([bit == "1" for bit in bits], submitted))
    assert run.scores()["map"] == pytest.approx(float(np.mean(aps)), abs=1e-10)


def test_labels_plus_and_minus_one(tmp_path):
    # +1 and 1 are positive, 0 and -1 negative: ranked + - + - -, AP = 5/6 (as RES above).
    ref = {"La_Tomatina.txt": "a.jpg +1\nb.jpg -1\nc.jpg 1\nd.jpg 0\ne.jpg -1\n"}
    res = {"La_Tomatina.txt": "a.jpg 0.9\nb.jpg 0.8\nc.jpg 0.7\nd.jpg 0.6\ne.jpg 0.1\n"}
    run = run_scorer(write_phase(tmp_path / "input", ref, res, "track: events\n"), tmp_path / "out")
    assert run.status == 0, run.stderr
    assert run.scores()["map"] == pytest.approx(5.0 / 6, abs=1e-10)


def id_rows(ids):
    """The IdRows of a file listing `ids`, as the fast path reads it."""
    from scoring.readers import events as reader
    return reader.id_rows(reader.byte_pairs("".join("%s 0\n" % image for image in ids).encode("ascii")))


@pytest.mark.parametrize("width", ["%06d.jpg", "img_%d.jpg", "%d.jpg"])
def test_id_rows_match_as_the_dictionary_does(monkeypatch, width):
    from scoring.readers import events as reader
    reference = [width % i for i in range(0, 3000, 7)]
    shuffled = [reference[i] for i in np.random.RandomState(3).permutation(len(reference))]
    expected = [reference.index(image) for image in shuffled]
    category = reader.Category("La_Tomatina", id_rows(reference), np.zeros(len(reference), dtype=bool))
    assert category.ids.strings() == reference and category.ids[5] == reference[5]
    with monkeypatch.context() as patch:  # the hashed path alone
        patch.setattr(reader, "_match_by_dictionary", None)
        index, counts = reader._match_ids(id_rows(shuffled), None, "f", category)
        # Submitted ids narrower than the reference's widest are padded as the reference's are.
        assert reader._match_ids(id_rows(shuffled[:1]), None, "f", category)[0].tolist() == expected[:1]
    assert index.tolist() == expected and counts.tolist() == [1] * len(reference)
    # Every hash equal: the reference's keys are refused and the dictionary decides.
    monkeypatch.setattr(reader, "_row_keys", lambda rows: np.zeros(len(rows[0]), dtype=np.uint64))
    collided = reader.Category("La_Tomatina", id_rows(reference), np.zeros(len(reference), dtype=bool))
    assert reader._match_ids(id_rows(shuffled), None, "f", collided)[0].tolist() == expected
    monkeypatch.undo()
    # An unknown id and a repeated id are named with their line.
    unknown = shuffled[:5] + ["999999.jpg"] + shuffled[6:]
    with pytest.raises(SubmissionError, match="f line 6 names the image 999999.jpg"):
        reader._match_ids(id_rows(unknown), None, "f", category)
    repeated = shuffled[:5] + [shuffled[0]] + shuffled[6:]
    with pytest.raises(SubmissionError, match="f line 6 repeats the image %s" % shuffled[0]):
        reader._match_ids(id_rows(repeated), None, "f", category)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40).flatmap(lambda n: st.tuples(
    st.lists(st.booleans(), min_size=n, max_size=n).filter(any),
    st.lists(st.one_of(st.integers(0, 4).map(float), st.just(-np.inf)), min_size=n, max_size=n))))
def test_hardest_images_ranks_from_the_definition(case):
    # hardest_images counts the images above each listed one from the operating points;
    # here rank = 1 + the images of a strictly higher confidence, counted one by one.
    labels, levels = case
    positive, scores = np.array(labels, dtype=bool), np.array(levels, dtype=float)
    ids = ["i%d" % i for i in range(len(labels))]
    category = Category("C", ids, positive)
    table = hardest_images([{"category": category, "scores": scores, "counts": ranked_counts(positive, scores)}])
    for kind in (0, 1):
        members = [i for i in range(len(labels)) if labels[i] == kind]
        # The lowest positives and highest negatives, ties in file order, whatever numpy's
        # partition does with ties: the first HARDEST by (confidence, file order), listed so.
        sign = 1.0 if kind else -1.0
        expected = sorted(members, key=lambda i: (sign * scores[i], i))[:HARDEST]
        assert [ids.index(row[1]) for row in table if row[2] == kind] == expected
    for _, image, label, shown, rank in table:
        i = ids.index(image)
        assert label == int(labels[i])
        assert rank == 1 + int(np.count_nonzero(scores > scores[i]))
        assert shown == ("%.10g" % scores[i] if np.isfinite(scores[i]) else "not submitted")

