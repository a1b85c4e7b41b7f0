"""Text-line segmentation kernels of the lines track (the ICDAR 2025 FEST competition's
evaluation: Pixel IU, Line IU, DR, RA, FM; docs/participants/lines.md defines each).

Pure numpy: label maps in, numbers out. A page's lines are kept as horizontal runs
of pixels (a few thousand on a FEST page, against 2.7 million pixels), so that after one
pass over the pixels to find the runs, labelling and overlapping work on runs. Every
measure of a page follows from one overlap table between ground-truth and predicted
lines, computed by a single bincount over paired labels (as scikit-image's contingency
table) and kept sparse (only the pairs that share pixels), never from a mask per pair
of lines.
"""

import collections

import numpy as np

from .. import runs
from ..runs import Runs, encode

METRICS = ("line_iu", "pixel_iu", "dr", "ra", "fm")

# The outcomes the per-page tables count, one code each; the error map paints every pixel
# with one of them (0: no line there), so the map and the tables use one vocabulary.
BACKGROUND, CORRECT, MISSED, IMPRECISE, EXTRA, TOLERATED, UNCOUNTED = range(7)

Lines = collections.namedtuple("Lines", "shape start stop value label count")
Lines.__doc__ = """The lines of a page as horizontal runs of pixels, in raster order.

shape: (height, width) of the page; start, stop: flat pixel positions of each run (stop
excluded; a run never crosses a row's end); value: the run's colour (1 for a mask);
label: the run's line, 1..count, numbered in raster order of each line's first pixel.
"""


def lines_of(values, connectivity=8):
    """Connected components of each colour class of a map: its Lines.

    values: the map's Runs (runs.encode), or an integer (or boolean) array, 0 the
    background, any other value a colour class; a boolean mask is one class, so this
    labels its blobs. Pixels of one class are connected through their 4 or 8 neighbours;
    touching lines of different colours stay apart. The numbering (raster order of each
    line's first pixel, as scipy.ndimage.label) depends on where the lines are, not on
    their colours, so neither does the matching's tie order.

    Works on runs, not pixels: each run is linked to the runs of the same colour it
    touches in the row above (a binary search, as runs are sorted), and the components
    of that graph are the lines.
    """
    page = values if isinstance(values, Runs) else encode(np.asarray(values))
    height, width = page.shape
    start, stop, value = page.start, page.stop, page.value
    n = start.size
    if n == 0:
        return Lines((height, width), start, stop, value, np.zeros(0, dtype=np.int64), 0)
    reach = 1 if connectivity == 8 else 0
    row_start = start - start % width
    # The pixels above the run (and its two corners, under 8-connectivity), within the row.
    low = np.maximum(start - reach, row_start) - width
    high = np.minimum(stop - 1 + reach, row_start + width - 1) - width
    # Runs of the row above touching this one: stop > low and start <= high (a contiguous
    # range, since runs are disjoint and sorted); none for the first row (high < 0).
    first = np.searchsorted(stop, low, side="right")
    count = np.maximum(np.searchsorted(start, high, side="right") - first, 0)
    lower, upper = runs.expand(first, count)
    same = value[upper] == value[lower]
    root = smallest_connected(n, upper[same], lower[same])
    # A component's smallest run is its first in raster order: number the lines so.
    rank = np.cumsum(root == np.arange(n))
    return Lines((height, width), start, stop, value, rank[root], int(rank[-1]))


def smallest_connected(n, low, high):
    """For each of the nodes 0..n-1 of an undirected graph, the smallest node connected
    to it (its component's root).

    low, high: the edges, low < high, sorted by high then low (as lines_of links each
    run to the runs above it). Each root takes as parent its smallest neighbour root
    (hooking), then every node points straight to its root (pointer jumping); the edges
    between two roots that remain go to the next round. A parent is always smaller than
    its child, so the smallest node of a component stays its root. On runs linked row by
    row, the first round leaves only the edges that join two branches (a few).
    """
    parent = np.arange(n, dtype=np.int64)
    while low.size:
        first = np.ones(low.size, dtype=bool)
        np.not_equal(high[1:], high[:-1], out=first[1:])
        parent[high[first]] = low[first]
        parent = _root_of(parent)
        low, high = parent[low[~first]], parent[high[~first]]
        apart = low != high
        low, high = low[apart], high[apart]
        low, high = np.minimum(low, high), np.maximum(low, high)
        order = np.lexsort((low, high))
        low, high = low[order], high[order]
    return parent


def _root_of(parent):
    """parent followed to the roots (pointer jumping: the paths halve at each step)."""
    while True:
        grand = parent[parent]
        if np.array_equal(grand, parent):
            return parent
        parent = grand


def paint(lines, codes, dtype):
    """A page-sized array: codes[label] on each line's pixels, codes[0] elsewhere."""
    codes = np.asarray(codes, dtype=dtype)
    return runs.paint(lines, codes[lines.label], dtype, background=codes[0])


def component_colours(lines):
    """The colour of each line 1..count."""
    out = np.zeros(lines.count + 1, dtype=np.int64)
    out[lines.label] = lines.value
    return out[1:]


Overlap = collections.namedtuple("Overlap", "gt pred pixels area_gt area_pred pieces")
Overlap.__doc__ = """The overlap table of a page, kept sparse.

gt, pred, pixels: every pair of a ground-truth line and a predicted line that share
pixels (labels 1..N1 and 1..N2, sorted by gt then pred) and how many they share;
area_gt, area_pred: the pixels of each line, index 0 the pixels outside every line;
pieces: the Pieces it was counted from (the error map paints them).
Only overlapping pairs are stored, so a page of a million specks costs memory in
proportion to its specks, not to lines x specks.
"""

Pieces = collections.namedtuple("Pieces", "gt pred start length")
Pieces.__doc__ = """The pixels that ground-truth runs share with predicted runs, in raster
order: for each piece, its ground-truth run and predicted run (indices), its first pixel
and its length."""

#: Up to this many cells ((N1 + 1) x (N2 + 1)), the overlap table is counted dense.
DENSE_CELLS = 1 << 20


def overlap(gt, pred):
    """The Overlap of a page's ground-truth and predicted Lines.

    Each ground-truth run meets a contiguous range of predicted runs (both are sorted and
    disjoint); the shared pixels of runs are summed per pair of lines by one bincount
    over the paired labels, as scikit-image's contingency table but over runs instead of
    pixels (into a dense table when it is small, else over the distinct pairs).
    """
    shared = pieces(gt, pred)
    columns = pred.count + 1
    pair = gt.label[shared.gt] * columns + pred.label[shared.pred]
    cells = (gt.count + 1) * columns
    if cells <= DENSE_CELLS:
        table = np.bincount(pair, weights=shared.length, minlength=cells)
        pair = np.flatnonzero(table)  # every piece has a pixel: the pairs that share pixels
        pixels = table[pair].astype(np.int64)
    else:
        pair, where = np.unique(pair, return_inverse=True)
        pixels = np.bincount(where.ravel(), weights=shared.length, minlength=pair.size).astype(np.int64)
    size = gt.shape[0] * gt.shape[1]
    return Overlap(pair // columns, pair % columns, pixels, _areas(gt, size), _areas(pred, size), shared)


def pieces(gt, pred):
    """The Pieces of two Runs (or Lines) of a page. Each ground-truth run meets a
    contiguous range of predicted runs (both are sorted and disjoint), so the pieces
    they share, sorted by ground-truth run then predicted run, are in raster order."""
    first = np.searchsorted(pred.stop, gt.start, side="right")
    count = np.maximum(np.searchsorted(pred.start, gt.stop, side="left") - first, 0)
    g, p = runs.expand(first, count)
    start = np.maximum(gt.start[g], pred.start[p])
    return Pieces(g, p, start, np.minimum(gt.stop[g], pred.stop[p]) - start)


def _areas(lines, size):
    """Pixels of each line 1..count; index 0: the pixels outside every line."""
    area = np.bincount(lines.label, weights=lines.stop - lines.start, minlength=lines.count + 1)
    area = area.astype(np.int64)
    area[0] = size - area[1:].sum()
    return area


def ratio(numerator, denominator):
    """numerator / denominator, with 0/0 = 1 (nothing to find and nothing found is perfect)."""
    if denominator == 0:
        return 1.0 if numerator == 0 else 0.0
    return float(numerator) / float(denominator)


def f_measure(dr, ra):
    """2 DR RA / (DR + RA), 0 when DR = RA = 0."""
    return 0.0 if dr + ra == 0 else 2.0 * dr * ra / (dr + ra)


def match_one_to_one(gt, pred, iou):
    """Greedy one-to-one matching: pairs by IoU, highest first; ties by lower ground-truth
    label, then lower predicted label. Returns a boolean mask over the candidate pairs.

    The candidates are only the overlapping pairs (a few per line), so the sequential
    greedy pass runs over a short list, not over pixels.
    """
    order = np.lexsort((pred, gt, -iou))
    taken_gt, taken_pred = set(), set()
    chosen = np.zeros(iou.size, dtype=bool)
    for k in order.tolist():
        g, p = int(gt[k]), int(pred[k])
        if g in taken_gt or p in taken_pred:
            continue
        taken_gt.add(g)
        taken_pred.add(p)
        chosen[k] = True
    return chosen


def standard_page(shared, threshold=0.75, match_threshold=0.75):
    """Line IU, Pixel IU, DR, RA, FM of one page, protocol `standard`.

    shared: the Overlap of ground-truth lines 1..N1 and predicted lines 1..N2.
    Pairs overlapping at all are matched one-to-one, greedily by IoU.
    Line IU = TP / (TP + FP + FN): a matched pair with precision >= t and recall >= t
    is TP; otherwise precision < t adds an FP and recall < t an FN; unmatched lines are
    FN (ground truth) or FP (prediction). Pixel IU = S / (|G| + |P| - S), S the overlap
    summed over matched pairs. M = pairs with IoU >= T_a; DR = M/N1, RA = M/N2,
    FM = 2 DR RA / (DR + RA). A 0/0 ratio is 1.

    Returns a dict of the five metrics, `denominators` (each metric an integer over its
    denominator: FM = 2M / (N1 + N2)), the counts (gt, predicted, correct, missed,
    imprecise, extra, m), and for the error map: `gt_outcome`, the outcome of each
    ground-truth line (label 1..N1: CORRECT, MISSED, or IMPRECISE for a line matched with
    recall >= t but precision < t, whose prediction counts as extra and which is not
    missed), `pred_extra`, whether each predicted line (1..N2) counts as extra, and
    `pred_match`, the ground-truth label each predicted line is matched to (0: none).
    correct + missed + imprecise = gt.
    """
    n1, n2 = shared.area_gt.size - 1, shared.area_pred.size - 1
    area_gt, area_pred = shared.area_gt[1:], shared.area_pred[1:]
    gt, pred, inter = shared.gt - 1, shared.pred - 1, shared.pixels
    union = area_gt[gt] + area_pred[pred] - inter
    iou = inter / union if inter.size else np.zeros(0)
    chosen = match_one_to_one(gt, pred, iou)
    m_gt, m_pred, m_inter = gt[chosen], pred[chosen], inter[chosen]
    precision = m_inter / area_pred[m_pred]
    recall = m_inter / area_gt[m_gt]
    good = (precision >= threshold) & (recall >= threshold)
    n_matched = int(chosen.sum())
    correct = int(good.sum())
    extra = int(np.count_nonzero(~good & (precision < threshold))) + (n2 - n_matched)
    missed = int(np.count_nonzero(~good & (recall < threshold))) + (n1 - n_matched)
    overlap = int(m_inter.sum())
    m = int(np.count_nonzero(iou >= match_threshold))
    dr, ra = ratio(m, n1), ratio(m, n2)
    gt_outcome = np.full(n1, MISSED, dtype=np.uint8)
    gt_outcome[m_gt[good]] = CORRECT
    gt_outcome[m_gt[(precision < threshold) & (recall >= threshold)]] = IMPRECISE
    pred_extra = np.ones(n2, dtype=bool)
    pred_extra[m_pred[precision >= threshold]] = False
    pred_match = np.zeros(n2, dtype=np.int64)
    pred_match[m_pred] = m_gt + 1
    union = int(area_gt.sum()) + int(area_pred.sum()) - overlap
    return {
        "line_iu": ratio(correct, correct + extra + missed),
        "pixel_iu": ratio(overlap, union),
        "dr": dr, "ra": ra, "fm": f_measure(dr, ra),
        # Each metric is an integer over its denominator here (1 for the 0/0 = 1 cases).
        "denominators": {"line_iu": correct + extra + missed or 1, "pixel_iu": union or 1, "dr": n1 or 1,
                         "ra": n2 or 1, "fm": n1 + n2 if n1 and n2 else 1},
        "gt": n1, "predicted": n2, "correct": correct, "missed": missed,
        "imprecise": int(np.count_nonzero(gt_outcome == IMPRECISE)), "extra": extra, "m": m,
        "gt_outcome": gt_outcome, "pred_extra": pred_extra, "pred_match": pred_match,
    }


def fest2025_labels(component_colours, background_present):
    """The official FEST 2025 script's label of each predicted component.

    The script numbers the distinct colours of the page in lexicographic order (0..K-1)
    and casts those numbers to uint8. component_colours: one colour key per component
    (keys ordered as the colours are, e.g. R<<16|G<<8|B), background_present: whether the
    page has black pixels (black, the smallest colour, is then number 0).
    Returns (label per component, number of distinct uint8 labels on the page).
    """
    distinct, rank = np.unique(np.asarray(component_colours), return_inverse=True)
    shift = 1 if background_present else 0
    colours = distinct.size + shift
    labels = ((rank + shift) % 256).astype(np.int64)
    return labels, min(colours, 256)


def fest2025_table(shared, component_labels, n_labels):
    """The official script's overlap table: rows ground-truth lines 0..N1 (0 background),
    columns its labels 0..n_labels-1, each the sum of the predicted components (and, for
    label 0, the background) it gives that label.

    shared: the page's Overlap; component_labels: the uint8 label of components 1..N2.
    """
    rows, columns = shared.area_gt.size, max(n_labels, 1)
    label = np.concatenate([[0], np.asarray(component_labels, dtype=np.int64)])
    # Pixels of each ground-truth line (row 0: background) and component (column 0:
    # background) outside every line of the other side.
    gt_alone = shared.area_gt - np.bincount(shared.gt, weights=shared.pixels, minlength=rows).astype(np.int64)
    pred_alone = shared.area_pred - np.bincount(shared.pred, weights=shared.pixels,
                                                minlength=label.size).astype(np.int64)
    cells = np.concatenate([shared.gt * columns + label[shared.pred],  # line and component
                            np.arange(1, rows) * columns,                # line and background
                            label[1:]])                                  # background and component
    weights = np.concatenate([shared.pixels, gt_alone[1:], pred_alone[1:]])
    merged = np.bincount(cells, weights=weights, minlength=rows * columns).astype(np.int64)
    merged = merged.reshape(rows, columns)
    merged[0, 0] += shared.area_gt[0] - merged[0].sum()  # neither: the page's remaining pixels
    return merged


def fest2025_page(table, n_labels, threshold=0.75, match_threshold=0.75):
    """The official FEST 2025 script's numbers for one page (protocol fest2025).

    table: rows ground-truth lines 0..N1 (0 background), columns the script's labels
    0..n_labels-1 (fest2025_table). Label 0 is never a line; N2 = n_labels - 1.
    Each ground-truth line's match is the first label of highest IoU, if IoU > 0 (not
    one-to-one). Over the matches: pixel TP/FP/FN summed, Pixel IU = TP/(TP+FP+FN);
    a match is correct if P >= t and R >= t, missed if R < t, else extra; Line IU =
    correct / matches (0 without matches). M = pairs with IoU >= T_a; DR = M/N1 and
    RA = M/N2, both 0 if N1 = 0; FM = 0 if DR + RA = 0.
    `ra_undefined` is True where the script divides by N2 = 0 and crashes (RA given as 0).
    """
    table = np.asarray(table, dtype=np.int64)
    n1, n2 = table.shape[0] - 1, n_labels - 1
    area_gt = table[1:].sum(axis=1)
    area_pred = table[:, 1:n_labels].sum(axis=0)
    inter = table[1:, 1:n_labels]
    union = area_gt[:, None] + area_pred[None, :] - inter
    iou = inter / np.maximum(union, 1)
    m = int(np.count_nonzero(iou >= match_threshold))
    ra_undefined = False
    gt_outcome = np.full(n1, UNCOUNTED, dtype=np.uint8)
    if n2 > 0 and n1 > 0:
        best = np.argmax(iou, axis=1)
        rows = np.arange(n1)
        matched = iou[rows, best] > 0
        rows, best = rows[matched], best[matched]
        m_inter, m_union = inter[rows, best], union[rows, best]
        precision = m_inter / area_pred[best]
        recall = m_inter / area_gt[rows]
        good = (precision >= threshold) & (recall >= threshold)
        correct = int(good.sum())
        missed = int(np.count_nonzero(~good & (recall < threshold)))
        extra = int(rows.size) - correct - missed
        gt_outcome[rows] = np.where(good, CORRECT, np.where(recall < threshold, MISSED, IMPRECISE))
        total_union = int(m_union.sum())
        pixel_iu = 0.0 if total_union == 0 else int(m_inter.sum()) / total_union
        line_iu = 0.0 if rows.size == 0 else correct / int(rows.size)
    else:
        correct = missed = extra = total_union = 0
        pixel_iu = line_iu = 0.0
    if n1 == 0:
        dr = ra = 0.0
    else:
        dr = m / n1
        if n2 == 0:
            ra, ra_undefined = 0.0, True
        else:
            ra = m / n2
    fm = 0.0 if dr + ra == 0 else 2 * (dr * ra) / (dr + ra)
    return {
        "line_iu": line_iu, "pixel_iu": pixel_iu, "dr": dr, "ra": ra, "fm": fm,
        "denominators": {"line_iu": correct + missed + extra or 1, "pixel_iu": total_union or 1, "dr": n1 or 1,
                         "ra": n2 if n1 and n2 else 1, "fm": n1 + n2 if n1 and n2 else 1},
        "gt": n1, "predicted": n2, "correct": correct, "missed": missed, "extra": extra, "m": m,
        "ra_undefined": ra_undefined,
        # For the error map: the script's "extra" is a line found (R >= t) with P < t, an
        # imprecise line; a line without overlapping prediction is counted nowhere, and so is
        # every predicted pixel outside the ground truth.
        "imprecise": extra, "uncounted": int(np.count_nonzero(gt_outcome == UNCOUNTED)),
        "gt_outcome": gt_outcome,
    }


def error_map(gt, predicted, outcome, shared=None):
    """The error map of a page: one outcome code per pixel (uint8, the page's shape).

    gt, predicted: the page's Lines; outcome: `gt_outcome`, `pred_extra` and `pred_match`
    of the page (standard_page; fest2025_page gives `gt_outcome` only); shared: their
    Overlap, if already counted. A ground-truth line's pixels carry its outcome (CORRECT,
    MISSED, IMPRECISE, or UNCOUNTED where the protocol counts it nowhere); a predicted line
    counted as extra paints EXTRA where it lies outside the line it is matched to: outside
    the ground truth on every pixel, over another ground-truth line on every other pixel (a
    checkerboard, so that line's own outcome stays visible); predicted pixels of other
    lines outside the ground truth are TOLERATED. So every extra line shows some EXTRA
    pixels, and every ground-truth line shows its own outcome: counting colours gives the
    table's counts.

    Works on runs: the pixels of a predicted line over a ground-truth line are the pieces
    shared by their runs (as in overlap), so only those pieces are visited pixel by pixel.
    """
    height, width = gt.shape
    if shared is None:
        shared = overlap(gt, predicted)
    extra_of = np.zeros(predicted.count + 1, dtype=bool)
    match_of = np.zeros(predicted.count + 1, dtype=np.int64)
    if "pred_extra" in outcome:  # fest2025 counts no predicted line as extra
        extra_of[1:], match_of[1:] = outcome["pred_extra"], outcome["pred_match"]
    # Ground-truth lines over predicted pixels: painted apart, the line's code + 8 outweighs
    # EXTRA and TOLERATED (4, 5) in their maximum, and the low 3 bits are the code again.
    classes = paint(gt, np.concatenate([[BACKGROUND], outcome["gt_outcome"] + 8]), np.uint8)
    # Outside the ground truth: EXTRA on a line counted as extra, TOLERATED on any other.
    outside = paint(predicted, np.where(extra_of, EXTRA, TOLERATED) * (np.arange(predicted.count + 1) > 0),
                    np.uint8)
    np.maximum(classes, outside, out=classes)
    np.bitwise_and(classes, 7, out=classes)
    g, start, length = shared.pieces.gt, shared.pieces.start, shared.pieces.length
    line = predicted.label[shared.pieces.pred]
    # A line shows EXTRA outside the ground truth if any of its pixels lies there.
    inside = np.bincount(line, weights=length, minlength=predicted.count + 1)
    seen = shared.area_pred - inside.astype(np.int64) > 0
    # Pieces of an extra line over a line other than its match: EXTRA on the pixels of even
    # row + column; an extra line without any EXTRA pixel so far takes all its pieces.
    foreign = extra_of[line] & (gt.label[g] != match_of[line])
    start, length, line = start[foreign], length[foreign], line[foreign]
    row = start // width
    odd = (row + start - row * width) % 2  # the piece's first pixel is on an odd square
    even = (length + 1 - odd) // 2
    seen |= np.bincount(line, weights=even, minlength=predicted.count + 1) > 0
    every = ~seen[line]  # an extra line not seen otherwise (foreign pieces are extra lines')
    step = np.where(every, 1, 2)
    first_pixel = np.where(every, start, start + odd)
    pixels = np.where(every, length, even)
    offsets = np.repeat(np.cumsum(pixels) - pixels, pixels)
    positions = np.repeat(first_pixel, pixels) + (np.arange(int(pixels.sum()), dtype=np.int64) - offsets) \
        * np.repeat(step, pixels)
    classes.ravel()[positions] = EXTRA
    return classes
