"""The error map and the per-page table never disagree (issue: a page whose table said
"missed 0" painted 5 lines as missed).

Counting the map's colours must give the table's counts: each ground-truth line shows one
outcome colour (correct, missed or imprecise) on its pixels not painted extra; a predicted
line counted as extra shows extra pixels, and no other predicted line does. Hand-made pages
with the outcome worked out from SPEC 4's definitions, a random property, and the images
the scoring program writes (palette indices = outcome codes, colours from the legend).
"""

import io
import os

import numpy as np
import pytest
from conftest import run_scorer
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from scoring import charts
from scoring.metrics import segmentation as seg

A, B, C = 0x102030, 0x405060, 0xA0B0C0
OWN = (seg.CORRECT, seg.MISSED, seg.IMPRECISE, seg.UNCOUNTED)


def rows(*lines):
    codes = {".": 0, "#": 1, "a": A, "b": B, "c": C}
    return np.array([[codes[ch] for ch in line] for line in lines], dtype=np.int64)


def page(gt_rows, pred_rows):
    gt = seg.lines_of(rows(*gt_rows) != 0)
    predicted = seg.lines_of(rows(*pred_rows))
    outcome = seg.standard_page(seg.overlap(gt, predicted))
    return gt, predicted, outcome, seg.error_map(gt, predicted, outcome)


def counts_from_map(classes, gt, predicted):
    """The table's counts read back from the map's colours alone."""
    gt_label = seg.paint(gt, np.arange(gt.count + 1), np.int64)
    pred_label = seg.paint(predicted, np.arange(predicted.count + 1), np.int64)
    tally = {"correct": 0, "missed": 0, "imprecise": 0, "uncounted": 0, "extra": 0}
    names = {seg.CORRECT: "correct", seg.MISSED: "missed", seg.IMPRECISE: "imprecise", seg.UNCOUNTED: "uncounted"}
    for line in range(1, gt.count + 1):
        shown = set(classes[gt_label == line].tolist()) - {seg.EXTRA}
        assert len(shown) == 1 and shown <= set(OWN), (line, shown)  # one outcome, visible
        tally[names[shown.pop()]] += 1
    for line in range(1, predicted.count + 1):
        tally["extra"] += int(np.any(classes[pred_label == line] == seg.EXTRA))
    return tally


def table(outcome):
    return dict((k, outcome[k]) for k in ("correct", "missed", "imprecise", "extra"))


def test_found_but_imprecise_is_not_missed():
    # The page: the line (10 px) is covered by a prediction of 16 px: R = 1 >= t,
    # P = 10/16 < t. Not a TP; P < t adds an extra line, R >= t adds no missed line.
    gt, predicted, outcome, classes = page(
        ("..........", "##########", ".........."),
        ("aaa.......", "aaaaaaaaaa", "aaa......."))
    assert table(outcome) == {"correct": 0, "missed": 0, "imprecise": 1, "extra": 1}
    assert set(classes[1].tolist()) == {seg.IMPRECISE}  # the line: imprecise, never 'missed'
    assert classes[0, 0] == classes[2, 2] == seg.EXTRA  # the spill: extra
    assert counts_from_map(classes, gt, predicted) == dict(table(outcome), uncounted=0)


def test_merge_of_two_lines():
    # |g1| = |g2| = 4 (rows 0 and 2), one prediction of 12 px over both: IoU 1/3 each, the
    # tie to g1: R 1, P 1/3 -> g1 imprecise, the prediction extra; g2 unmatched -> missed.
    gt, predicted, outcome, classes = page(("####.", ".....", "####."), ("aaaa.", "aaaa.", "aaaa."))
    assert table(outcome) == {"correct": 0, "missed": 1, "imprecise": 1, "extra": 1}
    assert set(classes[0].tolist()[:4]) == {seg.IMPRECISE}
    assert set(classes[1].tolist()[:4]) == {seg.EXTRA}
    assert set(classes[2].tolist()[:4]) == {seg.EXTRA, seg.MISSED}  # g2 still shows it is missed
    assert counts_from_map(classes, gt, predicted) == dict(table(outcome), uncounted=0)


def test_split_line_fragment_inside_the_line_is_shown_extra():
    # One line of 8 px predicted as 6 + 2 px: a (IoU 6/8) matched, P 1, R 0.75: correct;
    # b (2 px, inside the line) unmatched: extra, though it adds no pixel outside the line.
    gt, predicted, outcome, classes = page(("########.",), ("aaaaaabb.",))
    assert table(outcome) == {"correct": 1, "missed": 0, "imprecise": 0, "extra": 1}
    assert seg.EXTRA in classes[0, 6:8].tolist()
    assert counts_from_map(classes, gt, predicted) == dict(table(outcome), uncounted=0)


def test_small_spill_of_a_correct_line_is_tolerated_and_both_low_is_missed_and_extra():
    # Line 1 (8 px) predicted with one pixel more: P 8/9, R 1: correct; its spill is not
    # counted. Line 2 (8 px) half covered by a prediction of 8 px: P = R = 1/2: missed and
    # extra. Line 3 (4 px) has no prediction: missed.
    gt, predicted, outcome, classes = page(
        ("########.", ".........", "########.", ".........", "####....."),
        ("aaaaaaaa.", "........a", "....bbbb.", "....bbbb.", "........."))
    assert table(outcome) == {"correct": 1, "missed": 2, "imprecise": 0, "extra": 1}
    assert classes[1, 8] == seg.TOLERATED
    assert set(classes[2].tolist()[:8]) == {seg.MISSED}
    assert set(classes[3].tolist()[4:8]) == {seg.EXTRA}
    assert counts_from_map(classes, gt, predicted) == dict(table(outcome), uncounted=0)


def test_extra_fragment_only_on_odd_squares_still_shows():
    # Line 1 (10 px) found by a (9 px: P 1, R 0.9): correct. b is one pixel inside the line, at
    # row 0, column 1 (odd square: the checkerboard would skip it), unmatched: extra. With no
    # other pixel to show, it takes its pixel, so the extra line stays visible.
    gt, predicted, outcome, classes = page(("#####", "#####"), ("abaaa", "aaaaa"))
    assert table(outcome) == {"correct": 1, "missed": 0, "imprecise": 0, "extra": 1}
    assert classes.tolist() == [[seg.CORRECT, seg.EXTRA] + [seg.CORRECT] * 3, [seg.CORRECT] * 5]
    assert counts_from_map(classes, gt, predicted) == dict(table(outcome), uncounted=0)


def test_fest2025_map_uses_its_own_outcomes():
    # fest2025 on the merge: both lines' best match is the prediction (not one-to-one):
    # R 1, P 1/3 for both: the script's "extra" (imprecise) twice, nothing missed.
    gt = seg.lines_of(rows("####.", ".....", "####.") != 0)
    predicted = seg.lines_of(rows("aaaa.", "aaaa.", "aaaa."))
    shared = seg.overlap(gt, predicted)
    labels, n_labels = seg.fest2025_labels(seg.component_colours(predicted), bool(shared.area_pred[0] > 0))
    outcome = seg.fest2025_page(seg.fest2025_table(shared, labels, n_labels), n_labels)
    classes = seg.error_map(gt, predicted, outcome)
    assert (outcome["correct"], outcome["missed"], outcome["extra"]) == (0, 0, 2)
    assert set(classes[0].tolist()[:4]) == set(classes[2].tolist()[:4]) == {seg.IMPRECISE}
    assert set(classes[1].tolist()[:4]) == {seg.TOLERATED}  # fest2025 counts no predicted line


def rectangles(draw, count, height, width):
    shapes = []
    for _ in range(count):
        h, w = draw(st.integers(2, 4)), draw(st.integers(2, 8))
        y, x = draw(st.integers(0, height - h)), draw(st.integers(0, width - w))
        shapes.append((y, x, h, w))
    return shapes


@st.composite
def pages(draw):
    height, width = 14, 20
    gt = np.zeros((height, width), dtype=bool)
    for y, x, h, w in rectangles(draw, draw(st.integers(0, 5)), height, width):
        gt[y:y + h, x:x + w] = True
    pred = np.zeros((height, width), dtype=np.int64)
    for colour, (y, x, h, w) in enumerate(rectangles(draw, draw(st.integers(0, 6)), height, width), 1):
        if not pred[y:y + h, x:x + w].any():  # whole rectangles only: no slivers
            pred[y:y + h, x:x + w] = colour
    return gt, pred


@settings(max_examples=200, deadline=None)
@given(pages())
def test_map_colours_always_count_as_the_table(example):
    gt_mask, pred = example
    gt, predicted = seg.lines_of(gt_mask), seg.lines_of(pred)
    outcome = seg.standard_page(seg.overlap(gt, predicted))
    classes = seg.error_map(gt, predicted, outcome)
    assert counts_from_map(classes, gt, predicted) == dict(table(outcome), uncounted=0)
    assert outcome["correct"] + outcome["missed"] + outcome["imprecise"] == outcome["gt"]


def test_written_maps_use_the_legend_colours(tmp_path):
    # End to end: the case on a written page. Line 1 found exactly, line 2 covered
    # with a spill of 50%: imprecise; the page's map and the page's table on the same page.
    gt = np.zeros((12, 16), dtype=np.uint8)
    gt[1:3, 2:14] = 255
    gt[6:8, 2:14] = 255
    prediction = np.zeros((12, 16, 3), dtype=np.uint8)
    prediction[1:3, 2:14] = (200, 10, 10)
    prediction[5:9, 2:14] = (10, 200, 10)
    ref, res = tmp_path / "in" / "ref", tmp_path / "in" / "res"
    (ref / "Latin2").mkdir(parents=True)
    (res / "Latin2").mkdir(parents=True)
    (ref / "track.yaml").write_text("track: lines\npublic_details: true\n")
    Image.fromarray(gt).convert("1").save(str(ref / "Latin2" / "p1.png"))
    Image.fromarray(prediction, "RGB").save(str(res / "Latin2" / "p1.png"))
    run = run_scorer(tmp_path / "in", tmp_path / "out")
    assert run.status == 0, run.stderr
    saved = Image.open(os.path.join(run.output, "private", "lines", "Latin2", "p1_errors.png"))
    codes = np.asarray(saved)
    colours = np.asarray(saved.convert("RGB"))
    legend = dict((code, colour) for code, _, colour, _ in charts.ERROR_MAP_OUTCOMES)
    assert set(codes[1:3, 2:14].ravel().tolist()) == {seg.CORRECT}
    assert set(codes[6:8, 2:14].ravel().tolist()) == {seg.IMPRECISE}
    assert set(codes[5, 2:14].tolist()) == set(codes[8, 2:14].tolist()) == {seg.EXTRA}
    assert tuple(colours[1, 2]) == legend[seg.CORRECT]
    assert tuple(colours[6, 2]) == legend[seg.IMPRECISE]
    assert tuple(colours[5, 2]) == legend[seg.EXTRA]
    html = open(os.path.join(run.output, "detailed_results.html"), encoding="utf-8").read()
    # The page's row: 2 lines, 2 predicted, correct 1, missed 0, imprecise 1, extra 1.
    cells = html.split(">p1<", 1)[1].split("</tr>", 1)[0]
    numbers = [c.split(">")[-1] for c in cells.split("</td>")[:6]]
    assert numbers == ["2", "2", "1", "0", "1", "1"]
    for code in (seg.CORRECT, seg.MISSED, seg.IMPRECISE, seg.EXTRA):
        assert charts.outcome_colour(code) in html  # the legend and the table's swatches


@pytest.mark.parametrize("factor", [2, 3])
def test_preview_keeps_exact_legend_colours_and_thin_lines(factor):
    classes = np.zeros((30, 30), dtype=np.uint8)
    classes[10, :] = seg.MISSED  # a line one pixel thin survives the shrink
    classes[20:23, :] = seg.CORRECT
    small = charts.downscale_classes(classes, factor)
    assert set(np.unique(small).tolist()) == {0, seg.CORRECT, seg.MISSED}
    assert np.any(small == seg.MISSED, axis=1).sum() >= 1


def test_preview_keeps_a_line_under_an_extra_prediction_visible():
    # A missed line (rows 0-3) entirely under the checkerboard of an extra prediction: in
    # 2 x 2 blocks extra and missed tie everywhere; the preview alternates the two.
    classes = np.zeros((4, 8), dtype=np.uint8)
    classes[:, :] = seg.MISSED
    rows, columns = np.indices(classes.shape)
    classes[(rows + columns) % 2 == 0] = seg.EXTRA
    small = charts.downscale_classes(classes, 2)
    assert set(np.unique(small).tolist()) == {seg.EXTRA, seg.MISSED}


def _downscaled_block_by_block(classes, factor):
    """The preview's rule, one block at a time: the most frequent outcome other than
    background (ties: the higher code), background for a block without line pixels; a
    block mixing extra pixels with a line's own outcome shows that outcome on odd blocks
    (row + column), the most frequent of correct, missed, imprecise, not counted (ties: the
    first of them)."""
    height, width = classes.shape
    h, w = -(-height // factor), -(-width // factor)
    out = np.zeros((h, w), dtype=np.uint8)
    for i in range(h):
        for j in range(w):
            block = classes[i * factor:(i + 1) * factor, j * factor:(j + 1) * factor].ravel()
            counts = [int(np.sum(block == code)) for code in range(7)]
            if sum(counts[1:]) == 0:
                continue
            best = max(range(1, 7), key=lambda code: (counts[code], code))
            lines = [(counts[code], -k, code) for k, code in enumerate((1, 2, 3, 6))]
            if counts[4] > 0 and sum(c for c, _, _ in lines) > 0 and (i + j) % 2 == 1:
                best = max(lines)[2]
            out[i, j] = best
    return out


@pytest.mark.parametrize("seed", range(40))
def test_preview_follows_its_rule_block_by_block(seed):
    rng = np.random.RandomState(seed)
    height, width = rng.randint(1, 40, size=2)
    factor = rng.randint(2, 6)
    classes = rng.choice(7, size=(height, width), p=rng.dirichlet(np.ones(7))).astype(np.uint8)
    small = charts.downscale_classes(classes, factor)
    assert small.dtype == np.uint8
    assert np.array_equal(small, _downscaled_block_by_block(classes, factor))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([1, 2, 4, 8]), st.integers(1, 11), st.integers(1, 5), st.integers(0, 2 ** 31))
def test_palette_png_reads_back_as_its_indices_and_colours(bits, width, height, seed):
    # The error maps' own PNG writer: any bit depth, widths that do not fill the last byte.
    indices = np.random.RandomState(seed % (2 ** 31)).randint(0, 2 ** bits, size=(height, width)).astype(np.uint8)
    palette = [(7 * i) % 256 for i in range(768)]
    image = Image.open(io.BytesIO(charts.palette_png(indices, palette, bits)))
    assert image.mode == "P" and image.size == (width, height)
    assert (np.asarray(image) == indices).all()
    colours = np.asarray(image.convert("RGB")).reshape(-1, 3)
    assert (colours == np.array(palette).reshape(256, 3)[indices.ravel()]).all()
