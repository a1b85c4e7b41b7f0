"""Paired significance tests for comparing two submissions on the same test items.

Pure numpy/scipy kernels, no I/O. SPEC section 6.
"""

import numpy as np
from scipy.stats import binom

SIGN_FLIP_EXACT_MAX = 16  # enumerate all 2^n sign vectors up to this many nonzero differences
SIGN_FLIP_DRAWS = 20000


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
    n_abr, n_bar = int(n_abr), int(n_bar)
    n = n_abr + n_bar
    if n_abr == n_bar:
        return 1.0
    if n_abr > n_bar:
        tail = binom.sf(n_abr - 1, n, 0.5)  # P(n_abr <= X <= n)
    else:
        tail = binom.cdf(n_abr, n, 0.5)  # P(0 <= X <= n_abr)
    return float(min(1.0, 2.0 * tail))


def reference_pvalues_from_gram(errors_gram):
    """N_ABR, N_BAR and p for every pair from the Gram matrix of reference disagreements.

    errors_gram[i, j] = number of items where submission i and submission j both differ
    from the reference (the diagonal: where i differs). Then
    N(i agrees with R, j not) = G[j, j] - G[i, j]. Returns (n_agree_matrix, p_matrix)
    with n_agree[i, j] = N(i agrees with R, j does not).
    """
    g = np.asarray(errors_gram, dtype=np.int64)
    diag = np.diag(g)
    n_agree = diag[None, :] - g
    np.fill_diagonal(n_agree, 0)
    size = g.shape[0]
    p = np.ones((size, size))
    for i in range(size):
        for j in range(i + 1, size):
            p[i, j] = p[j, i] = reference_pvalue(n_agree[i, j], n_agree[j, i])
    return n_agree, p


def reference_rank_values(n_agree, pvalues, alpha=0.05):
    """The paper's ranking protocol (Fedorchuk and Lamiroy 2017, section V-B1): for every
    pair with p < alpha, one is added to the rank value of the winner (the one that
    agrees more often with the reference where the two disagree)."""
    n_agree = np.asarray(n_agree)
    size = n_agree.shape[0]
    values = np.zeros(size, dtype=int)
    for i in range(size):
        for j in range(i + 1, size):
            if pvalues[i, j] < alpha and n_agree[i, j] != n_agree[j, i]:
                values[i if n_agree[i, j] > n_agree[j, i] else j] += 1
    return values


def sign_flip_test(differences, seed=0):
    """Two-sided paired permutation (sign-flip) test of the mean of paired differences.

    Under the null hypothesis each difference is as likely positive as negative; the
    p-value is the share of sign assignments whose |sum| is at least the observed |sum|.
    Exact (all 2^n assignments of the nonzero differences) for n <= 16, otherwise
    Monte Carlo with 20,000 assignments drawn with a fixed seed, p = (1 + hits) / (1 + draws).
    All differences zero: p = 1. Chosen over Wilcoxon because it needs no normal
    approximation for the few pages of a manuscript and is exact where n is small.
    """
    d = np.asarray(differences, dtype=float)
    d = d[np.abs(d) > 1e-12]
    n = d.size
    if n == 0:
        return 1.0
    observed = abs(d.sum()) - 1e-9 * max(1.0, np.abs(d).sum())
    if n <= SIGN_FLIP_EXACT_MAX:
        codes = np.arange(2 ** n, dtype=np.int64)
        signs = ((codes[:, None] >> np.arange(n)) & 1) * 2 - 1
        sums = np.abs(signs.dot(d))
        return float(np.count_nonzero(sums >= observed)) / signs.shape[0]
    signs = _random_signs(n, seed)
    hits = np.count_nonzero(np.abs(signs.dot(d)) >= observed)
    return float(1 + hits) / (1 + SIGN_FLIP_DRAWS)


_SIGNS = {}


def _random_signs(n, seed):
    """The Monte Carlo sign patterns, drawn once per (n, seed) and reused for every pair."""
    key = (n, seed)
    if key not in _SIGNS:
        if len(_SIGNS) > 8:
            _SIGNS.clear()
        rng = np.random.RandomState(seed)
        _SIGNS[key] = (rng.randint(0, 2, size=(SIGN_FLIP_DRAWS, n)) * 2 - 1).astype(np.float64)
    return _SIGNS[key]


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
