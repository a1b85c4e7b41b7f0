"""Stratified bootstrap over test items with a fixed seed, in the core: evaluate.py's page
and compare.py draw the same resamples and compute the same interval with this module
(Efron and Tibshirani, An Introduction to the Bootstrap, 1993).

Items are drawn with replacement within their resampling block (the view's `block`: a
subset, a manuscript, a category and true class), so every stratum keeps its items and
every block its size; the same draws serve every submission, so ranks and differences
are compared on the same resamples. A resample is a matrix of draw counts, from which
itemview.aggregate recomputes a score (no item is re-scored): every score of compare.py's
ranks and paired differences, and the interval of every score but average precision.

Small blocks: a block of b items gets b - 1 draws (the rescaled bootstrap of Rao and Wu,
1988, with m = b - 1), which makes the bootstrap variance of a block mean the unbiased
one, s^2 / b, instead of (b - 1) / b of it; the percentile interval is then widened about
the estimate by t(0.975, N - B) / z(0.975), N items in B blocks, so that a score averaged
over few pages keeps its coverage. With hundreds of items both corrections vanish.

Average precision's interval is computed without draws: the variance these draws would
give it, to first order (the infinitesimal jackknife, from each item's influence on the
AP), in one pass over the ranking the leaderboard's AP already sorted, then an interval
on the logit scale (ap_intervals). Drawing it cost a random number per image, category and
resample. bench/coverage.py measures the coverage of the expected score and of a second
test set's score (the prediction interval) at the sizes of competitions."""

import functools
import json
from collections import OrderedDict

import numpy as np
from . import itemview
from .metrics.quantiles import normal_quantile, t_quantile
from .metrics.ranking import distinct, influence, order_keys

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
    same draws (gathering from a strided transpose is slower)."""

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


def score_interval(view, key=None, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, rows=100):
    """The 95% interval (low, high) of one score of one submission's view: score_intervals
    of that key."""
    key = key or view.primary
    return score_intervals(view, [key], resamples, seed, rows)[key]


def participant_intervals(view, key=None, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, rows=100):
    """(interval, prediction interval) of one score, each (low, high): what the participant's
    page shows. An average precision's from its standard error (ap_intervals), any other
    score's from one pass of the draws."""
    key = key or view.primary
    if drawless(view.scores[key]):
        return ap_intervals(view, key)
    estimates, samples = score_samples(view, [key], resamples, seed, rows)
    df, bounds = degrees_of_freedom(view, key), view.scores[key].bounds
    floor = failure_floor(view, key, estimates[key])
    low, high = interval(samples[key], estimates[key], df, LEVEL, bounds, floor)
    p_low, p_high = predicted(samples[key], estimates[key], df, LEVEL, bounds, floor)
    return (float(low), float(high)), (float(p_low), float(p_high))


def score_intervals(view, keys=None, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, rows=100, level=LEVEL):
    """key -> (low, high), the `level` interval of each score of one submission's view:
    compare.py's interval for that submission (ap_intervals for an average precision,
    else score_samples, then interval)."""
    keys = list(keys or view.scores)
    drawn = [key for key in keys if not drawless(view.scores[key])]
    estimates, samples = score_samples(view, drawn, resamples, seed, rows) if drawn else ({}, {})
    out = OrderedDict()
    for key in keys:
        if key not in samples:
            out[key] = ap_intervals(view, key, level)[0]
            continue
        low, high = interval(samples[key], estimates[key], degrees_of_freedom(view, key), level,
                             view.scores[key].bounds, failure_floor(view, key, estimates[key], level))
        out[key] = (float(low), float(high))
    return out


def drawless(score):
    """Whether a score's interval comes from its standard error, without draws (an average
    precision: ap_intervals), rather than from the resamples."""
    return score.statistic.kind == "average_precision"


def ap_intervals(view, key=None, level=LEVEL):
    """(interval, prediction interval), each (low, high), of an average-precision score (one
    category's, or the mean over categories) from its standard error: the stratified
    bootstrap's variance, without drawing it (ap_variance), categories independent, so the
    mean's variance is the sum of theirs over C^2. On the logit scale, where an AP near 0 or
    1 is far less skewed (the logit interval of Boyd, Eng and Page, Area under the
    precision-recall curve: point estimates and confidence intervals, ECML PKDD 2013):
    logit(AP) -/+ t(df) se / (AP (1 - AP)), df as degrees_of_freedom; the prediction
    interval for a second test set of the same size with sqrt(2) times that half-width (the
    two scores vary independently about one expectation). An AP of 1 or a zero standard
    error (every resample would score the same) gives the point itself."""
    key = key or view.primary
    score = view.scores[key]
    strata = range(len(view.strata)) if score.stratum is None else [score.stratum]
    estimate = float(itemview.aggregate(view, keys=[key])[key][0])
    variance = ap_mean_variance(view, score.statistic, strata)
    critical = critical_value(degrees_of_freedom(view, key), level)
    out = []
    for factor in (1.0, np.sqrt(2.0)):
        if variance <= 0 or not 0.0 < estimate < 1.0:
            low = high = estimate
        else:
            centre = np.log(estimate / (1.0 - estimate))
            half = factor * critical * np.sqrt(variance) / (estimate * (1.0 - estimate))
            low, high = 1.0 / (1.0 + np.exp(half - centre)), 1.0 / (1.0 + np.exp(-centre - half))
        low, high = _clip(low, high, score.bounds)
        out.append((float(low), float(high)))
    return tuple(out)


def ap_mean_variance(view, statistic, strata):
    """The variance of the mean AP over `strata`: the sum of each stratum's ap_variance over
    C^2, except for the strata with a single positive. Drawn once, that positive never
    varies in a resample, so the bootstrap cannot see how its rank would vary on another
    test set; a score in [0, 1] of mean m varies at most m (1 - m) (the Bernoulli bound,
    Bhatia and Davis, A better bound on the variance, Amer. Math. Monthly 2000), and over
    the k such strata the sum of m_c (1 - m_c) is at most k m (1 - m), m the mean of their
    expected APs (concavity), which their observed APs' mean stands for."""
    strata = list(strata)
    variance, single = 0.0, []
    for h in strata:
        start, end = view.bounds[h]
        if int(np.count_nonzero(view.columns[statistic.label][start:end] > 0)) == 1:
            single.append(h)
        else:
            variance += ap_variance(view, statistic, h)
    if single:
        mean = float(np.mean(itemview.stratum_values(view, statistic)[0, single]))
        variance += len(single) * mean * (1.0 - mean)
    return variance / max(len(strata), 1) ** 2


def ap_variance(view, statistic, h):
    """The variance of stratum h's average precision under the bootstrap of weight_chunks
    (items drawn within their blocks, a block of b items with b - 1 draws), to first order:
    with g an item's influence (metrics.ranking.influence, the derivative of the AP in the
    item's weight), b / (b - 1) sum over the block of (g - mean g)^2, summed over the blocks:
    the infinitesimal jackknife (Efron and Tibshirani 1993, chapter 21), whose b / (b - 1)
    is the rescaling of Rao and Wu. Items at one operating point share their influence, so
    where the blocks are the two classes (the events track's) this costs one pass over the
    points of the ranking the leaderboard's AP already sorted; other blocks need each
    item's point, a second sort."""
    start, end = view.bounds[h]
    positive = view.columns[statistic.label][start:end] > 0
    blocks = view.block[start:end]
    true_positives, counts = itemview.ranking_counts(view, statistic, h)
    kept, gradient_positive, gradient_negative = influence(true_positives, counts)
    if (not positive.any() or np.array_equal(blocks == blocks[np.argmax(positive)], positive)) and (
            positive.all() or (blocks[~positive] == blocks[np.argmin(positive)]).all()):
        hits = np.diff(np.concatenate(([0], true_positives[kept]))).astype(np.float64)
        negatives = np.concatenate(([0], counts[kept] - true_positives[kept], [counts[-1] - true_positives[-1]]))
        return _spread(hits, gradient_positive) + _spread(np.diff(negatives).astype(np.float64),
                                                          np.concatenate((gradient_negative, [0.0])))
    keys = order_keys(view.columns[statistic.confidence][start:end])
    values = distinct(keys)
    point = values.shape[0] - 1 - np.searchsorted(values, keys)  # 0: the highest confidence
    at = np.searchsorted(kept, point)  # the first kept point at or below the item's
    gradient = np.where(positive, np.append(gradient_positive, 0.0)[at], np.append(gradient_negative, 0.0)[at])
    return sum(_spread(np.ones(int(np.sum(blocks == b))), gradient[blocks == b]) for b in np.unique(blocks))


def _spread(multiplicity, gradient):
    """b / (b - 1) sum (g - mean g)^2 over a block of b items, `multiplicity` of them at each
    value of g; 0 for a block of one item (drawn once, it never varies)."""
    size = float(multiplicity.sum())
    if size < 2:
        return 0.0
    centred = gradient - np.sum(multiplicity * gradient) / size  # sums, not BLAS's dot: no threads
    return float(np.sum(multiplicity * centred * centred) * size / (size - 1.0))


def score_samples(view, keys=None, resamples=DEFAULT_RESAMPLES, seed=DEFAULT_SEED, rows=100):
    """(key -> leaderboard value, key -> (resamples,) bootstrap values) of one submission's
    view: every statistic (a ratio, or an average precision) recomputed on compare.py's draws
    (weight_chunks: the same seed and resamples, so the same values compare.py resamples),
    a stratum and `rows` resamples at a time, so that memory holds one rows x
    items-of-a-stratum matrix; every key of a statistic comes from one pass."""
    keys = list(keys or view.scores)
    estimates = itemview.leaderboard(view)
    count = len(view.strata)

    def strata_of(key):
        stratum = view.scores[key].stratum
        return range(count) if stratum is None else [stratum]

    resampled = OrderedDict()  # statistic name -> (statistic, the strata needed)
    for key in keys:
        statistic = view.scores[key].statistic
        name = json.dumps(statistic.to_json(), sort_keys=True)
        resampled.setdefault(name, (statistic, set()))[1].update(strata_of(key))
    tables = dict((name, np.zeros((resamples, count))) for name in resampled)
    # A pooled ratio: each term's numerator and denominator summed over the strata, per resample.
    pooled = dict((json.dumps(view.scores[k].statistic.to_json(), sort_keys=True), view.scores[k].statistic)
                  for k in keys if view.scores[k].pooled)
    sums = dict((name, np.zeros((len(statistic.terms), 2, resamples))) for name, statistic in pooled.items())
    for h, first, weights in weight_chunks(view, resamples, seed, rows):
        start, end = view.bounds[h]
        for name, (statistic, needed) in resampled.items():
            if h in needed:
                tables[name][first:first + weights.shape[0], h] = itemview.STATISTICS[statistic.kind](
                    view, statistic, {h: weights}, h, start, end)
            if name in pooled:
                for t, pair in enumerate(itemview.ratio_sums(view, statistic, {h: weights}, h, start, end)):
                    sums[name][t, :, first:first + weights.shape[0]] += np.stack(pair)
    samples = OrderedDict()
    for key in keys:
        score = view.scores[key]
        name = json.dumps(score.statistic.to_json(), sort_keys=True)
        if score.pooled:
            samples[key] = itemview.ratios([(n, d) for n, d in sums[name]])
            continue
        values = tables[name]
        samples[key] = values[:, score.stratum] if score.stratum is not None else (
            np.mean(values, axis=1) if count else np.zeros(resamples))
    return estimates, samples


def degrees_of_freedom(view, key=None, welch=True):
    """The degrees of freedom of the widening. A ratio of sums: Satterthwaite's for the
    variance of a stratified sum, (sum_b v_b)^2 / sum_b v_b^2 / (n_b - 1), v_b the unbiased
    variance of block b's share of the score (item_shares) times its n_b items
    (Satterthwaite 1946, Biometrics Bulletin 2, 110-114; Welch's for two groups): N - B
    when the blocks vary alike, down to n_b - 1 when one block holds the variance, as a
    manuscript whose few pages include a failed one does (rounded down, as the quantiles
    take whole degrees of freedom); a submission without variance, or welch False (the
    view's shape alone), N - B (N items in B blocks). Average
    precision is a mean over the positives of the precision at their ranks: its
    uncertainty rests on the positives, so its degrees of freedom are the positives less
    one per stratum."""
    score = view.scores[key or view.primary]
    statistic = score.statistic
    if statistic.kind == "average_precision":
        return int(view.columns[statistic.label].sum() - len(view.strata))
    blocks = _score_blocks(view, score)
    plain = int(blocks.shape[0] - np.unique(blocks).shape[0])
    if not welch:
        return plain
    variances, spread = [], []
    for part in block_shares(view, score):
        if part.shape[0] > 1:
            variances.append(part.shape[0] * float(np.var(part, ddof=1)))
            spread.append(part.shape[0] - 1.0)
    variances = np.array(variances)
    total = float(variances.sum()) if variances.size else 0.0
    if total <= 0:
        return plain
    return min(plain, max(1, int(np.floor(total * total / float(np.sum(variances * variances / np.array(spread)))))))


def _score_blocks(view, score):
    """The resampling blocks of the items a score rests on (one stratum's, or all)."""
    return view.block if score.stratum is None else view.block[slice(*view.bounds[score.stratum])]


def block_shares(view, score):
    """item_shares of a ratio score, one array per resampling block of its items."""
    blocks = _score_blocks(view, score)
    shares = item_shares(view, score)
    return [shares[blocks == block] for block in np.unique(blocks)]


def item_shares(view, score):
    """Each item's share of a ratio score, the denominators held at their sums: item i of
    stratum h adds sum over terms t of num_t(i) / (T G sum den_t), G the strata averaged
    (1 for one stratum's score; pooled: the sums over every item); 0 outside the score's
    items and where a denominator sums to 0."""
    statistic = score.statistic
    shares = np.zeros(len(view.items))
    terms = len(statistic.terms)
    if score.stratum is not None:
        groups, count = [view.bounds[score.stratum]], 1
    elif score.pooled:
        groups, count = [(0, len(view.items))], 1
    else:
        groups, count = view.bounds, max(len(view.strata), 1)
    for num, den in statistic.terms:
        for start, end in groups:
            total = float(np.sum(view.columns[den][start:end]))
            if total != 0:
                shares[start:end] += view.columns[num][start:end] / (terms * count * total)
    if score.stratum is not None:
        start, end = view.bounds[score.stratum]
        return shares[start:end]
    return shares


#: Items less blocks from which skew_low corrects a ratio's interval.
SKEW_ITEMS = 30


def failure_floor(view, key, estimate, level=LEVEL):
    """The lowest expected score a submission scoring `estimate` keeps, at the one-sided
    level (1 - level) / 2, when it may fail on items this test set does not hold: a ratio
    score that is higher-is-better from 0 (a page or image on which it finds nothing
    scores 0), n items. If it failed (scored 0) on a share f of items, a test set of n
    items would hold no failure with chance (1 - f)^n; the largest f that chance does not
    exclude, (1 - f)^n = (1 - level) / 2, brings its expected score to estimate (1 -
    f) (the rule of three's reasoning, Hanley and Lippman-Hand 1983, JAMA 249,
    1743-1745). The interval's low end goes no higher than that: on few pages a
    submission that fails one page in ten often shows no failure. Any ratio score of at
    least SKEW_ITEMS degrees of freedom (items - blocks): at most skew_low's too (with
    fewer items the third cumulant is too unsteady: the correction then widened 18 pages'
    intervals by half and covered no more). None where there is neither."""
    score = view.scores[key]
    if score.statistic.kind != "ratio":
        return None
    skewed = skew_low(view, key, estimate, level) if degrees_of_freedom(view, key, False) >= SKEW_ITEMS else None
    if score.lower_is_better or score.bounds is None or score.bounds[0] != 0:
        return skewed
    items = view.sizes[score.stratum] if score.stratum is not None else len(view.items)
    if items < 1:
        return skewed
    floor = float(estimate) * ((1 - level) / 2) ** (1.0 / items)
    return floor if skewed is None else min(floor, skewed)


def skew_low(view, key, estimate, level=LEVEL):
    """The low end of Hall's skewness-corrected t interval of a ratio score: with V and K3
    the variance and third cumulant of the score estimated from its items' shares within
    their blocks (item_shares; Fisher's k-statistics, times n_b), b = K3 / (3 V^(3/2)) and
    g(t) = t + b t^2 + b^2 t^3 / 3 + b / 2 (Hall 1992, J. R. Statist. Soc. B 54, 221-228),
    estimate - sqrt(V) g^-1(c), c = t(level, df). Where the items are skewed towards the
    bad end (mostly right, a few failures), a test set that happens to hold fewer failures
    scores higher with a smaller spread; the percentile interval's low end then misses the
    expected score from above, and this one reaches below it."""
    variance, third = 0.0, 0.0
    for part in block_shares(view, view.scores[key]):
        n = part.shape[0]
        if n > 1:
            variance += n * float(np.var(part, ddof=1))
        if n > 2:
            third += n * n / ((n - 1.0) * (n - 2.0)) * float(np.sum((part - part.mean()) ** 3))
    estimate = float(estimate)
    if variance <= 0:
        return estimate
    c = critical_value(degrees_of_freedom(view, key), level)
    b = third / variance ** 1.5 / 3.0
    if abs(b) < 1e-12:
        return estimate - np.sqrt(variance) * c
    inverse = (np.cbrt(1.0 + 3.0 * b * (c - b / 2.0)) - 1.0) / b
    return estimate - np.sqrt(variance) * float(inverse)


@functools.lru_cache(maxsize=None)  # a pure function of two numbers, asked for every chunk of pairs
def critical_value(df, level=LEVEL):
    """t(level, df), the two-sided critical value; z(level) without degrees of freedom."""
    q = 1 - (1 - level) / 2
    return t_quantile(q, df) if df >= 1 else normal_quantile(q)


def widening(df, level=LEVEL):
    """t(level, df) / z(level): how much wider the interval is made for few items; df an
    array: one factor per column."""
    if np.ndim(df):
        return np.array([widening(float(d), level) for d in np.ravel(df)]).reshape(np.shape(df))
    if df < 1:
        return 1.0
    return critical_value(df, level) / normal_quantile(1 - (1 - level) / 2)


def interval(samples, estimate, df, level=LEVEL, bounds=(0.0, 1.0), floor=None):
    """Percentile interval of bootstrap samples (columns) recentred on the estimate and
    widened (see above), clipped to the scores' range (bounds: (low, high), either None
    where the score has no bound; None: no clipping): with m the median of the samples
    and q-, q+ their percentiles, [estimate - f (m - q-), estimate + f (q+ - m)], its low
    end at most `floor` (failure_floor) where one is given.

    Recentring keeps the interval about the leaderboard's own value when the resamples
    sit off it (a difference of average precisions in compare.py's paired intervals: a
    resample repeats images, and repeated positives tie, so its AP runs above the
    estimate); for a mean, m is the estimate and this is the plain percentile interval.
    The target is the score's expected value on a test set drawn like this one."""
    samples = np.asarray(samples, dtype=np.float64)
    tail = (1 - level) / 2 * 100
    low, middle, high = np.percentile(samples, [tail, 50, 100 - tail], axis=0)
    factor = widening(df, level)
    estimate = np.asarray(estimate, dtype=np.float64)
    low = estimate - factor * np.maximum(middle - low, 0.0)
    high = estimate + factor * np.maximum(high - middle, 0.0)
    if floor is not None:
        low = np.minimum(low, floor)
    return _clip(low, high, bounds)


def predicted(samples, estimate, df, level=LEVEL, bounds=(0.0, 1.0), floor=None):
    """Prediction interval of the score of a second test set drawn like this one, of the same
    size: the second score and this one vary independently about the same expectation, so
    their difference has twice the variance of either and is symmetric; the interval is
    estimate -/+ sqrt(2) f (q+ - q-) / 2, f the widening and q-, q+ the samples' percentiles
    (Efron and Tibshirani 1993, section 12.6: an interval for a new observation carries the
    estimate's error and the new one's); its low end at most `floor` (failure_floor)."""
    samples = np.asarray(samples, dtype=np.float64)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail], axis=0)
    half = np.sqrt(2.0) * widening(df, level) * np.maximum(high - low, 0.0) / 2.0
    low = estimate - half if floor is None else np.minimum(estimate - half, floor)
    return _clip(low, estimate + half, bounds)


def _clip(low, high, bounds):
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
