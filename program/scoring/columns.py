"""What a kind declares of its scores: each metric's title, meaning, direction and bounds
(Metric), and each scores.txt key as a column reporting one metric, overall or for one
stratum (Column). Declared once, in the kind's METRICS: the per-item view's Scores
(Metric.score), the leaderboards' sort order and column titles, and the pages and the
participant manual all read them from there.
"""

from .itemview import Score


class Metric(object):
    """A metric: `title` (a column title, e.g. "Line IU"), `meaning` (what it measures, one
    short sentence for the participant manual), `lower_is_better` (an error rate) and
    `bounds`, (low, high) of its values, either end None where there is none."""

    def __init__(self, title, meaning, lower_is_better=False, bounds=(0.0, 1.0)):
        self.title = title
        self.meaning = meaning
        self.lower_is_better = bool(lower_is_better)
        self.bounds = tuple(bounds)

    def score(self, statistic, stratum=None, ranked=False, pooled=False, given=None):
        """The view's Score of this metric (itemview.Score), with its direction and bounds;
        pooled: the ratio over every item, strata pooled, instead of the mean over strata."""
        return Score(statistic, stratum, ranked, self.lower_is_better, self.bounds, pooled, given)


class Column(object):
    """One scores.txt key: `metric` (a name of the kind's METRICS, and the Metric), and the
    stratum it is computed on (a subset, manuscript... named as the organizer wrote it), or
    None for the overall score; `what` the stratum is, in a word ('subset', 'manuscript':
    how sentences name it); `qualifier` an extra word of the title (a protocol, "pooled" for
    the overall score of a pooled Score)."""

    def __init__(self, key, name, metric, stratum=None, qualifier=None, what=None):
        self.key = key
        self.name = name
        self.metric = metric
        self.stratum = stratum
        self.qualifier = qualifier
        self.what = what

    def source(self):
        """Where the key comes from, in a sentence: 'the subset Sévigné' or 'the track's own
        score uar'."""
        if self.stratum is None:
            return "the track's own score %s" % self.key
        return "the %s %s" % (self.what or "stratum", self.stratum)

    @property
    def lower_is_better(self):
        return self.metric.lower_is_better

    def title(self):
        """The column's title in words: [qualifier] [stratum] metric title."""
        return " ".join(part for part in (self.qualifier, self.stratum, self.metric.title) if part)

    def prefixed(self, prefix, qualifier):
        """The same column under a key prefix (two tracks of a kind in one phase)."""
        return Column(prefix + self.key, self.name, self.metric, self.stratum,
                      " ".join(part for part in (qualifier, self.qualifier) if part) or None, self.what)
