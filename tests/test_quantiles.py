"""The quantiles of the intervals (scoring/metrics/quantiles.py) against their tables,
their closed forms, 40-digit values and scipy's distribution functions.

scipy's own quantile functions are not the reference: scipy.special.stdtrit (what
scipy.stats.t.ppf calls) inverts by CDFLIB's search, whose saved state makes a result
depend on the calls before it: t(0.005, 3) came out -5.840909309733357 alone and
-5.840909299756432 after the rest of this suite (1.7e-9 apart, on numpy 1.17 to 2.4).
scipy.special.stdtr and ndtr (cephes' distribution functions) are evaluated instead at
each quantile, and must give back its probability."""

import math

import pytest
from scipy.special import ndtr, stdtr

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


#: (p, df, t) from mpmath 1.4.1 at 40 digits: the root of betainc(df/2, 1/2, 0, df/(df+t^2),
#: regularized)/2 = the tail probability of the float p.
MPMATH = ((0.975, 1, 12.706204736174693314), (0.975, 3, 3.1824463052837084359),
          (0.975, 10, 2.2281388519862742245), (0.975, 30, 2.0422724563012378878),
          (0.975, 999, 1.9623414611334495975), (0.975, 1000, 1.9623390808264081039),
          (0.975, 5000, 1.9604385517065075384), (0.005, 3, -5.8409093097333572173),
          (0.995, 120, 2.6174211451068656876))


def test_forty_digit_values():
    assert normal_quantile(0.975) == pytest.approx(1.9599639845400542355, rel=2e-16)
    for p, df, t in MPMATH:
        assert t_quantile(p, df) == pytest.approx(t, rel=1e-13), (p, df)


def test_scipys_distribution_functions_give_back_the_probability():
    for p in (1e-10, 0.001, 0.025, 0.1, 0.3, 0.7, 0.9, 0.975, 0.999, 1 - 1e-9):
        assert abs(float(ndtr(normal_quantile(p))) - p) <= 1e-14 * min(p, 1 - p), p
    dfs = list(range(1, 60)) + list(range(60, SERIES_LIMIT + 60, 7)) + [5000, 10 ** 5, 10 ** 7]
    for p in (0.005, 0.025, 0.05, 0.6, 0.95, 0.975, 0.995):
        for df in dfs:
            assert abs(float(stdtr(df, t_quantile(p, df))) - p) <= 1e-11 * min(p, 1 - p), (p, df)


def test_refusals():
    for p in (0.0, 1.0, -0.1, float("nan")):
        with pytest.raises(ValueError):
            normal_quantile(p)
    with pytest.raises(ValueError):
        t_quantile(0.975, 0)
