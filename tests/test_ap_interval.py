"""The interval of an average precision without draws (bootstrap.ap_intervals): the
infinitesimal jackknife variance of the class-stratified bootstrap, from the influence of
each item (metrics.ranking.influence), checked against hand-worked rankings, against the
derivative of the weighted AP that compare.py's resamples compute, and against the
variance of the bootstrap itself."""

import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT
from scoring import bootstrap
from scoring.itemview import AveragePrecision, ItemView, Score, aggregate
from scoring.metrics.ranking import distinct, influence, ranked_counts

T_975_1 = 12.706204736174698  # t(0.975, 1 degree of freedom), scipy.stats.t.ppf(0.975, 1)


def ranking_view(labels, confidences):
    """Categories given as (labels, confidences) lists: blocks (category, true class) as
    the events track builds them."""
    sizes = [len(labels_h) for labels_h in labels]
    label = np.concatenate([np.asarray(x, dtype=float) for x in labels])
    confidence = np.concatenate([np.asarray(x, dtype=float) for x in confidences])
    block = 2 * np.repeat(np.arange(len(sizes)), sizes) + label.astype(int)
    n = label.shape[0]
    return ItemView(["c%d" % h for h in range(len(sizes))], sizes, [str(i) for i in range(n)],
                    {"label": label, "confidence": confidence},
                    [("map", Score(AveragePrecision("label", "confidence"), ranked=True)),
                     ("first", Score(AveragePrecision("label", "confidence"), stratum=0))], "map", ["label"],
                    block=block, unit="image")


def gradients(labels, confidences):
    """metrics.ranking.influence of a ranking, spread over all its operating points:
    (positive, negative) derivatives at each point."""
    true_positives, counts = ranked_counts(np.asarray(labels) > 0, np.asarray(confidences, dtype=float))
    kept, positive, negative = influence(true_positives, counts)
    at = np.searchsorted(kept, np.arange(counts.shape[0]))
    return np.append(positive, 0.0)[at], np.append(negative, 0.0)[at]


def variance(view, h=0):
    return bootstrap.ap_variance(view, view.scores["map"].statistic, h)


def expit(x):
    return 1.0 / (1.0 + np.exp(-x))


def test_a_ranking_worked_by_hand():
    """Ranking +a, -b, +c. With weights: AP = wa / (wa + wc) + wc / (wa + wb + wc) = 5/6;
    its derivatives at 1: a 1/4 - 1/9 = 5/36, c -1/4 + 2/9 = -1/36, b -1/9. The positives'
    block of 2: 2/1 x ((3/36)^2 + (3/36)^2) = 1/36; the negatives' block of one item never
    varies. se 1/6, logit(5/6) = ln 5, df = 2 positives - 1 category."""
    view = ranking_view([[1, 0, 1]], [[3, 2, 1]])
    positive, negative = gradients([1, 0, 1], [3, 2, 1])
    assert positive[0] == pytest.approx(5 / 36.0) and positive[2] == pytest.approx(-1 / 36.0)
    assert negative[1] == pytest.approx(-1 / 9.0)
    assert variance(view) == pytest.approx(1 / 36.0)
    half = T_975_1 * (1 / 6.0) / (5 / 6.0 * 1 / 6.0)
    (low, high), (p_low, p_high) = bootstrap.ap_intervals(view)
    assert (low, high) == pytest.approx((expit(np.log(5) - half), expit(np.log(5) + half)))
    assert (p_low, p_high) == pytest.approx((expit(np.log(5) - np.sqrt(2) * half),
                                             expit(np.log(5) + np.sqrt(2) * half)))


def test_a_tie_worked_by_hand():
    """+a at 2, then -b and +c tied at 1 (one operating point, a trapezoid from (1/2, 1) to
    (1, 2/3)): AP = [wa + wc (1 + (wa + wc) / S) / 2] / (wa + wc), S = wa + wb + wc, 11/12.
    Derivatives at 1: a 19/36 - 11/24 = 5/72, c 4/9 - 11/24 = -1/72, b -1/18 (worked out
    by the quotient rule); variance 2 x 2 x (3/72)^2 = 1/144."""
    view = ranking_view([[1, 0, 1]], [[2, 1, 1]])
    assert aggregate(view)["map"][0] == pytest.approx(11 / 12.0)
    positive, negative = gradients([1, 0, 1], [2, 1, 1])
    assert positive.tolist() == pytest.approx([5 / 72.0, -1 / 72.0])
    assert negative[1] == pytest.approx(-1 / 18.0)
    assert variance(view) == pytest.approx(1 / 144.0)


def weighted_ap(labels, confidences, weights):
    """The AP of items counted `weights` times, as compare.py's resamples compute it."""
    view = ranking_view([labels], [confidences])
    return aggregate(view, [np.asarray(weights, dtype=float)[None, :]])["map"][0]


@pytest.mark.parametrize("seed", range(6))
def test_the_influence_is_the_derivative_of_the_weighted_ap(seed):
    """Small rankings with ties (confidences to one decimal): each item's influence is the
    derivative of the resamples' AP in its weight (a one-sided one where two points share
    the envelope's maximum), by finite differences."""
    rng = np.random.RandomState(seed)
    n = 12 + seed
    labels = (rng.rand(n) < 0.4).astype(float)
    labels[0] = 1
    confidences = np.round(rng.rand(n) + labels * 0.5, 1)
    positive, negative = gradients(labels, confidences)
    point = np.searchsorted(-np.unique(confidences)[::-1], -confidences)  # each item's operating point
    ones = np.ones(n)
    at_one = weighted_ap(labels, confidences, ones)
    step = 1e-6
    for i in range(n):
        change = np.zeros(n)
        change[i] = step
        up = (weighted_ap(labels, confidences, ones + change) - at_one) / step
        down = (at_one - weighted_ap(labels, confidences, ones - change)) / step
        derivative = positive[point[i]] if labels[i] else negative[point[i]]
        assert min(abs(derivative - up), abs(derivative - down)) < 1e-5, (i, derivative, up, down)


@pytest.mark.parametrize("seed", range(3))
def test_the_variance_is_the_bootstraps(seed):
    """1,000 images, 100 positives, confidences to one decimal (ties): the variance of the AP
    over 2,000 resamples of compare.py's draws (Monte Carlo error about 3%) is within 20% of
    the first-order variance, which leaves out the AP's curvature."""
    rng = np.random.RandomState(seed)
    labels = np.zeros(1000)
    labels[:100] = 1
    confidences = np.round(rng.randn(1000) + labels, 1)
    view = ranking_view([labels], [confidences])
    drawn = aggregate(view, bootstrap.draw_weights(view, 2000, 1))["map"]
    assert 0.8 <= np.var(drawn) / variance(view) <= 1.25


def test_the_mean_over_categories_adds_the_variances():
    """Two categories: the map's variance is the sum of theirs over 4; one category's
    score (stratum 0) has its own."""
    first = ([1, 0, 1, 0, 0, 1], [0.9, 0.8, 0.8, 0.5, 0.3, 0.1])
    second = ([0, 1, 1, 0, 0, 0, 1], [0.7, 0.6, 0.6, 0.6, 0.2, 0.1, 0.0])
    view = ranking_view([first[0], second[0]], [first[1], second[1]])
    alone = [variance(ranking_view([labels], [confidences])) for labels, confidences in (first, second)]
    assert variance(view, 0) == pytest.approx(alone[0]) and variance(view, 1) == pytest.approx(alone[1])
    estimate = aggregate(view)["map"][0]
    df = 6 - 2  # positives less one per category
    half = bootstrap.critical_value(df) * np.sqrt(sum(alone) / 4.0) / (estimate * (1 - estimate))
    logit = np.log(estimate / (1 - estimate))
    assert bootstrap.ap_intervals(view, "map")[0] == pytest.approx((expit(logit - half), expit(logit + half)))
    one = aggregate(view)["first"][0]
    half = bootstrap.critical_value(df) * np.sqrt(alone[0]) / (one * (1 - one))
    logit = np.log(one / (1 - one))
    assert bootstrap.ap_intervals(view, "first")[0] == pytest.approx((expit(logit - half), expit(logit + half)))


@pytest.mark.parametrize("labels, confidences", [
    ([1, 0, 0, 0], [0.2, 0.9, 0.5, 0.1]),  # one positive: only the negatives above it vary
    ([1, 1, 1], [0.3, 0.2, 0.2]),  # no negative: AP 1
    ([1, 1, 0, 0], [0.9, 0.8, 0.1, 0.1]),  # every positive first: AP 1, no resample changes it
    ([0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5]),  # every image tied
    ([1, 0, 0], [-np.inf, -np.inf, -np.inf]),  # a missing case: every image ranked last, tied
])
def test_edge_cases_give_finite_intervals_within_0_and_1(labels, confidences):
    view = ranking_view([labels], [confidences])
    estimate = aggregate(view)["map"][0]
    (low, high), (p_low, p_high) = bootstrap.ap_intervals(view)
    values = [low, high, p_low, p_high, variance(view)]
    assert np.isfinite(values).all()
    assert 0.0 <= p_low <= low <= estimate <= high <= p_high <= 1.0
    if estimate == 1.0:
        assert (low, high) == (1.0, 1.0)


def test_one_positive_varies_with_the_negatives_above_it():
    """One positive under two of four negatives: AP = 1 / 3 = w+ / (w+ + w1 + w2); each
    negative above it has derivative -1/9, those below 0; the four negatives' variance
    4/3 x (2 (1/9 - 1/18)^2 + 2 (1/18)^2) = 4/3 x 4/324 = 4/243."""
    view = ranking_view([[1, 0, 0, 0, 0]], [[0.5, 0.9, 0.7, 0.2, 0.1]])
    assert aggregate(view)["map"][0] == pytest.approx(1 / 3.0)
    assert variance(view) == pytest.approx(4 / 243.0)


def test_the_page_compare_py_and_evalai_share_the_interval():
    """score_intervals (compare.py's, and EvalAI's half widths) of an average precision is
    the participant's ap_intervals."""
    view = ranking_view([[1, 0, 1, 0, 0, 1], [0, 1, 1, 0]], [[0.9, 0.8, 0.8, 0.5, 0.3, 0.1], [0.7, 0.6, 0.6, 0.2]])
    assert bootstrap.score_intervals(view, ["map"])["map"] == bootstrap.participant_intervals(view)[0]
    low, high = bootstrap.ap_intervals(view)[0]
    assert bootstrap.half_widths(view)["map"] == (high - low) / 2.0


def test_blocks_other_than_the_classes_sum_their_own_spreads():
    """The ranking +a, -b, +c resampled as one block of 3 (classes not kept): the influences
    5/36, -1/9 (= -4/36), -1/36 have mean 0, so the variance is 3/2 x 42/1296 = 7/144."""
    view = ranking_view([[1, 0, 1]], [[3, 2, 1]])
    view.block = np.zeros(3, dtype=np.int64)
    assert variance(view) == pytest.approx(7 / 144.0)


def test_categories_with_one_positive_take_the_bound_of_a_score_in_0_1():
    """Two categories of one positive each, ranked 1st of 3 (AP 1) and 2nd of 3 (AP 1/2),
    and one of two positives: the singles' mean AP m = 3/4 gives them 2 m (1 - m) = 3/8
    (the most two [0, 1] scores of that mean can vary), the third its own bootstrap
    variance; the map's variance is their sum over 3^2. df = 4 positives - 3 categories."""
    labels = [[1, 0, 0], [0, 1, 0], [1, 0, 1]]
    confidences = [[0.9, 0.5, 0.1], [0.9, 0.5, 0.1], [3, 2, 1]]
    view = ranking_view(labels, confidences)
    third = variance(ranking_view([labels[2]], [confidences[2]]))
    assert third == pytest.approx(1 / 36.0)  # test_a_ranking_worked_by_hand's ranking
    estimate = aggregate(view)["map"][0]
    assert estimate == pytest.approx((1 + 0.5 + 5 / 6.0) / 3)
    half = T_975_1 * np.sqrt((3 / 8.0 + third) / 9.0) / (estimate * (1 - estimate))
    logit = np.log(estimate / (1 - estimate))
    assert bootstrap.ap_intervals(view, "map")[0] == pytest.approx((expit(logit - half), expit(logit + half)))


@pytest.mark.parametrize("seed", range(4))
def test_distinct_is_numpys_unique(seed):
    values = np.random.RandomState(seed).randint(-5, 6, size=seed * 7)
    assert np.array_equal(distinct(values), np.unique(values))


def test_the_interval_of_an_average_precision_leaves_numpy_ma_unimported():
    """numpy.unique imports numpy.ma on numpy 2 (an events run needs nothing else of it);
    the AP interval does without it. Older numpy imports numpy.ma with numpy itself:
    nothing to check there."""
    code = ("import sys\n"
            "sys.path.insert(0, %r)\n"
            "import numpy as np\n"
            "eager = 'numpy.ma' in sys.modules\n"
            "from scoring import bootstrap\n"
            "from scoring.itemview import AveragePrecision, ItemView, Score\n"
            "labels = np.zeros(50); labels[:10] = 1\n"
            "confidence = np.round(np.random.RandomState(3).rand(50) + labels * 0.3, 2)\n"
            "view = ItemView(['c'], [50], [str(i) for i in range(50)], {'label': labels, 'confidence': confidence},\n"
            "                [('map', Score(AveragePrecision('label', 'confidence'), ranked=True))], 'map',\n"
            "                ['label'], block=labels.astype(int), unit='image')\n"
            "(low, high), _ = bootstrap.participant_intervals(view)\n"
            "print(eager, 'numpy.ma' in sys.modules, low < high)\n" % os.path.join(ROOT, "program"))
    eager, imported, ordered = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                              universal_newlines=True, check=True).stdout.split()
    assert ordered == "True"
    if eager == "False":
        assert imported == "False"
