"""Rankings computed as challengeR 1.0.5 computes them (Wiesenfarth et al., Scientific
Reports 11, 2369, 2021; R package challengeR, functions named below), on the cases of a
track's primary score (cases.py: items within strata as tasks, or strata as the cases of
one task). Ranks are R's rank(ties.method = "min") with the best first; a submission
without any case in a task is ranked last (challengeR's rankNA2).

  method here          challengeR
  mean-then-rank       aggregateThenRank(challenge, FUN = mean, ties.method = "min")
  median-then-rank     aggregateThenRank(challenge, FUN = median, ties.method = "min")
  rank-then-mean       rankThenAggregate(challenge, FUN = mean, ties.method = "min")
  test-then-rank       testThenRank(challenge, alpha = 0.05, p.adjust.method = "none",
                       ties.method = "min"): per ordered pair, the one-sided Wilcoxon
                       signed rank test (wilcox.test(paired = TRUE, exact = FALSE),
                       continuity correction) on the cases both have; ranked by the share
                       of the others each beats
  consensus            consensus(ranking, method = "euclidean"): the mean over tasks of the
  (Euclidean)          task ranks with ties averaged (rank(ties.method = "average")), then
                       rank(ties.method = "min") as challengeR's report does
  consensus (Kemeny)   consensus(ranking, method = "symdiff/L") (relations::relation_consensus):
                       a linear order minimising the summed symmetric-difference distance
                       to the task rankings; exact (dynamic programming over subsets) up to
                       KEMENY_EXACT submissions, otherwise a local search from the
                       Euclidean consensus (stated as not exact)

Values are compared exactly: the case values' floats decide unless two are within the
rounding margin, which the exact rationals then decide (exact.py).
"""

import math
from collections import OrderedDict
from fractions import Fraction

import numpy as np

from . import exact

ALPHA = 0.05
KEMENY_EXACT = 12

METHODS = OrderedDict([
    ("mean-then-rank", "aggregateThenRank(FUN = mean)"),
    ("median-then-rank", "aggregateThenRank(FUN = median)"),
    ("rank-then-mean", "rankThenAggregate(FUN = mean)"),
    ("test-then-rank", "testThenRank(alpha = 0.05, p.adjust.method = \"none\")"),
])


def min_ranks(keys, present=None, higher_is_better=True):
    """R's rank(ties.method = "min") of comparable keys, the best first; entries not
    present ranked after every present one (rankNA2: the largest rank + 1)."""
    keys = list(keys)
    present = [True] * len(keys) if present is None else list(present)
    signed = [(-k if higher_is_better else k) for k, p in zip(keys, present) if p]
    ordered = sorted(signed)
    first = {}
    for position, v in enumerate(ordered):
        first.setdefault(v, position + 1)
    worst = max(first.values()) + 1 if first else 1
    out, i = [], 0
    for p in present:
        if p:
            out.append(first[signed[i]])
            i += 1
        else:
            out.append(worst)
    return np.array(out, dtype=np.int64)


def average_ranks(ranks):
    """rank(ties.method = "average") of a ranking given by its min ranks (smaller better)."""
    ranks = [int(r) for r in ranks]
    out = []
    for r in ranks:
        tied = sum(1 for s in ranks if s == r)
        out.append(Fraction(2 * r + tied - 1, 2))
    return out


class Oriented(object):
    """A task's (K, n) case values turned so that higher is better, with their exact values."""

    def __init__(self, cases, columns, lower_is_better):
        self.sign = -1 if lower_is_better else 1
        self.values = cases.values[:, columns] * self.sign
        self.columns = columns
        self.cases = cases
        self.present = ~np.isnan(self.values)

    def exact(self, k, c):
        if self.integral:  # the float is the integer
            return Fraction(int(self.values[k, c]))
        return self.sign * self.cases.value(k, int(self.columns[c]))

    def exact_row(self, k, columns):
        """The exact values of submission k's cases `columns`: ints where they are integers."""
        if self.integral:
            return [int(v) for v in self.values[k, columns].tolist()]
        return [self.exact(k, c) for c in columns.tolist()]

    @property
    def integral(self):
        return self.cases.integral

    def column_keys(self, c):
        """Exact order keys of case c over the submissions that have it."""
        present = np.flatnonzero(self.present[:, c])
        if self.integral:
            keys = exact.order_keys(self.values[present, c], None, 0.0)
        else:
            keys = exact.order_keys(self.values[present, c], lambda i: self.exact(int(present[i]), c),
                                    self.cases.tolerance)
        return present, keys


def mean_then_rank(task):
    means, exact_means = _aggregate(task, "mean")
    return _rank_values(means, exact_means, task)


def median_then_rank(task):
    medians, exact_medians = _aggregate(task, "median")
    return _rank_values(medians, exact_medians, task)


def _aggregate(task, how):
    """Per submission the mean or median of its present case values: floats, and the
    exact value computed when asked."""
    count = task.values.shape[0]
    floats = np.full(count, np.nan)
    for k in range(count):
        row = task.values[k][task.present[k]]
        if row.size:
            floats[k] = row.mean() if how == "mean" else np.median(row)

    def exact_value(k):
        values = task.exact_row(k, np.flatnonzero(task.present[k]))
        if how == "mean":
            return Fraction(sum(values, 0), len(values))
        ordered = sorted(values)
        middle = len(ordered) // 2
        return Fraction(ordered[middle]) if len(ordered) % 2 else Fraction(ordered[middle - 1] + ordered[middle], 2)
    return floats, exact_value


def _rank_values(floats, exact_value, task, higher_is_better=True, terms=None):
    present = ~np.isnan(floats)
    where = np.flatnonzero(present)
    width = task.cases.tolerance + exact_margin(terms or task.values.shape[1])
    keys = exact.order_keys(floats[where], lambda i: exact_value(int(where[i])), width)
    full = np.zeros(floats.shape[0], dtype=np.int64)
    full[where] = keys
    return min_ranks(full, present, higher_is_better), floats


def exact_margin(terms):
    from ..metrics.significance import margin
    return margin(terms)


def case_ranks(task):
    """(K, cases) min ranks of the submissions on each case; a submission without the case
    ranked after every other (rankNA2)."""
    count, n = task.values.shape
    out = np.empty((count, n), dtype=np.int64)
    for c in range(n):
        present, keys = task.column_keys(c)
        full = np.zeros(count, dtype=np.int64)
        full[present] = keys
        mask = np.zeros(count, dtype=bool)
        mask[present] = True
        out[:, c] = min_ranks(full, mask)
    return out


def rank_then_mean(task):
    """Per case the min ranks of the submissions that have it; per submission the mean of
    its ranks; ranked by that mean, the smaller first."""
    count, n = task.values.shape
    totals = [0] * count
    counts = [0] * count
    for c in range(n):
        present, keys = task.column_keys(c)
        ranks = min_ranks(keys)
        for k, r in zip(present.tolist(), ranks.tolist()):
            totals[k] += r
            counts[k] += 1
    means = [Fraction(t, m) if m else None for t, m in zip(totals, counts)]
    floats = np.array([float(v) if v is not None else np.nan for v in means])
    return min_ranks([v if v is not None else 0 for v in means], [v is not None for v in means],
                     higher_is_better=False), floats


def test_then_rank(task, alpha=ALPHA):
    """challengeR's test-based ranking (see the module text): the share of the other
    submissions each is significantly better than, and its min rank."""
    count = task.values.shape[0]
    p = wilcoxon_matrix(task)
    wins = np.count_nonzero(p <= alpha, axis=1)
    share = wins / float(max(count - 1, 1))
    return min_ranks(wins.tolist()), share


def wilcoxon_matrix(task, cells=1000000):
    """p[i, j]: wilcoxon_greater(task, i, j) for every ordered pair (1 on the diagonal).
    Both directions of a pair share their ranks (V_ji = n (n + 1) / 2 - V_ij); the pairs
    of a row are ranked at once (integral case values; for other values, the pairs whose
    differences are all certainly nonzero and certainly distinct), `cells` differences at
    a time; the others pair by pair, exactly."""
    count, cases = task.values.shape
    p = np.ones((count, count))
    step = max(1, cells // max(cases, 1))
    for i in range(count):
        statistics = []
        for first in range(i + 1, count, step):
            others = np.arange(first, min(first + step, count))
            if task.integral:
                statistics += _signed_ranks_integral(task, i, others)
            else:
                statistics += _signed_ranks_distinct(task, i, others)
        for j, (n, statistic, ties) in zip(range(i + 1, count), statistics):
            p[i, j] = _greater(n, statistic, ties)
            p[j, i] = _greater(n, n * (n + 1) / 2.0 - statistic if n else 0.0, ties)
    return p


def _greater(n, statistic, ties):
    """R's normal approximation with continuity correction, alternative "greater"."""
    if n == 0:
        return 1.0
    z = statistic - n * (n + 1) / 4.0
    sigma = math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0 - ties / 48.0)
    if sigma == 0:
        return 1.0 if z - 0.5 <= 0 else 0.0
    return 0.5 * math.erfc((z - 0.5) / sigma / math.sqrt(2.0))  # pnorm(z, lower.tail = FALSE)


def wilcoxon_greater(task, i, j):
    """p-value of R's wilcox.test(x_i, x_j, paired = TRUE, exact = FALSE, correct = TRUE,
    alternative = "greater") on the cases both have: zero differences dropped, ranks of
    |d| with ties averaged, the normal approximation with the tie correction."""
    return _greater(*_signed_ranks(task, i, j))


def _margins(task, mine, theirs):
    """(width, margin at each case) of differences of case values: a difference within
    width x max(1, |mine|, |theirs|) of zero, or of another difference, is decided exactly
    (width: twice the cases' tolerance and one subtraction's rounding)."""
    width = 2 * task.cases.tolerance + exact_margin(2)
    return width, width * np.maximum(1.0, np.maximum(np.abs(mine), np.abs(theirs)))


def _signed_ranks(task, i, j):
    """(n, V, sum of t^3 - t over ties) of the cases both i and j have: n nonzero
    differences, V the sum of the average ranks of |d| where d > 0; differences and their
    ties decided exactly."""
    both = np.flatnonzero(task.present[i] & task.present[j])
    d = task.values[i, both] - task.values[j, both]
    if task.integral:
        signs = np.sign(d)
        size_keys = exact.order_keys(np.abs(d), None, 0.0)
    else:
        exact_d = {}

        def difference(c):
            if c not in exact_d:
                exact_d[c] = task.exact(i, int(both[c])) - task.exact(j, int(both[c]))
            return exact_d[c]
        width, margin = _margins(task, task.values[i, both], task.values[j, both])
        signs = np.sign(d)
        for c in np.flatnonzero(np.abs(d) <= margin).tolist():
            value = difference(c)
            signs[c] = (value > 0) - (value < 0)
        size_keys = exact.order_keys(np.abs(d), lambda c: abs(difference(c)), width)
    nonzero = np.flatnonzero(signs != 0)
    n = nonzero.shape[0]
    if n == 0:
        return 0, 0.0, 0.0
    _, inverse, ties = np.unique(size_keys[nonzero], return_inverse=True, return_counts=True)
    first = np.concatenate(([0], np.cumsum(ties)[:-1]))
    ranks = (first + (ties + 1) / 2.0)[inverse.reshape(-1)]  # average ranks, 1-based
    return n, float(ranks[signs[nonzero] > 0].sum()), float(np.sum(ties.astype(float) ** 3 - ties))


def _signed_ranks_distinct(task, i, others):
    """_signed_ranks of i against each of `others`, for any case values: where both have
    every case and the floats of the differences decide that none is zero and that no two
    of their sizes are equal (the margins of _signed_ranks), each size's rank is its place
    in one sort of the row, ties none; the other pairs go to _signed_ranks."""
    values = task.values[i][None, :] - task.values[others]
    size = np.abs(values)
    width, margin = _margins(task, task.values[i][None, :], task.values[others])
    ordered = np.sort(size, axis=1)
    gaps = ordered[:, 1:] - ordered[:, :-1]
    with np.errstate(invalid="ignore"):  # NaN (a case left out) decides nothing: that pair goes the exact way
        certain = (task.present[i][None, :] & task.present[others] & (size > margin)).all(axis=1) \
            & (gaps > width * np.maximum(1.0, ordered[:, 1:])).all(axis=1)
        ranks = np.argsort(np.argsort(size, axis=1), axis=1) + 1.0
        positive = np.where(values > 0, ranks, 0.0).sum(axis=1)  # sums of integers: exact in any order
    n = values.shape[1]
    return [(n, float(positive[r]), 0.0) if certain[r] else _signed_ranks(task, i, int(others[r]))
            for r in range(others.shape[0])]


def _signed_ranks_integral(task, i, others):
    """_signed_ranks of i against each of `others` at once, for integral case values: the
    rows' nonzero |d| keyed by (row * (largest + 1) + |d|) * 2 + (d > 0), as integers, and
    ranked in one sort; equal |d| in a row share their average rank."""
    values = task.values
    d = values[i][None, :] - values[others]
    used = task.present[i][None, :] & task.present[others] & (d != 0)
    rows, columns = np.nonzero(used)
    differences = d[rows, columns]
    size = np.abs(differences).astype(np.int64)  # integers below 2**53: exact
    largest = int(size.max()) + 1 if size.size else 1
    ranked = np.sort((rows * largest + size) * 2 + (differences > 0))
    tie = ranked >> 1  # (row, |d|)
    boundary = np.ones(ranked.shape[0], dtype=bool)
    boundary[1:] = tie[1:] != tie[:-1]
    first = np.flatnonzero(boundary)  # each tie group's first place
    group_sizes = np.diff(np.append(first, ranked.shape[0]))
    row = tie // largest
    counts = np.bincount(rows, minlength=others.shape[0])
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    average = first + (group_sizes - 1) / 2.0  # 0-based average place of each group, in the sort
    ranks = np.repeat(average, group_sizes) - starts[row] + 1.0  # within the row, 1-based
    positive = np.bincount(row, weights=ranks * (ranked & 1), minlength=others.shape[0])
    ties = np.bincount(row[first], weights=group_sizes.astype(float) ** 3 - group_sizes, minlength=others.shape[0])
    return [(int(counts[r]), float(positive[r]), float(ties[r])) for r in range(others.shape[0])]


def euclidean_consensus(task_ranks):
    """challengeR's consensus(method = "euclidean"): per submission the mean over tasks of
    its average-tie rank (exact Fractions), and the min ranks of those means."""
    task_ranks = [list(r) for r in task_ranks]
    averaged = [average_ranks(r) for r in task_ranks]
    count = len(task_ranks[0]) if task_ranks else 0
    means = [sum((a[k] for a in averaged), Fraction(0)) / len(averaged) for k in range(count)]
    return min_ranks(means, higher_is_better=False), np.array([float(m) for m in means])


def kemeny_consensus(task_ranks, tie_break=None, reference=None):
    """challengeR's consensus(method = "symdiff/L"): a linear order minimising the summed
    symmetric-difference distance to the task rankings (a pair strictly ordered the other
    way in a task costs 2, a pair tied there 1 whatever the order, so the optimum
    minimises the pairs ordered against a task's strict preference).
    Returns (positions 1..K, the cost, the number of optimal orders (None when not exact),
    exact, concordance). tie_break: an order of preference among optimal orders (default:
    index). reference: keys of another ranking (larger is better); concordance is then the
    least and the most (concordant less discordant pairs) with it over every optimal order,
    None without it or when the search is not exact: one optimal order's Kendall tau with
    a ranking says little when hundreds of orders are equally optimal."""
    task_ranks = np.asarray(task_ranks)
    count = task_ranks.shape[1] if task_ranks.ndim == 2 else 0
    if count == 0:
        return np.zeros(0, dtype=np.int64), 0, 1, True, (0, 0) if reference is not None else None
    # against[x][y]: tasks where y is strictly better than x (x placed before y costs that).
    against = np.zeros((count, count), dtype=np.int64)
    for r in task_ranks:
        against += (r[None, :] < r[:, None]).astype(np.int64)
    preference = list(range(count)) if tie_break is None else list(tie_break)
    concordance = None
    if count <= KEMENY_EXACT:
        signs = None
        if reference is not None:
            keys = np.asarray(reference)
            signs = np.sign(keys[:, None] - keys[None, :]).astype(np.int64)  # [y, x]: y before x agrees
        order, cost, optimal, concordance = _kemeny_exact(against, preference, signs)
        is_exact = True
    else:
        order, cost = _kemeny_local(against, preference)
        optimal, is_exact = None, False
    positions = np.empty(count, dtype=np.int64)
    positions[order] = np.arange(1, count + 1)
    ties = sum(int(np.sum(r[:, None] == r[None, :])) - count for r in task_ranks) // 2
    return positions, 2 * cost + ties, optimal, is_exact, concordance


def _kemeny_exact(against, preference, signs=None):
    """Dynamic programming over the sets S placed first: best[S] = the least cost of
    ordering S, best[S + x] = min over x of best[S] + sum over y in S of against[y][x];
    also the number of optimal orders. Among optimal orders the one whose last place
    goes, from the end, to the least preferred submission that keeps the optimum.

    Every prefix of an optimal order is an optimal order of its set (the cost of what
    follows depends on the set only), so the optimal orders are the paths through the
    optimal steps; with `signs` ([y, x]: +1 when placing y before x agrees with a
    reference ranking, -1 when it goes against it, 0 when the reference ties them) the
    same paths give the least and the most agreement (the sum of signs over the pairs)."""
    count = against.shape[0]
    size = 1 << count
    added = np.zeros((size, count), dtype=np.int64)  # added[S, x] = sum over y in S of against[y][x]
    best = np.zeros(size, dtype=np.int64)
    ways = np.zeros(size, dtype=object)
    ways[0] = 1
    track = signs is not None
    if track:
        agrees = np.zeros((size, count), dtype=np.int64)  # agrees[S, x] = sum over y in S of signs[y][x]
        least, most = np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64)
    bits = np.arange(count)
    for mask in range(1, size):
        low = mask & -mask
        added[mask] = added[mask ^ low] + against[low.bit_length() - 1]
        members = bits[(mask >> bits) & 1 == 1]
        rests = mask ^ (1 << members)
        totals = best[rests] + added[rests, members]
        value = totals.min()
        best[mask] = value
        steps = totals == value
        ways[mask] = sum(ways[r] for r in rests[steps].tolist())
        if track:
            agrees[mask] = agrees[mask ^ low] + signs[low.bit_length() - 1]
            gained = agrees[rests[steps], members[steps]]
            least[mask] = (least[rests[steps]] + gained).min()
            most[mask] = (most[rests[steps]] + gained).max()
    rank = dict((x, r) for r, x in enumerate(preference))
    order, mask = [], size - 1
    while mask:
        members = bits[(mask >> bits) & 1 == 1]
        rests = mask ^ (1 << members)
        fits = members[best[rests] + added[rests, members] == best[mask]].tolist()
        x = max(fits, key=lambda c: rank[c])
        order.append(x)
        mask ^= 1 << x
    concordance = (int(least[size - 1]), int(most[size - 1])) if track else None
    return order[::-1], int(best[size - 1]), int(ways[size - 1]), concordance


def _kemeny_local(against, preference):
    """Local search: from `preference`, move single submissions to the place that lowers
    the cost most, until no move does (a Kemeny local optimum, not always the optimum):
    the first submission in the order that has a lowering move makes its best one (the
    first place of the least cost), and the search starts again from the front.

    Moving the submission at place i to place p changes the cost by the pairs it passes
    over: with G the net costs in the current order (G[i, q]: the cost of order[i]
    before order[q] less that of after) and P[i, p] = G[i, 0] + ... + G[i, p - 1], by
    P[i, i] - P[i, p] leftwards (p <= i) and P[i, i] - P[i, p + 1] rightwards (p > i);
    every place's change for every submission comes from one cumulative sum per move."""
    order = np.asarray(preference, dtype=np.int64)
    count = order.shape[0]
    against = np.asarray(against, dtype=np.int64)
    net = against - against.T  # net[x, y]: the cost of x before y less that of y before x
    places = np.arange(count)
    target = places[None, :] + (places[None, :] > places[:, None])  # the column of P each move reads
    while count:
        prefix = np.zeros((count, count + 1), dtype=np.int64)
        np.cumsum(net[np.ix_(order, order)], axis=1, out=prefix[:, 1:])
        deltas = prefix[places, places][:, None] - np.take_along_axis(prefix, target, axis=1)
        movers = np.flatnonzero(deltas.min(axis=1) < 0)
        if not movers.size:
            break
        i = int(movers[0])
        p = int(np.argmin(deltas[i]))
        order = np.insert(np.delete(order, i), p, order[i])
    cost = int(np.triu(against[np.ix_(order, order)], 1).sum())
    return order.tolist(), cost
