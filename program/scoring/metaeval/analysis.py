"""The statistics of one track over all submissions, from their per-item views.

Nothing here knows a track: every score is recomputed by itemview.aggregate from the
views, and the view says which scores are ranked, which columns are decisions and truth.
"""

from collections import OrderedDict

import numpy as np

from .. import itemview
from ..errors import ReferenceDataError
from ..metrics import agreement, pseudo, significance
from . import bootstrap, pixels

ALPHA = 0.05


class Options(object):
    def __init__(self, resamples=bootstrap.DEFAULT_RESAMPLES, seed=bootstrap.DEFAULT_SEED,
                 permutations=significance.DEFAULT_PATTERNS, adjustment="maxT", ground_truth=True, reference=None):
        self.resamples, self.seed, self.permutations = resamples, seed, permutations
        self.adjustment, self.ground_truth, self.reference = adjustment, ground_truth, reference


class PairTests(object):
    """Every unordered pair (a < b) of one score: difference, interval, p-values."""

    def __init__(self, key, pairs, difference, low, high, p, p_adjusted, p_better, p_worse, effect, test, units):
        self.key, self.pairs = key, pairs
        self.difference, self.low, self.high = difference, low, high
        self.p, self.p_adjusted, self.effect = p, p_adjusted, effect
        self.p_better, self.p_worse = p_better, p_worse  # bootstrap P(a > b), P(b > a)
        self.test, self.units = test, units

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
        significant = self.p_adjusted < alpha
        a, b = self.pairs[:, 0], self.pairs[:, 1]
        positive = significance.comparable(self.difference) > 0
        out[a[significant & positive], b[significant & positive]] = True
        out[b[significant & ~positive], a[significant & ~positive]] = True
        return out


class TrackAnalysis(object):
    """Everything the report shows for one track (plain arrays and tables)."""

    def __init__(self, label, names, view):
        self.label = label
        self.names = list(names)
        self.unit = view.unit
        self.strata = view.strata
        self.primary = view.primary
        self.ranked = [k for k in view.ranked() if k in view.scores]
        if self.primary not in self.ranked:
            self.ranked.insert(0, self.primary)
        self.notes = []
        self.ground_truth = False
        self.gt_free = None


def check_same_items(label, names, views):
    first = views[0]
    for name, view in zip(names[1:], views[1:]):
        same = (view.items == first.items and view.strata == first.strata and list(view.scores) == list(first.scores)
                and all(np.array_equal(view.columns[c], first.columns[c]) for c in first.reference_columns))
        if not same:
            raise ReferenceDataError("Track %s: submissions %s and %s were scored against different reference data; "
                                     "score every submission against the same ref/." % (label, names[0], name))


def analyse(label, names, views, options, foregrounds=None):
    check_same_items(label, names, views)
    a = TrackAnalysis(label, names, views[0])
    a.values = OrderedDict()
    for view in views:
        for key, value in itemview.leaderboard(view).items():
            a.values.setdefault(key, []).append(value)
    a.values = OrderedDict((k, np.array(v)) for k, v in a.values.items())
    a.rank = bootstrap.competition_ranks(a.values[a.primary])[0]
    a.ground_truth = options.ground_truth
    if options.ground_truth:
        _confidence(a, views, options)
        _significance(a, views, options)
        _methods(a, views)
        _protocols(a)
        _mcnemar(a, views)
    _without_ground_truth(a, views, options, foregrounds)
    return a


def _confidence(a, views, options):
    weights = bootstrap.draw_weights(views[0], options.resamples, options.seed)
    a.resamples, a.seed = options.resamples, options.seed
    a.df = OrderedDict((k, bootstrap.degrees_of_freedom(views[0], k)) for k in a.ranked)
    a.widening = OrderedDict((k, bootstrap.widening(df)) for k, df in a.df.items())
    a.small_strata = [(s, int(n)) for s, n in zip(views[0].strata, views[0].sizes) if n < 10]
    a.samples = OrderedDict((k, np.empty((options.resamples, len(views)))) for k in a.ranked)
    for column, view in enumerate(views):
        for key, values in itemview.aggregate(view, weights, a.ranked).items():
            a.samples[key][:, column] = values
    a.intervals = OrderedDict((k, bootstrap.interval(s, a.values[k], a.df[k])) for k, s in a.samples.items())
    ranks = bootstrap.competition_ranks(a.samples[a.primary])
    size = len(views)
    a.rank_median = np.median(ranks, axis=0)
    a.rank_interval = bootstrap.rank_interval(ranks)
    a.rank_frequency = np.stack([np.bincount(ranks[:, s], minlength=size + 1)[1:] for s in range(size)]) \
        / float(options.resamples)


def contributions(views, key):
    """(units, K) shares of the score `key` of every submission, and the unit's name.

    A Ratio whose denominators are reference columns is linear in its items: item i of
    stratum h adds sum over terms t of num_t(i) / (T H sum_h den_t), so the test swaps
    items. Any other statistic (average precision, a ratio over the submission's own
    decisions) is not a sum over items: the test swaps strata, each adding value_h / H.
    """
    first = views[0]
    score = first.scores[key]
    statistic = score.statistic
    strata = len(first.strata)
    linear = statistic.kind == "ratio" and all(d in first.reference_columns for _, d in statistic.terms)
    if not linear or strata == 0:
        values = np.concatenate([itemview.stratum_values(v, statistic) for v in views], axis=0).T
        return values / max(strata, 1), "stratum"
    coefficients = np.zeros((len(statistic.terms), len(first.items)))
    for t, (_, den) in enumerate(statistic.terms):
        for start, end in first.bounds:
            total = first.columns[den][start:end].sum()
            if total != 0:
                coefficients[t, start:end] = 1.0 / (len(statistic.terms) * strata * total)
    x = np.stack([sum(coefficients[t] * v.columns[num] for t, (num, _) in enumerate(statistic.terms))
                  for v in views], axis=1)
    return x, "item"


def _significance(a, views, options):
    a.tests = OrderedDict()
    a.permutations = options.permutations
    a.adjustment = options.adjustment
    for key in a.ranked:
        x, unit = contributions(views, key)
        pairs, t, p, p_max, total, exact = significance.paired_randomisation(x, options.permutations, options.seed)
        p_adjusted = p_max if options.adjustment == "maxT" else significance.holm(p)
        samples = a.samples[key]
        difference = a.values[key][pairs[:, 0]] - a.values[key][pairs[:, 1]]
        low, high, better, worse, effect = _pair_intervals(samples, pairs, difference, a.df[key])
        units = x.shape[0] if unit == "item" else len(a.strata)
        test = ("paired randomisation, %s of %d %ss, %s" % ("all %d sign patterns" % total if exact else
                                                           "%d seeded sign patterns" % total,
                                                           units, a.unit if unit == "item" else "strat",
                                                           "Westfall-Young max-T" if options.adjustment == "maxT"
                                                           else "Holm"))
        test = test.replace("strats", "strata")
        a.tests[key] = PairTests(key, pairs, difference, low, high, p, p_adjusted, better, worse, effect, test,
                                  unit)


def _pair_intervals(samples, pairs, difference, df, chunk=2000):
    """Paired bootstrap interval of each difference, the share of resamples where the first
    is strictly better (and the second), and the effect size: difference / bootstrap SD."""
    m = pairs.shape[0]
    low, high, better, worse, effect = (np.zeros(m) for _ in range(5))
    for start in range(0, m, chunk):
        part = pairs[start:start + chunk]
        d = samples[:, part[:, 0]] - samples[:, part[:, 1]]
        low[start:start + chunk], high[start:start + chunk] = bootstrap.interval(
            d, difference[start:start + chunk], df, bounds=(-1.0, 1.0))
        better[start:start + chunk] = np.mean(significance.comparable(d) > 0, axis=0)
        worse[start:start + chunk] = np.mean(significance.comparable(d) < 0, axis=0)
        spread = d.std(axis=0)
        effect[start:start + chunk] = np.where(spread > 0, difference[start:start + chunk] / np.where(
            spread > 0, spread, 1.0), 0.0)
    return low, high, better, worse, effect


def _methods(a, views):
    """challengeR's rankings of the primary score, per-task ranks and their consensus."""
    statistic = views[0].scores[a.primary].statistic
    per_task = np.concatenate([itemview.stratum_values(v, statistic) for v in views], axis=0)  # (K, H)
    a.task_values = per_task
    a.task_ranks = bootstrap.competition_ranks(per_task.T).T if per_task.size else np.zeros(per_task.shape, int)
    mean_rank = a.task_ranks.mean(axis=1) if per_task.size else np.zeros(len(views))
    a.consensus = mean_rank
    wins = a.tests[a.primary].better().sum(axis=1)
    a.wins = wins
    a.methods = OrderedDict([
        ("mean", a.rank),
        ("median", bootstrap.competition_ranks(np.median(per_task, axis=1) if per_task.size
                                               else np.zeros(len(views)))[0]),
        ("mean rank", bootstrap.competition_ranks(-mean_rank)[0]),
        ("tests", bootstrap.competition_ranks(wins)[0]),
    ])
    a.stability = [(name, agreement.kendall_tau_b(-a.rank, -ranks), agreement.rank_distance(-a.rank, -ranks))
                   for name, ranks in list(a.methods.items())[1:]]
    better = a.tests[a.primary].better()
    leaders = np.flatnonzero(a.rank == 1)
    # Could be the winner: not significantly worse than a leader, and no leader beats it.
    a.winners = [s for s in range(len(views)) if not better[leaders, s].any()]


METHODS = OrderedDict([
    ("mean", "aggregate then rank: mean over strata (the leaderboard)"),
    ("median", "aggregate then rank: median over strata"),
    ("mean rank", "rank then aggregate: mean of the per-stratum ranks (their consensus)"),
    ("tests", "test-based: number of submissions significantly beaten"),
])


def _protocols(a):
    """Rank distance and tau-b between the rankings of every two ranked scores."""
    a.protocol_pairs = []
    names = a.ranked
    for x in range(len(names)):
        for y in range(x + 1, len(names)):
            p, q = names[x], names[y]
            a.protocol_pairs.append((p, q, agreement.rank_distance(a.values[p], a.values[q]),
                                     agreement.kendall_tau_b(a.values[p], a.values[q])))


def _decisions(views):
    first = views[0]
    if first.decision is None:
        return None
    return np.stack([v.columns[first.decision] for v in views]) > 0


def _mcnemar(a, views):
    """Secondary view: exact McNemar test of per-item correctness (pooled accuracy)."""
    a.mcnemar = None
    decisions = _decisions(views)
    if decisions is None or views[0].truth is None:
        return
    truth = views[0].columns[views[0].truth] > 0
    correct = (decisions == truth[None, :]).astype(np.float64)
    wrong = 1.0 - correct
    b = correct.dot(wrong.T)  # b[i, j]: i right, j wrong
    upper = np.triu_indices(len(views), 1)
    counts_b, counts_c = b[upper].astype(np.int64), b.T[upper].astype(np.int64)
    p = np.array([significance.mcnemar_exact(x, y) for x, y in zip(counts_b, counts_c)])
    a.mcnemar = {"pairs": np.stack(upper, axis=1), "b": counts_b, "c": counts_c, "p": p,
                 "p_holm": significance.holm(p), "accuracy": correct.mean(axis=1)}


def _without_ground_truth(a, views, options, foregrounds):
    names = a.names
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
        if a.ground_truth and views[0].truth is not None:
            truth = views[0].columns[views[0].truth] > 0
            ref_truth = _reference_accuracy(ref, truth)
    else:
        return
    pvalues = significance.reference_pvalues(n_agree, n_agree.T)
    np.fill_diagonal(pvalues, 1.0)
    values = significance.reference_rank_values(n_agree, pvalues, ALPHA, excluded=reference)
    metrics = pseudo.pseudo_metrics(stats)
    reference_rank = bootstrap.competition_ranks(values)[0].astype(float)
    if reference is not None:
        others = [s for s in range(len(names)) if s != reference]
        reference_rank = np.full(len(names), np.nan)
        reference_rank[others] = bootstrap.competition_ranks(values[others])[0]
    a.gt_free = {"metrics": metrics, "reference": options.reference or "consensus majority vote",
                 "reference_index": reference, "unit": unit, "n_agree": n_agree, "p": pvalues,
                 "rank_values": values, "f_rank": agreement.ranks_from_scores(metrics["f_measure"]),
                 "reference_rank": reference_rank, "reference_accuracy": ref_truth}
    if a.ground_truth:
        truth = a.values[a.primary]
        ranked = [s for s in range(len(names)) if s != reference]
        a.gt_free["agreement"] = [
            ("pseudo F-measure", a.primary, agreement.rank_distance(truth, metrics["f_measure"]),
             agreement.kendall_tau_b(truth, metrics["f_measure"])),
            ("reference-classifier protocol", a.primary, agreement.rank_distance(truth[ranked], values[ranked]),
             agreement.kendall_tau_b(truth[ranked], values[ranked])),
        ]


def _reference_accuracy(reference, truth):
    """The reference classifier's own accuracy and balanced accuracy against the ground
    truth: the paper's ranking assumes a reference better than random (above 0.5)."""
    correct = reference == truth
    positives, negatives = truth.sum(), (~truth).sum()
    recall = float((correct & truth).sum()) / positives if positives else 0.0
    specificity = float((correct & ~truth).sum()) / negatives if negatives else 0.0
    return {"accuracy": float(correct.mean()) if correct.size else 0.0,
            "balanced_accuracy": (recall + specificity) / 2.0}
