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
@pytest.mark.parametrize("setting", ["events", "lines", "authentication"])
def test_the_interval_covers_the_expected_score(setting):
    """At least 0.93 in the full run; here 150 replicates (Monte Carlo SE about 0.02), so at
    least 0.89. The events truth from 2,000 test sets (SE of that mean about 0.002)."""
    truth = simulation.expected_map(2000) if setting == "events" else None
    (expected, _), (predicted, _) = simulation.coverage(setting, REPLICATES, RESAMPLES, truth=truth)
    assert expected >= 0.89, expected
    assert predicted >= 0.85, predicted


@simulation_only_in_venv
def test_the_paired_test_of_line_iu_holds_its_level_and_has_power():
    """Under the weak null (equal expected page IU, one submission heavy-tailed) at most
    0.05 + 3 Monte Carlo SE of 60 replicates; with the steady one better by 0.2, it rejects
    nearly always."""
    (level, _), _ = simulation.paired_test(60, flips=False)
    assert level <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 60), level
    (power, _), _ = simulation.paired_test(10, advantage=0.2, flips=False)
    assert power >= 0.9, power


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
