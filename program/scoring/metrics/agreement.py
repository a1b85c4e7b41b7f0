"""How much two rankings of the same submissions agree: the tie-aware rank distance of
the paper comparing text-detection evaluation protocols, and Kendall's tau-b.

Pure numpy kernels. A ranking is given as scores (higher is better); equal scores are ties,
compared exactly as given (compare.py passes integer keys in the exact order of its
scores, metaeval/exact.py).
"""

import numpy as np


def ranks_from_scores(scores, higher_is_better=True):
    """Competition ranks (1 = best; equal scores share the best of their ranks)."""
    s = np.asarray(scores, dtype=float)
    if not higher_is_better:
        s = -s
    return 1 + (s[None, :] > s[:, None]).sum(axis=1)


def _pair_signs(scores):
    s = np.asarray(scores)
    signs = np.sign(s[:, None] - s[None, :])
    upper = np.triu_indices(s.size, 1)
    return signs[upper]


def rank_distance(scores_a, scores_b):
    """Pairwise tie-aware rank distance: over unordered pairs of items, a pair ordered one
    way in one ranking and the other way in the other costs 1, a pair tied in exactly one
    ranking costs 0.5.

    It reproduces Figure 3 of Dangla, Puybareau, Tochon and Fabrizio, "A first step toward
    a fair comparison of evaluation protocols for text detection algorithms" (DAS 2018,
    section III-B):
    a=d>b>c>f>e vs a>b>c>d>e>f costs 3.5. It is not the paper's edit distance in general:
    a=b=c vs a>b>c costs 1.5 here (three pairs tied in one ranking only), 1.0 by the
    paper's operations (two splits of a tied group).
    """
    a, b = _pair_signs(scores_a), _pair_signs(scores_b)
    discordant = np.count_nonzero(a * b < 0)
    half = np.count_nonzero((a == 0) != (b == 0))
    return discordant + 0.5 * half


def kendall_tau_b(scores_a, scores_b):
    """Kendall's tau-b from its definition: (C - D) / sqrt((n0 - n1) (n0 - n2)), n0 the
    number of pairs, n1 (n2) the pairs tied in the first (second) ranking, C and D the
    concordant and discordant pairs. None (undefined) when one ranking is all ties."""
    a, b = _pair_signs(scores_a), _pair_signs(scores_b)
    n0 = a.size
    concordant = np.count_nonzero(a * b > 0)
    discordant = np.count_nonzero(a * b < 0)
    n1 = np.count_nonzero(a == 0)
    n2 = np.count_nonzero(b == 0)
    denominator = np.sqrt(float(n0 - n1) * float(n0 - n2))
    if denominator == 0:
        return None
    return float((concordant - discordant) / denominator)
