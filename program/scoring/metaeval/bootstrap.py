"""Stratified bootstrap over test items with a fixed seed (SPEC section 6).

Items are drawn with replacement within their resampling block (the view's `block`: a
subset and true class, a manuscript, a category and true class), so every stratum keeps
its items and every class its size; the same draws serve every submission, so ranks and
differences are compared on the same resamples. A resample is a matrix of draw counts,
and every score is recomputed from it by itemview.aggregate (no item is re-scored).

Small blocks: a block of b items gets b - 1 draws (the rescaled bootstrap of Rao and Wu,
1988, with m = b - 1), which makes the bootstrap variance of a block mean the unbiased
one, s^2 / b, instead of (b - 1) / b of it; the percentile interval is then widened about
the estimate by t(0.975, N - B) / z(0.975), N items in B blocks, so that a score averaged
over few pages (5 pages per manuscript) keeps its coverage. With hundreds of items both
corrections vanish. The seeded coverage simulation of tests/test_metaeval_coverage.py
checks 93%-97% coverage at the sizes of the tracks.
"""

from collections import OrderedDict

import numpy as np
from scipy.stats import norm, t as student

from ..metrics.significance import comparable

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 20260
LEVEL = 0.95


def draw_weights(view, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED):
    """Per stratum a (resamples, items of the stratum) matrix of draw counts."""
    return list(stratum_weights(view, resamples, seed))


def stratum_weights(view, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED):
    """draw_weights one stratum after another (the same draws), for a caller that holds
    one stratum's matrix at a time."""
    rng = np.random.RandomState(seed)
    for start, end in view.bounds:
        weights = np.zeros((resamples, end - start))
        blocks = view.block[start:end]
        for block in np.unique(blocks):
            members = np.flatnonzero(blocks == block)
            size = members.shape[0]
            draws = size - 1 if size > 1 else size
            picked = rng.randint(0, size, size=(resamples, draws))
            flat = (picked + size * np.arange(resamples)[:, None]).ravel()
            weights[:, members] = np.bincount(flat, minlength=resamples * size).reshape(resamples, size)
        yield weights


def degrees_of_freedom(view, key=None):
    """N - B for a ratio of sums (N items in B blocks). Average precision is a mean over the
    positives of the precision at their ranks: its uncertainty rests on the positives, so
    its degrees of freedom are the positives less one per stratum."""
    statistic = view.scores[key or view.primary].statistic
    if statistic.kind == "average_precision":
        return int(view.columns[statistic.label].sum() - len(view.strata))
    return int(view.block.shape[0] - np.unique(view.block).shape[0])


def widening(df, level=LEVEL):
    """t(level, df) / z(level): how much wider the interval is made for few items."""
    if df < 1:
        return 1.0
    q = 1 - (1 - level) / 2
    return float(student.ppf(q, df) / norm.ppf(q))


def interval(samples, estimate, df, level=LEVEL, bounds=(0.0, 1.0)):
    """Percentile interval of bootstrap samples (columns) recentred on the estimate and
    widened (see above), clipped to the scores' range: with m the median of the samples
    and q-, q+ their percentiles, [estimate - f (m - q-), estimate + f (q+ - m)].

    Recentring keeps the interval about the leaderboard's own value when the resamples
    sit off it (average precision: a resample repeats images, and repeated positives tie,
    so its AP runs above the estimate); for a mean, m is the estimate and this is the
    plain percentile interval. The target is the score's expected value on a test set
    drawn like this one (AP of a finite set is biased upward as an estimate of the
    population's AP; no interval here removes that bias)."""
    samples = np.asarray(samples, dtype=np.float64)
    tail = (1 - level) / 2 * 100
    low, middle, high = np.percentile(samples, [tail, 50, 100 - tail], axis=0)
    factor = widening(df, level)
    estimate = np.asarray(estimate, dtype=np.float64)
    low = estimate - factor * np.maximum(middle - low, 0.0)
    high = estimate + factor * np.maximum(high - middle, 0.0)
    if bounds is not None:
        low, high = np.clip(low, bounds[0], bounds[1]), np.clip(high, bounds[0], bounds[1])
    return low, high


def competition_ranks(values):
    """Competition ranks (1 = best, equal values share the best of their ranks) of each
    row of `values` (higher is better), compared at the stated precision; one sort per row."""
    values = -comparable(np.atleast_2d(values))
    ordered = np.sort(values, axis=1)
    ranks = np.empty(values.shape, dtype=np.int64)
    for row in range(values.shape[0]):
        ranks[row] = np.searchsorted(ordered[row], values[row], side="left") + 1
    return ranks


def rank_interval(ranks, level=LEVEL):
    """Order statistics (no interpolation) bounding `level` of the ranks of each column."""
    ordered = np.sort(ranks, axis=0)
    count = ordered.shape[0]
    tail = (1 - level) / 2
    low = int(np.floor(tail * count))
    high = min(count - 1, int(np.ceil((1 - tail) * count)) - 1)
    return ordered[low], ordered[high]


def half_widths(view, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, level=LEVEL):
    """key -> half the width of each score's interval (`interval`: the percentile interval
    of the stratified bootstrap, recentred on the score, widened for few items, clipped to
    the score's bounds): one number per score for a platform that shows a symmetric +-
    (EvalAI's error bars). Holds one stratum's draws at a time."""
    from .. import itemview

    estimates = itemview.leaderboard(view)
    samples = itemview.aggregate_by_stratum(view, stratum_weights(view, resamples, seed), resamples)
    out = OrderedDict()
    for key, values in samples.items():
        low, high = interval(values, estimates[key], degrees_of_freedom(view, key), level, view.scores[key].bounds)
        out[key] = float(high - low) / 2
    return out
