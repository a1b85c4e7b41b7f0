"""The one object a track hands to the writers: scores, tables, pictures, private files.

Writers render these blocks without knowing which track produced them.
"""

import math
from collections import OrderedDict

from .metrics.ranking import curve


class Paragraph(object):
    def __init__(self, text):
        self.text = text


class Outcome(object):
    """A table column counting one outcome of the error map (a code of
    metrics.segmentation): the writer names and colours it as the map's legend does."""

    def __init__(self, code):
        self.code = code


class Table(object):
    """A table; cells are strings or numbers (floats are shown with 4 decimals, the full
    value being in scores.txt), columns strings or Outcome."""

    def __init__(self, columns, rows, caption=""):
        self.columns = list(columns)
        self.rows = [list(row) for row in rows]
        self.caption = caption


class Picture(object):
    """A PNG picture, embedded in the page as a data URI."""

    def __init__(self, png, caption, alt=""):
        self.png = png
        self.caption = caption
        self.alt = alt or caption


class PrecisionRecall(object):
    """A precision/recall chart: per operating point in ranking order, the true positives
    and items ranked at or above it (metrics.ranking.ranked_counts; integers, a quarter
    of the memory of the float curves); ap the area under the monotone precision."""

    def __init__(self, title, true_positives, counts, ap):
        self.title = title
        self.true_positives, self.counts = true_positives, counts
        self.ap = ap

    def curves(self):
        """(recall, raw precision, monotone precision) at each operating point."""
        return curve(self.true_positives, self.counts, int(self.true_positives[-1]))


class ConfusionMatrix(object):
    """Counts cells[row][column], rows the true class, columns the predicted class."""

    def __init__(self, title, cells, row_labels, column_labels):
        self.title = title
        self.cells = cells
        self.row_labels = list(row_labels)
        self.column_labels = list(column_labels)


class ErrorMap(object):
    """An error map: a palette PNG whose indices are outcome codes, shown with the legend."""

    def __init__(self, png, caption, width, height, outcomes):
        self.png = png
        self.caption = caption
        self.width, self.height = width, height
        self.outcomes = tuple(outcomes)  # the outcome codes its legend lists


FIGURES = (Picture, PrecisionRecall, ConfusionMatrix, ErrorMap)


class Section(object):
    def __init__(self, title, blocks=None):
        self.title = title
        self.blocks = list(blocks or [])

    def add(self, block):
        self.blocks.append(block)
        return block


class TrackResult(object):
    """Everything one track produced for one submission.

    scores: ordered key -> finite float, the leaderboard keys of the track, primary first.
    sections: what detailed_results.html shows to the participant.
    private: (relative path, bytes) written under OUTPUT/private/ for the organizers; in
        place of the bytes, a function that writes them to a binary stream (a large file
        is then never held in memory whole).
    view: the per-item view (itemview.ItemView) every score is aggregated from.
    foregrounds: packed predicted pixel masks per page (lines), for the meta-evaluation.
    warnings: sentences also shown in the detailed results.
    meaning: one sentence saying what the ranking score (the first key) measures;
    highlights: (label, value) pairs a participant checks first, shown beside it.
    stand_in: scored against a stand-in reference (track.yaml says stand_in: true);
    pending: the sentence the page shows instead of the scores (runner.stand_in_result);
    interval: (low, high) 95% interval of the ranking score's expected value, from the
        view's bootstrap (runner.add_interval), or None; prediction: (low, high) 95%
        prediction interval of the score on a second test set of the same size, or None.
    """

    def __init__(self, kind, title=""):
        self.kind = kind
        self.title = title  # the organizer's title of the track (set by the runner)
        self.competition = ""  # the organizer's title of the competition, if known
        self.scores = OrderedDict()
        self.sections = []
        self.private = []
        self.view = None
        self.foregrounds = {}  # lines: (manuscript, page) -> packed predicted foreground
        self.warnings = []
        self.meaning = ""
        self.key_prefix = ""  # set by the runner when two tracks of a kind share a phase
        self.highlights = []
        self.stand_in = False
        self.pending = ""
        self.interval = None
        self.prediction = None

    def set_score(self, key, value):
        value = float(value)
        if not math.isfinite(value):
            raise ValueError("score %s is %r; a track must define every score" % (key, value))
        if key in self.scores:
            raise ValueError("score %s is set twice; a track must write each key once" % key)
        self.scores[key] = value

    def section(self, title):
        section = Section(title)
        self.sections.append(section)
        return section
