"""Paired significance tests for comparing two submissions on the same test items.

Pure numpy/scipy kernels, no I/O.
"""

import math
from fractions import Fraction
from math import gcd

import numpy as np
from scipy.stats import binom

from .quantiles import t_distribution


def mcnemar_exact(b, c):
    """Exact (binomial) McNemar test of two paired classifiers.

    b: items the first got right and the second wrong; c: the other way round.
    p = min(1, 2 * BinomCDF(min(b, c); b + c, 1/2)); p = 1 when b + c = 0 (nothing
    tells the two apart) (McNemar, Psychometrika 12, 1947; the exact form as in
    Dietterich, Neural Computation 10, 1998).
    """
    b, c = int(b), int(c)
    if b + c == 0:
        return 1.0
    return float(min(1.0, 2.0 * binom.cdf(min(b, c), b + c, 0.5)))


def mcnemar_counts(correct_a, correct_b):
    """(b, c) of the McNemar table from two boolean per-item correctness vectors."""
    correct_a = np.asarray(correct_a, dtype=bool)
    correct_b = np.asarray(correct_b, dtype=bool)
    return int(np.count_nonzero(correct_a & ~correct_b)), int(np.count_nonzero(~correct_a & correct_b))


def reference_mcnemar(pred_a, pred_b, pred_r):
    """Generalised McNemar test with a reference classifier (Raj, Singh and Baker).

    N_ABR: items where A agrees with the reference R and B does not; N_BAR: B agrees
    with R and A does not; N_AB = N_ABR + N_BAR. p-value of equation (1) of
    Fedorchuk and Lamiroy (2017): 2 B(N_ABR <= n <= N_AB) if N_ABR > N_BAR,
    2 B(0 <= n <= N_ABR) if N_ABR < N_BAR, 1 if equal; B the binomial law of N_AB
    trials with probability 1/2 (capped at 1). Returns (N_ABR, N_BAR, p).
    """
    pred_a, pred_b, pred_r = (np.asarray(v, dtype=bool) for v in (pred_a, pred_b, pred_r))
    n_abr = int(np.count_nonzero((pred_a == pred_r) & (pred_b != pred_r)))
    n_bar = int(np.count_nonzero((pred_b == pred_r) & (pred_a != pred_r)))
    return n_abr, n_bar, reference_pvalue(n_abr, n_bar)


def reference_pvalue(n_abr, n_bar):
    """Equation (1) of Fedorchuk and Lamiroy (2017) from the two disagreement counts."""
    return float(reference_pvalues(n_abr, n_bar))


def reference_pvalues(n_abr, n_bar):
    """Equation (1), elementwise over arrays of counts."""
    n_abr, n_bar = np.asarray(n_abr, dtype=np.int64), np.asarray(n_bar, dtype=np.int64)
    n = n_abr + n_bar
    upper = binom.sf(n_abr - 1, n, 0.5)  # P(n_abr <= X <= n)
    lower = binom.cdf(n_abr, n, 0.5)  # P(0 <= X <= n_abr)
    p = np.minimum(1.0, 2.0 * np.where(n_abr > n_bar, upper, lower))
    return np.where(n_abr == n_bar, 1.0, p)


def agreement_counts_from_gram(errors_gram):
    """n_agree[i, j] = N(i agrees with the reference, j does not), from the Gram matrix of
    reference disagreements: errors_gram[i, j] = items where i and j both differ from the
    reference (the diagonal: where i differs); then n_agree[i, j] = G[j, j] - G[i, j]."""
    g = np.asarray(errors_gram, dtype=np.int64)
    n_agree = np.diag(g)[None, :] - g
    np.fill_diagonal(n_agree, 0)
    return n_agree


def reference_pvalues_from_gram(errors_gram):
    """(n_agree, p) for every pair: agreement_counts_from_gram and equation (1)."""
    n_agree = agreement_counts_from_gram(errors_gram)
    p = reference_pvalues(n_agree, n_agree.T)
    np.fill_diagonal(p, 1.0)
    return n_agree, p


def reference_rank_values(n_agree, pvalues, alpha=0.05, excluded=None):
    """The paper's ranking protocol (Fedorchuk and Lamiroy 2017, section V-B1): for every
    pair with p < alpha, one is added to the rank value of the winner (the one that
    agrees more often with the reference where the two disagree). `excluded`: the index
    of a submission used as the reference; it takes part in no pair (it would win every
    pair by agreeing with itself)."""
    n_agree = np.asarray(n_agree)
    wins = (np.asarray(pvalues) < alpha) & (n_agree > n_agree.T)
    if excluded is not None:
        wins[excluded, :] = False
        wins[:, excluded] = False
    return wins.sum(axis=1).astype(int)


DEFAULT_PATTERNS = 2000
EXACT_MAX_UNITS = 20
EXACT_BUDGET = 5e7  # pattern x pair evaluations allowed for an exact enumeration


def margin(terms):
    """Relative rounding error allowed for a value computed in floating point from `terms`
    terms (sums of products of them): 1024 times the bound terms * 2**-50. Two values
    further apart than that (times their magnitude) are ordered by their floats; closer
    ones are compared exactly (metaeval/exact.py; ExactUnits here)."""
    return 2.0 ** -40 * (float(terms) + 64.0)


def sign_patterns(units, draws=DEFAULT_PATTERNS, seed=0, pairs=1, chunk=512):
    """Chunks of +-1 sign patterns over `units` units, whether they are exhaustive, and
    their number. All 2^units patterns (the identity among them) when that is no more
    than the draws or fits EXACT_BUDGET over `pairs` pairs (up to EXACT_MAX_UNITS units);
    otherwise `draws` patterns drawn with a fixed seed (the identity not among them).
    """
    exact = units <= EXACT_MAX_UNITS and 2 ** units <= max(draws, EXACT_BUDGET / max(pairs, 1))

    def chunks():
        if exact:
            for start in range(0, 2 ** units, 4096):
                codes = np.arange(start, min(start + 4096, 2 ** units), dtype=np.int64)
                yield (((codes[:, None] >> np.arange(units)) & 1) * 2 - 1).astype(np.float64)
            return
        rng = np.random.RandomState(seed)
        for start in range(0, draws, chunk):
            yield (rng.randint(0, 2, size=(min(chunk, draws - start), units)) * 2 - 1).astype(np.float64)
    return chunks, exact, (2 ** units if exact else draws)


class ExactUnits(object):
    """The exact contributions of the units of a paired test.

    fraction(u, k): unit u's exact share of submission k's score (a Fraction);
    integers: the (units, K) contributions times one common denominator `scale`, as floats
    that are integers below 2**52 (every sum of them is then exact in floating point), or
    None where no such denominator is small enough; same(u): whether every submission's
    share of unit u is exactly the same. From plain floats (ExactUnits.of(x)), each value
    is read as the decimal it prints as (the shortest decimal giving the float back: 0.1
    is 1/10), so that data given in decimals compare as the decimals they are."""

    def __init__(self, fraction, integers=None, scale=1, same=None):
        self.fraction = fraction
        self.integers = integers
        self.scale = scale
        self._same = same

    def same(self, u, k):
        if self._same is not None:
            return self._same(u)
        first = self.fraction(u, 0)
        return all(self.fraction(u, j) == first for j in range(1, k))

    @classmethod
    def of(cls, x):
        x = np.asarray(x, dtype=np.float64)
        fractions = [[decimal(v) for v in row] for row in x.tolist()]
        scale = 1
        for row in fractions:
            for v in row:
                scale = lcm(scale, v.denominator)
        integers = None
        if scale <= EXACT_BELOW:
            integers = exact_floats(np.array([[int(v * scale) for v in row] for row in fractions],
                                             dtype=object).reshape(x.shape))
        return cls(lambda u, k: fractions[u][k], integers, scale)


#: Integers below this are exact as floats, and so is every sum of them that stays below it.
EXACT_BELOW = 2 ** 52


def exact_floats(integers):
    """The (units, K) Python integers as floats when every column's sum of absolute values
    stays below EXACT_BELOW (every sign-flip sum of a column is then exact in floating
    point), else None."""
    if integers.size and max(int(v) for v in np.abs(integers).sum(axis=0).tolist()) >= EXACT_BELOW:
        return None
    return integers.astype(np.float64)


def decimal(value):
    """A float as the decimal it prints as (repr: the shortest decimal that reads back as
    the same float), a Fraction."""
    return Fraction(repr(float(value)))


def lcm(a, b):
    return a // gcd(a, b) * b


def _z2(t, v):
    """The exact Z^2 = T^2 / V of the studentized statistic: 0 where T = 0, infinite where
    V = 0 < |T|."""
    if t == 0:
        return Fraction(0)
    if v == 0:
        return float("inf")
    return Fraction(t * t) / v


class _Pairs(object):
    """The exact statistics of each pair (computed when a comparison needs them)."""

    def __init__(self, x, exact, strata, sizes, pairs, scaled, observed_sums):
        self.x, self.exact, self.strata, self.sizes, self.pairs = x, exact, strata, sizes, pairs
        self.scaled = scaled
        self.observed_sums = observed_sums  # (strata, pairs): exact integers where the shares are scaled
        self.members = [np.flatnonzero(strata == h) for h in range(len(sizes))]
        self.common = 1  # the least common multiple of the n_h - 1: V times it is a sum of integers
        for n in sizes:
            if n > 1:
                self.common = lcm(self.common, n - 1)
        self.cache = {}
        self.observed = {}

    def differences(self, j):
        """Per stratum: (units, their exact differences d_u != 0) of pair j."""
        if j not in self.cache:
            a, b = self.pairs[j]
            parts = []
            for units in self.members:
                if self.scaled:
                    d = (self.x[units, a].astype(np.int64) - self.x[units, b].astype(np.int64)).tolist()
                else:
                    d = [self.exact.fraction(u, a) - self.exact.fraction(u, b) for u in units.tolist()]
                kept = [(u, v) for u, v in zip(units.tolist(), d) if v != 0]
                parts.append(([u for u, _ in kept], [v for _, v in kept]))
            squares = [sum((v * v for v in values), 0) for _, values in parts]
            self.cache[j] = (parts, squares)
        return self.cache[j]

    def squares(self, j):
        """Per stratum, the exact sum of pair j's squared differences: for scaled shares
        whose squares sum below 2**62, in one pass of int64 arithmetic."""
        if self.scaled and ("squares", j) not in self.cache:
            a, b = self.pairs[j]
            d = self.x[:, a] - self.x[:, b]  # integers below 2**53: exact
            largest = float(np.abs(d).max()) if d.size else 0.0
            if largest * largest * d.size < 2.0 ** 62:
                d = d.astype(np.int64)
                self.cache["squares", j] = [int(np.dot(d[units], d[units])) for units in self.members]
        if ("squares", j) in self.cache:
            return self.cache["squares", j]
        return self.differences(j)[1]

    def statistic(self, j, signs=None, sums=None):
        """Exact (T, V) of pair j under a sign pattern (None: the observed); sums: the
        pattern's per-stratum sums of d when they are known exactly (integers). V is
        summed over the common denominator of its strata (one Fraction)."""
        if sums is None and signs is None and self.scaled:
            sums = self.observed_sums[:, j]
        parts = None if sums is not None else self.differences(j)[0]
        total, numerator = 0, 0
        for h, q in enumerate(self.squares(j)):
            if sums is not None:
                s = int(sums[h])
            elif signs is None:
                s = sum(parts[h][1], 0)
            else:
                units, values = parts[h]
                s = sum((v if signs[u] > 0 else -v for u, v in zip(units, values)), 0)
            total += s
            n = self.sizes[h]
            numerator += self.common // (n - 1) * (n * q - s * s) if n > 1 else self.common * q
        return total, Fraction(numerator, self.common)

    def z2(self, j, signs=None, sums=None):
        if signs is not None or sums is not None:
            return _z2(*self.statistic(j, signs, sums))
        if j not in self.observed:
            self.observed[j] = _z2(*self.statistic(j))
        return self.observed[j]

    def null(self, j):
        """Whether pair j's two submissions have exactly the same share of every unit."""
        return not any(units for units, _ in self.differences(j)[0])

    def units(self, j):
        """The units where pair j's shares differ exactly."""
        key = ("units", j)
        if key not in self.cache:
            self.cache[key] = np.array([u for units, _ in self.differences(j)[0] for u in units], dtype=np.int64)
        return self.cache[key]


def paired_randomisation(contributions, draws=DEFAULT_PATTERNS, seed=0, strata=None, exact=None):
    """Paired randomisation tests of the score difference of every two submissions, with
    Westfall and Young's max-T step-down adjustment over the same sign patterns.

    contributions: (units, K), unit u's share of submission k's score, so that a score is
    the sum of its column (for a mean over strata of per-stratum means: the unit's value
    divided by its stratum's size and by the number of strata). Under the null hypothesis
    that A and B are exchangeable on every unit, swapping them on unit u flips the sign of
    its difference d_u; one pattern of flips serves every pair.

    The statistic is studentized with the variance centred within strata (strata: the
    stratum of each unit; None for units that are strata themselves):
        Z = T / sqrt(V),  T = sum_u d_u,  V = sum_h n_h / (n_h - 1) sum_{u in h} (d_u - mean_h d)^2,
    recomputed for every pattern (a stratum of one unit, or units without strata, add
    sum d_u^2, the variance of T under sign flips, which flips leave unchanged). Centring
    within strata makes the test answer the question of the bootstrap interval, whether
    the expected difference is 0, when one submission's advantage differs by stratum (a
    specialist): the uncentred variance counts that heterogeneity as noise and makes the
    test conservative; a studentized permutation test stays exact under exchangeability
    and is asymptotically valid under the weaker null (Janssen 1997; Chung and Romano
    2013). p = share of patterns with |Z*| >= |Z|, exact over all 2^n patterns (else
    (1 + hits) / (1 + draws)); the observed pattern and a pattern equal to it count,
    whatever the rounding: comparisons within the rounding margin are made with the exact
    contributions (exact: ExactUnits; default: the floats' binary rationals).
    Max-T step-down (Westfall and Young 1993, algorithm 2.8) on |Z|: with |Z| in
    decreasing order, p~_(j) = share of patterns whose maximum of |Z*| over the
    hypotheses (j), (j+1), ... reaches |Z_(j)|, then made non-decreasing in that order.
    Units on which all submissions agree change no statistic and are left out of the
    patterns (they still count in their stratum's n_h).
    Returns (pairs (m, 2) with a < b, T_ab (m,), p (m,), p_maxT (m,), patterns, exact).
    """
    x = np.asarray(contributions, dtype=np.float64)
    units_all, k = x.shape
    exact_units = exact if exact is not None else ExactUnits.of(x)
    scaled = exact_units.integers is not None
    if scaled:
        x = np.asarray(exact_units.integers, dtype=np.float64)
    if strata is None:
        unit_strata, sizes = np.zeros(units_all, dtype=np.int64), [1]
        pooled = True
    else:
        unit_strata = np.asarray(strata, dtype=np.int64)
        sizes = np.bincount(unit_strata).tolist() if units_all else [1]
        pooled = False
    upper = np.triu_indices(k, 1)
    pairs = np.stack(upper, axis=1)
    m = pairs.shape[0]
    # Units where every submission has the same share: left out of the patterns.
    differ = np.ptp(x, axis=1) > 0 if units_all else np.zeros(0, dtype=bool)
    if not scaled:
        for u in np.flatnonzero(~differ).tolist():
            differ[u] = not exact_units.same(u, k)
    kept = np.flatnonzero(differ)
    xk, hk = x[kept], unit_strata[kept]
    strata_count = len(sizes)
    n_h = np.array(sizes, dtype=np.float64)
    # Per stratum and pair: the observed sum S_h of d, the sum of squares Q_h, and what
    # bounds their rounding: eps_h, how far the float d's sum can be from the exact one
    # (each float share within 2**-53 of its exact value, each d, sum and square adding at
    # most 2**-53 of its magnitude; nothing where the shares are exact integers), and
    # dq_h, the same for Q_h.
    unit = 2.0 ** -53
    s_obs, q, abs_d, eps, dq = _observed(xk, hk, strata_count, upper, scaled, unit)
    t_obs = s_obs.sum(axis=0)
    eps_t = eps.sum(axis=0)
    centred = (n_h > 1)[:, None] & (not pooled)
    divisor = np.maximum(n_h - 1, 1)[:, None]
    dq_v = np.where(centred, n_h[:, None] * dq / divisor, dq).sum(axis=0)
    safety = 1024.0  # as for the margin of scores: 1024 times the bound

    # V = const - sum_h S_h^2 / (n_h - 1) over the centred strata; the rounding bounds of
    # T and V taken at their largest over the patterns (|S_h| <= sum |d|), so that each
    # pattern costs a few passes over (patterns, pairs).
    inverse = np.where(centred, 1.0 / divisor, 0.0)[:, 0]
    constant = np.where(centred, n_h[:, None] * q / divisor, q).sum(axis=0)
    e_t = eps_t + unit * strata_count * abs_d.sum(axis=0)
    v_abs = np.where(centred, (n_h[:, None] * q + abs_d * abs_d) / divisor, q).sum(axis=0)
    e_v = dq_v + np.where(centred, (2 * abs_d * eps + eps * eps) / divisor, 0.0).sum(axis=0) + 8 * unit * v_abs

    def z2_with_error(t, squares, constants):
        """Z^2 of sums t (pairs along the first axis) whose per-stratum sums have the
        weighted squares `squares` (sum_h S_h^2 / (n_h - 1) over the centred strata, or
        None), a bound on its rounding error ((error of T^2 + Z^2 x error of V) / V, times
        the safety factor). constants: V's constant, e_T and e_V of those pairs, shaped
        against t, and which of them are null."""
        constant_t, e_t_t, e_v_t, null_t = constants
        if squares is None:
            v = np.broadcast_to(constant_t, t.shape)
        else:
            v = constant_t - squares
            np.maximum(v, 0.0, out=v)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            t2 = t * t
            z2 = t2 / v
            z2[t == 0] = 0.0
            # safety (2 |T| e_T + e_T^2 + 2 u T^2 + Z^2 e_V) / V, in place on two arrays
            error = np.abs(t)
            error *= 2 * safety * e_t_t
            error += safety * e_t_t * e_t_t
            t2 *= 2 * unit * safety
            error += t2
            error += np.multiply(z2, safety * e_v_t, out=t2)
            error /= v
        error[v <= 0] = np.inf
        error[null_t] = 0.0
        return z2, error

    weighted = not pooled and inverse.any()
    exact_pairs = _Pairs(x, exact_units, unit_strata, sizes, pairs, scaled, s_obs)
    # Pairs whose shares are exactly equal everywhere: Z = Z* = 0 exactly, no rounding.
    null = np.zeros(m, dtype=bool)
    for j in np.flatnonzero(abs_d.sum(axis=0) == 0 if m else np.zeros(0, dtype=bool)).tolist():
        null[j] = scaled or exact_pairs.null(j)
    bound_t = safety * (eps_t + unit * strata_count * np.abs(s_obs).sum(axis=0))  # the rounding of T

    z2_obs, e_obs = z2_with_error(t_obs, np.einsum("hm,h->m", s_obs * s_obs, inverse) if weighted else None,
                                  (constant, e_t, e_v, null))
    # The observed statistic exactly where its float could be far off (V about 0).
    for j in np.flatnonzero(~np.isfinite(e_obs) | (e_obs >= np.maximum(z2_obs, 1e-300))).tolist():
        value = exact_pairs.z2(j)
        infinite = value == float("inf")
        z2_obs[j] = np.inf if infinite else float(value)
        e_obs[j] = 0.0 if infinite else 2.0 ** -50 * z2_obs[j]
    order = _exact_order(z2_obs, e_obs, exact_pairs)
    # The patterns' statistics are arrays (pairs, patterns), the pairs in increasing order
    # of the observed Z^2 (`rising`): the maximum over the pairs from one onwards in
    # `order`, the max-T step's, is then a running maximum down the rows; a pair's own
    # threshold is on its row. A pattern's sums are gathered a pair's row at a time.
    rising = order[::-1].copy()
    a, b = upper[0][rising], upper[1][rising]
    column = (slice(None), None)
    constants = (constant[rising][column], e_t[rising][column], e_v[rising][column], null[rising])
    low_threshold = (z2_obs[rising] - e_obs[rising])[column]
    high_threshold = (z2_obs[rising] + e_obs[rising])[column]
    members = [np.flatnonzero(hk == h) for h in range(strata_count)]

    chunks, exhaustive, total = sign_patterns(kept.size, draws, seed, m)
    hits = np.zeros(m, dtype=np.int64)
    hits_max = np.zeros(m, dtype=np.int64)
    width = max(1, 250000 // max(1, m))  # patterns at a time: arrays of 2 MB, which the caches hold
    for chunk in chunks():
        for start in range(0, chunk.shape[0], width):
            signs = chunk[start:start + width]
            t, squares, sums = None, None, []
            for h, u in enumerate(members):
                # each submission's sum of its shares in the stratum under each pattern: (K, patterns)
                sums.append(np.ascontiguousarray(signs[:, u].dot(xk[u]).T))
                s_h = np.take(sums[h], a, axis=0) - np.take(sums[h], b, axis=0)
                t = s_h if t is None else t + s_h  # the strata summed in order
                if weighted and inverse[h]:
                    square = s_h * s_h * inverse[h]
                    squares = square if squares is None else squares + square
            z2, error = z2_with_error(t, squares, constants)
            pattern = _Patterns(signs, kept, units_all, sums if scaled else None)
            with np.errstate(invalid="ignore"):  # infinite Z*^2 and error: neither above nor below
                low, high = z2 - error, z2 + error
                above, below = low > high_threshold, high < low_threshold
            hits[rising] += _count_own(above, below, pattern, exact_pairs, rising, a, b)
            with np.errstate(invalid="ignore"):
                np.maximum.accumulate(low, axis=0, out=low)
                np.maximum.accumulate(high, axis=0, out=high)
                above, below = low > high_threshold, high < low_threshold
            hits_max[rising] += _count_max(above, below, z2, error, low_threshold[:, 0], pattern, exact_pairs, rising,
                                           a, b)
    if exhaustive:
        p, p_max = hits / float(total), hits_max / float(total)
    else:
        p, p_max = (hits + 1.0) / (total + 1.0), (hits_max + 1.0) / (total + 1.0)
    p_max[order] = np.minimum(1.0, np.maximum.accumulate(p_max[order]))
    difference = np.array([_difference(exact_pairs, exact_units, j, t_obs[j], bound_t[j]) for j in range(m)])
    return pairs, difference, np.minimum(1.0, p), p_max, total, exhaustive


def _observed(xk, hk, strata_count, upper, scaled, unit, cells=2000000):
    """(S, Q, sum |d|, eps, dq) of paired_randomisation, each (strata, pairs): per stratum
    and pair the observed sum of the differences d, their squares' sum, the sum of their
    sizes, and the bounds of the rounding of S and Q; `cells` differences at a time.

    The floats are those of one array of every pair's differences: numpy sums the columns
    of a C-ordered array over the units in order, and a column alone (contiguous)
    pairwise, so the chunks hold two pairs or more (unless there is one pair), in C order.
    Shares that are exact integers (scaled) carry no error of their own."""
    m = upper[0].shape[0]
    represented = 0.0 if scaled else 2 * unit
    s_obs, q, abs_d, eps, dq = (np.zeros((strata_count, m)) for _ in range(5))
    members = [xk[hk == h] for h in range(strata_count)]
    step = max(2, cells // max(1, xk.shape[0]))
    starts = list(range(0, m, step))
    if len(starts) > 1 and m - starts[-1] == 1:  # the last pair joins the chunk before it
        starts.pop()
    for start, end in zip(starts, starts[1:] + [m]):
        a, b = upper[0][start:end], upper[1][start:end]
        for h, x in enumerate(members):
            rows = np.ascontiguousarray(x[:, a] - x[:, b])
            sizes = np.abs(rows)
            s_obs[h, start:end], q[h, start:end] = rows.sum(axis=0), (rows * rows).sum(axis=0)
            abs_d[h, start:end] = sizes.sum(axis=0)
            count = rows.shape[0]
            if scaled:
                dq[h, start:end] = count * unit * q[h, start:end]
                continue
            e_u = represented * (np.abs(x[:, a]) + np.abs(x[:, b]))
            eps[h, start:end] = e_u.sum(axis=0) + count * unit * abs_d[h, start:end]
            dq[h, start:end] = (2 * sizes * e_u + e_u * e_u).sum(axis=0) + count * unit * q[h, start:end]
    return s_obs, q, abs_d, eps, dq


def _difference(exact_pairs, exact_units, j, t, bound):
    """T of pair j (the score difference) as a float: exactly 0 when it is 0, scaled back
    from the integers where the units were scaled."""
    if exact_pairs.scaled:
        return float(Fraction(int(t), exact_units.scale))
    if abs(t) <= bound and exact_pairs.statistic(j)[0] == 0:
        return 0.0
    return float(t)


def _exact_order(z2, error, exact_pairs):
    """The pairs by decreasing observed Z^2, exactly (equal ones in pair order)."""
    n = z2.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    by_value = np.argsort(-z2, kind="mergesort")
    ranked = z2[by_value]
    width = error[by_value]
    close = np.zeros(n - 1, dtype=bool)
    with np.errstate(invalid="ignore"):
        close = ~((ranked[:-1] - width[:-1]) > (ranked[1:] + width[1:]))
    if not close.any():
        return by_value
    starts = np.concatenate(([0], np.flatnonzero(~close) + 1))
    ends = np.concatenate((starts[1:], [n]))
    out = []
    for start, end in zip(starts.tolist(), ends.tolist()):
        members = by_value[start:end].tolist()
        if len(members) > 1:
            exact_values = dict((j, exact_pairs.z2(j)) for j in members)
            members.sort(key=lambda j: (-exact_values[j], j))
        out.extend(members)
    return np.array(out, dtype=np.int64)


class _Patterns(object):
    """A block of sign patterns, for the exact comparisons: exact_z2(pattern, j, a, b)
    gives pair j's (submissions a and b) exact Z*^2 under one pattern of the block (from
    its per-stratum sums when they are exact integers: `sums`, per stratum the (K,
    patterns) sums of the submissions' shares; else from the signs over every unit,
    left-out units +1)."""

    def __init__(self, signs, kept, units, sums):
        self.signs, self.kept, self.units, self.sums = signs, kept, units, sums

    def exact_z2(self, exact_pairs, pattern, j, a, b):
        if self.sums is not None:
            return exact_pairs.z2(j, sums=[part[a, pattern] - part[b, pattern] for part in self.sums])
        full = np.ones(self.units, dtype=np.int64)
        full[self.kept] = self.signs[pattern].astype(np.int64)
        differ = full[exact_pairs.units(j)]
        if differ.size == 0 or (differ == differ[0]).all():  # the observed pattern or its mirror
            return exact_pairs.z2(j)
        return exact_pairs.z2(j, signs=full)


def _count_own(above, below, patterns, exact_pairs, pairs, a, b):
    """Per position of `pairs` (the rows), the patterns of the block (the columns) whose
    |Z*| reaches the pair's observed |Z|: certainly (above), or decided exactly where
    neither above nor below (the two are never both true)."""
    counts = np.count_nonzero(above, axis=1)
    for position, pattern in zip(*np.nonzero(above == below)):
        j = pairs[position]
        counts[position] += patterns.exact_z2(exact_pairs, pattern, j, a[position], b[position]) >= exact_pairs.z2(j)
    return counts


def _count_max(above, below, z2, error, low_threshold, patterns, exact_pairs, pairs, a, b):
    """Per position of `pairs` (the rows, increasing observed |Z|), the patterns of the
    block (the columns) whose largest |Z*| over the positions up to it reaches its
    observed |Z|: certainly (above, from the running maxima of the lower bounds), or
    decided exactly where neither above nor below, among the candidates whose upper bound
    reaches the threshold, the largest float first."""
    counts = np.count_nonzero(above, axis=1)
    for position, pattern in zip(*np.nonzero(above == below)):
        observed = exact_pairs.z2(pairs[position])
        reach = z2[:position + 1, pattern] + error[:position + 1, pattern]
        candidates = np.flatnonzero(~(reach < low_threshold[position]))
        candidates = candidates[np.argsort(-z2[candidates, pattern], kind="mergesort")].tolist()
        counts[position] += any(patterns.exact_z2(exact_pairs, pattern, pairs[c], a[c], b[c]) >= observed
                                for c in candidates)
    return counts


def skew_corrected(contributions, pairs, strata=None):
    """Two-sided p-values of Hall's skewness-corrected t for each pair's score difference: a
    guard beside the sign-flip test, whose p-value holds its level under exchangeability
    but not under the weaker null of equal expected scores when the per-unit differences
    are skewed (a steady submission against one that fails now and then) and the units
    few: their mean's t is then skewed too, and a symmetric reference misjudges one tail.

    With d_u the differences of the contributions (T = sum d_u, the score difference),
    V the stratified variance of paired_randomisation (centred within strata) and K3 the
    stratified third cumulant of T, sum over strata of n_h^2 / ((n_h - 1)(n_h - 2)) times
    sum (d_u - mean_h d)^3 (Fisher's k-statistic; a stratum of fewer than 3 units adds
    nothing), t = T / sqrt(V) and b = K3 / (3 V^(3/2)), Hall's monotone transformation
        g(t) = t + b t^2 + b^2 t^3 / 3 + b / 2
    (Johnson 1978, J. Amer. Statist. Assoc. 73, 536-544, made monotone by Hall 1992,
    J. R. Statist. Soc. B 54, 221-228) is referred to Student's t with units - strata
    degrees of freedom (the normal past 400). p = 1 where T = 0 and 0 where V = 0 < |T|
    (the sign-flip test then decides alone). strata: the stratum of each unit, None for
    units that are strata themselves (one group, V = sum d_u^2 as there)."""
    x = np.asarray(contributions, dtype=np.float64)
    units = x.shape[0]
    groups = np.zeros(units, dtype=np.int64) if strata is None else np.asarray(strata, dtype=np.int64)
    members = [np.flatnonzero(groups == h) for h in np.unique(groups)] if units else []
    out = np.ones(len(pairs))
    df = units - (len(members) if strata is not None else 1)
    for j, (a, b) in enumerate(pairs):
        d = x[:, a] - x[:, b]
        total = float(np.sum(d))
        variance, third = 0.0, 0.0
        for member in members:
            part = d[member]
            n = part.shape[0]
            if strata is None:
                variance += float(np.sum(part * part))
            elif n > 1:
                variance += n / (n - 1.0) * float(np.sum((part - part.mean()) ** 2))
            else:
                variance += float(np.sum(part * part))
            if n > 2:
                third += n * n / ((n - 1.0) * (n - 2.0)) * float(np.sum((part - part.mean()) ** 3))
        if total == 0:
            continue
        if variance <= 0:
            out[j] = 0.0
            continue
        t = total / np.sqrt(variance)
        skew = third / variance ** 1.5 / 3.0
        g = t + skew * t * t + skew * skew * t ** 3 / 3.0 + skew / 2.0
        out[j] = min(1.0, 2.0 * _upper_tail(abs(g), df))
    return out


def _upper_tail(value, df):
    """P(T >= value) for Student's t with df degrees of freedom (the normal past 400 or
    without degrees of freedom)."""
    if df < 1 or df > 400:
        return 0.5 * math.erfc(value / math.sqrt(2.0))
    return 1.0 - t_distribution(value, df) if value < 1 else t_distribution(-value, df)


def holm(pvalues):
    """Holm's step-down adjustment: the i-th smallest of m p-values times (m - i + 1),
    made non-decreasing in that order and capped at 1. Returns adjusted p-values in the
    input order."""
    p = np.asarray(pvalues, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="mergesort")
    scaled = p[order] * (m - np.arange(m))
    adjusted = np.minimum(1.0, np.maximum.accumulate(scaled))
    out = np.empty(m)
    out[order] = adjusted
    return out



def unseen_failure(contributions, pairs, worst, sign=1):
    """Per pair, the chance that the submission ahead would show no failure on these units
    were it to fail on a share f of units just large enough to lose its lead in
    expectation: (1 - f)^n, n the units; 0 where T = 0 or no such f exists.

    A failure puts the submission's share of a unit at `worst[u, k]` (the bad end of its
    range); failing on a share f of units takes f (T_A - W_A) off its expected score,
    T_A its score and W_A the score of failing everywhere, so f = (T_A - T_B) / (T_A -
    W_A) brings it to the other's. Where (1 - f)^n >= alpha, a test set of n units often
    holds no failure of such a submission, which then looks better than a steady one of
    the same expected score, and no test of these units holds its level for the pair
    under that weak null. contributions (units, K) as for paired_randomisation; sign -1
    for a score where lower is better."""
    x = np.asarray(contributions, dtype=np.float64)
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    units = x.shape[0]
    totals = x.sum(axis=0)
    room_all = sign * (totals - np.asarray(worst, dtype=np.float64).sum(axis=0))  # T_k - W_k, oriented
    out = np.zeros(pairs.shape[0])
    for j, (a, b) in enumerate(pairs.tolist()):
        gap = sign * (totals[a] - totals[b])
        if gap == 0:
            continue
        ahead = a if gap > 0 else b
        room = room_all[ahead]
        if room <= 0 or abs(gap) > room:
            continue
        out[j] = (1.0 - abs(gap) / room) ** units
    return out
