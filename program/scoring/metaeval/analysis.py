"""The statistics of one track over all submissions, from their per-item views.

Nothing here knows a track: every score is recomputed by itemview.aggregate from the
views, and the view says which scores are ranked, which way each is better, its range,
which columns are decisions and truth. Every comparison of scores is exact (exact.py).
"""

import hashlib
import math
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Optional

import numpy as np

from .. import bootstrap, itemview
from ..errors import ReferenceDataError
from ..metrics import agreement, pseudo, significance
from . import cases as case_values, challenger, exact, pixels

ALPHA = 0.05


def below(values, alpha=ALPHA):
    """values < alpha, False where a value is NaN (a test not given)."""
    values = np.asarray(values, dtype=np.float64)
    out = np.zeros(values.shape, dtype=bool)
    given = ~np.isnan(values)
    out[given] = values[given] < alpha
    return out


def withheld_reason(unit_count, unit, chance=None):
    """The sentence that says why a pair has no p-value: in general, or for one pair whose
    leader would hide its failures with `chance` (significance.unseen_failure)."""
    if chance is None:
        return ("no p-value for a pair whose leader could fail unseen: were it to fail (score nothing) on just "
                "enough %ss to lose its lead in expectation, %d %ss would hold no such failure with a chance of 5%% "
                "or more (given per pair); no test of these %ss holds its level for such a pair "
                "(bench/coverage.py), and its interval and P(A better) remain" % (unit, unit_count, unit, unit))
    return ("no p-value: were the submission ahead to fail (score nothing) on just enough %ss to lose its lead in "
            "expectation, %d %ss would hold no such failure with a chance of %.0f%%, and no test of these %ss holds "
            "its level for such a pair (bench/coverage.py)" % (unit, unit_count, unit, 100 * chance, unit))


class Options(object):
    def __init__(self, resamples=bootstrap.DEFAULT_RESAMPLES, seed=bootstrap.DEFAULT_SEED,
                 permutations=significance.DEFAULT_PATTERNS, adjustment="maxT", ground_truth=True, reference=None,
                 missing="track"):
        self.resamples, self.seed, self.permutations = resamples, seed, permutations
        self.adjustment, self.ground_truth, self.reference = adjustment, ground_truth, reference
        self.missing = missing


class PairTests(object):
    """Every unordered pair (a < b) of one score: difference a - b (as the score reads),
    interval, p-values; `better` and p_better follow the score's direction; how the test
    ran (exhaustive, patterns, unit_count) and the pairs where test and interval disagree."""

    def __init__(self, key, pairs, difference, low, high, p, p_adjusted, p_better, p_worse, effect, test, units,
                 oriented_sign, exhaustive, patterns, unit_count, test_unit="item"):
        self.key, self.pairs = key, pairs
        self.difference, self.low, self.high = difference, low, high
        self.p, self.p_adjusted, self.effect = p, p_adjusted, effect
        self.p_better, self.p_worse = p_better, p_worse  # bootstrap P(a better than b), P(b better than a)
        self.test, self.units = test, units
        self.sign = oriented_sign  # +1: higher is better; -1: lower is better
        self.exhaustive, self.patterns, self.unit_count = exhaustive, patterns, unit_count
        self.withheld = np.isnan(p)  # pairs given no p-value (paired_tests)
        self.unseen = np.zeros(p.shape)  # tested by item: significance.unseen_failure of each pair
        self.withheld_reason = withheld_reason(unit_count, test_unit) if self.withheld.any() else None
        self.disagreements = disagreements(self)

    def matrix(self, values):
        size = int(self.pairs.max()) + 1 if self.pairs.size else 1
        out = np.ones((size, size))
        out[self.pairs[:, 0], self.pairs[:, 1]] = values
        out[self.pairs[:, 1], self.pairs[:, 0]] = values
        return out

    def better(self, alpha=ALPHA):
        """better[i, j]: i is significantly better than j (adjusted p < alpha)."""
        size = int(self.pairs.max()) + 1 if self.pairs.size else 1
        out = np.zeros((size, size), dtype=bool)
        significant = below(self.p_adjusted, alpha)
        a, b = self.pairs[:, 0], self.pairs[:, 1]
        ahead = self.sign * self.difference > 0  # exact: the difference is 0.0 exactly when it is 0
        out[a[significant & ahead], b[significant & ahead]] = True
        out[b[significant & ~ahead], a[significant & ~ahead]] = True
        return out


# -- the records each step returns (arrays indexed by submission, dicts by score key) ----------

def _record(cls):
    """A step's result: its fields declared, set once when the step returns it."""
    return dataclass(frozen=True, eq=False)(cls)


@_record
class Track:
    """What the views say of the track: its submissions, items, strata and scores."""
    label: str
    names: list
    unit: str  # the item's name: image, page
    strata: list
    primary: str
    scores: OrderedDict  # score key -> itemview.Score
    ranked: list  # the ranked score keys, the primary first when the view does not rank it

    @classmethod
    def of_view(cls, label, names, view):
        ranked = [k for k in view.ranked() if k in view.scores]
        if view.primary not in ranked:
            ranked.insert(0, view.primary)
        return cls(label, list(names), view.unit, view.strata, view.primary, OrderedDict(view.scores), ranked)

    def lower_is_better(self, key=None):
        return self.scores[key or self.primary].lower_is_better


@_record
class Leaderboard:
    values: OrderedDict  # score key -> (K,) each submission's value
    keys: OrderedDict  # ranked score key -> (K,) exact order keys, oriented (larger is better)
    rank: np.ndarray  # (K,) competition rank by the primary score
    missing_items: list  # per submission, the items its view marks missing
    given: OrderedDict  # ranked score key -> (K,) whether the submission gave the score's input (Score.given)


@_record
class Confidence:
    """The stratified bootstrap: its weights, every ranked score's resampled values,
    intervals and exact keys, and the primary score's rank distribution."""
    weights: list
    resamples: int
    seed: int
    df: OrderedDict  # score key -> (K,) each submission's degrees of freedom of the widening
    widening: OrderedDict  # score key -> (K,) t/z factors
    pair_df: OrderedDict  # score key -> the degrees of freedom of a difference's interval: N - B
    small_strata: list  # [(stratum, items)] with fewer than 10 items
    samples: OrderedDict  # score key -> (R, K)
    intervals: OrderedDict  # score key -> (low (K,), high (K,))
    sample_keys: OrderedDict  # score key -> (R, K) exact order keys
    rank_median: np.ndarray
    rank_interval: tuple  # (low (K,), high (K,))
    rank_frequency: np.ndarray  # (K, K): [s, r] share of resamples ranking s at r + 1


@_record
class Significance:
    tests: OrderedDict  # score key -> PairTests
    permutations: int
    adjustment: str  # maxT or holm


@_record
class Kemeny:
    """The Kemeny consensus of the mean-then-rank task rankings, and its Kendall tau-b with
    the leaderboard: of the order shown (ties among optimal orders broken by the
    leaderboard, which pulls it towards the leaderboard) and the least and most over
    every optimal order (None when the search is not exact)."""
    positions: np.ndarray  # 1..K
    cost: int  # the summed symmetric-difference distance
    optimal: Optional[int]  # how many orders are optimal (None: a local optimum)
    exact: bool
    tau: Optional[float]
    tau_range: Optional[tuple]


@_record
class Methods:
    """challengeR's rankings of the primary score and their agreement with the leaderboard."""
    task_rankings: OrderedDict  # method -> per task (ranks, values)
    case_ranks: list  # per task, (K, cases) ranks on each case
    consensus: OrderedDict  # method -> {"euclidean", "mean_rank"}
    kemeny: Kemeny
    wins: np.ndarray
    methods: OrderedDict  # method -> (K,) ranks, the leaderboard first
    agreement: list  # [(method, tau-b with the leaderboard, rank distance)], the leaderboard left out
    winners: list  # submissions no leader is significantly better than
    groups: list  # significance letters per submission


@_record
class Stability:
    tau: OrderedDict  # "leaderboard" or stratum -> tau-b of each resample's ranking
    task_bootstrap: OrderedDict  # stratum -> its bootstrap ranks
    stratum_values: np.ndarray  # (K, H)
    stratum_ranks: np.ndarray  # (K, H)
    stratum_rank_share: np.ndarray  # (K, K)


@_record
class McNemar:
    pairs: np.ndarray
    b: np.ndarray  # i right, j wrong
    c: np.ndarray  # i wrong, j right
    p: np.ndarray
    p_holm: np.ndarray
    accuracy: np.ndarray


@_record
class GroundTruthFree:
    metrics: dict
    reference: str
    reference_index: Optional[int]
    unit: str
    n_agree: np.ndarray
    p: np.ndarray
    rank_values: np.ndarray
    f_rank: np.ndarray
    reference_rank: np.ndarray
    reference_accuracy: Optional[dict]
    agreement: Optional[list]  # [(ranking, score, rank distance, tau-b, chance_tau)] with ground truth


@_record
class TrackAnalysis(Track):
    """Everything the report shows for one track: the records of its steps (None for a
    step not run: without ground truth only `leaderboard` and `gt_free`)."""
    ground_truth: bool = False
    leaderboard: Optional[Leaderboard] = None
    confidence: Optional[Confidence] = None
    significance: Optional[Significance] = None
    cases: Any = None  # cases.Cases
    methods: Optional[Methods] = None
    stability: Optional[Stability] = None
    protocol_pairs: list = field(default_factory=list)  # [(score, score, rank distance, tau-b)]
    mcnemar: Optional[McNemar] = None
    gt_free: Optional[GroundTruthFree] = None
    notes: list = field(default_factory=list)
    seconds: OrderedDict = field(default_factory=OrderedDict)  # step -> seconds, in the order run

    @property
    def rank(self):
        return self.leaderboard.rank

    @property
    def values(self):
        return self.leaderboard.values


def check_same_items(label, names, views):
    first = views[0]
    for name, view in zip(names[1:], views[1:]):
        same = (view.items == first.items and view.strata == first.strata and list(view.scores) == list(first.scores)
                and all(np.array_equal(view.columns[c], first.columns[c]) for c in first.reference_columns))
        if not same:
            raise ReferenceDataError("Track %s: submissions %s and %s were scored against different reference data; "
                                     "score every submission against the same ref/." % (label, names[0], name))


def analyse(label, names, views, options, foregrounds=None):
    """The TrackAnalysis of one track; its `seconds`: the time each step took (in the order
    run; bench/bench_compare.py shows where the time goes)."""
    check_same_items(label, names, views)
    track = Track.of_view(label, names, views[0])
    seconds = OrderedDict()

    def timed(name, step, *args):
        start = time.perf_counter()
        out = step(*args)
        seconds[name] = time.perf_counter() - start
        return out
    found = {"ground_truth": options.ground_truth, "seconds": seconds}
    board = found["leaderboard"] = timed("leaderboard", _leaderboard, track, views)
    if options.ground_truth:
        confidence = found["confidence"] = timed("intervals", _confidence, track, views, board, options)
        significance = found["significance"] = timed("paired tests", _significance, track, views, confidence,
                                                     options)
        cases, found["notes"] = timed("cases", _cases, track, views, options)
        found["cases"] = cases
        found["methods"] = timed("challengeR methods", _methods, track, board, cases, significance)
        found["stability"] = timed("stability", _stability, track, views, board, confidence, cases)
        found["protocol_pairs"] = timed("protocols", _protocols, track, board)
        found["mcnemar"] = timed("McNemar", _mcnemar, views)
    found["gt_free"] = timed("without ground truth", _without_ground_truth, track, views, board, options,
                             foregrounds)
    fields = dict((name, getattr(track, name)) for name in Track.__dataclass_fields__)
    fields.update(found)
    return TrackAnalysis(**fields)


def _leaderboard(track, views):
    values = OrderedDict()
    for view in views:
        for key, value in itemview.leaderboard(view).items():
            values.setdefault(key, []).append(value)
    values = OrderedDict((k, np.array(v)) for k, v in values.items())
    keys = OrderedDict((k, leaderboard_keys(views, k, values[k])) for k in track.ranked)
    given = OrderedDict((k, np.array([track.scores[k].given is None or bool(v.columns[track.scores[k].given].any())
                                      for v in views])) for k in track.ranked)
    return Leaderboard(values, keys, bootstrap.competition_ranks(keys[track.primary])[0],
                       case_values.missing_items(views), given)


# -- exact keys of scores -------------------------------------------------------------------

def _tolerance(views, key):
    """The rounding margin of score `key`'s values, infinite (every comparison exact) when a
    term can be negative (the error bound assumes sums of non-negative terms)."""
    view = views[0]
    statistic = view.scores[key].statistic
    columns = statistic.columns() if statistic.kind == "ratio" else []
    if any(np.any(v.columns[c] < 0) for v in views for c in columns):
        return float("inf")
    return significance.margin(exact.terms_of(view))


def twins(views, key):
    """A label per submission, equal for submissions whose terms of score `key` are the
    same arrays (their values are then exactly equal on every resample): the arrays'
    bytes hashed (once per view and columns, kept in view.memo), and equal hashes compared."""
    columns = views[0].scores[key].statistic.columns()
    labels, seen = [], {}
    for k, view in enumerate(views):
        memo = ("sha1", tuple(columns))
        if memo not in view.memo:
            view.memo[memo] = hashlib.sha1(b"".join(view.columns[c].tobytes() for c in columns)).digest()
        digest = view.memo[memo]
        match = next((j for j in seen.get(digest, []) if all(
            np.array_equal(view.columns[c], views[j].columns[c]) for c in columns)), None)
        labels.append(k if match is None else labels[match])
        seen.setdefault(digest, []).append(k)
    return labels


def leaderboard_keys(views, key, values):
    """Integer keys of the submissions' values of `key` in the exact order of the score,
    oriented (a larger key is better)."""
    score = views[0].scores[key]
    sign = -1 if score.lower_is_better else 1
    keys = exact.integer_keys(views, score)
    if keys is not None:
        return sign * keys[0]
    return exact.order_keys(score.oriented(values), lambda k: sign * exact.score_value(views[k], score),
                            _tolerance(views, key), twins(views, key))


def resample_keys(views, key, samples, weights, stratum=None):
    """Per resample (row), the exact order keys of the submissions' values of `key` (of
    one stratum's value, with `stratum`), oriented."""
    score = views[0].scores[key]
    sign = -1 if score.lower_is_better else 1
    keys = exact.integer_keys(views, score, weights, stratum)
    if keys is not None:
        return sign * keys

    if stratum is None:
        def value(row, k):
            return sign * exact.score_value(views[k], score, [w[row] for w in weights])
    else:
        def value(row, k):
            return sign * exact.stratum_value(views[k], score.statistic, stratum, weights[stratum][row])
    return exact.row_keys(score.oriented(samples), value, _tolerance(views, key), twins(views, key))


def stratum_keys(views, key, values, h):
    """Exact order keys of the submissions' values of stratum h of `key`'s statistic."""
    score = views[0].scores[key]
    sign = -1 if score.lower_is_better else 1
    keys = exact.integer_keys(views, score, stratum=h)
    if keys is not None:
        return sign * keys[0]
    return exact.order_keys(score.oriented(values), lambda k: sign * exact.stratum_value(views[k], score.statistic, h),
                            _tolerance(views, key), twins(views, key))


# -- confidence -------------------------------------------------------------------------------

def _confidence(track, views, board, options):
    weights = bootstrap.draw_weights(views[0], options.resamples, options.seed)
    ranked = track.ranked
    # each submission's own degrees of freedom (the participant's page computes its interval so)
    df = OrderedDict((k, np.array([bootstrap.degrees_of_freedom(v, k) for v in views])) for k in ranked)
    samples = OrderedDict((k, np.empty((options.resamples, len(views)))) for k in ranked)
    for column, view in enumerate(views):
        for key, values in itemview.aggregate(view, weights, ranked).items():
            samples[key][:, column] = values
    intervals = OrderedDict((k, _intervals(views, k, s, board.values[k], df[k])) for k, s in samples.items())
    sample_keys = OrderedDict((k, resample_keys(views, k, samples[k], weights)) for k in ranked)
    ranks = bootstrap.competition_ranks(sample_keys[track.primary])
    size = len(views)
    frequency = np.stack([np.bincount(ranks[:, s], minlength=size + 1)[1:] for s in range(size)]) \
        / float(options.resamples)
    return Confidence(
        weights, options.resamples, options.seed, df, OrderedDict((k, bootstrap.widening(d)) for k, d in df.items()),
        OrderedDict((k, bootstrap.degrees_of_freedom(views[0], k, welch=False)) for k in ranked),
        [(s, int(n)) for s, n in zip(views[0].strata, views[0].sizes) if n < 10], samples, intervals, sample_keys,
        np.median(ranks, axis=0), bootstrap.rank_interval(ranks), frequency)


def _intervals(views, key, samples, values, df):
    """(low, high) arrays of each submission's interval of `key`: the participant's page's
    (bootstrap.ap_intervals for an average precision, without the draws; else the
    percentile interval of the samples, its low end at most each one's failure floor)."""
    if bootstrap.drawless(views[0].scores[key]):
        pairs = np.array([bootstrap.ap_intervals(view, key)[0] for view in views]).reshape(-1, 2)
        return pairs[:, 0], pairs[:, 1]
    return bootstrap.interval(samples, values, df, bounds=views[0].scores[key].bounds,
                              floor=_floors(views, key, values))


def _floors(views, key, values):
    """(K,) bootstrap.failure_floor of every submission's score, or None where the score has none."""
    floors = [bootstrap.failure_floor(v, key, value) for v, value in zip(views, np.asarray(values).tolist())]
    return None if any(f is None for f in floors) else np.array([float(f) for f in floors])


# -- significance -----------------------------------------------------------------------------

def contributions(views, key):
    """(units, K) shares of the score `key` of every submission, the unit's name, each
    unit's stratum (None when the units are strata) and their exact values
    (significance.ExactUnits).

    A Ratio whose denominators are reference columns is linear in its items: item i of
    stratum h adds sum over terms t of num_t(i) / (T H sum_h den_t), so the test swaps
    items. Any other statistic (average precision, a ratio over the submission's own
    decisions) is not a sum over items: the test swaps strata, each adding value_h / H.
    """
    first = views[0]
    score = first.scores[key]
    statistic = score.statistic
    strata = len(first.strata)
    if not case_values.linear(first, key):
        values = np.concatenate([itemview.stratum_values(v, statistic) for v in views], axis=0).T
        count = max(strata, 1)

        def fraction(u, k):
            return exact.stratum_value(views[k], statistic, u) / count
        same = _same_strata(views, statistic)
        return values / count, "stratum", None, significance.ExactUnits(exact.cached(fraction), same=same)
    terms = len(statistic.terms)
    totals = [[Fraction(exact.item_rationals(first, den).weighted_sum(None, start, end))
               for start, end in first.bounds] for _, den in statistic.terms]
    if score.pooled:  # the strata pooled: each stratum's share of one total, so an item adds num / (T total)
        totals = [[sum(row, Fraction(0)) / strata] * strata for row in totals]
    coefficients = np.zeros((terms, len(first.items)))
    for t in range(terms):
        for h, (start, end) in enumerate(first.bounds):
            if totals[t][h] != 0:
                coefficients[t, start:end] = 1.0 / (terms * strata * float(totals[t][h]))
    x = np.stack([sum(coefficients[t] * v.columns[num] for t, (num, _) in enumerate(statistic.terms))
                  for v in views], axis=1)
    stratum_of = first.stratum

    def fraction(u, k):
        h = int(stratum_of[u])
        total = Fraction(0)
        for t, (num, _) in enumerate(statistic.terms):
            if totals[t][h] != 0:
                total += exact.item_value(views[k], num, u) / (terms * strata * totals[t][h])
        return total
    return x, "item", stratum_of, significance.ExactUnits(exact.cached(fraction), *_integers(views, statistic, totals))


def _same_strata(views, statistic):
    """same(h): every submission's value of stratum h is exactly the same; identical
    columns of the stratum give it without computing."""
    def same(h):
        start, end = views[0].bounds[h]
        columns = statistic.columns()
        if all(np.array_equal(v.columns[c][start:end], views[0].columns[c][start:end]) for v in views
               for c in columns):
            return True
        first = exact.stratum_value(views[0], statistic, h)
        return all(exact.stratum_value(v, statistic, h) == first for v in views[1:])
    return same


def _integers(views, statistic, totals):
    """(integers, scale) of the item shares over one common denominator when the terms are
    integers and the shares fit below 2**52, else (None, 1): the sign-flip sums are then
    exact in floating point."""
    first = views[0]
    numerators = [[exact.item_rationals(v, num) for v in views] for num, _ in statistic.terms]
    if not all(r.integral for row in numerators for r in row):
        return None, 1
    terms, strata = len(statistic.terms), len(first.strata)
    scale = 1
    for row in totals:
        for total in row:
            if total != 0:
                scale = significance.lcm(scale, (terms * strata * total).numerator)
                if scale > significance.EXACT_BELOW:
                    return None, 1
    factors = np.zeros((terms, len(first.items)), dtype=object)
    for t in range(terms):
        for h, (start, end) in enumerate(first.bounds):
            if totals[t][h] != 0:
                factor = Fraction(scale) / (terms * strata * totals[t][h])
                if factor.denominator != 1:
                    return None, 1
                factors[t, start:end] = int(factor)
    integers = np.zeros((len(first.items), len(views)), dtype=object)
    for t in range(terms):
        for k in range(len(views)):
            integers[:, k] += factors[t] * numerators[t][k].numerators.astype(object)
    floats = significance.exact_floats(integers)
    return (None, 1) if floats is None else (floats, scale)


def paired_tests(views, key, options):
    """The paired tests of score `key` between every two submissions: (contributions, unit,
    pairs, differences, p, adjusted p, sign patterns, whether exhaustive).

    Where the units are items, p is the larger of the sign-flip test's and Hall's
    skewness-corrected t's (significance.skew_corrected); the adjusted p the max-T
    adjustment of the sign flips (over their joint patterns), raised to p where p is
    larger, or Holm's of p. The first is exact under exchangeability; under the weaker null
    of equal expected scores it exceeds its level when the per-item differences are skewed
    and the items few (a steady submission against one that fails a page now and then, 3
    manuscripts of 6 pages), which the second corrects; bench/coverage.py measures both.
    Units that are strata (average precision's categories) keep the sign flips alone: a
    few strata leave the t reference far more conservative than the flips' own
    distribution, for a level the flips already hold there.
    Tested by item, a pair significant at ALPHA whose leader, failing on just enough items
    to lose its lead in expectation, would show no failure here with a chance of ALPHA or
    more (significance.unseen_failure) gets no p-value (NaN, raw and adjusted): the report
    says why instead."""
    x, unit, strata, exact_units = contributions(views, key)
    pairs, difference, p_flip, p_max, total, exhaustive = significance.paired_randomisation(
        x, options.permutations, options.seed, strata, exact_units)
    p = p_flip
    if unit == "item":
        p = np.maximum(p_flip, significance.skew_corrected(x, pairs, strata))
    p_adjusted = np.maximum(p_max, p) if options.adjustment == "maxT" else significance.holm(p)
    if unit == "item":
        withheld = below(p) & (unseen_chances(views, key, x, strata, pairs) >= ALPHA)
        p, p_adjusted = np.where(withheld, np.nan, p), np.where(withheld, np.nan, p_adjusted)
    return x, unit, pairs, difference, p, p_adjusted, total, exhaustive


def unseen_chances(views, key, x, strata, pairs):
    """significance.unseen_failure of each pair of a score tested by item."""
    score = views[0].scores[key]
    return significance.unseen_failure(x, pairs, _worst_shares(score, x, strata), -1 if score.lower_is_better else 1)


def _worst_shares(score, x, strata):
    """(units, K): each submission's share of each unit at the bad end of the score's range:
    0 where the score is higher-is-better from 0 (a page or image on which it finds
    nothing), else the worst share any submission has on a unit of that stratum."""
    worst = np.zeros(x.shape)
    if not score.lower_is_better and score.bounds is not None and score.bounds[0] == 0:
        return worst
    strata = np.asarray(strata)
    for h in np.unique(strata).tolist():
        part = x[strata == h]
        worst[strata == h] = part.max() if score.lower_is_better else part.min()
    return worst


def _significance(track, views, confidence, options):
    tests = OrderedDict()
    for key in track.ranked:
        x, unit, pairs, difference, p, p_adjusted, total, exhaustive = paired_tests(views, key, options)
        score = track.scores[key]
        low, high, better, worse, effect = _pair_intervals(
            confidence.samples[key], confidence.sample_keys[key], pairs, difference, confidence.pair_df[key],
            bootstrap.difference_bounds(score.bounds))
        units = x.shape[0] if unit == "item" else len(track.strata)
        test = ("paired randomisation, %s of %d %ss, studentized%s, %s" % (
            "all %d sign patterns" % total if exhaustive else "%d seeded sign patterns" % total,
            units, track.unit if unit == "item" else "strat",
            " within strata, guarded by Hall's skewness-corrected t" if unit == "item" else "",
            "Westfall-Young max-T" if options.adjustment == "maxT" else "Holm"))
        test = test.replace("strats", "strata")
        tests[key] = PairTests(key, pairs, difference, low, high, p, p_adjusted, better, worse, effect, test, unit,
                               -1 if score.lower_is_better else 1, exhaustive, total, units, track.unit)
        if unit == "item":
            tests[key].unseen = unseen_chances(views, key, x, views[0].stratum, pairs)
    return Significance(tests, options.permutations, options.adjustment)


def _pair_intervals(samples, keys, pairs, difference, df, bounds, chunk=500):
    """Paired bootstrap interval of each difference a - b, the share of resamples where the
    first is strictly better (and the second; exact, from the resamples' keys), and the
    effect size: difference / bootstrap SD."""
    m = pairs.shape[0]
    low, high, better, worse, effect = (np.zeros(m) for _ in range(5))
    for start in range(0, m, chunk):
        part = pairs[start:start + chunk]
        d = samples[:, part[:, 0]] - samples[:, part[:, 1]]
        low[start:start + chunk], high[start:start + chunk] = bootstrap.interval(
            d, difference[start:start + chunk], df, bounds=bounds)
        better[start:start + chunk] = np.mean(keys[:, part[:, 0]] > keys[:, part[:, 1]], axis=0)
        worse[start:start + chunk] = np.mean(keys[:, part[:, 0]] < keys[:, part[:, 1]], axis=0)
        spread = d.std(axis=0)
        effect[start:start + chunk] = np.where(spread > 0, difference[start:start + chunk] / np.where(
            spread > 0, spread, 1.0), 0.0)
    return low, high, better, worse, effect


def disagreements(tests, alpha=ALPHA):
    """Pairs where the raw test and the 95% interval of the difference answer differently
    (p < alpha while the interval holds 0, or p >= alpha while it excludes 0), each with
    the reason: (index, reason)."""
    out = []
    for j in range(tests.pairs.shape[0]):
        if np.isnan(tests.p[j]):
            continue  # no test given: nothing to disagree with
        excludes = tests.low[j] > 0 or tests.high[j] < 0
        significant = tests.p[j] < alpha
        if excludes == significant:
            continue
        if not significant and tests.exhaustive and 2.0 / tests.patterns >= alpha:
            reason = ("with %d units the smallest p a sign-flip test can give is %.3g, not below %.2g"
                      % (tests.unit_count, 2.0 / tests.patterns, alpha))
        elif alpha / 2 <= tests.p[j] <= 2 * alpha:
            reason = ("both are near the 5%% boundary (p = %.4f, interval [%.4f, %.4f]): the interval is a "
                      "bootstrap approximation, the test exact under exchangeability, and they part at the "
                      "boundary" % (tests.p[j], tests.low[j], tests.high[j]))
        else:
            reason = ("p = %.4f against the interval [%.4f, %.4f]: the bootstrap distribution of the difference "
                      "is skewed or rests on few units, and the percentile interval and the studentized test "
                      "weigh its tails differently" % (tests.p[j], tests.low[j], tests.high[j]))
        out.append((j, reason))
    return out


# -- cases and challengeR's methods ---------------------------------------------------------

def _cases(track, views, options):
    """(the cases of the primary score with challengeR's na.treat applied, notes)."""
    cases = case_values.of_views(views, track.primary, track.names)
    treatment, notes = options.missing, []
    if treatment == "worst" and cases.missing.any():
        try:
            case_values.worst_value(track.scores[track.primary])
        except ValueError:
            notes.append("The score has no bound on its bad side: missing cases are left out (na.rm) instead "
                         "of replaced by the worst value.")
            treatment = "na.rm"
    cases.treat(treatment, track.scores[track.primary])
    return cases, notes


def _methods(track, board, cases, significance):
    """challengeR's rankings of the primary score per task, and their consensus."""
    lower = track.lower_is_better()
    rank = board.rank
    task_rankings = OrderedDict((name, []) for name in challenger.METHODS)  # method -> per task (ranks, values)
    case_ranks = []  # per task, (K, cases) ranks on each case (missing: after every other)
    for t in range(len(cases.tasks)):
        task = challenger.Oriented(cases, cases.of_task(t), lower)
        case_ranks.append(challenger.case_ranks(task))
        task_rankings["mean-then-rank"].append(challenger.mean_then_rank(task))
        task_rankings["median-then-rank"].append(challenger.median_then_rank(task))
        task_rankings["rank-then-mean"].append(challenger.rank_then_mean(task))
        task_rankings["test-then-rank"].append(challenger.test_then_rank(task))
    preference = np.argsort(rank, kind="mergesort").tolist()
    consensus = OrderedDict()
    for name, per_task in task_rankings.items():
        euclid, means = challenger.euclidean_consensus([r for r, _ in per_task])
        consensus[name] = {"euclidean": euclid, "mean_rank": means}
    positions, cost, optimal, is_exact, concordance = challenger.kemeny_consensus(
        [r for r, _ in task_rankings["mean-then-rank"]], preference, -rank)
    kemeny = Kemeny(positions, cost, optimal, is_exact, agreement.kendall_tau_b(-rank, -positions),
                    _tau_range(rank, concordance))
    better = significance.tests[track.primary].better()
    wins = better.sum(axis=1)
    methods = OrderedDict([("leaderboard", rank)])
    for name in challenger.METHODS:
        methods[name] = consensus[name]["euclidean"]
    methods["Kemeny (mean-then-rank)"] = positions
    methods["significance wins"] = challenger.min_ranks(wins.tolist())
    with_leaderboard = [(name, agreement.kendall_tau_b(-rank, -ranks), agreement.rank_distance(-rank, -ranks))
                        for name, ranks in list(methods.items())[1:]]
    leaders = np.flatnonzero(rank == 1)
    # Could be the winner: no leader is significantly better.
    winners = [s for s in range(len(track.names)) if not better[leaders, s].any()]
    return Methods(task_rankings, case_ranks, consensus, kemeny, wins, methods, with_leaderboard, winners,
                   significance_groups(better, np.argsort(rank, kind="mergesort")))


def _tau_range(rank, concordance):
    """Kendall's tau-b with the ranking `rank` of the linear orders whose concordant less
    discordant pairs are concordance = (least, most): (C - D) / sqrt((n0 - n1) n0), a
    linear order tying no pair (None without concordance or when the ranking is all ties)."""
    if concordance is None:
        return None
    count = len(rank)
    pairs = count * (count - 1) // 2
    tied = (int(np.sum(rank[:, None] == rank[None, :])) - count) // 2
    if pairs - tied == 0:
        return None
    denominator = math.sqrt(float(pairs - tied) * pairs)
    return concordance[0] / denominator, concordance[1] / denominator


METHODS = OrderedDict([
    ("leaderboard", "the score itself: the mean over strata of the stratum scores"),
    ("mean-then-rank", "per task, the mean of the case values, ranked; then the tasks' mean ranks"),
    ("median-then-rank", "per task, the median of the case values, ranked; then the tasks' mean ranks"),
    ("rank-then-mean", "per task, each case ranks the submissions, the mean rank is ranked; then the tasks' mean "
                       "ranks"),
    ("test-then-rank", "per task, how many others a submission beats by a one-sided Wilcoxon test (alpha 0.05, "
                       "no adjustment); then the tasks' mean ranks"),
    ("Kemeny (mean-then-rank)", "the order closest to the mean-then-rank task rankings (fewest pairs against a "
                                "task's order)"),
    ("significance wins", "how many submissions each is significantly better than (the paired tests below)"),
])


def significance_groups(better, order):
    """Compact letter display (Piepho 2004): letters such that two submissions share a
    letter unless one is significantly better than the other; letters named in leaderboard
    order. Returns a list of strings, one per submission.

    Piepho's insert-absorb splits, for each significant pair, every column holding both
    and drops the columns held by another; what it ends with is every maximal set of
    submissions no two of which differ significantly, the maximal cliques of the graph
    of undecided pairs, whatever the order of the pairs. Those are listed here directly
    (Bron-Kerbosch with a pivot, Tomita et al. 2006), as bit masks."""
    count = better.shape[0]
    differ = better | better.T
    undecided = [sum(1 << j for j in np.flatnonzero(~differ[i]).tolist() if j != i) for i in range(count)]
    columns = maximal_cliques(undecided)
    position = dict((s, p) for p, s in enumerate(order.tolist()))
    members = [sorted(position[s] for s in range(count) if c >> s & 1) for c in columns]
    members = [[order[p] for p in column] for column in sorted(members)]
    letters = [""] * count
    for index, column in enumerate(members):
        letter = _letter(index)
        for s in column:
            letters[s] += letter
    return letters


def maximal_cliques(neighbours):
    """The maximal cliques (bit masks) of the graph whose vertex i has the neighbours
    neighbours[i] (a bit mask): Bron-Kerbosch with Tomita's pivot (the vertex of the
    candidates and the excluded with the most candidates among its neighbours), a stack
    in place of recursion. A graph without vertices has one clique, the empty one."""
    out = []
    stack = [(0, (1 << len(neighbours)) - 1, 0)]  # (clique, candidates, excluded)
    while stack:
        clique, candidates, excluded = stack.pop()
        if not candidates:
            if not excluded:
                out.append(clique)
            continue
        pivot = max(_bits(candidates | excluded), key=lambda u: bin(candidates & neighbours[u]).count("1"))
        for v in _bits(candidates & ~neighbours[pivot]):
            bit = 1 << v
            stack.append((clique | bit, candidates & neighbours[v], excluded & neighbours[v]))
            candidates &= ~bit
            excluded |= bit
    return out


def _bits(mask):
    """The positions of the set bits of `mask`, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _letter(index):
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    return alphabet[index] if index < 26 else _letter(index // 26 - 1) + alphabet[index % 26]


# -- stability: per-task bootstrap, tau, stability across strata -------------------------------

def _stability(track, views, board, confidence, cases):
    """Per task, the bootstrap ranks (blob plots per stratum) and Kendall's tau between the
    task's ranking and each bootstrap ranking of it (challengeR's violin plot); the
    leaderboard's own tau first. Tasks are the strata when the cases are items."""
    primary, strata = track.primary, track.strata
    statistic = views[0].scores[primary].statistic
    tau = OrderedDict()
    tau["leaderboard"] = _taus(board.keys[primary], confidence.sample_keys[primary])
    task_bootstrap = OrderedDict()
    # Each stratum's value of the primary statistic, and the submissions' ranks there.
    observed = np.concatenate([itemview.stratum_values(v, statistic) for v in views], axis=0)  # (K, H)
    keys_by_stratum = [stratum_keys(views, primary, observed[:, h], h) for h in range(len(strata))]
    stratum_ranks = np.stack([bootstrap.competition_ranks(k)[0] for k in keys_by_stratum], axis=1) \
        if keys_by_stratum else np.zeros((len(views), 0), dtype=np.int64)
    size = len(views)
    share = np.stack([np.bincount(stratum_ranks[s], minlength=size + 1)[1:size + 1]
                      for s in range(size)]) / float(max(len(strata), 1))
    if cases.kind == "item" and len(strata) >= 2:
        weights = confidence.weights
        stratum_samples = np.stack([itemview.stratum_values(v, statistic, weights) for v in views],
                                   axis=2)  # (R, H, K)
        for h, stratum in enumerate(strata):
            keys = keys_by_stratum[h]
            sample_keys = resample_keys(views, primary, stratum_samples[:, h, :], weights, stratum=h)
            ranks = bootstrap.competition_ranks(sample_keys)
            task_bootstrap[stratum] = {
                "rank": bootstrap.competition_ranks(keys)[0],
                "frequency": np.stack([np.bincount(ranks[:, s], minlength=size + 1)[1:] for s in range(size)])
                / float(ranks.shape[0]),
                "median": np.median(ranks, axis=0), "interval": bootstrap.rank_interval(ranks)}
            tau[stratum] = _taus(keys, sample_keys)
    return Stability(tau, task_bootstrap, observed, stratum_ranks, share)


def _taus(keys, sample_keys):
    """Kendall's tau-b between the ranking given by `keys` and each row of `sample_keys`
    (agreement.kendall_tau_b, for all rows at once: NaN where it is undefined). The pairs
    (i, j > i) are taken a submission i at a time, against the columns after it (slices,
    not gathers); concordant less discordant pairs and ties counted as integers."""
    keys = np.asarray(keys)
    samples = np.asarray(sample_keys)
    count = keys.shape[0]
    score = np.zeros(samples.shape[0], dtype=np.int64)  # concordant less discordant pairs
    tied = np.zeros(samples.shape[0], dtype=np.int64)
    tied_reference = 0
    for i in range(count - 1):
        reference = np.sign(keys[i] - keys[i + 1:])
        signs = np.sign(samples[:, i:i + 1] - samples[:, i + 1:])
        score += (signs * reference).sum(axis=1)
        tied += np.count_nonzero(signs == 0, axis=1)
        tied_reference += int(np.count_nonzero(reference == 0))
    pairs = count * (count - 1) // 2
    denominator = np.sqrt(float(pairs - tied_reference) * (pairs - tied).astype(float))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, score / denominator, np.nan)


def _protocols(track, board):
    """Rank distance and tau-b between the rankings of every two ranked scores (oriented,
    exact keys)."""
    out = []
    names = track.ranked
    for x in range(len(names)):
        for y in range(x + 1, len(names)):
            p, q = names[x], names[y]
            out.append((p, q, agreement.rank_distance(board.keys[p], board.keys[q]),
                        agreement.kendall_tau_b(board.keys[p], board.keys[q])))
    return out


# -- secondary views ------------------------------------------------------------------------------

def _decisions(views):
    first = views[0]
    if first.decision is None:
        return None
    return np.stack([v.columns[first.decision] for v in views]) > 0


def _mcnemar(views):
    """Secondary view: exact McNemar test of per-item correctness (pooled accuracy); None
    without decisions and truth."""
    decisions = _decisions(views)
    if decisions is None or views[0].truth is None:
        return None
    truth = views[0].columns[views[0].truth] > 0
    correct = (decisions == truth[None, :]).astype(np.float64)
    wrong = 1.0 - correct
    b = correct.dot(wrong.T)  # b[i, j]: i right, j wrong
    upper = np.triu_indices(len(views), 1)
    counts_b, counts_c = b[upper].astype(np.int64), b.T[upper].astype(np.int64)
    p = np.array([significance.mcnemar_exact(x, y) for x, y in zip(counts_b, counts_c)])
    return McNemar(np.stack(upper, axis=1), counts_b, counts_c, p, significance.holm(p), correct.mean(axis=1))


def _without_ground_truth(track, views, board, options, foregrounds):
    """The ranking without ground truth (None without decisions or foregrounds)."""
    names = track.names
    reference = names.index(options.reference) if options.reference is not None else None
    decisions = _decisions(views)
    if foregrounds and all(foregrounds):
        stats, n_agree = pixels.from_packed(foregrounds, reference)
        unit, ref_truth = "page", None
    elif decisions is not None:
        predictions = decisions.astype(np.float64)
        p = pseudo.consensus(predictions)
        stats = pseudo.sufficient_stats(predictions, p)
        ref = p > 0.5 if reference is None else decisions[reference]
        errors = (decisions != ref[None, :]).astype(np.float64)
        n_agree = significance.agreement_counts_from_gram(errors.dot(errors.T))
        unit = views[0].unit
        ref_truth = None
        if options.ground_truth and views[0].truth is not None:
            truth = views[0].columns[views[0].truth] > 0
            ref_truth = _reference_accuracy(ref, truth)
    else:
        return None
    pvalues = significance.reference_pvalues(n_agree, n_agree.T)
    np.fill_diagonal(pvalues, 1.0)
    values = significance.reference_rank_values(n_agree, pvalues, ALPHA, excluded=reference)
    metrics = pseudo.pseudo_metrics(stats)
    reference_rank = bootstrap.competition_ranks(values)[0].astype(float)
    if reference is not None:
        others = [s for s in range(len(names)) if s != reference]
        reference_rank = np.full(len(names), np.nan)
        reference_rank[others] = bootstrap.competition_ranks(values[others])[0]
    f_rank = agreement.ranks_from_scores(metrics["f_measure"])
    found = None
    if options.ground_truth:
        truth = board.keys[track.primary]  # the ground-truth ranking, oriented: a larger key is better
        ranked = [s for s in range(len(names)) if s != reference]
        found = [
            ("pseudo F-measure", track.primary, agreement.rank_distance(truth, -f_rank),
             agreement.kendall_tau_b(truth, -f_rank), chance_tau(truth, -f_rank)),
            ("reference-classifier protocol", track.primary, agreement.rank_distance(truth[ranked], values[ranked]),
             agreement.kendall_tau_b(truth[ranked], values[ranked]), chance_tau(truth[ranked], values[ranked])),
        ]
    return GroundTruthFree(metrics, options.reference or "consensus majority vote", reference, unit, n_agree, pvalues,
                           values, f_rank, reference_rank, ref_truth, found)


def chance_tau(truth, other, draws=1000, seed=0):
    """The |tau-b| that 95 of 100 random orders stay within: Kendall's tau-b between
    `truth` and `other` shuffled (each keeping its ties), over `draws` seeded shuffles,
    the 95th percentile (order statistic) of its absolute value; None when fewer than
    three submissions are ranked (no order to shuffle) or a ranking is all ties. A tau-b
    within it says nothing about agreement."""
    truth, other = np.asarray(truth), np.asarray(other)
    if truth.shape[0] < 3:
        return None
    random = np.random.RandomState(seed)
    found = [agreement.kendall_tau_b(truth, other[random.permutation(other.shape[0])]) for _ in range(draws)]
    if any(tau is None for tau in found):
        return None
    found = sorted(abs(tau) for tau in found)
    return found[int(math.ceil(0.95 * draws)) - 1]


def _reference_accuracy(reference, truth):
    """The reference classifier's own accuracy and balanced accuracy against the ground
    truth: the paper's ranking assumes a reference better than random (above 0.5)."""
    correct = reference == truth
    positives, negatives = truth.sum(), (~truth).sum()
    recall = float((correct & truth).sum()) / positives if positives else 0.0
    specificity = float((correct & ~truth).sum()) / negatives if negatives else 0.0
    return {"accuracy": float(correct.mean()) if correct.size else 0.0,
            "balanced_accuracy": (recall + specificity) / 2.0}
