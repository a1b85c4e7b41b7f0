"""The AP kernel of the events track against hand-worked curves, the PASCAL VOC 2010
definition (written here independently) and properties of SPEC section 5."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scoring.metrics.ranking import average_precision, curve, ranked_counts


def float_curves(y, s):
    """(recall, precision, monotone precision, items) at each operating point, from the
    highest confidence down, as floats from ranked_counts' integer counts."""
    true_positives, counts = ranked_counts(y, s)
    return curve(true_positives, counts, int(true_positives[-1])) + (counts,)


def dense_trapezoid_sum(y, s):
    """The trapezoid sum of SPEC section 5 over every operating point, zero terms included,
    in ranking order."""
    recall, _, envelope, _ = float_curves(y, s)
    r = np.concatenate(([0.0], recall))
    p = np.concatenate((envelope[:1], envelope))
    return float(np.sum((r[1:] - r[:-1]) * (p[1:] + p[:-1])) / 2.0)


def voc2010_ap(y_true, scores):
    """The VOC devkit's VOCap on a ranking without ties: mrec = [0, rec, 1],
    mpre = [0, prec, 0], the envelope from the right, sum of delta-recall times precision."""
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    positives = sum(y_true)
    tp = fp = 0
    rec, prec = [], []
    for i in order:
        if y_true[i]:
            tp += 1
        else:
            fp += 1
        rec.append(tp / positives)
        prec.append(tp / (tp + fp))
    mrec = [0.0] + rec + [1.0]
    mpre = [0.0] + prec + [0.0]
    for i in range(len(mpre) - 2, -1, -1):
        mpre[i] = max(mpre[i], mpre[i + 1])
    return sum((mrec[i] - mrec[i - 1]) * mpre[i] for i in range(1, len(mrec)) if mrec[i] != mrec[i - 1])


def ranked(labels):
    """Scores that rank `labels` in the given order, no ties."""
    return np.array(labels, dtype=bool), np.arange(len(labels), 0, -1, dtype=float)


# ---------------------------------------------------------------- hand-worked


def test_hand_worked_without_ties():
    # + - + : points (r, p) = (1/2, 1), (1/2, 1/2), (1, 2/3); envelope along the curve
    # 1, 2/3, 2/3; trapezoids from (0, 1): 1/2 * 1 + 0 + 1/2 * 2/3 = 5/6.
    assert average_precision(*ranked([1, 0, 1])) == pytest.approx(5 / 6, abs=1e-15)
    # - + : (0, 0), (1, 1/2): envelope 1/2, 1/2: area 1/2.
    assert average_precision(*ranked([0, 1])) == pytest.approx(0.5, abs=1e-15)
    # + + - - + : P = 3; recall 2/3 at precision 1, then 1 at 3/5: 2/3 * 1 + 1/3 * 3/5 = 13/15.
    assert average_precision(*ranked([1, 1, 0, 0, 1])) == pytest.approx(13 / 15, abs=1e-15)


def test_hand_worked_with_ties():
    # Confidences 0.9 (+), 0.5 (+, -, -), 0.1 (+). P = 3.
    # Points: (1/3, 1), (2/3, 2/4), (1, 3/5); envelope 1, 3/5, 3/5.
    # Trapezoids: from (0, 1) to (1/3, 1): 1/3; to (2/3, 3/5): 1/3 * (1 + 3/5) / 2 = 4/15;
    # to (1, 3/5): 1/3 * 3/5 = 1/5. AP = 1/3 + 4/15 + 1/5 = 4/5.
    y = np.array([1, 1, 0, 0, 1], dtype=bool)
    s = np.array([0.9, 0.5, 0.5, 0.5, 0.1])
    assert average_precision(y, s) == pytest.approx(0.8, abs=1e-15)
    recall, precision, envelope, counts = float_curves(y, s)
    np.testing.assert_allclose(recall, [1 / 3, 2 / 3, 1])
    np.testing.assert_allclose(precision, [1, 0.5, 0.6])
    np.testing.assert_allclose(envelope, [1, 0.6, 0.6])
    assert counts.tolist() == [1, 4, 5]


def test_all_tied_is_the_prevalence():
    # One operating point (r, p) = (1, P/N): the area from (0, P/N) is P/N.
    y = np.array([1, 0, 0, 1, 0, 0, 0, 1], dtype=bool)
    assert average_precision(y, np.full(8, 0.3)) == pytest.approx(3 / 8, abs=1e-15)


def test_missing_ids_as_minus_infinity_are_one_point():
    # + (0.7), - (0.2), then two not submitted (-inf): one + and one -.
    # Points: (1/2, 1), (1/2, 1/2), (1, 2/4); envelope 1, 1/2, 1/2.
    # Area: 1/2 * 1 + 0 + 1/2 * (1/2 + 1/2) / 2 = 3/4.
    y = np.array([1, 0, 1, 0], dtype=bool)
    s = np.array([0.7, 0.2, -np.inf, -np.inf])
    assert average_precision(y, s) == pytest.approx(0.75, abs=1e-15)


def test_no_positive_is_refused():
    with pytest.raises(ValueError):
        average_precision(np.zeros(3, dtype=bool), np.arange(3.0))


# ---------------------------------------------------------------- VOC 2010


def literal_reading_ap(labels):
    """SPEC's words taken literally at every operating point of a tie-free ranking:
    p*_i = max of p_j over *all* points j with r_j >= r_i (earlier points of equal recall too)."""
    positives, tp, points = sum(labels), 0, []
    for k, label in enumerate(labels, start=1):
        tp += label
        points.append((tp / positives, tp / k))
    envelope = [max(p for r, p in points if r >= r_i) for r_i, _ in points]
    area, last_r, last_p = 0.0, 0.0, envelope[0]
    for (r, _), p in zip(points, envelope):
        area += (r - last_r) * (p + last_p) / 2
        last_r, last_p = r, p
    return area


def test_literal_reading_would_differ_from_voc():
    # The example that fixes the reading of the envelope (see ranking.py and README):
    # + - + : VOC 2010 gives 1/2 * 1 + 1/2 * 2/3 = 5/6; the literal reading 11/12.
    assert voc2010_ap([1, 0, 1], [3.0, 2.0, 1.0]) == pytest.approx(5 / 6, abs=1e-15)
    assert literal_reading_ap([1, 0, 1]) == pytest.approx(11 / 12, abs=1e-15)
    assert average_precision(*ranked([1, 0, 1])) == pytest.approx(5 / 6, abs=1e-15)


labels_strategy = st.lists(st.booleans(), min_size=1, max_size=60).filter(any)


@settings(max_examples=300, deadline=None)
@given(labels_strategy, st.integers(0, 2 ** 32 - 1))
def test_equals_voc2010_without_ties(labels, seed):
    scores = np.random.RandomState(seed).permutation(len(labels)).astype(float) * 0.37 - 5.0
    y = np.array(labels, dtype=bool)
    assert abs(average_precision(y, scores) - voc2010_ap(labels, scores.tolist())) <= 1e-12


def test_equals_voc2010_on_large_random_rankings():
    rng = np.random.RandomState(7)
    for n in (1000, 5000):
        y = rng.rand(n) < 0.05
        y[0] = True
        scores = rng.rand(n) + y * 0.3
        assert np.unique(scores).shape[0] == n
        assert abs(average_precision(y, scores) - voc2010_ap(y.tolist(), scores.tolist())) <= 1e-12


# ---------------------------------------------------------------- properties

tied_case = st.integers(1, 40).flatmap(lambda n: st.tuples(
    st.lists(st.booleans(), min_size=n, max_size=n).filter(any),
    st.lists(st.integers(0, 5), min_size=n, max_size=n)))


@settings(max_examples=200, deadline=None)
@given(tied_case, st.integers(0, 2 ** 32 - 1))
def test_permuting_items_changes_nothing(case, seed):
    labels, levels = case
    y, s = np.array(labels, dtype=bool), np.array(levels, dtype=float)
    order = np.random.RandomState(seed).permutation(len(labels))
    assert average_precision(y[order], s[order]) == average_precision(y, s)


@settings(max_examples=200, deadline=None)
@given(tied_case, st.integers(0, 2 ** 32 - 1))
def test_swapping_labels_inside_a_tie_changes_nothing(case, seed):
    labels, levels = case
    y, s = np.array(labels, dtype=bool), np.array(levels, dtype=float)
    shuffled = y.copy()
    rng = np.random.RandomState(seed)
    for level in np.unique(s):
        members = np.flatnonzero(s == level)
        shuffled[members] = y[members][rng.permutation(members.shape[0])]
    assert average_precision(shuffled, s) == average_precision(y, s)


@settings(max_examples=200, deadline=None)
@given(tied_case, st.floats(-1e3, 1e3), st.floats(0.01, 100.0))
def test_increasing_transforms_change_nothing(case, constant, scale):
    labels, levels = case
    y, s = np.array(labels, dtype=bool), np.array(levels, dtype=float)
    reference = average_precision(y, s)
    assert average_precision(y, s + constant) == pytest.approx(reference, abs=1e-12)
    assert average_precision(y, s * scale) == pytest.approx(reference, abs=1e-12)
    assert average_precision(y, np.exp(s) + constant) == pytest.approx(reference, abs=1e-12)
    assert average_precision(y, s ** 3 - 2.0) == pytest.approx(reference, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(tied_case)
def test_perfect_ranking_is_one_and_bounds(case):
    labels, levels = case
    y, s = np.array(labels, dtype=bool), np.array(levels, dtype=float)
    assert average_precision(y, y.astype(float)) == 1.0
    assert average_precision(y, y * 2.0 + s * 0.01) == pytest.approx(1.0, abs=1e-15)
    ap = average_precision(y, s)
    assert np.count_nonzero(y) / y.shape[0] - 1e-12 <= ap <= 1.0 + 1e-12


# ---------------------------------------------------------------- the sort-based route

confidences = st.one_of(st.integers(0, 5).map(float), st.sampled_from(
    [-np.inf, -0.0, 0.0, 0.25, 1e300, -1.5, -1e300, 5e-324, -5e-324, np.inf]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=False), min_size=2, max_size=40))
def test_order_keys_order_as_the_floats(values):
    # The sort works on integer keys: equal floats (-0.0 and 0.0 too) get equal keys,
    # and a larger float a larger key, compared pair by pair.
    from scoring.metrics.ranking import order_keys
    keys = order_keys(np.array(values)).tolist()
    for a, ka in zip(values, keys):
        for b, kb in zip(values, keys):
            assert (ka < kb) == (a < b) and (ka == kb) == (a == b)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 50).flatmap(lambda n: st.tuples(st.lists(st.booleans(), min_size=n, max_size=n),
                                                         st.lists(confidences, min_size=n, max_size=n))))
def test_ranked_counts_count_each_operating_point(case):
    # ranked_counts places each positive by a binary search in the sorted confidences;
    # here, from the definition: at each distinct confidence v, from the highest down,
    # the positives and the items with a confidence >= v (-0.0 and 0.0 are one value).
    labels, levels = case
    y, s = np.array(labels, dtype=bool), np.array(levels, dtype=float)
    distinct = sorted(set(levels), reverse=True)
    true_positives, counts = ranked_counts(y, s)
    assert true_positives.tolist() == [int(np.count_nonzero(y & (s >= v))) for v in distinct]
    assert counts.tolist() == [int(np.count_nonzero(s >= v)) for v in distinct]


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 50).flatmap(lambda n: st.tuples(
    st.lists(st.booleans(), min_size=n, max_size=n).filter(any), st.lists(confidences, min_size=n, max_size=n))))
def test_ap_is_the_trapezoid_sum_over_every_point_bit_for_bit(case):
    # average_precision computes only the terms of the points that add a positive; the sum
    # over all points (zeros included, in the same order) must give the same float.
    labels, levels = case
    y, s = np.array(labels, dtype=bool), np.array(levels, dtype=float)
    assert average_precision(y, s) == dense_trapezoid_sum(y, s)


def test_ap_bit_for_bit_on_large_rankings_with_ties():
    rng = np.random.RandomState(11)
    for n in (3000, 40000):
        y = rng.rand(n) < 0.02
        s = np.round(rng.rand(n) + y * 0.2, 3)
        s[rng.rand(n) < 0.01] = -np.inf
        assert average_precision(y, s) == dense_trapezoid_sum(y, s)

