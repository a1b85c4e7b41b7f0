"""Quantiles of the normal and Student's t distributions, in the standard library's floats.

The intervals of the participant's page and of compare.py need z(q) and t(q, df) for an
integer number of degrees of freedom. scipy.special (ndtri, stdtrit) would cost every
scored submission a long import, and stdtrit's result depends on the calls made
before it (CDFLIB's search keeps its state: 1.7e-9 apart in the test suite); these
functions cost nothing to import and give one number for one question, from the program's
own code: within 1e-13 of 40-digit values (tests/test_quantiles.py).

- normal_quantile: Newton's method on math.erfc from a rational approximation
  (Abramowitz and Stegun 26.2.23);
- t_quantile: Newton's method on the exact finite series of the t distribution function
  for df < SERIES_LIMIT (Abramowitz and Stegun 26.7.3 and 26.7.4), the Cornish-Fisher
  expansion to 1/df^4 beyond it (26.7.5), whose error there is below 1e-15.
"""

import math

#: Degrees of freedom from which t_quantile takes the Cornish-Fisher expansion.
SERIES_LIMIT = 1000


def normal_quantile(p):
    """z such that P(Z <= z) = p, 0 < p < 1."""
    if not 0.0 < p < 1.0:
        raise ValueError("a probability strictly between 0 and 1 is needed, not %r" % (p,))
    if p == 0.5:
        return 0.0
    tail = min(p, 1.0 - p)  # the upper tail probability of |z|
    r = math.sqrt(-2.0 * math.log(tail))
    x = r - (2.515517 + 0.802853 * r + 0.010328 * r * r) / (
        1.0 + 1.432788 * r + 0.189269 * r * r + 0.001308 * r * r * r)
    for _ in range(100):
        density = math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
        step = (0.5 * math.erfc(x / math.sqrt(2.0)) - tail) / density
        x += step
        if abs(step) <= 1e-16 * abs(x):
            break
    return x if p > 0.5 else -x


def t_distribution(t, df):
    """P(T <= t) for Student's t with an integer df >= 1 (the finite series)."""
    theta = math.atan(abs(t) / math.sqrt(df))
    sine, cosine = math.sin(theta), math.cos(theta)
    squared = cosine * cosine
    if df % 2:
        total, term = 0.0, cosine
        if df > 1:
            total = term
            for j in range(3, df - 1, 2):
                term *= squared * (j - 1) / j
                total += term
        central = 2.0 / math.pi * (theta + sine * total)
    else:
        total, term = 1.0, 1.0
        for j in range(2, df - 1, 2):
            term *= squared * (j - 1) / j
            total += term
        central = sine * total
    return 0.5 + 0.5 * central if t >= 0 else 0.5 - 0.5 * central


def t_density(t, df):
    return math.exp(math.lgamma((df + 1) / 2.0) - math.lgamma(df / 2.0) - 0.5 * math.log(df * math.pi)
                    - (df + 1) / 2.0 * math.log1p(t * t / df))


def cornish_fisher(z, df):
    """t(q, df) from z(q) to 1/df^4 (Abramowitz and Stegun 26.7.5)."""
    z2 = z * z
    g1 = (z2 + 1) * z / 4.0
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96.0
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384.0
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160.0
    return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df


def t_quantile(p, df):
    """t such that P(T <= t) = p for Student's t with an integer df >= 1."""
    df = int(df)
    if df < 1:
        raise ValueError("at least 1 degree of freedom is needed, not %r" % (df,))
    z = normal_quantile(p)
    if df >= SERIES_LIMIT:
        return cornish_fisher(z, df)
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2.0 * p - 1.0) * math.sqrt(2.0 / (4.0 * p * (1.0 - p)))
    t = cornish_fisher(z, df) if df > 4 else z * (1.0 + 1.0 / df)
    for _ in range(100):
        step = (t_distribution(t, df) - p) / t_density(t, df)
        t -= step
        if abs(step) <= 1e-15 * max(abs(t), 1e-300):
            break
    return t
