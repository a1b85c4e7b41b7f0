"""Stratified bootstrap over test items with a fixed seed.

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

import functools
import json
from collections import OrderedDict

import numpy as np
from ..metrics.quantiles import normal_quantile, t_quantile

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 20260
LEVEL = 0.95


def draw_weights(view, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED):
    """Per stratum a (resamples, items of the stratum) matrix of draw counts (a Draws list)."""
    return Draws(weights for _, _, weights in weight_chunks(view, resamples, seed))


class Draws(list):
    """draw_weights' matrices, one per stratum, each with its transpose (items, resamples,
    C-ordered) made on first use and kept: an average precision gathers the draws of its
    ranked items a row each from it, and compare.py resamples every submission with the
    same draws, so the contiguous copy is made once instead of a strided gather per
    submission."""

    def __init__(self, matrices):
        list.__init__(self, matrices)
        self._by_item = {}

    def by_item(self, h):
        if h not in self._by_item:
            self._by_item[h] = np.ascontiguousarray(self[h].T)
        return self._by_item[h]


def weight_chunks(view, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, rows=None):
    """(stratum, first resample, draw counts of `rows` resamples x the stratum's items),
    stratum after stratum; rows None: all resamples at once.

    Each resampling block j of stratum h draws from its own generator, numpy's
    RandomState seeded with (seed, h, j), whose stream numpy keeps the same on every
    version (1.17, 1.26 and 2.x give the same draws; tests/test_metaeval.py keeps a
    fingerprint) and which gives the same numbers drawn at once or in chunks of rows: the
    draws do not depend on `rows`, and a stratum's draws not on the others'."""
    for h, (start, end) in enumerate(view.bounds):
        blocks = view.block[start:end]
        members = [np.flatnonzero(blocks == block) for block in np.unique(blocks)]
        generators = [np.random.RandomState([seed, h, j]) for j in range(len(members))]
        step = rows or resamples
        for first in range(0, resamples, step):
            count = min(step, resamples - first)
            weights = np.zeros((count, end - start))
            for rng, member in zip(generators, members):
                size = member.shape[0]
                draws = size - 1 if size > 1 else size
                picked = rng.randint(0, size, size=(count, draws))
                flat = (picked + size * np.arange(count)[:, None]).ravel()
                weights[:, member] = np.bincount(flat, minlength=count * size).reshape(count, size)
            yield h, first, weights


def distinct(values):
    """numpy.unique(values) of a 1-D array, without the import of numpy.ma that
    numpy.unique makes on numpy 2, which an events run needs for nothing else (a ratio's
    interval imports it anyway, through numpy.percentile)."""
    ordered = np.sort(values)
    return ordered[np.concatenate(([True], ordered[1:] != ordered[:-1]))] if ordered.size else ordered


def score_interval(view, key=None, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, rows=100):
    """The 95% interval (low, high) of one score of one submission's view (the
    participant's page): score_intervals of that key."""
    key = key or view.primary
    return score_intervals(view, [key], resamples, seed, rows)[key]


def score_intervals(view, keys=None, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, rows=100, level=LEVEL):
    """key -> (low, high), the `level` interval of each score of one submission's view.

    A ratio is resampled as compare.py resamples it, with the same draws (weight_chunks),
    a stratum and `rows` resamples at a time (memory: one rows x items-of-a-stratum
    matrix; every ratio key from one pass of the draws): the interval is compare.py's for
    that submission. An average precision is not resampled: drawing 1,000 resamples of
    100 categories of 30,000 images costs some fifty times the scoring. Its bootstrap
    variance is taken to first order instead (ap_variance: the linearised, or
    infinitesimal-jackknife, variance of the same stratified bootstrap, exact for a
    statistic linear in the draw counts), and the interval is the score -/+ t(df) x its
    standard error, what compare.py's recentred and widened percentile interval is for a
    normal bootstrap distribution."""
    from .. import itemview
    keys = list(keys or view.scores)
    estimates = itemview.leaderboard(view)
    count = len(view.strata)

    def strata_of(key):
        stratum = view.scores[key].stratum
        return range(count) if stratum is None else [stratum]

    out = OrderedDict()
    variances = {}  # (statistic, stratum) -> the first-order variance of an average precision
    resampled = OrderedDict()  # statistic name -> (statistic, the strata needed)
    for key in keys:
        statistic = view.scores[key].statistic
        name = json.dumps(statistic.to_json(), sort_keys=True)
        if statistic.kind == "average_precision":
            for h in strata_of(key):
                if (name, h) not in variances:
                    variances[name, h] = ap_variance(view, statistic, h)
        else:
            resampled.setdefault(name, (statistic, set()))[1].update(strata_of(key))
    tables = dict((name, np.zeros((resamples, count))) for name in resampled)
    # A pooled ratio: each term's numerator and denominator sums over the strata, per resample.
    pooled = dict((json.dumps(view.scores[k].statistic.to_json(), sort_keys=True), view.scores[k].statistic)
                  for k in keys if view.scores[k].pooled)
    sums = dict((name, np.zeros((len(statistic.terms), 2, resamples))) for name, statistic in pooled.items())
    if resampled:
        for h, first, weights in weight_chunks(view, resamples, seed, rows):
            start, end = view.bounds[h]
            for name, (statistic, needed) in resampled.items():
                if h in needed:
                    tables[name][first:first + weights.shape[0], h] = itemview.STATISTICS[statistic.kind](
                        view, statistic, {h: weights}, h, start, end)
                if name in pooled:
                    for t, pair in enumerate(itemview.ratio_sums(view, statistic, {h: weights}, h, start, end)):
                        sums[name][t, :, first:first + weights.shape[0]] += np.stack(pair)
    for key in keys:
        score = view.scores[key]
        name = json.dumps(score.statistic.to_json(), sort_keys=True)
        df = degrees_of_freedom(view, key)
        if score.pooled:
            samples = itemview.ratios([(n, d) for n, d in sums[name]])
            low, high = interval(samples, estimates[key], df, level, score.bounds)
            out[key] = (float(low), float(high))
            continue
        strata = list(strata_of(key))
        if score.statistic.kind == "average_precision":
            variance = sum(variances[name, h] for h in strata) / float(max(len(strata), 1)) ** 2
            half = critical_value(df, level) * np.sqrt(variance)
            out[key] = _clipped(estimates[key] - half, estimates[key] + half, score.bounds)
            continue
        values = tables[name]
        samples = values[:, score.stratum] if score.stratum is not None else (
            np.mean(values, axis=1) if count else np.zeros(resamples))
        low, high = interval(samples, estimates[key], df, level, score.bounds)
        out[key] = (float(low), float(high))
    return out


def _clipped(low, high, bounds):
    if bounds is not None and bounds[0] is not None:
        low, high = max(low, bounds[0]), max(high, bounds[0])
    if bounds is not None and bounds[1] is not None:
        low, high = min(low, bounds[1]), min(high, bounds[1])
    return float(low), float(high)


def ap_variance(view, statistic, h):
    """The bootstrap variance of stratum h's average precision to first order.

    With w_i the draw count of item i, AP(w) = A / (2 P), A = sum over operating points k
    of dTP_k (e_k + e_{k-1}) (metrics.ranking; e_k = TP_a / N_a, a = a(k) the point at or
    after k of highest precision, e_{-1} = e_0), and its derivative at w = 1 is
        D_i = [y_i (e_g + e_{g-1}) + sum over k with a(k) >= g of dTP_k (y_i - p_a) / N_a
               + the same over a(k - 1)] / (2 P) - y_i AP / P,
    g the item's point, p_a = TP_a / N_a: one value per point and class. A block of b
    items drawn b - 1 times has draw counts of covariance (m / b)(I - 11'/b), m = b - 1,
    so the variance of sum D_i w_i is the sum over blocks of (m / b) sum over its items of
    (D_i - mean D)^2. Where each block holds one class of the stratum (the events track's
    blocks) or the whole stratum, the items of a point and class share D_i and the sums
    come from the counts at the points the scoring already found (itemview.ranking_counts);
    otherwise item by item."""
    from .. import itemview
    start, end = view.bounds[h]
    labels = view.columns[statistic.label][start:end] > 0
    blocks = view.block[start:end]
    true_positives, counts = itemview.ranking_counts(view, statistic, h)
    if not true_positives.shape[0] or true_positives[-1] == 0:
        return 0.0
    # Only the points holding a positive, the point before each and the last point are
    # kept, each with the items of the dropped points just above it: a dropped point holds
    # negatives only, whose precision is below the point before it, so it is never a(k)
    # of a kept point, and its items' derivative is that of the next kept point (the
    # sums c and d below change only at kept points). At 30,000 images with 300 positives
    # that is some 600 points instead of 26,000, every sum the same.
    holding = np.flatnonzero(np.diff(np.concatenate(([0], true_positives))) > 0)
    kept = distinct(np.concatenate((holding - 1, holding, [true_positives.shape[0] - 1])))
    kept = kept[kept >= 0]
    tp = true_positives[kept].astype(np.float64)
    n = counts[kept].astype(np.float64)
    points = tp.shape[0]
    positives = tp[-1]
    precision = tp / n
    # a(k): the first point at or after k of the highest precision (a running arg-max from the end)
    reversed_precision = precision[::-1]
    running = np.maximum.accumulate(reversed_precision)
    last_max = np.maximum.accumulate(np.where(reversed_precision == running, np.arange(points), 0))
    best = points - 1 - last_max[::-1]
    before = np.concatenate(([best[0]], best[:-1]))  # a(k - 1); a(0) for k = 0
    envelope, envelope_before = precision[best], precision[before]
    added = np.diff(np.concatenate(([0.0], tp)))
    ap = float(np.sum(added * (envelope + envelope_before)) / (2.0 * positives))

    def suffix(values, values_before):  # out[q]: the sum of values[k] over the k with best[k] >= q, and so on
        total = np.bincount(best, weights=values, minlength=points)
        total += np.bincount(before, weights=values_before, minlength=points)
        return np.cumsum(total[::-1])[::-1]
    share, share_before = added / n[best], added / n[before]
    c = suffix(share, share_before)
    d = suffix(share * envelope, share_before * envelope_before)
    positive_d = (envelope + envelope_before + c - d) / (2.0 * positives) - ap / positives
    negative_d = -d / (2.0 * positives)
    by_class = _blocks_by_class(blocks, labels)
    if by_class is not None:
        per_point = [(np.diff(np.concatenate(([0.0], n))) - added, negative_d), (added, positive_d)]
        variance = 0.0
        for classes in by_class:  # each block: the items of these classes
            size = sum(float(per_point[y][0].sum()) for y in classes)
            # products summed by numpy, not BLAS (whose threads spin on a busy machine)
            total = sum(float(np.sum(per_point[y][0] * per_point[y][1])) for y in classes)
            squares = sum(float(np.sum(per_point[y][0] * per_point[y][1] ** 2)) for y in classes)
            draws = size - 1 if size > 1 else size
            variance += draws / size * (squares - total * total / size)
        return max(variance, 0.0)
    confidence = view.columns[statistic.confidence][start:end]
    order = np.argsort(confidence)[::-1]
    ranked = confidence[order]
    ends = np.append(np.flatnonzero(ranked[1:] != ranked[:-1]), ranked.shape[0] - 1)
    group = np.empty(order.shape[0], dtype=np.int64)
    group[order] = np.searchsorted(kept, np.searchsorted(ends, np.arange(order.shape[0])))
    derivative = np.where(labels, positive_d[group], negative_d[group])
    variance = 0.0
    for block in np.unique(blocks):
        values = derivative[blocks == block]
        size = values.shape[0]
        draws = size - 1 if size > 1 else size
        variance += draws / float(size) * float(np.sum((values - values.mean()) ** 2))
    return variance


def _blocks_by_class(blocks, labels):
    """The classes each block holds, [(0,), (1,)] or [(0, 1)], when every block holds all the
    items of its classes (blocks by class, or one block for the stratum); else None."""
    if blocks.size == 0:
        return []
    low = int(blocks.min())
    pairs = np.bincount((blocks - low) * 2 + labels, minlength=2 * (int(blocks.max()) - low + 1)).reshape(-1, 2)
    used = pairs[pairs.sum(axis=1) > 0]
    if used.shape[0] == 1:
        return [tuple(y for y in (0, 1) if used[0, y])]
    if used.shape[0] == 2 and np.count_nonzero(used) == 2 and used[0].astype(bool).sum() == 1:
        return [tuple(y for y in (0, 1) if row[y]) for row in used]
    return None


def degrees_of_freedom(view, key=None):
    """N - B for a ratio of sums (N items in B blocks). Average precision is a mean over the
    positives of the precision at their ranks: its uncertainty rests on the positives, so
    its degrees of freedom are the positives less one per stratum."""
    statistic = view.scores[key or view.primary].statistic
    if statistic.kind == "average_precision":
        return int(view.columns[statistic.label].sum() - len(view.strata))
    return int(view.block.shape[0] - np.unique(view.block).shape[0])


@functools.lru_cache(maxsize=None)  # a pure function of two numbers, asked for every chunk of pairs
def critical_value(df, level=LEVEL):
    """t(level, df), the two-sided critical value; z(level) without degrees of freedom."""
    q = 1 - (1 - level) / 2
    return t_quantile(q, df) if df >= 1 else normal_quantile(q)


def widening(df, level=LEVEL):
    """t(level, df) / z(level): how much wider the interval is made for few items."""
    if df < 1:
        return 1.0
    return critical_value(df, level) / normal_quantile(1 - (1 - level) / 2)


def interval(samples, estimate, df, level=LEVEL, bounds=(0.0, 1.0)):
    """Percentile interval of bootstrap samples (columns) recentred on the estimate and
    widened (see above), clipped to the scores' range (bounds: (low, high), either None
    where the score has no bound; None: no clipping): with m the median of the samples
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
        if bounds[0] is not None:
            low, high = np.maximum(low, bounds[0]), np.maximum(high, bounds[0])
        if bounds[1] is not None:
            low, high = np.minimum(low, bounds[1]), np.minimum(high, bounds[1])
    return low, high


def difference_bounds(bounds):
    """The range of a difference of two scores of range `bounds` (None where unbounded)."""
    if bounds is None or bounds[0] is None or bounds[1] is None:
        return None
    return (bounds[0] - bounds[1], bounds[1] - bounds[0])


def competition_ranks(keys):
    """Competition ranks (1 = best, equal keys share the best of their ranks) of each row
    of `keys` (a larger key is better), compared exactly as given (exact.row_keys gives
    integer keys in the exact order of scores); one sort per row."""
    values = -np.atleast_2d(keys)
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
    """key -> half the width of each score's interval (score_intervals: the interval the
    participant's page shows, of every key): one number per score for a platform that
    shows a symmetric +- (EvalAI's error bars). Holds one stratum's draws at a time."""
    return OrderedDict((key, (high - low) / 2.0)
                       for key, (low, high) in score_intervals(view, None, resamples, seed, level=level).items())
