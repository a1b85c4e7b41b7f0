"""The quantiles of the intervals (scoring/metrics/quantiles.py) against their tables,
their closed forms and scipy (scipy.special.ndtri and stdtrit, what scipy.stats' norm.ppf
and t.ppf compute)."""

import math

import pytest
from scipy.special import ndtri, stdtrit

from scoring.metrics.quantiles import SERIES_LIMIT, normal_quantile, t_distribution, t_quantile


def test_printed_tables():
    # Abramowitz and Stegun, table 26.1 and 26.10 (to the digits printed there)
    assert normal_quantile(0.975) == pytest.approx(1.959963984540054, rel=1e-15)
    assert normal_quantile(0.995) == pytest.approx(2.575829303548901, rel=1e-15)
    for df, printed in ((1, 12.706), (2, 4.303), (5, 2.571), (10, 2.228), (30, 2.042), (120, 1.980)):
        assert round(t_quantile(0.975, df), 3) == printed


def test_closed_forms():
    for p in (0.6, 0.9, 0.975, 0.999):
        assert t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-14)
        assert t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-14)
    # df = 3: P(T <= t) = 1/2 + (t / (sqrt(3) (1 + t^2 / 3)) + atan(t / sqrt(3))) / pi
    for t in (0.3, 1.0, 3.182):
        closed = 0.5 + (t / (math.sqrt(3) * (1 + t * t / 3)) + math.atan(t / math.sqrt(3))) / math.pi
        assert t_distribution(t, 3) == pytest.approx(closed, rel=1e-15)
        assert t_distribution(-t, 3) == pytest.approx(1 - closed, rel=1e-15)


def test_symmetry_and_order():
    for df in (1, 3, 4, 17, 999, 1000, 10 ** 6):
        assert t_quantile(0.025, df) == pytest.approx(-t_quantile(0.975, df), rel=1e-13)
        assert t_quantile(0.975, df) > t_quantile(0.975, df + 1) > normal_quantile(0.975)
    assert normal_quantile(0.5) == 0.0 and t_quantile(0.5, 7) == pytest.approx(0.0, abs=1e-15)


def test_against_scipy():
    for p in (1e-10, 0.001, 0.025, 0.1, 0.3, 0.7, 0.9, 0.975, 0.999, 1 - 1e-9):
        assert normal_quantile(p) == pytest.approx(float(ndtri(p)), rel=1e-15)
    dfs = list(range(1, 60)) + list(range(60, SERIES_LIMIT + 60, 7)) + [5000, 10 ** 5, 10 ** 7]
    for p in (0.005, 0.025, 0.05, 0.6, 0.95, 0.975, 0.995):
        for df in dfs:
            assert t_quantile(p, df) == pytest.approx(float(stdtrit(df, p)), rel=1e-12), (p, df)


def test_refusals():
    for p in (0.0, 1.0, -0.1, float("nan")):
        with pytest.raises(ValueError):
            normal_quantile(p)
    with pytest.raises(ValueError):
        t_quantile(0.975, 0)
