"""ranking.csv, pairs.csv, ranks.csv, report.html of the meta-evaluation, and the paper's
material beside them: LaTeX tables (booktabs) under latex/ and every chart as a standalone
SVG file under svg/."""

from .. import htmltext as html
import math
import re
import unicodedata

import numpy as np

from ..csvtext import csv_text
from .. import bootstrap, webpage
from . import analysis, challenger, charts, latex

PAIR_TABLE_LIMIT = 20  # up to this many submissions the report lists every pair; beyond, pairs.csv does
TASK_CHART_LIMIT = 12  # per-task charts drawn for at most this many tasks (all are in the tables)


# -- numbers as shown -------------------------------------------------------------------

def fixed(value, decimals=4, plus=False):
    """value with `decimals` decimals (a sign always with `plus`); a value that rounds to
    zero is 0, never -0."""
    text = ("%+.*f" if plus else "%.*f") % (decimals, value)
    return "%.*f" % (decimals, 0.0) if float(text) == 0 else text


def shown(value, decimals=4):
    """Integers without decimals, p-values below 1e-4 as '< 0.0001', undefined as 'undefined'."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "undefined"
    if isinstance(value, (int, np.integer)) or (isinstance(value, float) and value.is_integer() and decimals == 0):
        return "%d" % value
    return fixed(value, decimals)


def shown_p(p):
    return "< 0.0001" if p < 0.0001 else "%.4f" % p


def shown_rank(value):
    value = float(value)
    return "%d" % value if value.is_integer() else "%.1f" % value


def _csv_number(value):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if isinstance(value, (int, np.integer)):
        return "%d" % value
    return "%.10g" % (value + 0.0)  # + 0.0: -0.0 is written 0


def _csv_numbers(values):
    """_csv_number of each float of an array (one format per value, no type test)."""
    return ["%.10g" % v if math.isfinite(v) else "" for v in (np.asarray(values, dtype=np.float64) + 0.0).tolist()]


def direction(a, key=None):
    return "lower is better" if a.lower_is_better(key) else "higher is better"


# -- the CSV files ------------------------------------------------------------------------

RANKING_HEADER = ["track", "submission", "rank", "score_key", "score", "ci_low", "ci_high", "median_rank",
                  "rank_ci_low", "rank_ci_high", "rank_by_mean_then_rank", "rank_by_median_then_rank",
                  "rank_by_rank_then_mean", "rank_by_test_then_rank", "rank_by_kemeny", "rank_by_significance_wins",
                  "significance_group", "could_win", "pseudo_f_measure", "pseudo_f_rank", "reference_rank_value",
                  "reference_rank"]


def ranking_rows(analyses):
    rows = []
    for a in analyses:
        g = a.gt_free
        methods = list(a.methods.methods.values())[1:] if a.ground_truth else []
        for s, name in enumerate(a.names):
            row = [a.label, name]
            if a.ground_truth:
                c, m = a.confidence, a.methods
                low, high = c.intervals[a.primary]
                row += [int(a.rank[s]), a.primary, _csv_number(a.values[a.primary][s]), _csv_number(low[s]),
                        _csv_number(high[s]), "%g" % c.rank_median[s], int(c.rank_interval[0][s]),
                        int(c.rank_interval[1][s])] + [int(r[s]) for r in methods] + [m.groups[s],
                                                                                      int(s in m.winners)]
            else:
                row += [""] * 16
            if g is not None:
                rank = g.reference_rank[s]
                row += [_csv_number(g.metrics["f_measure"][s]), int(g.f_rank[s]),
                        "" if s == g.reference_index else int(g.rank_values[s]),
                        "" if not np.isfinite(rank) else int(rank)]
            else:
                row += [""] * 4
            rows.append(row)
    return RANKING_HEADER, rows


def ranking_csv(analyses):
    return csv_text(*ranking_rows(analyses))


PAIRS_HEADER = ["track", "score", "a", "b", "difference", "ci_low", "ci_high", "p", "p_adjusted", "test"]


def pairs_csv(analyses):
    """One row per track, ranked score and ordered pair (a, b), a != b: difference a - b."""
    rows = []
    for a in analyses:
        if not a.ground_truth:
            continue
        for key, tests in a.significance.tests.items():
            columns = [_csv_numbers(v) for v in (tests.difference, tests.low, tests.high, -tests.difference,
                                                 -tests.high, -tests.low, tests.p, tests.p_adjusted)]
            for (i, j), d, low, high, back, back_low, back_high, p, q, withheld, unseen in zip(
                    tests.pairs.tolist(), *(columns + [tests.withheld.tolist(), tests.unseen.tolist()])):
                test = tests.test + ("; " + analysis.withheld_reason(tests.unit_count, a.unit, unseen) if withheld
                                     else "")
                rows.append([a.label, key, a.names[i], a.names[j], d, low, high, p, q, test])
                rows.append([a.label, key, a.names[j], a.names[i], back, back_low, back_high, p, q, test])
    return csv_text(PAIRS_HEADER, rows)


def ranks_csv(analyses):
    """The bootstrap rank distributions: the share of resamples giving each submission each
    rank (ranks never drawn are left out)."""
    rows = []
    for a in analyses:
        if not a.ground_truth:
            continue
        for s, name in enumerate(a.names):
            for r in np.flatnonzero(a.confidence.rank_frequency[s] > 0):
                rows.append([a.label, a.primary, name, int(r + 1), _csv_number(a.confidence.rank_frequency[s][r])])
    return csv_text(["track", "score", "submission", "rank", "share"], rows)


# -- report.html ----------------------------------------------------------------------------

def slug(text):
    """A file-name-safe form of a track label or a name."""
    text = unicodedata.normalize("NFKD", str(text))
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return text or "track"


class Html(object):
    def __init__(self):
        self.parts = []
        self.toc = []
        self.files = {}  # relative path -> text (svg/*.svg, latex/*.tex)

    def heading(self, level, text, anchor=None):
        if anchor:
            self.toc.append((level, text, anchor))
            self.parts.append('<h%d id="%s">%s</h%d>' % (level, anchor, webpage.text(text), level))
        else:
            self.parts.append("<h%d>%s</h%d>" % (level, webpage.text(text), level))

    def paragraph(self, text):
        self.parts.append("<p>%s</p>" % webpage.text(text))

    def reading(self, text):
        """The one plain sentence under an analysis saying what it shows."""
        self.parts.append('<p class="reading"><strong>What it shows:</strong> %s</p>' % webpage.text(text))

    def raw(self, text):
        self.parts.append(text)

    def table(self, columns, rows, caption="", wrap=False, narrow=None):
        """wrap: text cells wrap (a table of sentences) instead of scrolling sideways.
        narrow: a ranking table, whose first `narrow` columns are all a phone shows (the
        names and the score's cell wrap, the score on one line, its interval on the next),
        the others hidden there, with a note saying so."""
        self.parts.append(webpage.table(columns, rows, caption, cell=_cell, numeric=_numeric, wrap=wrap,
                                        narrow=narrow))
        if narrow is not None and len(columns) > narrow:
            self.parts.append('<p class="narrow">On a narrow screen the table shows %s only; %s show on a '
                              'wider screen.</p>' % (webpage.text(", ".join(columns[:narrow])),
                                                     webpage.text(", ".join(columns[narrow:]))))

    def figure(self, svg, caption, name):
        """A chart inline, and as the standalone file svg/<name>.svg. Its displayed width is
        its own up to the page's, and never below 80% of it (its 12 px text stays at least
        9.6 px, legible; a wider chart scrolls in its box on a phone)."""
        width = int(re.search(r'width="(\d+)"', svg).group(1))
        sized = svg.replace("<svg ", '<svg style="width:100%%;max-width:%dpx;min-width:%dpx" ' % (
            width, int(0.8 * width)), 1)
        path = "svg/%s.svg" % name
        self.files[path] = '<?xml version="1.0" encoding="UTF-8"?>\n' + svg + "\n"
        self.parts.append('<figure>%s<figcaption>%s (<a href="%s">SVG</a>)</figcaption></figure>' % (
            sized, webpage.text(caption), html.escape(path)))


def _cell(value):
    return value if isinstance(value, str) else shown(value)


def _numeric(value):
    """Numbers, and texts of numbers ('0.9500 [0.9290, 0.9704]', '< 0.0001'), align right."""
    if isinstance(value, str):
        return value[:1] in "0123456789-+<" and value != "-"
    return isinstance(value, (int, float, np.integer, np.floating))


def _interval(value, low, high, wraps=False):
    """'value [low, high]'; wraps: the line may break before the interval only."""
    return "%s [%s,%s%s]" % (fixed(value), fixed(low), "\u00a0" if wraps else " ", fixed(high))


def _rank_interval(a, s):
    """Submission s's median bootstrap rank and its 95% interval."""
    c = a.confidence
    return "%s [%d, %d]" % (shown_rank(c.rank_median[s]), c.rank_interval[0][s], c.rank_interval[1][s])


def _order(a):
    return np.argsort(a.rank, kind="mergesort")


def at_a_glance(analyses):
    """The first lines of the page: per track, the leader's primary score and interval."""
    items = []
    for a in analyses:
        if not a.ground_truth:
            items.append("<li><strong>%s</strong>: no ground truth (ground-truth-free analysis only)</li>"
                         % webpage.text(a.label))
            continue
        leaders = [s for s in _order(a) if a.rank[s] == 1]
        leader = int(leaders[0])
        low, high = a.confidence.intervals[a.primary]
        beaten = int(a.significance.tests[a.primary].better()[leader].sum())
        items.append('<li><strong>%s</strong>: leader %s, <span data-primary="%s">%s %s</span> (%s); '
                     'significantly ahead of %d of %d others; could win: %d submission%s</li>' % (
                         webpage.text(a.label), webpage.text(" and ".join(a.names[s] for s in leaders)),
                         html.escape(a.primary), webpage.text(a.primary),
                         _interval(a.values[a.primary][leader], low[leader], high[leader]), direction(a), beaten,
                         len(a.names) - 1, len(a.methods.winners), "" if len(a.methods.winners) == 1 else "s"))
    return '<ul class="glance">%s</ul>' % "".join(items)


def summary(doc, analyses):
    doc.heading(2, "Summary", "summary")
    for a in analyses:
        doc.raw('<div class="panel">')
        doc.heading(3, "Track %s (%d submissions)" % (a.label, len(a.names)))
        if not a.ground_truth:
            doc.paragraph("No ground truth: only the ground-truth-free analysis below.")
            doc.raw("</div>")
            continue
        order = _order(a)
        low, high = a.confidence.intervals[a.primary]
        rows = [[int(a.rank[s]), a.names[s], _interval(a.values[a.primary][s], low[s], high[s], True),
                 _rank_interval(a, s),
                 a.methods.groups[s], "yes" if s in a.methods.winners else "no"] for s in order]
        doc.table(["rank", "submission", "%s [95%%] (%s)" % (a.primary, direction(a)), "bootstrap rank [95%]",
                   "group", "could win"], rows, "Every submission, by rank", narrow=3)
        tests = a.significance.tests[a.primary]
        better = tests.better()
        significant = int(np.count_nonzero(analysis.below(tests.p_adjusted)))
        leader = int(order[0])
        doc.paragraph("Distinguishable: %d of %d pairs differ significantly in %s (%s, adjusted p < 0.05)%s. "
                      "The leader %s is significantly better than %d of the %d others; %.1f%% of the bootstrap "
                      "resamples rank it first. Could be the winner (no leader is significantly better): %s." % (
                          significant, len(tests.pairs), a.primary, tests.test, _withheld(tests), a.names[leader],
                          int(better[leader].sum()), len(a.names) - 1, 100 * a.confidence.rank_frequency[leader][0],
                          ", ".join(a.names[s] for s in a.methods.winners)))
        stable = "; ".join("%s: %s" % (name, _method_tau(a, name, tau, summary=True))
                           for name, tau, _ in a.methods.agreement)
        doc.paragraph("Kendall's tau-b of each other ranking method with the leaderboard (1 = the same order): "
                      "%s." % stable)
        if tests.disagreements:
            doc.paragraph("The test and the interval disagree on %d pair%s of %s (listed under Paired "
                          "significance)." % (len(tests.disagreements), "" if len(tests.disagreements) == 1 else "s",
                                              a.primary))
        doc.reading("Submissions that share a group letter cannot be told apart at the 5% level; a submission "
                    "whose bootstrap rank interval is wide holds its place by chance of the test set.")
        doc.raw("</div>")


def track_sections(doc, a, index):
    anchor = "t%d" % index
    name = slug(a.label)
    doc.heading(2, "Track %s" % a.label, anchor)
    doc.paragraph("Submissions: %s. Items: %s, in %d strata (%s). Ranking score: %s (%s)." % (
        ", ".join(a.names), a.unit + "s", len(a.strata), ", ".join(a.strata[:20]) +
        (", ..." if len(a.strata) > 20 else ""), a.primary, direction(a)))
    if a.ground_truth:
        _confidence(doc, a, anchor, name)
        _uncertainty(doc, a, anchor, name)
        _strata(doc, a, anchor, name)
        _cases(doc, a, anchor, name)
        _methods(doc, a, anchor, name)
        _significance(doc, a, anchor, name)
        _protocols(doc, a, anchor)
    if a.gt_free is not None:
        _gt_free(doc, a, anchor)
    for note in a.notes:
        doc.paragraph(note)


def _range(a, key, values):
    """The axis range of a score: its bounds where it has them, else the data's, padded."""
    low, high = a.scores[key].bounds
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    data_low, data_high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    pad = 0.05 * (data_high - data_low or 1.0)
    return (low if low is not None else data_low - pad, high if high is not None else data_high + pad)


def _drawless(a):
    """The clause naming the scores whose interval comes from a standard error instead of
    the draws (bootstrap.drawless: average precision), or nothing."""
    keys = [k for k in a.ranked if bootstrap.drawless(a.scores[k])]
    if not keys:
        return ""
    return ("; the interval of %s (an average precision) comes instead from the same bootstrap's variance, "
            "to first order and computed without drawing it (each %s's influence on the AP: the infinitesimal "
            "jackknife), on the logit scale: logit(score) -/+ t(df) x its standard error, mapped back; the "
            "intervals of its differences are percentile intervals as above" % (", ".join(keys), a.unit))


def _widening(a, key):
    """The widening of one score's intervals: one factor, or the range over the submissions
    (a ratio's degrees of freedom are each submission's own, Satterthwaite's)."""
    df, factor = a.confidence.df[key], a.confidence.widening[key]
    if int(df.min()) == int(df.max()):
        return "%s: %.3f, %d degrees of freedom" % (key, factor[0], df[0])
    return ("%s: %.3f to %.3f, %d to %d degrees of freedom (Satterthwaite's, each submission's own: fewer where "
            "one stratum holds most of its variance)" % (key, factor.min(), factor.max(), df.max(), df.min()))


def _confidence(doc, a, anchor, name):
    doc.heading(3, "Scores with 95% intervals", anchor + "-confidence")
    order = _order(a)
    doc.paragraph(
        "Stratified bootstrap with %d resamples (seed %d): %ss are drawn within their resampling blocks "
        "(stratum and, where the view has one, true class), each block of b items with b - 1 draws (Rao and "
        "Wu's rescaled bootstrap: unbiased variance for few items), and every score is recomputed from the "
        "per-item terms. Percentile intervals recentred on the score and widened by t(0.975, df)/z(0.975) (%s), "
        "clipped to the score's range%s; a ratio score that is higher-is-better from 0 keeps its low end at most "
        "score x 0.025^(1/n), n its %ss, what it would keep failing on as many %ss as n %ss leave unseen 2.5 "
        "times in 100. Each interval holds the submission's expected score (the mean of its "
        "scores over test sets drawn like this one: for a mean over items, what an unlimited test set of this "
        "kind would give; for an average precision, the expectation at this test set's size, above a large "
        "one's) about 95 times in 100 or more, as measured by simulation at the sizes of the tracks "
        "(bench/coverage.py: 0.93 to 1.00 on 18 or 30 pages, the room for unseen failures making it more); a "
        "second test set's score varies about that expectation too and falls outside more often. "
        "Scores are compared exactly (as the rationals they are), so equal scores share a rank." % (
            a.confidence.resamples, a.confidence.seed, a.unit,
            "; ".join(_widening(a, k) for k in a.ranked), _drawless(a), a.unit, a.unit, a.unit))
    if a.confidence.small_strata:
        doc.paragraph("Small strata (fewer than 10 %ss): %s; their intervals rest on few items." % (
            a.unit, ", ".join("%s (%d)" % s for s in a.confidence.small_strata)))
    rows = []
    given = a.leaderboard.given
    keys = [a.primary] + [k for k in a.ranked if k != a.primary]
    for s in order:
        row = [int(a.rank[s]), a.names[s]]
        for key in keys:
            low, high = a.confidence.intervals[key]
            row.append(_interval(a.values[key][s], low[s], high[s], True) if given[key][s] else
                       "none given (%s on the leaderboard)" % fixed(a.values[key][s]))
        rows.append(row)
    doc.table(["rank", "submission"] + ["%s [95%%] (%s)" % (k, direction(a, k)) for k in keys], rows,
              "Ranked by %s" % a.primary, narrow=3)
    for key in a.ranked:
        for s in order:
            if not given[key][s]:
                doc.paragraph("%s gave none of the input of %s (the view's column %s is 0 on every %s): its "
                              "leaderboard value %s is the track's value for nothing, not a measurement." % (
                                  a.names[s], key, a.scores[key].given, a.unit, fixed(a.values[key][s])))
    low, high = a.confidence.intervals[a.primary]
    labels = ["%d. %s" % (a.rank[s], a.names[s]) for s in order]
    x_range = _range(a, a.primary, np.concatenate([low, high]))
    doc.figure(charts.forest(labels, a.values[a.primary][order], low[order], high[order],
                             "%s with 95%% intervals" % a.primary, "%s (%s)" % (a.primary, direction(a)),
                             x_range=x_range, width=charts.MIN_WIDTH,
                             description="One row per submission: its score and 95% interval."),
               "Interval chart: the dot is the score, the bar its 95% interval.", name + "-intervals")
    doc.reading("Where two bars overlap much, the test set cannot tell those submissions apart with confidence; "
                "the bar shows where the submission's expected score lies (its mean over test sets drawn like "
                "this one), at least 93 times in 100 as measured by simulation; the score on one more such test "
                "set varies more: the interval "
                "that holds it (the prediction interval of the participant's page) is about 1.4 times as wide.")


def _uncertainty(doc, a, anchor, name):
    doc.heading(3, "How certain is the ranking", anchor + "-uncertainty")
    order = _order(a)
    names = [a.names[s] for s in order]
    c = a.confidence
    doc.figure(charts.blob(names, c.rank_frequency[order], c.rank_median[order], c.rank_interval[0][order],
                           c.rank_interval[1][order], "Bootstrap rank distributions of %s" % a.primary,
                           "Per submission, the share of bootstrap resamples giving each rank."),
               "Blob plot (challengeR's stability plot): a disc's area is the share of resamples giving that "
               "rank; black dot: median rank; line: 95% interval of the rank.", name + "-ranks")
    doc.reading("A submission whose discs spread over several ranks could have landed elsewhere on another "
                "test set; one large disc means its place is stable.")
    tau = a.stability.tau
    groups = [("leaderboard", tau["leaderboard"])] + [(t, v) for t, v in tau.items() if t != "leaderboard"]
    doc.figure(charts.violin(groups[:TASK_CHART_LIMIT + 1], "Kendall's tau with each bootstrap ranking",
                             "Kendall's tau-b"),
               "Violin plot (challengeR's violin): per ranking (the leaderboard, then each stratum's), the "
               "distribution over the resamples of Kendall's tau-b between it and the ranking of the resample; "
               "bar: median.", name + "-tau")
    medians = [float(np.median(v)) for _, v in groups[1:] if len(v)]
    spread = (", from %s to %s in the strata" % (fixed(min(medians), 3), fixed(max(medians), 3))) if medians else ""
    doc.reading("Tau near 1 means resampling the test set keeps the order (median tau %s for the leaderboard%s); "
                "a low or widely spread tau means the order rests on the particular test items." % (
                    shown(float(np.median(groups[0][1])) if len(groups[0][1]) else float("nan"), 3), spread))


def _strata(doc, a, anchor, name):
    if len(a.strata) < 2:
        return
    doc.heading(3, "Per stratum", anchor + "-strata")
    order = _order(a)
    statistic_values = a.stability.stratum_values
    ranks = a.stability.stratum_ranks
    rows = [[a.names[s]] + ["%s (%d)" % (fixed(statistic_values[s, h]), ranks[s, h]) for h in range(len(a.strata))]
            for s in order]
    doc.table(["submission"] + list(a.strata), rows, "%s of each stratum (rank in the stratum)" % a.primary)
    doc.figure(charts.podium(a.names, order, statistic_values, a.strata, "%s (%s)" % (a.primary, direction(a)),
                             "Podium: %s per stratum" % a.primary, y_range=_range(a, a.primary, statistic_values)),
               "Column i: the submission ranked i-th; one marker per stratum at its value there, joined per "
               "stratum.", name + "-podium")
    doc.reading("Lines that cross show strata where the order differs from the leaderboard's: a submission "
                "strong on some strata and weak on others.")
    if a.stability.task_bootstrap:
        doc.figure(charts.blob([a.names[s] for s in order], a.stability.stratum_rank_share[order],
                               np.median(a.stability.stratum_ranks, axis=1)[order], None, None,
                               "Ranks across strata", "Per submission, the share of strata giving each rank.",
                               what="strata"),
                   "Stability across strata (challengeR's blob plot across tasks): a disc's area is the share of "
                   "strata where the submission has that rank; dot: median rank over the strata.",
                   name + "-across-strata")
        doc.reading("Submissions with one disc rank the same on every stratum; spread discs mean the ranking "
                    "depends on which strata the test set holds.")
        for h, (stratum, found) in enumerate(list(a.stability.task_bootstrap.items())[:TASK_CHART_LIMIT]):
            task_order = np.argsort(found["rank"], kind="mergesort")
            doc.figure(charts.blob([a.names[s] for s in task_order], found["frequency"][task_order],
                                   found["median"][task_order], found["interval"][0][task_order],
                                   found["interval"][1][task_order], "Bootstrap ranks in %s" % stratum,
                                   "Per submission, the share of resamples giving each rank in this stratum."),
                       "Blob plot of stratum %s: its bootstrap rank distributions." % stratum,
                       "%s-ranks-%d" % (name, h))
        doc.reading("The same reading per stratum: a stratum with wide distributions cannot order the "
                    "submissions on its own.")


def _cases(doc, a, anchor, name):
    cases = a.cases
    doc.heading(3, "Cases", anchor + "-cases")
    unit = cases.unit
    doc.paragraph("A case is the unit the paired test swaps: %s. Value of a case: %s. Tasks (challengeR's word): "
                  "%s." % ("each %s" % unit if cases.kind == "item" else "each stratum (the score is not a sum "
                           "over items)", "the %s's own %s" % (unit, a.primary) if cases.kind == "item" else
                           "the stratum's %s" % a.primary,
                           "the strata" if cases.kind == "item" else "one, the whole track"))
    _missing(doc, a)
    order = _order(a)
    names = [a.names[s] for s in order]
    y_range = _range(a, a.primary, cases.values)
    given = cases.values[np.isfinite(cases.values)]
    binary = given.size > 0 and bool(np.all((given == 0) | (given == 1)))
    if binary:
        doc.paragraph("Every case's value is 0 or 1 (a %s right or wrong): a dot and box plot of them would show "
                      "two dots and an empty box, so none is drawn; the share of 1s of a submission in a task is "
                      "its %s there (%s)." % (unit, a.primary, "the Per stratum table" if len(a.strata) > 1 else
                                              "the score above"))
    for t, task in enumerate(cases.tasks[:TASK_CHART_LIMIT]):
        columns = cases.of_task(t)
        rows = [cases.values[s, columns] for s in order]
        if not binary:
            doc.figure(charts.dot_box(names, rows, "%s per case: %s" % (a.primary, task), "%s (%s)" % (
                a.primary, direction(a)), y_range),
                "Dot and box plot (challengeR's boxplot) of task %s: every case's value, and the quartiles." % task,
                "%s-cases-%d" % (name, t))
        ranks = a.methods.case_ranks[t]
        counts = np.stack([np.bincount(ranks[s], minlength=len(a.names) + 2)[1:len(a.names) + 1]
                           for s in order])
        doc.figure(charts.heatmap(names, counts, "Ranks per case: %s" % task,
                                  "Per submission, how many cases gave it each rank."),
                   "Ranking heatmap (challengeR's rankingHeatmap) of task %s: columns in leaderboard order, rows "
                   "the rank on a case; darker cells, more cases." % task, "%s-heatmap-%d" % (name, t))
    if len(cases.tasks) > TASK_CHART_LIMIT:
        doc.paragraph("Charts drawn for the first %d of %d tasks." % (TASK_CHART_LIMIT, len(cases.tasks)))
    doc.reading(("" if binary else "A submission whose dots sit high with a short box is good on most cases; a ")
                + ("A" if binary else "") + " dark diagonal in the heatmap means the cases agree with the final "
                "order, dark cells off it mean many cases order the submissions otherwise.")


def _missing(doc, a):
    cases = a.cases
    counted = cases.missing.sum(axis=1)
    if not cases.missing.any() and not any(a.leaderboard.missing_items):
        doc.paragraph("Missing cases: none (every submission gave every case).")
        return
    treatment = {"track": "kept at the value the track scored them with (the leaderboard's rule; challengeR's "
                          "na.treat given that value)",
                 "na.rm": "left out for that submission (challengeR's na.treat = \"na.rm\")",
                 "worst": "replaced by %s, the worst value of the score (challengeR's na.treat = %s)" % (
                     shown(cases.replaced), shown(cases.replaced))}.get(
        cases.treatment, "replaced by %s (challengeR's na.treat = %s)" % (cases.treatment, cases.treatment))
    rows = [[a.names[s], int(a.leaderboard.missing_items[s]), int(counted[s])] for s in range(len(a.names))
            if a.leaderboard.missing_items[s] or counted[s]]
    doc.table(["submission", "%ss not given" % a.unit, "missing cases"], rows, "Missing cases")
    doc.paragraph("Items a submission did not give are scored by the track's own rule on the leaderboard, in "
                  "the intervals and in the tests; in the per-case analysis below (challengeR's methods, dot "
                  "plots, heatmaps) the missing cases are %s." % treatment)


def _methods(doc, a, anchor, name):
    doc.heading(3, "Ranking methods (challengeR) and stability", anchor + "-methods")
    order = _order(a)
    methods = list(a.methods.methods.items())
    doc.table(["method", "what it ranks by", "challengeR"],
              [[method, text, _challenger(method)] for method, text in analysis.METHODS.items()],
              "The methods, and the challengeR 1.0.5 function each reproduces", wrap=True)
    doc.table(["submission"] + [method for method, _ in methods] + ["P(rank 1)"],
              [[a.names[s]] + [int(r[s]) for _, r in methods] + ["%.1f%%" % (100 * a.confidence.rank_frequency[s][0])]
               for s in order], "Ranks of %s by each method (ties share the best rank); P(rank 1) over the "
                                "bootstrap resamples" % a.primary)
    kemeny = a.methods.kemeny
    if not kemeny.exact:
        how = ("not exact beyond %d submissions: a local optimum reached from the leaderboard's order, whose tau "
               "with the leaderboard leans towards it" % challenger.KEMENY_EXACT)
    elif kemeny.optimal > 1:
        how = ("exact, one of %d equally optimal orders, the one closest to the leaderboard where they differ "
               "(the tie-break); over all %d, Kendall's tau-b with the leaderboard ranges %s, and the one shown "
               "has %s, which measures the tie-break as much as the agreement" % (
                   kemeny.optimal, kemeny.optimal, _tau_range_text(kemeny.tau_range), shown(kemeny.tau, 3)))
    else:
        how = "exact, the only optimal order"
    doc.paragraph("Kemeny consensus of the mean-then-rank task rankings: %s (summed symmetric-difference "
                  "distance %d)." % (how, kemeny.cost))
    doc.table(["method", "Kendall tau-b with the leaderboard", "rank distance"],
              [[method, _method_tau(a, method, tau), "%g" % distance] for method, tau, distance in a.methods.agreement],
              "Rank distance: pairwise tie-aware (a pair ordered oppositely costs 1, a pair tied in one ranking "
              "only 0.5)%s" % ("; Kemeny: the order shown, and the range over its %d optimal orders"
                               % kemeny.optimal if kemeny.exact and kemeny.optimal > 1 else ""))
    doc.reading("Where the methods agree (tau near 1), the winner does not depend on how the cases are "
                "aggregated; a method that moves a submission far says its lead rests on the aggregation.")


def _tau_range_text(tau_range):
    return "from %s to %s" % (shown(tau_range[0], 3), shown(tau_range[1], 3)) if tau_range else "undefined"


def _method_tau(a, method, tau, summary=False):
    """A method's tau-b with the leaderboard as shown. For a Kemeny consensus with several
    optimal orders, the range over them (in the summary, the range alone; in the table,
    beside the tau of the order shown); for a local optimum, said to start from the
    leaderboard's order (which its tau leans towards)."""
    kemeny = a.methods.kemeny
    if not method.startswith("Kemeny"):
        return shown(tau, 3)
    if not kemeny.exact:
        return "%s (a local optimum reached from the leaderboard's order)" % shown(tau, 3)
    if kemeny.optimal > 1:
        over = "%s over %s%d optimal orders" % (_tau_range_text(kemeny.tau_range), "its " if summary else "",
                                                kemeny.optimal)
        return over if summary else "%s (%s)" % (shown(tau, 3), over)
    return shown(tau, 3)


def _challenger(method):
    if method in challenger.METHODS:
        return challenger.METHODS[method] + "; consensus(method = \"euclidean\")"
    if method.startswith("Kemeny"):
        return "consensus(method = \"symdiff/L\")"
    return "none (compare.py's own)"


def _withheld(tests):
    """'; N pairs are given no test: why', or nothing."""
    count = int(np.count_nonzero(tests.withheld))
    if not count:
        return ""
    return "; %d pair%s given no test (%s; they count as not significantly different, and groups and could-win " \
        "rest on that)" % (count, " is" if count == 1 else "s are", tests.withheld_reason)


def _significance(doc, a, anchor, name):
    doc.heading(3, "Paired significance", anchor + "-significance")
    doc.paragraph(
        "Paired randomisation test of the difference in each ranked score, stratified and weighted as the score "
        "aggregates its items: under the null hypothesis the two submissions are exchangeable on every unit, "
        "so swapping them flips the sign of that unit's share of the difference. A ratio of sums over "
        "reference denominators (accuracy, recall, a mean over pages) is a sum of per-item shares and is "
        "tested by %s; any other statistic (average precision) is tested by stratum. The statistic is the "
        "difference over its standard error with the variance centred within strata, so that the test asks "
        "what the interval asks (is the expected difference 0) even when an advantage differs by stratum. "
        "Exact over all 2^n sign patterns where that is affordable, otherwise %d seeded patterns (smallest p "
        "%.5f); a pattern whose statistic equals the observed one counts, decided exactly. Tested by item, the "
        "p given is the larger of that test's and Hall's skewness-corrected t's: with few items and skewed "
        "differences (a "
        "steady submission against one that fails now and then) the sign flips alone reject too often when the "
        "two have the same expected score. Multiplicity: %s over "
        "the pairs of each score, on the same patterns. Interval: paired bootstrap of the difference; effect: "
        "difference / its bootstrap SD; P(A better): share of resamples where A is strictly better." % (
            a.unit, a.significance.permutations, 1.0 / (a.significance.permutations + 1),
            "Westfall and Young's max-T step-down" if a.significance.adjustment == "maxT" else "Holm's step-down"))
    withheld = [key for key, tests in a.significance.tests.items() if tests.withheld.any()]
    if withheld:
        doc.paragraph("%s: %s." % (", ".join(withheld), a.significance.tests[withheld[0]].withheld_reason))
    order = _order(a)
    rank = dict((s, r) for r, s in enumerate(order))
    for number, (key, tests) in enumerate(a.significance.tests.items()):
        better = tests.better()
        doc.figure(charts.significance_map([a.names[s] for s in order], better[np.ix_(order, order)],
                                           "Significance map: %s" % key),
                   "Green: the row is significantly better than the column (adjusted p < 0.05); red: worse; "
                   "white: not distinguishable. %s" % ("" if len(a.names) <= charts.MAP_LIMIT else
                                                      "The first %d submissions by rank." % charts.MAP_LIMIT),
                   "%s-significance-%d" % (name, number))
        indices = sorted(range(len(tests.pairs)), key=lambda k: (rank[tests.pairs[k][0]] + rank[tests.pairs[k][1]],
                                                                 tests.pairs[k].tolist()))
        if len(a.names) > PAIR_TABLE_LIMIT:
            indices = [k for k in indices if abs(rank[tests.pairs[k][0]] - rank[tests.pairs[k][1]]) == 1]
        rows = []
        for k in indices:
            i, j = tests.pairs[k]
            sign = 1
            if rank[i] > rank[j]:
                i, j, sign = j, i, -1
            low, high = sorted((sign * tests.low[k], sign * tests.high[k]))
            rows.append([a.names[i], a.names[j], "%s [%s, %s]" % (fixed(sign * tests.difference[k], plus=True),
                                                                  fixed(low, plus=True), fixed(high, plus=True)),
                         fixed(sign * tests.effect[k], 2, plus=True),
                         "%.1f%%" % (100 * (tests.p_better[k] if sign > 0 else tests.p_worse[k])),
                         ] + (["no test (%.0f%%)" % (100 * tests.unseen[k]), "no test", "not tested"]
                              if tests.withheld[k] else [
                             shown_p(tests.p[k]), shown_p(tests.p_adjusted[k]),
                             "yes" if tests.p_adjusted[k] < analysis.ALPHA else "no"]))
        doc.table(["A", "B", "difference A - B [95%]", "effect", "P(A better)", "p", "adjusted p", "significant"],
                  rows, "%s (%s): %s" % (key, direction(a, key), "every pair" if len(a.names) <= PAIR_TABLE_LIMIT
                                         else "neighbours on the leaderboard (every pair in pairs.csv)"))
        if tests.disagreements:
            doc.raw("<ul>%s</ul>" % "".join("<li>%s</li>" % webpage.text(
                "%s vs %s: %s" % (a.names[tests.pairs[j][0]], a.names[tests.pairs[j][1]], reason))
                for j, reason in tests.disagreements))
            doc.paragraph("Above: the pairs of %s where the raw test (p < 0.05 or not) and the 95%% interval of the "
                          "difference (holding 0 or not) disagree, and why." % key)
        else:
            doc.paragraph("The raw test and the 95%% interval of the difference agree on every pair of %s." % key)
    doc.reading("A green cell is a difference the test set supports after accounting for the number of pairs "
                "compared; white cells are pairs whose order could flip on another test set.")
    m = a.mcnemar
    if m is not None:
        rows = [[a.names[i], a.names[j], int(b), int(c), shown_p(p), shown_p(q)]
                for (i, j), b, c, p, q in zip(m.pairs.tolist(), m.b, m.c, m.p, m.p_holm)]
        if len(a.names) > PAIR_TABLE_LIMIT:
            rows = rows[:len(a.names) - 1]
        doc.table(["A", "B", "b (A right, B wrong)", "c (A wrong, B right)", "p", "Holm p"], rows,
                  "Secondary view: exact McNemar test of per-%s correctness (the pooled accuracy, not the "
                  "leaderboard score)" % a.unit)
        doc.reading("McNemar compares the pooled accuracy over all %ss, which weighs large strata more than the "
                    "leaderboard does; where it disagrees with the test above, the leaderboard's test decides."
                    % a.unit)


def _protocols(doc, a, anchor):
    if not a.protocol_pairs:
        return
    doc.heading(3, "Comparing metrics and protocols", anchor + "-protocols")
    doc.paragraph("For each two ranked scores, the distance between the rankings they give: pairwise tie-aware "
                  "rank distance (a pair of submissions ordered oppositely costs 1, a pair tied in one ranking "
                  "only 0.5; it reproduces Figure 3 of the comparison of text-detection evaluation protocols, "
                  "not that paper's edit distance in general), and Kendall's tau-b (undefined when a ranking is "
                  "all ties). Pairs of submissions: %d." % (len(a.names) * (len(a.names) - 1) // 2))
    doc.table(["score", "score", "rank distance", "tau-b"],
              [[p, q, "%g" % d, shown(t, 3)] for p, q, d, t in a.protocol_pairs])
    doc.reading("A distance of 0 means the two scores order the submissions the same way; the larger it is, "
                "the more the choice of score decides the ranking.")


def _gt_free(doc, a, anchor):
    g = a.gt_free
    doc.heading(3, "Without ground truth", anchor + "-gtfree")
    reference = g.reference
    text = ("Fedorchuk and Lamiroy (ICAPR 2017): the consensus P(d) is the share of submissions deciding "
            "positive on item d; pseudo-metrics compare each submission to it (NRM: lower is better). "
            "Reference-classifier McNemar test (reference: %s), per %s; ranking protocol: every pair with "
            "p < 0.05 adds one to the rank value of the submission that agrees more with the reference." % (
                reference, g.unit))
    if g.reference_index is None:
        text += (" The majority vote includes the two submissions compared: with %d submissions each holds 1/%d "
                 "of the vote, so the reference leans towards both and the test is not independent of the pair."
                 % (len(a.names), len(a.names)))
    else:
        text += " The reference submission is not ranked by the protocol (it would agree with itself everywhere)."
    doc.paragraph(text)
    accuracy = g.reference_accuracy
    if accuracy is not None:
        doc.paragraph("The reference's own accuracy against the ground truth: %.4f (balanced %.4f); the paper "
                      "assumes a reference better than random (above 0.5): %s." % (
                          accuracy["accuracy"], accuracy["balanced_accuracy"],
                          "holds" if accuracy["balanced_accuracy"] > 0.5 else "does NOT hold"))
    names = ["precision", "recall", "f_measure", "nrm", "ncc", "psnr"]
    rows = []
    for s in range(len(a.names)):
        own = s == g.reference_index
        rows.append([a.names[s]] + [float(g.metrics[m][s]) for m in names]
                    + [int(g.f_rank[s]), "reference" if own else int(g.rank_values[s]),
                       "reference" if own else int(g.reference_rank[s])])
    doc.table(["submission"] + names + ["rank by pseudo F", "reference rank value", "rank by reference protocol"],
              rows)
    if g.agreement is not None:
        pairs = len(a.names) * (len(a.names) - 1) // 2
        doc.table(["ground-truth-free ranking", "ground-truth score", "rank distance", "tau-b"],
                  [[n, k, "%g" % d, shown(t, 3)] for n, k, d, t, _ in g.agreement],
                  "Agreement with the ranking by the ground-truth score")
        doc.reading(agreement_sentence(a, g.agreement, pairs))
    else:
        doc.reading("Without ground truth these rankings say which submissions agree with the others; they "
                    "rank a submission well for agreeing, not for being right.")


def agreement_sentence(a, rows, pairs):
    """What the agreement of the ground-truth-free rankings with the ground truth means. A
    tau-b within what 95 of 100 random orders reach (chance_tau) is no agreement, neither
    for nor against; beyond it, positive is agreement (mostly from 0.6) and negative an
    order against the ground truth."""
    parts = []
    for name, key, distance, tau, chance in rows:
        if tau is None:
            reading = "cannot be compared (one ranking is all ties)"
        elif distance == 0:
            reading = "orders the submissions exactly as %s does" % key
        elif chance is None or abs(tau) <= chance:
            reading = ("shows no agreement with %s beyond chance (tau-b %s%s)" % (
                key, shown(tau, 3), "" if chance is None else "; 95 of 100 random orders reach |tau-b| %s"
                % shown(chance, 3)))
        elif tau >= 0.6:
            reading = "mostly agrees with %s (tau-b %s; %g of %d pairs out of order)" % (key, shown(tau, 3),
                                                                                       distance, pairs)
        elif tau > 0:
            reading = "agrees only loosely with %s (tau-b %s)" % (key, shown(tau, 3))
        else:
            reading = ("orders the submissions against %s (tau-b %s, beyond the %s that 95 of 100 random orders "
                       "reach): without ground truth it would have ranked them largely the wrong way round"
                       % (key, shown(tau, 3), shown(chance, 3)))
        parts.append("the %s ranking %s" % (name, reading))
    return "Checked against the ground truth, " + "; ".join(parts) + "."


def paper_files(doc, analyses):
    """latex/<track>-ranking.tex and latex/<track>-strata.tex for every track with ground
    truth, and latex/example.tex, a document that inputs them all."""
    inputs = []
    for a in analyses:
        if not a.ground_truth:
            continue
        name = slug(a.label)
        files = [("%s-ranking.tex" % name, "tab:%s-ranking" % name)]
        doc.files["latex/" + files[0][0]] = latex_ranking(a, files[0][1])
        if len(a.strata) > 1:
            files.append(("%s-strata.tex" % name, "tab:%s-strata-1" % name))
            doc.files["latex/" + files[1][0]] = latex_strata(a, "tab:%s-strata" % name)
        inputs.append(("Track %s" % a.label, files))
    if inputs:
        doc.files["latex/example.tex"] = latex.example(inputs)


def _withheld_caption(tests):
    """The caption's sentence on the pairs given no test, or nothing."""
    count = int(np.count_nonzero(tests.withheld))
    if not count:
        return ""
    return (" No test is given for %d of the %d pairs (%s): they count as not significantly different." % (
        count, len(tests.pairs), tests.withheld_reason))


def latex_ranking(a, label):
    """The final ranking with the 95% interval of the score and of the rank, the
    significance groups and whether a submission could win."""
    low, high = a.confidence.intervals[a.primary]
    rows = [["%d" % a.rank[s], a.names[s], fixed(a.values[a.primary][s]), "[%s, %s]" % (fixed(low[s]), fixed(high[s])),
             _rank_interval(a, s), a.methods.groups[s], "yes" if s in a.methods.winners else "no"] for s in _order(a)]
    caption = ("Track %s, ranked by %s (%s): the score and its 95%% interval, the median bootstrap rank "
               "and its 95%% interval, the significance group (submissions sharing a letter do not differ "
               "significantly at the 5%% level) and whether the submission could be the winner.%s" % (
                   a.label, a.primary, direction(a), _withheld_caption(a.significance.tests[a.primary])))
    return latex.tables(label, caption, ["Rank", "Submission", a.primary, "95% interval", "Bootstrap rank",
                                         "Group", "Could win"], rows, "rlrllll",
                        "compare.py: the ranking of track %s by %s" % (a.label, a.primary))


def latex_strata(a, label):
    """Per stratum, each submission's value of the primary score and its rank there; the
    strata in as many tables as the text width needs (labels label-1, label-2, ...)."""
    order = _order(a)
    names = [a.names[s] for s in order]
    columns = [(stratum, ["%s (%d)" % (fixed(a.stability.stratum_values[s, h]), a.stability.stratum_ranks[s, h])
                          for s in order]) for h, stratum in enumerate(a.strata)]
    groups = latex.column_groups(("Submission", names), columns, names)
    parts = []
    for number, group in enumerate(groups):
        header = ["Submission"] + [columns[h][0] for h in group]
        rows = [[names[r]] + [columns[h][1][r] for h in group] for r in range(len(names))]
        which = (" (%s %d to %d of %d)" % ("strata" if len(group) > 1 else "stratum", group[0] + 1, group[-1] + 1,
                                          len(a.strata)) if len(groups) > 1 else "")
        caption = ("Track %s: %s (%s) of each submission in each stratum%s, its rank there in parentheses."
                   % (a.label, a.primary, direction(a), which))
        parts.append(latex.tables("%s-%d" % (label, number + 1), caption, header, rows, "l" + "r" * len(group),
                                  "compare.py: %s per stratum of track %s%s" % (a.primary, a.label, which)))
    return "".join(parts)


def report_html(analyses, closing):
    """(report.html, {relative path: text} of the files beside it)."""
    doc = Html()
    summary(doc, analyses)
    for index, a in enumerate(analyses):
        track_sections(doc, a, index)
    paper_files(doc, analyses)
    doc.heading(2, "For the paper", "paper")
    doc.paragraph("Beside this page: every chart as a standalone SVG file and the LaTeX tables (booktabs) of the "
                  "final rankings and of the per-stratum results; cases.csv, every case's value in challengeR's long "
                  "format (as a float and as the exact fraction compare.py ranks), and challenger.R, which ranks "
                  "them with challengeR 1.0.5 and prints its ranks beside compare.py's (Rscript challenger.R).")
    doc.raw('<ul class="files">%s</ul>' % "".join('<li><a href="%s">%s</a></li>' % (html.escape(p), webpage.text(p))
                                                  for p in sorted(doc.files)))
    doc.heading(2, "Closing note", "closing")
    for line in closing:
        doc.paragraph(line)
    toc = "".join('<li style="margin-left:%dem"><a href="#%s">%s</a></li>' % (level - 2, anchor, webpage.text(text))
                  for level, text, anchor in doc.toc)
    page = "\n".join([webpage.head("Meta-evaluation"), "<h1>Meta-evaluation of the submissions</h1>",
                      at_a_glance(analyses), '<nav class="toc"><strong>Contents</strong><ul>%s</ul></nav>' % toc]
                     + doc.parts + [webpage.footer()])
    return page, doc.files


def closing_note(analyses):
    lines = []
    for a in analyses:
        g = a.gt_free
        if g is None or g.agreement is None:
            continue
        pairs = len(a.names) * (len(a.names) - 1) // 2
        lines.append("Track %s: %s" % (a.label, agreement_sentence(a, g.agreement, pairs)))
    if not lines:
        lines.append("No ground-truth-free ranking could be compared with a ground-truth ranking.")
    return lines
