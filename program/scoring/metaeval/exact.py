"""Exact comparisons of scores: equal scores share a rank, whatever their floats.

Every score of a per-item view is a rational function of integers: a Ratio sums per-item
terms that are integers (counts, 0/1) or fractions with a known denominator (a page's
line IU is TP / (TP + FP + FN): the view names a column of those denominators), and an
average precision is a sum over operating points of counts. compare.py computes in
floating point and decides every comparison whose outcome the rounding could change
with the exact rationals instead (a filter, as in exact geometric predicates):

- A score recomputed from n per-item terms carries a rounding error below
  n * 2**-50 * max(1, |score|) (each term exact or within 2**-50 of its fraction, each of
  the n additions and the few divisions adding at most 2**-53 of the magnitude); two
  scores further apart than `significance.margin(n)` (1024 times that bound) are ordered by their
  floats, and those closer are compared as Fractions computed from the integers. Equal
  rationals therefore always compare equal, and different ones are never merged.
- Per-item fractions are recovered from their floats and denominators q as the integer
  nearest to value * q: exact while q < 2**45 (the float is within a few units of 2**-53
  of the fraction, so value * q is within 2**-5 of the integer); the recovery is checked.
  A view may instead bound a column's denominators by Q < 2**24: each fraction is then
  the nearest one of denominator at most Q (two such differ by at least 1/Q**2, far more
  than the float's error).
  A column that is neither integral nor given denominators is read as the decimals its
  floats print as (0.1 is 1/10; significance.decimal): data written in decimals compare
  as those decimals, and equal floats summed in another order stay equal.

Nothing here is a tolerance on the answer: the margin only chooses between the float and
the exact path.
"""

from fractions import Fraction

import numpy as np

from ..metrics import significance

#: Integers a float holds exactly.
EXACT_INTEGERS = 2.0 ** 53
#: Largest denominator whose fractions are recovered from their floats and a column of
#: their denominators.
LARGEST_DENOMINATOR = 2 ** 45
#: Largest bound on the denominators of a column whose fractions are recovered from their
#: floats alone.
LARGEST_BOUND = 2 ** 24


# -- per-item rationals --------------------------------------------------------------------

class ItemRationals(object):
    """A column's per-item values as integers over integer denominators.

    numerators: an int64 array; denominators: None (integral) or an int64 array of the
    same length."""

    def __init__(self, numerators, denominators=None):
        self.numerators, self.denominators = numerators, denominators

    @property
    def integral(self):
        return self.denominators is None

    def weighted_sum(self, weights, start, end):
        """sum over items start..end of w_i * value_i as a Fraction (weights: integers, or
        None for one each)."""
        num = self.numerators[start:end]
        if weights is None:
            weights = np.ones(end - start, dtype=np.int64)
        weights = np.asarray(weights)
        if self.denominators is None:
            return Fraction(_dot(weights, num))
        den = self.denominators[start:end]
        total = Fraction(0)
        for q in np.unique(den).tolist():
            at = den == q
            total += Fraction(_dot(weights[at], num[at]), int(q))
        return total


def _dot(weights, numerators):
    """sum w_i n_i as a Python int, exactly."""
    weights = np.asarray(weights)
    if not numerators.size:
        return 0
    bound = float(np.abs(numerators).max()) * float(np.abs(weights).sum())
    if bound < 2.0 ** 62:
        return int(np.dot(weights.astype(np.int64), numerators.astype(np.int64)))
    return sum(int(w) * int(n) for w, n in zip(weights.tolist(), numerators.tolist()) if w)


def item_rationals(view, column):
    """The exact per-item values of a view's column (computed once and kept in view.memo)."""
    key = ("exact", column)
    if key in view.memo:
        return view.memo[key]
    values = view.columns[column]
    denominators = getattr(view, "denominators", {}).get(column)
    if values.size == 0 or (np.all(np.abs(values) < EXACT_INTEGERS) and np.all(values == np.round(values))):
        found = ItemRationals(values.astype(np.int64))
    elif isinstance(denominators, int):  # a bound on every value's denominator
        found = _bounded(values, denominators, column)
    elif denominators is not None:
        q = np.asarray(view.columns[denominators])
        if q.size and (q.min() < 1 or q.max() >= LARGEST_DENOMINATOR or not np.all(q == np.round(q))):
            raise ValueError("the denominators of column %s are not positive integers below 2**45" % column)
        q = q.astype(np.int64)
        p = np.round(values * q)
        if np.any(np.abs(p - values * q) > 2.0 ** -5):
            raise ValueError("column %s holds values that are not fractions over its denominators" % column)
        found = ItemRationals(p.astype(np.int64), q)
    else:  # the decimals the floats print as
        found = _DecimalRationals(values)
    view.memo[key] = found
    return found


def _bounded(values, bound, column):
    """Fractions of denominator at most `bound` recovered from their floats: the nearest
    such fraction (Fraction.limit_denominator), exact when bound < 2**24 and each float is
    within 2**-49 of its fraction (two fractions of denominators at most Q differ by at
    least 1/Q**2 > 2**-48). Integral values are taken as they are."""
    if not 1 <= bound < LARGEST_BOUND:
        raise ValueError("the denominator bound of column %s is not from 1 to 2**24" % column)
    numerators = np.round(values).astype(np.int64)
    denominators = np.ones(values.shape[0], dtype=np.int64)
    for i in np.flatnonzero(values != np.round(values)).tolist():
        fraction = Fraction(float(values[i])).limit_denominator(bound)
        if abs(float(fraction) - values[i]) > 2.0 ** -40:
            raise ValueError("column %s holds a value that is no fraction of denominator at most %d" % (column, bound))
        numerators[i], denominators[i] = fraction.numerator, fraction.denominator
    return ItemRationals(numerators, denominators)


class _DecimalRationals(ItemRationals):
    """A column of floats that are neither integers nor fractions with known denominators:
    each float as the decimal it prints as."""

    def __init__(self, values):
        ItemRationals.__init__(self, None)
        self.values = [significance.decimal(v) for v in values.tolist()]

    @property
    def integral(self):
        return False

    def weighted_sum(self, weights, start, end):
        part = self.values[start:end]
        if weights is None:
            return sum(part, Fraction(0))
        return sum((int(w) * v for w, v in zip(np.asarray(weights).tolist(), part) if w), Fraction(0))


def cached(function):
    """function(a, b), each value computed once."""
    memo = {}

    def value(a, b):
        if (a, b) not in memo:
            memo[a, b] = function(a, b)
        return memo[a, b]
    return value


def item_value(view, column, index):
    """One item's exact value."""
    rationals = item_rationals(view, column)
    return rationals.weighted_sum(None, index, index + 1)


# -- stratum statistics and scores ----------------------------------------------------------

def stratum_value(view, statistic, h, weights=None):
    """The exact value of stratum h's statistic (weights: that stratum's integer draw
    counts of one resample, or None for each item once)."""
    start, end = view.bounds[h]
    if statistic.kind == "ratio":
        parts = []
        for num, den in statistic.terms:
            n = item_rationals(view, num).weighted_sum(weights, start, end)
            d = item_rationals(view, den).weighted_sum(weights, start, end)
            parts.append(Fraction(0) if d == 0 else n / d)
        return sum(parts, Fraction(0)) / len(parts)
    if statistic.kind == "average_precision":
        return _average_precision(view, statistic, h, weights)
    raise ValueError("no exact form for statistic %r" % statistic.kind)


def pooled_value(view, statistic, weights=None):
    """The exact value of a Ratio over every item, strata pooled (weights: per stratum one
    resample's integer draw counts, or None)."""
    parts = []
    for num, den in statistic.terms:
        sums = [(item_rationals(view, num).weighted_sum(None if weights is None else weights[h], start, end),
                 item_rationals(view, den).weighted_sum(None if weights is None else weights[h], start, end))
                for h, (start, end) in enumerate(view.bounds)]
        n, d = sum((n for n, _ in sums), Fraction(0)), sum((d for _, d in sums), Fraction(0))
        parts.append(Fraction(0) if d == 0 else n / d)
    return sum(parts, Fraction(0)) / len(parts)


def _average_precision(view, statistic, h, weights):
    from .. import itemview
    if weights is None:
        true_positives, counts = itemview.ranking_counts(view, statistic, h)
    else:
        start, end = view.bounds[h]
        labels = view.columns[statistic.label][start:end]
        confidence = view.columns[statistic.confidence][start:end]
        order = np.argsort(confidence)[::-1]
        ranked = confidence[order]
        ends = np.append(np.flatnonzero(ranked[1:] != ranked[:-1]), ranked.shape[0] - 1)
        by_item = np.asarray(weights, dtype=np.float64)[:, None]
        true_positives, counts = itemview._weighted_points(by_item, labels, order, ends)
        true_positives, counts = true_positives[:, 0], counts[:, 0]
    return area(np.asarray(true_positives).tolist(), np.asarray(counts).tolist())


def area(true_positives, counts):
    """Exact AP of operating points (cumulative true positives and items at or above each,
    integers): the trapezoidal rule of metrics.ranking over (0, p*_1), (r_1, p*_1), ...,
    p*_i the largest precision at or after point i, a precision 0 where no item is counted."""
    tp = [int(round(t)) for t in true_positives]
    n = [int(round(c)) for c in counts]
    if not tp or tp[-1] == 0:
        return Fraction(0)
    positives = tp[-1]
    precision = [Fraction(t, c) if c else Fraction(0) for t, c in zip(tp, n)]
    envelope = precision[:]
    for i in range(len(envelope) - 2, -1, -1):
        if envelope[i + 1] > envelope[i]:
            envelope[i] = envelope[i + 1]
    total = Fraction(0)
    previous_tp, previous_envelope = 0, envelope[0]
    for t, e in zip(tp, envelope):
        if t != previous_tp:
            total += (t - previous_tp) * (e + previous_envelope)
        previous_tp, previous_envelope = t, e
    return total / (2 * positives)


def score_value(view, score, weights=None):
    """The exact value of a Score (weights: per stratum one resample's integer draw counts,
    or None)."""
    def stratum(h):
        return stratum_value(view, score.statistic, h, None if weights is None else weights[h])
    if score.pooled:
        return pooled_value(view, score.statistic, weights)
    if score.stratum is not None:
        return stratum(score.stratum)
    if not view.strata:
        return Fraction(0)
    return sum((stratum(h) for h in range(len(view.strata))), Fraction(0)) / len(view.strata)


def terms_of(view):
    """The number of terms a score of the view is computed from (for margin): the largest
    stratum's items, or all the items where a score pools the strata."""
    if any(score.pooled for score in view.scores.values()):
        return int(view.sizes.sum()) or 1
    return int(view.sizes.max()) if view.sizes.size else 1


# -- integer keys of ratios of counts ---------------------------------------------------------

def integer_keys(views, score, weights=None, stratum=None):
    """Exact order keys (rows: resamples, or one row without weights; columns: the
    submissions) of a Ratio score whose terms are integers and whose denominators are
    reference columns, with no Fraction: per row, each stratum's and term's sums N
    (per submission) and D (the same for all) are integers, and with L the least common
    multiple of the D, the score times T H L is the integer sum of N L / D. None where the
    score is not such a ratio (its keys then come from order_keys). stratum: the keys of
    that stratum's value alone (default: the score's own)."""
    first = views[0]
    statistic = score.statistic
    if statistic.kind != "ratio" or not all(d in first.reference_columns for _, d in statistic.terms):
        return None
    numerators = [[item_rationals(v, num) for v in views] for num, _ in statistic.terms]
    denominators = [item_rationals(first, den) for _, den in statistic.terms]
    if not all(r.integral for row in numerators for r in row) or not all(r.integral for r in denominators):
        return None
    if stratum is None:
        stratum = score.stratum
    strata = range(len(first.strata)) if stratum is None else [stratum]
    sums = []  # (N (rows, K), D (rows,)) per term and stratum, exact integers in floats
    for t in range(len(statistic.terms)):
        for h in strata:
            start, end = first.bounds[h]
            counts = np.stack([r.numerators[start:end] for r in numerators[t]], axis=1).astype(np.float64)
            den = denominators[t].numerators[start:end].astype(np.float64)
            w = np.ones((1, end - start)) if weights is None else np.asarray(weights[h], dtype=np.float64)
            largest = float(w.sum(axis=1).max()) if w.size else 0.0
            if largest * max(float(np.abs(counts).max()) if counts.size else 0.0,
                             float(np.abs(den).max()) if den.size else 0.0) >= significance.EXACT_BELOW:
                return None
            sums.append((np.einsum("ri,ik->rk", w, counts), w.dot(den)))
        if score.pooled and stratum is None and len(strata):  # one ratio of the sums over the strata
            pooled = sums[-len(strata):]
            sums[-len(strata):] = [(sum(n for n, _ in pooled), sum(d for _, d in pooled))]
            if max(float(np.abs(sums[-1][0]).max()), float(np.abs(sums[-1][1]).max())) >= 2.0 ** 52:
                return None
    rows = sums[0][0].shape[0] if sums else 1
    count = len(views)
    keys = np.zeros((rows, count), dtype=np.int64)
    constant = all(np.all(d == d[0]) for _, d in sums)  # the same denominators on every row
    factors = None
    for row in range(rows):
        if factors is None or not constant:
            common = 1
            for _, d in sums:
                if d[row] != 0:
                    common = significance.lcm(common, int(d[row]))
            factors = [common // int(d[row]) if d[row] != 0 else 0 for _, d in sums]
        if all(f == 0 for f in factors):
            total = np.zeros(count)
        elif max(factors) * max(float(np.abs(n[row]).max()) for n, _ in sums) * len(sums) < significance.EXACT_BELOW:
            total = sum(n[row] * f for (n, _), f in zip(sums, factors))
        else:
            total = np.array([sum(int(n[row, k]) * f for (n, _), f in zip(sums, factors)) for k in range(count)],
                             dtype=object)
        keys[row] = np.unique(total, return_inverse=True)[1].reshape(-1)
    return keys


# -- exact orders ---------------------------------------------------------------------------

def order_keys(values, exact, tolerance, same=None):
    """Integer keys of the entries of `values` (1-D floats) in their exact order: key i <
    key j iff entry i is exactly smaller, equal keys iff exactly equal. `exact(i)` gives
    entry i's Fraction and is called only for entries within `tolerance` (relative to
    max(1, |value|)) of a neighbour; exact None: the floats are the exact values.
    same: optional labels, entries of one label being exactly equal (submissions with
    identical terms): a near tie among them needs no exact value."""
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[0]
    keys = np.empty(n, dtype=np.int64)
    if n == 0:
        return keys
    if exact is None:  # the floats are the exact values
        return np.unique(values, return_inverse=True)[1].reshape(-1).astype(np.int64)
    order = np.argsort(values, kind="mergesort")
    ranked = values[order]
    scale = np.maximum(1.0, np.maximum(np.abs(ranked[1:]), np.abs(ranked[:-1])))
    certain = (ranked[1:] - ranked[:-1]) > tolerance * scale
    if certain.all():
        keys[order] = np.arange(n)
        return keys
    starts = np.concatenate(([0], np.flatnonzero(certain) + 1))
    ends = np.concatenate((starts[1:], [n]))
    key = 0
    for start, end in zip(starts.tolist(), ends.tolist()):
        if end - start == 1:
            keys[order[start]] = key
            key += 1
            continue
        members = order[start:end].tolist()
        if same is not None and len(set(same[i] for i in members)) == 1:
            for i in members:
                keys[i] = key
            key += 1
            continue
        known = {}
        fractions = []
        for i in members:
            label = i if same is None else same[i]
            if label not in known:
                known[label] = exact(i)
            fractions.append(known[label])
        distinct = sorted(set(fractions))
        where = dict((f, r) for r, f in enumerate(distinct))
        for i, f in zip(members, fractions):
            keys[i] = key + where[f]
        key += len(distinct)
    return keys


def row_keys(values, exact, tolerance, same=None):
    """order_keys of each row of a 2-D array; exact(row, i) for the entries that need it.
    Rows without a near tie are keyed by one vectorised argsort."""
    values = np.atleast_2d(np.asarray(values, dtype=np.float64))
    rows, n = values.shape
    keys = np.empty(values.shape, dtype=np.int64)
    if n == 0:
        return keys
    order = np.argsort(values, axis=1, kind="mergesort")
    ranked = np.take_along_axis(values, order, axis=1)
    scale = np.maximum(1.0, np.maximum(np.abs(ranked[:, 1:]), np.abs(ranked[:, :-1])))
    near = ((ranked[:, 1:] - ranked[:, :-1]) <= tolerance * scale).any(axis=1)
    plain = np.flatnonzero(~near)
    keys[plain[:, None], order[plain]] = np.arange(n)[None, :]
    for row in np.flatnonzero(near).tolist():
        keys[row] = order_keys(values[row], lambda i, row=row: exact(row, i), tolerance, same)
    return keys


def min_ranks(values, higher_is_better=True):
    """R's rank(ties.method = "min") of exact values (Fractions or ints), the best first."""
    signed = [(-v if higher_is_better else v) for v in values]
    ordered = sorted(signed)
    first = {}
    for position, v in enumerate(ordered):
        first.setdefault(v, position + 1)
    return np.array([first[v] for v in signed], dtype=np.int64)


def average_ranks(values, higher_is_better=True):
    """R's rank(ties.method = "average"), as Fractions (halves)."""
    signed = [(-v if higher_is_better else v) for v in values]
    ordered = sorted(signed)
    first, last = {}, {}
    for position, v in enumerate(ordered):
        first.setdefault(v, position + 1)
        last[v] = position + 1
    return [Fraction(first[v] + last[v], 2) for v in signed]
