"""The one object a track hands to the writers: scores, tables, pictures, private files.

Writers render these blocks without knowing which track produced them.
"""

import math
from collections import OrderedDict


class Paragraph(object):
    def __init__(self, text):
        self.text = text


class Table(object):
    """A table; cells are strings or numbers (numbers are shown with 4 decimals)."""

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
    private: (relative path, bytes) written under OUTPUT/private/ for the organizers.
    items: per-item results (images, pages, categories) for the meta-evaluation.
    foregrounds: packed predicted pixel masks per page (lines), for the meta-evaluation.
    warnings: sentences also shown in the detailed results.
    """

    def __init__(self, kind, title):
        self.kind = kind
        self.title = title
        self.scores = OrderedDict()
        self.sections = []
        self.private = []
        self.items = {}
        self.foregrounds = {}  # lines: (manuscript, page) -> packed predicted foreground
        self.warnings = []

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
