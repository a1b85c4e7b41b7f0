"""Average precision of a ranking by confidence, ties as one operating point (pure numpy).

Source: seeds/events-track-evaluation.txt (ChaLearn LAP cultural events: "precision
monotonically decreasing ... the area under this curve ... the trapezoidal rule") and
SPEC section 5, made exact:

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
SPEC's "(without ties this equals the PASCAL VOC 2010 AP)" holds.
"""

import numpy as np


def operating_points(y_true, scores):
    """Precision, recall and the monotone precision at each distinct confidence.

    y_true: (n,) booleans (True = positive), at least one positive. scores: (n,) real
    confidences, higher = more confident; -inf is allowed (ranked last, tied together).
    Returns (recall, precision, envelope, counts): arrays of length m, the number of
    distinct confidences, ordered from the highest confidence down; counts[i] is the
    number of items ranked at or above operating point i.
    """
    y_true = np.asarray(y_true, dtype=bool)
    scores = np.asarray(scores, dtype=np.float64)
    if y_true.shape != scores.shape or y_true.ndim != 1:
        raise ValueError("y_true and scores must be 1-D arrays of the same length")
    positives = int(np.count_nonzero(y_true))
    if positives == 0:
        raise ValueError("average precision is undefined without a positive item")
    true_positives, counts = ranked_counts(y_true, scores)
    recall, precision, envelope = curve(true_positives, counts, positives)
    return recall, precision, envelope, counts.astype(np.int64)


def ranked_counts(y_true, scores):
    """(true positives, items) ranked at or above each operating point, from the highest
    confidence down: two integer arrays (int32 below 2**31 items, a quarter of the
    memory of the float curves they determine). y_true: (n,) booleans, scores: (n,)."""
    order = np.argsort(scores)[::-1]  # one sort; the order inside a tie does not matter
    ranked = scores[order]
    # The last item of each run of equal confidences closes an operating point
    # (compared with !=, not np.diff, so that runs of -inf are one point too).
    ends = np.append(np.flatnonzero(ranked[1:] != ranked[:-1]), ranked.shape[0] - 1)
    kind = np.int32 if scores.shape[0] < 2 ** 31 else np.int64
    return np.cumsum(y_true[order], dtype=kind)[ends], (ends + 1).astype(kind)


def curve(true_positives, counts, positives):
    """(recall, precision, monotone precision) at the operating points of ranked_counts;
    positives: the number of positive items (at least one)."""
    tp = true_positives.astype(np.float64)
    precision = tp / counts
    recall = tp / positives
    envelope = np.maximum.accumulate(precision[::-1])[::-1]
    return recall, precision, envelope


def average_precision(y_true, scores):
    """AP of SPEC section 5: the trapezoidal rule over the monotone precision, from
    (0, p*_1) through every operating point (ties as one point). See the module text."""
    recall, _, envelope, _ = operating_points(y_true, scores)
    return area_under_envelope(recall, envelope)


def area_under_envelope(recall, envelope):
    """The trapezoidal rule over (0, p*_1), (r_1, p*_1), ..., (r_m, p*_m)."""
    r = np.concatenate(([0.0], recall))
    p = np.concatenate((envelope[:1], envelope))
    return float(np.sum((r[1:] - r[:-1]) * (p[1:] + p[:-1])) / 2.0)
