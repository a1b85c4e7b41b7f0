"""Paired significance tests for comparing two submissions on the same test items.

Pure numpy/scipy kernels, no I/O. SPEC section 6.
"""

import numpy as np
from scipy.stats import binom


def mcnemar_exact(b, c):
    """Exact (binomial) McNemar test of two paired classifiers.

    b: items the first got right and the second wrong; c: the other way round.
    p = min(1, 2 * BinomCDF(min(b, c); b + c, 1/2)); p = 1 when b + c = 0 (nothing
    tells the two apart). SPEC section 6.
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
PRECISION = 12  # scores and statistics are compared after rounding to 12 decimals


def comparable(values):
    """Values as they are compared: rounded to PRECISION decimals, so that two scores equal
    as rationals but summed in another order (0.1 + 0.2 + 0.3 vs 0.3 + 0.2 + 0.1) are
    equal, on every numpy version."""
    return np.round(np.asarray(values, dtype=np.float64), PRECISION)


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


def paired_randomisation(contributions, draws=DEFAULT_PATTERNS, seed=0):
    """Paired randomisation tests of the score difference of every two submissions, with
    Westfall and Young's max-T step-down adjustment over the same sign patterns.

    contributions: (units, K), unit u's share of submission k's score, so that a score is
    the sum of its column (for a mean over strata of per-stratum means: the unit's value
    divided by its stratum's size and by the number of strata). Under the null hypothesis
    that A and B are exchangeable on every unit, swapping them on unit u flips the sign of
    its difference; one pattern of flips serves every pair (Y = S X, T*_ab = Y_a - Y_b).
    p = share of patterns with |T*| >= |T| (exact over all 2^n patterns, else
    (1 + hits) / (1 + draws)). Max-T step-down (Westfall and Young 1993, algorithm 2.8) on
    the standardised statistics T / sqrt(sum_u d_u^2) (under sign flips every pattern has
    that variance, so a close pair with few disagreements is not drowned by pairs whose
    differences spread wider): with |T| in decreasing order, p~_(j) = share of patterns
    whose maximum of |T*| over the hypotheses (j), (j+1), ... reaches |T_(j)|, then made
    non-decreasing in that order.
    Units on which all submissions agree change no statistic and are left out.
    Returns (pairs (m, 2) with a < b, T_ab (m,), p (m,), p_maxT (m,), patterns, exact).
    """
    x = np.asarray(contributions, dtype=np.float64)
    k = x.shape[1]
    upper = np.triu_indices(k, 1)
    pairs = np.stack(upper, axis=1)
    observed = x.sum(axis=0)
    t = observed[upper[0]] - observed[upper[1]]
    if x.shape[0]:
        x = x[np.ptp(x, axis=1) > 0]
    gram = x.T.dot(x)
    spread = np.sqrt(np.maximum(np.diag(gram)[upper[0]] + np.diag(gram)[upper[1]] - 2 * gram[upper], 0.0))
    scale = np.where(spread > 0, spread, 1.0)
    t_abs = comparable(np.abs(t) / scale)
    chunks, exact, total = sign_patterns(x.shape[0], draws, seed, t.shape[0])
    order = np.argsort(-t_abs, kind="mergesort")
    sorted_t = t_abs[order]
    hits = np.zeros(t.shape[0], dtype=np.int64)
    hits_max = np.zeros(t.shape[0], dtype=np.int64)
    rows = max(1, 4000000 // max(1, t.shape[0]))
    for signs in chunks():
        y = signs.dot(x)
        for start in range(0, y.shape[0], rows):
            block = y[start:start + rows]
            flipped = comparable(np.abs(block[:, upper[0]] - block[:, upper[1]]) / scale)
            hits += np.count_nonzero(flipped >= t_abs, axis=0)
            successive = np.maximum.accumulate(flipped[:, order][:, ::-1], axis=1)[:, ::-1]
            hits_max[order] += np.count_nonzero(successive >= sorted_t, axis=0)
    if exact:
        p, p_max = hits / float(total), hits_max / float(total)
    else:
        p, p_max = (hits + 1.0) / (total + 1.0), (hits_max + 1.0) / (total + 1.0)
    p_max[order] = np.minimum(1.0, np.maximum.accumulate(p_max[order]))
    return pairs, t, np.minimum(1.0, p), p_max, total, exact


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
