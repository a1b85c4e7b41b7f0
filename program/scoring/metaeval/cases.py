"""challengeR's cases and tasks of a track's primary score, from the per-item views.

A case is the unit the paired test swaps: an item (page, image) when the score is a sum
of per-item shares, its value the item's own score (the sum of its numerator terms over
the sum of its denominator terms: a page's line IU, an image's 0/1 correctness; items
without a denominator, such as images left out of top-k, are no case); otherwise a
stratum (a category's average precision). A task is a stratum for item cases, and the
whole track for stratum cases (challengeR's single-task challenge).

Missing cases: a view may mark the items a submission gave nothing for (its `missing`
column); a stratum case is missing when all its items are. The track scores them by its
own rule (the leaderboard, the bootstrap and the tests keep it); the per-case analysis
treats them as challengeR's `na.treat` says: "track" (the value the track scored, as if
challengeR had been given it), "na.rm" (the case is left out for that submission), a
number (the missing values replaced by it), or "worst" (the number at the bad end of the
score's range).
"""

from fractions import Fraction

import numpy as np

from .. import itemview
from ..metrics import significance
from . import exact

TREATMENTS = ("track", "na.rm", "worst")


class Cases(object):
    """values (K, n): each submission's value of each case, NaN where a missing case is
    removed (na.rm); missing (K, n): the cases a submission gave nothing for; tasks: task
    names, task_of (n,): each case's task; names (n,): the cases' names; value(k, c): the
    exact value (a Fraction) of an entry; tolerance: the margin within which floats are
    compared exactly (0 where the floats are the rationals themselves)."""

    def __init__(self, kind, tasks, task_of, names, values, missing, value, tolerance, unit):
        self.kind, self.tasks, self.task_of, self.names = kind, list(tasks), np.asarray(task_of), list(names)
        self.values, self.missing, self.value, self.tolerance, self.unit = values, missing, value, tolerance, unit
        self.treatment = "track"
        self.replaced = None
        self.integral = False  # every value an integer: its float is exact, so are sums and differences

    def of_task(self, t):
        return np.flatnonzero(self.task_of == t)

    def treat(self, treatment, score):
        """Apply challengeR's na.treat to the missing cases (see the module text)."""
        self.treatment = treatment
        if not self.missing.any() or treatment == "track":
            return
        if treatment == "na.rm":
            self.values = np.where(self.missing, np.nan, self.values)
            return
        number = worst_value(score) if treatment == "worst" else float(treatment)
        self.replaced = number
        self.values = np.where(self.missing, number, self.values)
        self.integral = self.integral and number == round(number)
        value = self.value
        exact_number = Fraction(number)

        def replaced(k, c):
            return exact_number if self.missing[k, c] else value(k, c)
        self.value = replaced


def worst_value(score):
    """The bad end of a score's range (its lower bound when higher is better)."""
    end = score.bounds[1] if score.lower_is_better else score.bounds[0]
    if end is None:
        raise ValueError("the score has no bound on its bad side")
    return float(end)


def linear(view, key):
    """Whether score `key` is a sum of per-item shares: a Ratio over reference denominators."""
    statistic = view.scores[key].statistic
    return statistic.kind == "ratio" and all(d in view.reference_columns for _, d in statistic.terms) \
        and len(view.strata) > 0


def of_views(views, key, names):
    """The cases of score `key` over the submissions' views."""
    first = views[0]
    statistic = first.scores[key].statistic
    if linear(first, key):
        return _item_cases(views, statistic)
    return _stratum_cases(views, statistic)


def _item_cases(views, statistic):
    first = views[0]
    denominator = sum(first.columns[d] for _, d in statistic.terms)
    cases = np.flatnonzero(denominator != 0)
    numerators = np.stack([sum(v.columns[n] for n, _ in statistic.terms)[cases] for v in views])
    values = numerators / denominator[cases][None, :]
    missing = _item_missing(views, cases)

    def value(k, c):
        item = int(cases[c])
        num = sum((exact.item_value(views[k], n, item) for n, _ in statistic.terms), Fraction(0))
        den = sum((exact.item_value(views[k], d, item) for _, d in statistic.terms), Fraction(0))
        return num / den

    found = Cases("item", first.strata, first.stratum[cases], [first.items[i] for i in cases.tolist()], values,
                  missing, exact.cached(value), significance.margin(4 * len(statistic.terms)), first.unit)
    found.integral = bool(np.all(values == np.round(values)) and np.all(np.abs(values) < significance.EXACT_BELOW))
    return found


def _item_missing(views, cases):
    out = np.zeros((len(views), cases.shape[0]), dtype=bool)
    for k, view in enumerate(views):
        if view.missing is not None and view.missing in view.columns:
            out[k] = view.columns[view.missing][cases] > 0
    return out


def _stratum_cases(views, statistic):
    first = views[0]
    values = np.concatenate([itemview.stratum_values(v, statistic) for v in views], axis=0)
    missing = np.zeros(values.shape, dtype=bool)
    for k, view in enumerate(views):
        if view.missing is not None and view.missing in view.columns:
            flags = view.columns[view.missing] > 0
            missing[k] = [bool(flags[start:end].all()) and end > start for start, end in view.bounds]

    def value(k, h):
        return exact.stratum_value(views[k], statistic, h)

    return Cases("stratum", ["all strata"], np.zeros(len(first.strata), dtype=np.int64), first.strata, values,
                 missing, exact.cached(value), significance.margin(exact.terms_of(first)), "stratum")


def missing_items(views):
    """Per submission, the number of items marked missing in its view (0 without a mark)."""
    return [int(np.count_nonzero(v.columns[v.missing] > 0)) if v.missing is not None and v.missing in v.columns
            else 0 for v in views]
