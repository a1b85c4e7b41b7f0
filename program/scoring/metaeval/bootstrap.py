"""Stratified bootstrap over test items with a fixed seed.

Each resample draws, within every stratum, as many items as it has, with replacement;
the same resamples serve every submission (so ranks are compared on the same draws).
A resample is a matrix of counts (how often each item was drawn), and every score is
recomputed from count-weighted sums of per-item terms: no item is re-scored.
"""

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 20260


def stratum_counts(sizes, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED):
    """Per stratum a (resamples x n) matrix of draw counts; deterministic for a seed."""
    rng = np.random.RandomState(seed)
    out = []
    for n in sizes:
        if n == 0:
            out.append(np.zeros((resamples, 0)))
            continue
        draws = rng.randint(0, n, size=(resamples, n))
        flat = draws + n * np.arange(resamples)[:, None]
        out.append(np.bincount(flat.ravel(), minlength=resamples * n).reshape(resamples, n).astype(float))
    return out


def resampled_scores(per_submission, counts):
    """Scores of every submission on every resample: (resamples x submissions).

    per_submission: for each submission the per-stratum term lists of one score
    (see adapters.TrackView); counts: stratum_counts() for the same strata.
    """
    resamples = counts[0].shape[0] if counts else 0
    total = np.zeros((resamples, len(per_submission)))
    for column, per_stratum in enumerate(per_submission):
        stratum_values = []
        for weights, terms in zip(counts, per_stratum):
            values = []
            for num, den in terms:
                n, d = weights.dot(num), weights.dot(den)
                ratio = np.zeros(resamples)
                np.divide(n, d, out=ratio, where=d > 0)
                values.append(ratio)
            stratum_values.append(np.mean(values, axis=0))
        total[:, column] = np.mean(stratum_values, axis=0) if stratum_values else 0.0
    return total


def ranks_per_resample(values):
    """Competition ranks (1 = best) of the submissions in each resample (row)."""
    return 1 + (values[:, None, :] > values[:, :, None]).sum(axis=2)


def interval(samples, level=0.95, axis=0):
    """Percentile interval of bootstrap samples."""
    tail = (1 - level) / 2 * 100
    return np.percentile(samples, tail, axis=axis), np.percentile(samples, 100 - tail, axis=axis)
