"""Average precision of a ranking by confidence, ties as one operating point (pure numpy).

Source: the evaluation criteria of the ChaLearn LAP 2015 cultural event recognition
challenge (Escalera et al., ICCV Workshops 2015: "precision monotonically decreasing ...
the area under this curve ... the trapezoidal rule"), made exact:

- Items are sorted by confidence, descending. Items of equal confidence form one
  operating point: they enter together, so the result never depends on file order.
- Operating point i (i = 1..m, by decreasing confidence): precision p_i = TP_i / (TP_i + FP_i),
  recall r_i = TP_i / P, P the number of positives.
- Monotone precision: p*_i = max over the operating points j >= i of p_j, that is over
  the points at a lower or equal threshold, whose recall r_j >= r_i (the envelope is
  taken along the curve, as the PASCAL VOC devkit takes it).
- AP = the trapezoidal rule over (0, p*_1), (r_1, p*_1), (r_2, p*_2), ..., (r_m, p*_m):

      AP = sum_i (r_i - r_{i-1}) * (p*_{i-1} + p*_i) / 2,   r_0 = 0, p*_0 = p*_1.

Without ties this equals the PASCAL VOC 2010 AP (the step sum over recall changes of
delta r times the envelope at the new recall): a point that adds one positive never has
a lower precision than the point before it, so across every change of recall the
envelope has the same value at both ends and each trapezoid is a rectangle. With ties,
a tied group holding positives and negatives moves recall and precision together, and
the trapezoid interpolates linearly between the two operating points.

Note: reading p*_i as the maximum over every operating point with r' >= r_i, including
earlier points of the same recall, would give a different number (ranking +, -, +:
11/12 instead of VOC's 5/6); the envelope along the curve is the reading under which
"without ties this equals the PASCAL VOC 2010 AP" holds (Everingham et al., IJCV 88,
2010, and the VOC 2010 devkit).
"""

import numpy as np


def _checked(y_true, scores):
    y_true = np.asarray(y_true, dtype=bool)
    scores = np.asarray(scores, dtype=np.float64)
    if y_true.shape != scores.shape or y_true.ndim != 1:
        raise ValueError("y_true and scores must be 1-D arrays of the same length")
    if not y_true.any():
        raise ValueError("average precision is undefined without a positive item")
    return y_true, scores


#: The faster sort of each numpy: numpy 2 sorts 64-bit integers with SIMD instructions
#: (x86-simd-sort) in its quicksort, numpy 1.x's timsort beats its introsort on these keys
#: (docs/speed-history.md). Sorted values are the same whatever the algorithm.
_SORT_KIND = "quicksort" if int(np.__version__.split(".")[0]) >= 2 else "stable"


def order_keys(scores):
    """64-bit integers in the order of the floats `scores` (no NaN): equal floats have
    equal keys (-0.0 and 0.0 included), a larger float a larger key. An IEEE double's
    bits, read as a signed integer, are in its order for positive values and in reverse
    for negative ones, whose bits other than the sign are flipped. Integers sort faster
    than floats on every numpy."""
    bits = (np.asarray(scores, dtype=np.float64) + 0.0).view(np.int64)  # -0.0 + 0.0 is 0.0
    return bits ^ ((bits >> 63) & 0x7FFFFFFFFFFFFFFF)


def ranked_counts(y_true, scores):
    """(true positives, items) ranked at or above each operating point, from the highest
    confidence down: two integer arrays (int32 below 2**31 items, a quarter of the
    memory of the float curves they determine). y_true: (n,) booleans, scores: (n,).

    One np.sort of the confidences' order_keys (a plain sort of values, three times
    faster than an argsort on numpy 2, and of integers, faster than of floats): the
    runs of equal values are the operating points, the items at or above a point are
    counted from where its run starts, and each positive is placed at its point by a
    binary search of its key; the true positives are then a cumulative count over
    those few points.
    """
    ranked = np.sort(order_keys(scores), kind=_SORT_KIND)  # ascending; a tie is a run of equal values
    n = ranked.shape[0]
    kind = np.int32 if n < 2 ** 31 else np.int64
    # The last item of each run but the highest (compared with !=, not np.diff, so that
    # runs of -inf are one point too).
    ends = np.flatnonzero(ranked[1:] != ranked[:-1])
    points = ends.shape[0] + 1
    counts = np.empty(points, dtype=kind)
    counts[-1] = n
    np.subtract(n - 1, ends[::-1], out=counts[:-1], casting="unsafe")  # items above each run's start
    # Each positive's point, counted from the highest confidence: where its run starts,
    # then how many runs start below it (the positives' confidences sorted first, so that
    # the searches walk the arrays in order, and the points come out grouped).
    first = np.searchsorted(ranked, np.sort(order_keys(scores[y_true]), kind=_SORT_KIND))
    point = (points - 1) - np.searchsorted(ends, first)
    hits = np.zeros(points, dtype=kind)
    if point.shape[0]:
        group = np.flatnonzero(np.concatenate(([True], point[1:] != point[:-1], [True])))
        hits[point[group[:-1]]] = np.diff(group)  # the positives at each point
    return np.cumsum(hits, out=hits), counts


def curve(true_positives, counts, positives):
    """(recall, precision, monotone precision) at the operating points of ranked_counts;
    positives: the number of positive items (at least one)."""
    tp = true_positives.astype(np.float64)
    precision = tp / counts
    recall = tp / positives
    envelope = np.maximum.accumulate(precision[::-1])[::-1]
    return recall, precision, envelope


def average_precision(y_true, scores):
    """AP as defined above: the trapezoidal rule over the monotone precision, from
    (0, p*_1) through every operating point (ties as one point). See the module text."""
    return area_from_counts(*ranked_counts(*_checked(y_true, scores)))


def area_from_counts(true_positives, counts):
    """The AP of the operating points of ranked_counts: the trapezoidal rule over
    (0, p*_1), (r_1, p*_1), ..., (r_m, p*_m), bit for bit the sum

        sum over i of (r_i - r_{i-1}) * (p*_{i-1} + p*_i), halved  (r_0 = 0, p*_0 = p*_1),

    taken by np.sum over all m terms, computed only where it is not zero: at the points
    that add a positive (r_i > r_{i-1}). There the envelope is the largest precision of
    the points that add a positive at or after i (a point that adds none has a precision
    below the point before it, as tp stays and the items grow), and before such a point
    the larger of that and the point's own precision.
    """
    positives = int(true_positives[-1])
    m = true_positives.shape[0]
    adds = np.flatnonzero(true_positives[1:] != true_positives[:-1]) + 1
    if true_positives[0] > 0:
        adds = np.concatenate(([0], adds))
    tp = true_positives[adds].astype(np.float64)
    envelope = np.maximum.accumulate((tp / counts[adds])[::-1])[::-1]
    before = np.maximum(adds - 1, 0)
    tp_before = true_positives[before].astype(np.float64)
    envelope_before = np.maximum(tp_before / counts[before], envelope)
    recall_before = tp_before / positives
    if adds[0] == 0:  # the curve starts at (0, p*_1)
        envelope_before[0], recall_before[0] = envelope[0], 0.0
    terms = np.zeros(m)
    terms[adds] = (tp / positives - recall_before) * (envelope + envelope_before)
    return float(np.sum(terms) / 2.0)


def distinct(values):
    """numpy.unique(values) of a 1-D array, without the import of numpy.ma that numpy.unique
    makes on numpy 2, which an events run needs nothing else of."""
    ordered = np.sort(values)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if ordered.size else ordered


def influence(true_positives, counts):
    """(kept, positive, negative): the derivative of the AP of ranked_counts' operating points
    with respect to the weight of one item, every item weighing 1. kept: the points where
    the AP can change (those that add a positive, and the point before each, as in
    area_from_counts), ascending; positive[i]: a positive item's derivative at point
    kept[i]; negative[i]: a negative item's at any point after kept[i - 1] up to kept[i];
    a negative item below kept[-1] has none (0).

    An item of weight w counts w times in the counts of every point at or below its own and,
    if positive, in the number of positives; the AP is the area above, so

        AP = sum_i (TP_i - TP_{i-1}) (p*_{i-1} + p*_i) / (2 P),   p_i = TP_i / N_i,

    and an item's derivative collects, over the points at or below its own, the terms of
    TP_i and N_i through each p_i that is some point's envelope p*_j, plus that of P.
    Suffix sums over the kept points give every derivative in one pass: the envelope of a
    kept point is reached at a kept point, and the points between two kept ones add no
    positive. Where two points share the envelope's maximum (a kink), the earlier one is
    taken: a one-sided derivative.

    This is the influence function of the AP (Hampel 1974) in the empirical distribution of
    each class, which gives its infinitesimal jackknife variance (Jaeckel 1972; Efron 1982,
    The Jackknife, the Bootstrap and Other Resampling Plans, chapter 6)."""
    adds = np.flatnonzero(true_positives[1:] != true_positives[:-1]) + 1
    if true_positives[0] > 0:
        adds = np.concatenate(([0], adds))
    kept = distinct(np.concatenate((adds - 1, adds)))
    kept = kept[kept >= 0]
    tp = true_positives[kept].astype(np.float64)
    items = counts[kept].astype(np.float64)
    positives = tp[-1]
    precision = tp / items
    envelope = np.maximum.accumulate(precision[::-1])[::-1]
    added = np.diff(np.concatenate(([0.0], tp)))
    # AP's weight on each half trapezoid: e_i = (p*_{i-1} + p*_i) / (2 P), p*_0 = p*_1.
    halves = (np.concatenate((envelope[:1], envelope[:-1])) + envelope) / (2.0 * positives)
    area = float(np.sum(added * halves))
    # AP's coefficient of each envelope value p*_j (p*_1 stands for p*_0 as well) ...
    coefficient = (added + np.concatenate((added[1:], [0.0]))) / (2.0 * positives)
    coefficient[0] += added[0] / (2.0 * positives)
    # ... passed to the point whose precision it is: the first at or after j that reaches it.
    order = np.arange(kept.shape[0])
    source = np.minimum.accumulate(np.where(precision == envelope, order, order[-1])[::-1])[::-1]
    through = np.bincount(source, weights=coefficient, minlength=kept.shape[0])
    by_positives = np.cumsum((through / items)[::-1])[::-1]
    negative = -np.cumsum((through * tp / (items * items))[::-1])[::-1]
    # d AP / d TP_i directly is e_i - e_{i+1}, whose suffix sum is e_i; P divides the area.
    positive = halves + by_positives - area / positives + negative
    return kept, positive, negative
