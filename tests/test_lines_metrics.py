"""Kernels of the lines track against hand-worked pages (SPEC section 4).

Each page is a few rows of pixels; the expected numbers are worked out in the comments
from the definitions, not taken from the code.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import ndimage

from scoring.metrics import segmentation as seg

A, B, C = 0x102030, 0x405060, 0xA0B0C0  # three colour keys (R<<16 | G<<8 | B)


def standard(gt_mask, colours, connectivity=8):
    gt = seg.lines_of(np.asarray(gt_mask, dtype=bool), connectivity)
    predicted = seg.lines_of(np.asarray(colours), connectivity)
    return seg.standard_page(seg.overlap(gt, predicted))


def fest2025(gt_mask, colours):
    gt = seg.lines_of(np.asarray(gt_mask, dtype=bool), 8)
    predicted = seg.lines_of(np.asarray(colours, dtype=np.int64), 8)
    shared = seg.overlap(gt, predicted)
    keys = seg.component_colours(predicted)
    labels, n_labels = seg.fest2025_labels(keys, bool(shared.area_pred[0] > 0))
    return seg.fest2025_page(seg.fest2025_table(shared, labels, n_labels), n_labels)


def metrics(result):
    return [result[m] for m in seg.METRICS]


def rows(*lines):
    """A small image from strings: '.' background, '#' ground truth or a colour letter."""
    codes = {".": 0, "#": 1, "a": A, "b": B, "c": C}
    return np.array([[codes[ch] for ch in line] for line in lines], dtype=np.int64)


# Two ground-truth lines (4 pixels each, rows 0 and 2) and one prediction over both.
MERGE_GT = rows("####.", ".....", "####.")
MERGE_PRED = rows("aaaa.", "aaaa.", "aaaa.")
# One line of 8 pixels predicted as two touching colours: 6 + 2 pixels.
SPLIT_GT = rows("########.")
SPLIT_PRED = rows("aaaaaabb.")
# Two lines (rows 0, 2); the prediction thickens line 1 into row 1, touching line 2's colour.
TOUCH_GT = rows("########.", ".........", "########.")
TOUCH_PRED = rows("aaaaaaaa.", "aaaaaaaa.", "bbbbbbbb.")


def test_merge():
    # |g1| = |g2| = 4, |p| = 12, overlaps 4 and 4: IoU 1/3 each; the tie goes to g1.
    # (g1, p): precision 1/3 < t -> extra; g2 unmatched -> missed. Line IU 0/2.
    # Pixel IU = 4 / (8 + 12 - 4) = 0.25. No IoU >= 0.75: DR = RA = FM = 0.
    r = standard(MERGE_GT != 0, MERGE_PRED)
    assert metrics(r) == pytest.approx([0.0, 0.25, 0.0, 0.0, 0.0])
    assert (r["gt"], r["predicted"], r["correct"], r["missed"], r["extra"]) == (2, 1, 0, 1, 1)


def test_split_by_colour_and_binary_prediction():
    # Components 6 and 2 pixels: IoU 6/8 = 0.75 (matched, P 1, R 0.75: correct), 2/8 unmatched: extra.
    # Line IU 1/2; Pixel IU 6 / (8 + 8 - 6) = 0.6; M = 1: DR 1, RA 1/2, FM 2/3.
    assert metrics(standard(SPLIT_GT != 0, SPLIT_PRED)) == pytest.approx([0.5, 0.6, 1.0, 0.5, 2.0 / 3])
    # The same pixels as a binary mask are one blob equal to the line: every metric 1.
    binary = np.where(SPLIT_PRED != 0, 0xFFFFFF, 0)
    assert metrics(standard(SPLIT_GT != 0, binary)) == pytest.approx([1.0] * 5)


def test_extra_blob_and_missed_line():
    gt = rows("#####....", ".........", "#####....")
    pred = rows("aaaaa....", "......bbb", ".........")
    # g1 = p1 exactly (correct); g2 missed; p2 (3 pixels) extra: Line IU 1/3.
    # Pixel IU = 5 / (10 + 8 - 5) = 5/13; M = 1: DR 1/2, RA 1/2, FM 1/2.
    r = standard(gt != 0, pred)
    assert metrics(r) == pytest.approx([1.0 / 3, 5.0 / 13, 0.5, 0.5, 0.5])
    assert (r["correct"], r["missed"], r["extra"]) == (1, 1, 1)


def test_line_both_extra_and_missed():
    gt = rows("########", "........")
    pred = rows("....aaaa", "aaaaaaaa")
    # Overlap 4, |g| 8, |p| 12: precision 1/3 and recall 1/2 are both < t: one extra and one missed.
    # Line IU 0/2; Pixel IU 4 / (8 + 12 - 4) = 0.25; IoU 0.25: DR = RA = FM = 0.
    r = standard(gt != 0, pred)
    assert metrics(r) == pytest.approx([0.0, 0.25, 0.0, 0.0, 0.0])
    assert (r["correct"], r["missed"], r["extra"]) == (0, 1, 1)


def test_colour_coded_touching_lines():
    # a: 16 pixels over g1 (8) -> IoU 1/2, P 1/2: extra; b = g2: correct. Line IU 1/2.
    # Pixel IU = 16 / (16 + 24 - 16) = 2/3. M = 1: DR 1/2, RA 1/2, FM 1/2.
    assert metrics(standard(TOUCH_GT != 0, TOUCH_PRED)) == pytest.approx([0.5, 2.0 / 3, 0.5, 0.5, 0.5])
    # As a binary mask the two touch and make one blob of 24 pixels (IoU 1/3 each): a merge.
    binary = np.where(TOUCH_PRED != 0, 0xFFFFFF, 0)
    # Pixel IU = 8 / (16 + 24 - 8) = 0.25.
    assert metrics(standard(TOUCH_GT != 0, binary)) == pytest.approx([0.0, 0.25, 0.0, 0.0, 0.0])


def test_empty_pages():
    nothing = np.zeros((3, 5), dtype=np.int64)
    # Nothing to find and nothing found: every 0/0 ratio is 1, FM of 1 and 1 is 1.
    assert metrics(standard(nothing != 0, nothing)) == [1.0] * 5
    # Lines but no prediction: Line IU 0/2, Pixel IU 0/8, DR 0/2, RA 0/0 = 1, FM 0.
    assert metrics(standard(MERGE_GT != 0, nothing)) == [0.0, 0.0, 0.0, 1.0, 0.0]
    # A prediction on an empty page: Line IU 0/1, Pixel 0/12, DR 0/0 = 1, RA 0/1, FM 0.
    assert metrics(standard(nothing != 0, MERGE_PRED)) == [0.0, 0.0, 1.0, 0.0, 0.0]


def test_connectivity():
    gt = rows("#.", ".#")
    pred = rows("a.", ".a")
    # 8-connected: one line and one prediction, equal. 4-connected: two of each, equal.
    assert standard(gt != 0, pred, 8)["gt"] == 1
    r4 = standard(gt != 0, pred, 4)
    assert (r4["gt"], r4["predicted"], r4["correct"]) == (2, 2, 2)


def test_greedy_tie_order():
    # g1 overlaps p1 and p2 with the same IoU (2/4); the lower predicted label wins.
    gt = rows("####")
    pred = rows("aabb")
    r = standard(gt != 0, pred)
    # (g1, p1) matched with P 1, R 1/2: missed; p2 unmatched: extra. Line IU 0/2.
    assert (r["correct"], r["missed"], r["extra"]) == (0, 1, 1)
    # Pixel IU = 2 / (4 + 4 - 2).
    assert r["pixel_iu"] == pytest.approx(2.0 / 6)


def dense(shared):
    """The full contingency table of an Overlap: [i, j] pixels of ground-truth line i and
    predicted line j, 0 the background of each side."""
    table = np.zeros((shared.area_gt.size, shared.area_pred.size), dtype=np.int64)
    table[shared.gt, shared.pred] = shared.pixels
    table[1:, 0] = shared.area_gt[1:] - table[1:, 1:].sum(axis=1)
    table[0, 1:] = shared.area_pred[1:] - table[1:, 1:].sum(axis=0)
    table[0, 0] = shared.area_gt.sum() - table.sum()
    return table


def test_overlap_table_is_a_contingency_table():
    # Ground truth: line 1 = (0,0), (0,1); line 2 = (1,1), (1,2). Prediction: one line of 4.
    gt = seg.lines_of(np.array([[1, 1, 0], [0, 2, 2]]))
    pred = seg.lines_of(np.array([[0, 1, 1], [1, 1, 0]]))
    shared = seg.overlap(gt, pred)
    assert (shared.gt.tolist(), shared.pred.tolist(), shared.pixels.tolist()) == ([1, 2], [1, 1], [1, 1])
    assert (shared.area_gt.tolist(), shared.area_pred.tolist()) == ([2, 2, 2], [2, 4])
    table = dense(shared)
    # Pixel by pixel: none is background in both; (0,2) and (1,0) are predicted only;
    # each line has one pixel in the prediction and one outside it.
    assert table.tolist() == [[0, 2], [1, 1], [1, 1]]


# fest2025: the official script's rules, worked by hand.

def test_fest2025_merge_is_matched_for_both_lines():
    # Labels: black 0, a 1 (N2 = 1). Both lines' best match is label 1 (IoU 1/3): not one-to-one.
    # TP 8, unions 12 + 12: Pixel IU 1/3; both P 1/3 < t, R 1 >= t: extra; Line IU 0/2. M 0.
    r = fest2025(MERGE_GT != 0, MERGE_PRED)
    assert metrics(r) == pytest.approx([0.0, 1.0 / 3, 0.0, 0.0, 0.0])


def test_fest2025_split_and_unmatched_counted_nowhere():
    # Labels 0 black, 1 a (6 px), 2 b (2 px): best a (IoU 0.75): P 1, R 0.75: correct; b counts nowhere.
    # Line IU 1/1; Pixel IU 6/8; M 1: DR 1/1, RA 1/2, FM 2/3.
    assert metrics(fest2025(SPLIT_GT != 0, SPLIT_PRED)) == pytest.approx([1.0, 0.75, 1.0, 0.5, 2.0 / 3])


def test_fest2025_no_prediction_gives_ra_zero():
    r = fest2025(MERGE_GT != 0, np.zeros((3, 5), dtype=np.int64))
    assert r["ra_undefined"] and metrics(r) == [0.0, 0.0, 0.0, 0.0, 0.0]


def test_fest2025_without_black_the_smallest_colour_is_not_a_line():
    # No black pixel: the smallest colour a is label 0 and ignored; b is label 1 (N2 = 1).
    gt = rows("####", "....", "####")
    pred = rows("aaaa", "aaaa", "bbbb")
    # g1: no label-1 overlap -> unmatched; g2 = b: correct. Line IU 1/1, Pixel IU 4/4, M 1: DR 1/2, RA 1.
    assert metrics(fest2025(gt != 0, pred)) == pytest.approx([1.0, 1.0, 0.5, 1.0, 2.0 / 3])


# Pinned from the official FEST 2025 script (udiads_textline_evaluate's evaluate_metrics,
# run outside this repository with OpenCV 4 and scikit-learn on these exact pages saved
# as PNG): (pixel_IU, line_IU, DR, RA, FM) as it printed them.
OFFICIAL = [
    ("merge", MERGE_GT, MERGE_PRED, (0.3333333333333333, 0.0, 0.0, 0.0, 0)),
    ("split", SPLIT_GT, SPLIT_PRED, (0.75, 1.0, 1.0, 0.5, 0.6666666666666666)),
    ("touching", TOUCH_GT, TOUCH_PRED, (0.6666666666666666, 0.5, 0.5, 0.5, 0.5)),
    # Without black the smallest colour, a, is label 0 and ignored: b alone (IoU 1/4) is missed.
    ("no-black-split", rows("########"), rows("aaaaaabb"), (0.25, 0.0, 0.0, 0.0, 0)),
    ("no-black-lines", rows("####", "....", "####"), rows("aaaa", "aaaa", "bbbb"),
     (1.0, 1.0, 0.5, 1.0, 0.6666666666666666)),
]


@pytest.mark.parametrize("name,gt,pred,expected", OFFICIAL, ids=[c[0] for c in OFFICIAL])
def test_fest2025_equals_the_official_script(name, gt, pred, expected):
    r = fest2025(gt != 0, pred)
    got = (r["pixel_iu"], r["line_iu"], r["dr"], r["ra"], r["fm"])
    assert got == pytest.approx(expected, abs=1e-12)


# Properties.

def label_maps(max_side=12):
    return st.integers(2, max_side).flatmap(lambda h: st.integers(2, max_side).flatmap(
        lambda w: st.lists(st.integers(0, 4), min_size=h * w, max_size=h * w).map(
            lambda v: np.array(v, dtype=np.int64).reshape(h, w))))


@settings(max_examples=60, deadline=None)
@given(label_maps())
def test_identical_maps_score_one(ids):
    gt_labels = label_image(seg.lines_of(ids != 0))
    # The prediction is the ground truth's own components, coloured.
    r = standard(ids != 0, gt_labels * 7919)
    assert metrics(r) == [1.0] * 5


@settings(max_examples=60, deadline=None)
@given(label_maps(), label_maps(), st.randoms())
def test_recolouring_changes_nothing(gt, pred, random):
    h, w = min(gt.shape[0], pred.shape[0]), min(gt.shape[1], pred.shape[1])
    gt, pred = gt[:h, :w] != 0, pred[:h, :w]
    values = list(range(1, 5))
    random.shuffle(values)
    recoloured = np.concatenate([[0], np.array(values) * 1000 + 3])[pred]
    assert metrics(standard(gt, pred)) == metrics(standard(gt, recoloured))


def label_image(lines):
    return seg.paint(lines, np.arange(lines.count + 1), np.int64)


def raster_order(labels):
    """labels renumbered 1, 2, ... in raster order of each label's first pixel."""
    seen = {}
    for value in labels.ravel().tolist():
        if value and value not in seen:
            seen[value] = len(seen) + 1
    return np.vectorize(lambda v: seen.get(v, 0), otypes=[np.int64])(labels)


@settings(max_examples=60, deadline=None)
@given(label_maps(), st.sampled_from([4, 8]))
def test_components_per_colour_equal_a_loop_over_colours(ids, connectivity):
    lines = seg.lines_of(ids, connectivity)
    expected = np.zeros(ids.shape, dtype=np.int64)
    total = 0
    for colour in np.unique(ids[ids != 0]):
        part, n = ndimage.label(ids == colour, structure=ndimage.generate_binary_structure(2, connectivity // 4))
        expected[part > 0] = part[part > 0] + total
        total += n
    assert lines.count == total
    # The same components, numbered in raster order of their first pixel.
    assert (label_image(lines) == raster_order(expected)).all()
    # The numbering does not depend on the colour values.
    recoloured = np.array([0, 40, 30, 20, 10])[ids]
    assert (seg.lines_of(recoloured, connectivity).label == lines.label).all()


@settings(max_examples=60, deadline=None)
@given(label_maps(), st.sampled_from([4, 8]))
def test_a_mask_is_labelled_as_scipy_labels_it(ids, connectivity):
    mask = ids != 0
    expected, count = ndimage.label(mask, structure=ndimage.generate_binary_structure(2, connectivity // 4))
    lines = seg.lines_of(mask, connectivity)
    assert lines.count == count
    assert (label_image(lines) == expected).all()


@settings(max_examples=60, deadline=None)
@given(label_maps(), label_maps())
def test_overlap_table_counts_the_pixels_of_each_pair(gt, pred):
    h, w = min(gt.shape[0], pred.shape[0]), min(gt.shape[1], pred.shape[1])
    gt_lines, pred_lines = seg.lines_of(gt[:h, :w] != 0), seg.lines_of(pred[:h, :w])
    g, p = label_image(gt_lines), label_image(pred_lines)
    expected = np.zeros((gt_lines.count + 1, pred_lines.count + 1), dtype=np.int64)
    for i, j in zip(g.ravel().tolist(), p.ravel().tolist()):
        expected[i, j] += 1
    shared = seg.overlap(gt_lines, pred_lines)
    assert (dense(shared) == expected).all()
    assert (shared.pixels > 0).all()  # only the pairs that share pixels are stored
    # The official script's table with one label per component is the same table.
    labels = np.arange(1, pred_lines.count + 1)
    assert (seg.fest2025_table(shared, labels, pred_lines.count + 1) == expected).all()
    # Components merged into labels (some wrapping to 0, the background's): columns summed.
    labels = np.arange(1, pred_lines.count + 1) % 3
    merged = np.zeros((gt_lines.count + 1, 3), dtype=np.int64)
    for j, label in enumerate(np.concatenate([[0], labels])):
        merged[:, label] += expected[:, j]
    assert (seg.fest2025_table(shared, labels, 3) == merged).all()


def test_lines_are_runs_linked_across_rows():
    # A diagonal touches only at corners: one line under 8-connectivity, three under 4.
    diagonal = rows("a..", ".a.", "..a")
    assert seg.lines_of(diagonal, 8).count == 1
    assert seg.lines_of(diagonal, 4).count == 3
    # Runs: row 0 "aa" then "b", row 1 "bbb"; a-b touch but differ, so a stays apart.
    lines = seg.lines_of(rows("aab", "bbb"), 8)
    assert (lines.start.tolist(), lines.stop.tolist()) == ([0, 2, 3], [2, 3, 6])
    assert lines.label.tolist() == [1, 2, 2] and lines.count == 2
    # A line that ends a row and one that starts the next row are not neighbours.
    lines = seg.lines_of(rows("..a", "a.."), 8)
    assert lines.label.tolist() == [1, 2]
    assert seg.lines_of(np.zeros((3, 4), dtype=bool)).count == 0
