"""What the participant's page and compare.py's report promise, at a small budget of the
kept simulation (bench/coverage.py; its full run gives docs/organizers.md's table), and
the new methods against their definitions and an independent tool (scipy.stats)."""

import importlib.util
import os

import numpy as np
import pytest
from conftest import PHASES_REPLAYED, ROOT
from scoring import bootstrap
from scoring.metrics import significance

_spec = importlib.util.spec_from_file_location("coverage_bench", os.path.join(ROOT, "bench", "coverage.py"))
simulation = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(simulation)

REPLICATES = 150
RESAMPLES = 200
#: The simulations draw from numpy's RandomState, whose streams numpy keeps the same across
#: versions, through the program's own code: on a floor (tests/floor/run) they would repeat
#: .venv's run, while the definitions below (and tests/test_quantiles.py) pin the kernels
#: under each stack.
simulation_only_in_venv = pytest.mark.skipif(PHASES_REPLAYED, reason="the same draws as .venv's run")


@simulation_only_in_venv
@pytest.mark.parametrize("setting", ["events", simulation.LINES, "authentication"])
def test_the_interval_covers_the_expected_score(setting):
    """At least 0.93 in the full run; here 150 replicates (Monte Carlo SE about 0.02), so at
    least 0.89. The events truth from 2,000 test sets (SE of that mean about 0.002)."""
    truth = simulation.expected_map(2000) if setting == "events" else None
    (expected, _), (predicted, _), _, _ = simulation.coverage(setting, REPLICATES, RESAMPLES, truth=truth)
    assert expected >= 0.89, expected
    assert predicted >= 0.85, predicted


@simulation_only_in_venv
@pytest.mark.parametrize("setting", ["events-2-positives", "events-high"])
def test_the_average_precision_interval_covers_with_two_positives_and_near_1(setting):
    """Two of the full run's other events settings, here 150 replicates: 2 positives per
    category (8 degrees of freedom over 8 categories), and a map near 0.87, where the
    interval's logit scale matters (docs/compare-methods.md)."""
    truth = simulation.expected_map(1000, setting=setting)  # its SE at most 0.003
    (expected, _), (predicted, _), _, _ = simulation.coverage(setting, REPLICATES, RESAMPLES, truth=truth)
    assert expected >= 0.89, expected
    assert predicted >= 0.89, predicted


@simulation_only_in_venv
def test_the_paired_test_of_line_iu_holds_its_level_and_has_power():
    """Under the weak null (equal expected page IU, one submission failing one page in ten,
    3 manuscripts of 6 pages: with the sign flips alone 0.15 in the full run, most of it
    from test sets holding no failure) at most 0.05 + 3 Monte Carlo SE of 60 replicates;
    with the steady one better by 0.2 (failures one page in five), it rejects nearly
    always."""
    (level, _), _, _ = simulation.paired_test(60, family="fail 1/10, failed U(0, 0.2)")
    assert level <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 60), level
    (power, _), _, _ = simulation.paired_test(10, advantage=0.2)
    assert power >= 0.9, power


def test_satterthwaite_degrees_of_freedom_of_a_stratified_mean():
    """Two strata of page values [0.2, 0.4, 0.9] and [0.5, 0.5, 0.6, 0.7]: unbiased variances
    0.13 and 0.0275 / 3, so the variances of their shares of the mean over strata are
    v1 = 0.13 / (3 x 4) and v2 = (0.0275 / 3) / (4 x 4); Satterthwaite's degrees of freedom
    (v1 + v2)^2 / (v1^2 / 2 + v2^2 / 3) = 2.21, rounded down to 2 (N - B would be 5); one
    stratum's own score has n - 1 = 2; the view's shape alone (welch False) N - B."""
    values = np.array([0.2, 0.4, 0.9, 0.5, 0.5, 0.6, 0.7])
    view = simulation.ItemView(["a", "b"], [3, 4], [str(i) for i in range(7)], {"v": values, "one": np.ones(7)},
                               [("mean", simulation.Score(simulation.Ratio(("v", "one")), ranked=True)),
                                ("a_mean", simulation.Score(simulation.Ratio(("v", "one")), stratum=0))], "mean",
                               ["one"])
    v1, v2 = 0.13 / 12, 0.0275 / 3 / 16
    assert (v1 + v2) ** 2 / (v1 ** 2 / 2 + v2 ** 2 / 3) == pytest.approx(2.2130, abs=1e-4)
    assert bootstrap.degrees_of_freedom(view, "mean") == 2
    assert bootstrap.degrees_of_freedom(view, "mean", welch=False) == 5
    assert bootstrap.degrees_of_freedom(view, "a_mean") == 2
    flat = simulation.ItemView(["a", "b"], [3, 4], [str(i) for i in range(7)], {"v": np.ones(7), "one": np.ones(7)},
                               [("mean", simulation.Score(simulation.Ratio(("v", "one")), ranked=True))], "mean",
                               ["one"])
    assert bootstrap.degrees_of_freedom(flat, "mean") == 5  # no variance: the view's shape


def test_a_steady_score_on_few_pages_keeps_room_for_unseen_failures():
    """18 pages of IU 0.7 (every resample 0.7): failing on a share f of pages with (1 - f)^18
    = 0.025 gives 0.7 x 0.025^(1/18) = 0.5703 (f = 0.185), the interval's low end; one
    manuscript's own score rests on 6 pages: 0.7 x 0.025^(1/6) = 0.3785. A lower-is-better
    score has no such floor."""
    view = simulation.ItemView(["a", "b", "c"], [6, 6, 6], [str(i) for i in range(18)],
                               {"v": np.full(18, 0.7), "one": np.ones(18)},
                               [("mean", simulation.Score(simulation.Ratio(("v", "one")), ranked=True)),
                                ("a_mean", simulation.Score(simulation.Ratio(("v", "one")), stratum=0)),
                                ("error", simulation.Score(simulation.Ratio(("v", "one")), lower_is_better=True))],
                               "mean", ["one"])
    assert bootstrap.score_interval(view, "mean", 50) == pytest.approx((0.5703, 0.7), abs=1e-4)
    assert bootstrap.score_interval(view, "a_mean", 50) == pytest.approx((0.3785, 0.7), abs=1e-4)
    assert bootstrap.score_interval(view, "error", 50) == pytest.approx((0.7, 0.7))
    assert bootstrap.participant_intervals(view, "mean", 50)[1][0] == pytest.approx(0.5703, abs=1e-4)


def test_the_skew_corrected_low_end_is_halls_interval():
    """40 images, 34 right, one subset (uar 0.85): the low end of Hall's interval from the
    definition, with scipy.stats: se = s / sqrt(n), b = G1 / (3 sqrt n) (G1 Fisher's
    adjusted skewness), c = t(0.975, 39), low = T - se g^-1(c), g^-1(y) = ((1 + 3 b (y -
    b / 2))^(1/3) - 1) / b; below the failure floor 0.85 x 0.025^(1/40), so the interval's."""
    stats = pytest.importorskip("scipy.stats")
    v = (np.arange(40) < 34).astype(float)
    n = 40
    b = stats.skew(v, bias=False) / (3 * np.sqrt(n))
    c = stats.t.ppf(0.975, n - 1)
    low = 0.85 - np.std(v, ddof=1) / np.sqrt(n) * (np.cbrt(1 + 3 * b * (c - b / 2)) - 1) / b
    view = simulation.ItemView(["s"], [n], [str(i) for i in range(n)], {"v": v, "one": np.ones(n)},
                               [("uar", simulation.Score(simulation.Ratio(("v", "one")), ranked=True))], "uar", ["one"])
    # rel 1e-7: scipy 1.3's t.ppf (CDFLIB's stdtrit) is off by about 1e-9 (scoring/metrics/quantiles.py)
    assert bootstrap.skew_low(view, "uar", 0.85) == pytest.approx(low, rel=1e-7)
    assert low < 0.85 * 0.025 ** (1 / 40.0)
    assert bootstrap.failure_floor(view, "uar", 0.85) == pytest.approx(low, rel=1e-7)
    assert bootstrap.score_interval(view, "uar", 100)[0] == pytest.approx(low, rel=1e-7)


def test_the_chance_that_a_failing_leader_shows_no_failure():
    """Shares of 10 units (pages of one stratum, value / 10): A scores 0.8 everywhere, B 0.6.
    A failing (share 0) on a share f of pages loses f x 0.8, so f = 0.2 / 0.8 = 1/4 brings
    it to B's 0.6: no failure in 10 pages with chance (3/4)^10 = 0.0563. Lower is better
    (worst the largest share, 1/10): B ahead by 0.2 with room 1 - 0.6, f = 1/2, (1/2)^10.
    Equal scores: 0."""
    x = np.stack([np.full(10, 0.08), np.full(10, 0.06), np.full(10, 0.06)], axis=1)
    chance = significance.unseen_failure(x, [(0, 1), (1, 0), (1, 2)], np.zeros((10, 3)))
    assert chance.tolist() == pytest.approx([0.75 ** 10, 0.75 ** 10, 0.0])
    lower = significance.unseen_failure(x, [(0, 1)], np.full((10, 3), 0.1), sign=-1)
    assert lower.tolist() == pytest.approx([0.5 ** 10])


def test_a_pair_whose_leader_could_fail_unseen_gets_no_p_value():
    """3 manuscripts of 6 pages: a steady submission at 0.65 against one at 0.71 (p < 0.05,
    but failing on 0.06 / 0.71 of pages, absent from 18 with chance 0.20: no p-value, and
    pairs.csv says why), and against a perfect one (1.0: f = 0.35, chance 0.0004: tested)."""
    from scoring.metaeval import analysis
    rng = np.random.RandomState(4)
    steady = simulation.steady_pages(rng)
    ahead = steady + 0.06 + rng.normal(0, 0.005, 18)
    views = [simulation.lines_view(v) for v in (steady, ahead, np.ones(18))]
    _, _, pairs, _, p, p_adjusted, _, _ = analysis.paired_tests(views, "line_iu", analysis.Options(seed=1))
    assert pairs.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert np.isnan(p[0]) and np.isnan(p_adjusted[0])
    assert p[1] < 0.05 and p[2] < 0.05


def test_the_prediction_interval_is_its_definition():
    """Samples 0, 0.001, ..., 1: percentiles 2.5% and 97.5% are 0.025 and 0.975; without
    degrees of freedom no widening, so the half-width is sqrt(2) x 0.95 / 2 about the
    estimate; with df 10 it is t(0.975, 10) / z(0.975) = 2.228139 / 1.959964 times that."""
    samples = np.arange(1001) / 1000.0
    low, high = bootstrap.predicted(samples, 0.5, 0, bounds=None)
    assert (low, high) == pytest.approx((0.5 - np.sqrt(2) * 0.475, 0.5 + np.sqrt(2) * 0.475))
    low, high = bootstrap.predicted(samples, 0.5, 10, bounds=None)
    half = np.sqrt(2) * 0.475 * 2.228139 / 1.959964
    assert (low, high) == pytest.approx((0.5 - half, 0.5 + half), rel=1e-6)
    assert bootstrap.predicted(samples, 0.5, 0) == pytest.approx((0.0, 1.0))  # clipped to [0, 1]


def test_the_skew_corrected_t_of_symmetric_differences_is_students_t():
    """Differences symmetric about their mean have no skewness: one stratum's statistic is
    then the one-sample t of scipy.stats.ttest_1samp (n - 1 degrees of freedom)."""
    stats = pytest.importorskip("scipy.stats")
    d = np.array([-1.0, 0.5, 2.0, 3.5, 5.0]) / 10.0
    x = np.stack([d, np.zeros(5)], axis=1)
    p = significance.skew_corrected(x, [(0, 1)], np.zeros(5, dtype=int))[0]
    assert p == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue, rel=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_the_skew_corrected_t_is_halls_transformation(seed):
    """One stratum of n skewed differences: t the one-sample t, G1 = scipy.stats.skew(d,
    bias=False) (Fisher's adjusted skewness), b = G1 / (3 sqrt n), g = t + b t^2 + b^2
    t^3 / 3 + b / 2 (Hall 1992), p = 2 P(T_{n-1} >= |g|)."""
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.RandomState(seed)
    n = 12
    d = rng.exponential(size=n) - 0.8
    t = stats.ttest_1samp(d, 0.0).statistic
    b = stats.skew(d, bias=False) / (3 * np.sqrt(n))
    g = t + b * t * t + b * b * t ** 3 / 3 + b / 2
    expected = 2 * stats.t.sf(abs(g), n - 1)
    x = np.stack([np.zeros(n), -d], axis=1)  # the pair (0, 1): differences d
    assert significance.skew_corrected(x, [(0, 1)], np.zeros(n, dtype=int))[0] == pytest.approx(expected, rel=1e-9)


def test_the_skew_corrected_t_sums_its_strata():
    """Two strata: V and the third cumulant are sums over the strata of their centred
    terms (Fisher's k-statistics times n_h), worked out here term by term."""
    stats = pytest.importorskip("scipy.stats")
    first, second = np.array([0.1, 0.4, -0.2, 0.9]), np.array([0.3, -0.1, 0.0, 0.2, 1.1])
    d = np.concatenate([first, second])
    strata = np.array([0] * 4 + [1] * 5)
    variance = sum(len(v) / (len(v) - 1.0) * np.sum((v - v.mean()) ** 2) for v in (first, second))
    third = sum(len(v) ** 2 / ((len(v) - 1.0) * (len(v) - 2.0)) * np.sum((v - v.mean()) ** 3)
                for v in (first, second))
    t = d.sum() / np.sqrt(variance)
    b = third / variance ** 1.5 / 3
    g = t + b * t * t + b * b * t ** 3 / 3 + b / 2
    x = np.stack([d, np.zeros(9)], axis=1)
    p = significance.skew_corrected(x, [(0, 1)], strata)[0]
    assert p == pytest.approx(2 * stats.t.sf(abs(g), 9 - 2), rel=1e-9)


def test_the_skew_corrected_t_leaves_equal_and_certain_pairs_to_the_sign_flips():
    """T = 0: p = 1; V = 0 < |T| (every unit the same difference): p = 0, so that the
    sign-flip test's exact p decides alone."""
    x = np.array([[0.2, 0.2, 0.1], [0.5, 0.5, 0.4], [0.1, 0.1, 0.0]])
    p = significance.skew_corrected(x, [(0, 1), (0, 2)], np.zeros(3, dtype=int))
    assert p.tolist() == [1.0, 0.0]
