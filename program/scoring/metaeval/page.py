"""ranking.csv, pairs.csv, ranks.csv, report.html of the meta-evaluation, and the paper's
material beside them: LaTeX tables (booktabs) under latex/ and every chart as a standalone
SVG file under svg/."""

import html
import math
import re
import unicodedata

import numpy as np

from ..csvtext import csv_text
from ..report import page_footer
from . import analysis, challenger, charts

PAIR_TABLE_LIMIT = 20  # up to this many submissions the report lists every pair; beyond, pairs.csv does
TASK_CHART_LIMIT = 12  # per-task charts drawn for at most this many tasks (all are in the tables)


# -- numbers as shown -------------------------------------------------------------------

def shown(value, decimals=4):
    """Integers without decimals, p-values below 1e-4 as '< 0.0001', undefined as 'undefined'."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "undefined"
    if isinstance(value, (int, np.integer)) or (isinstance(value, float) and value.is_integer() and decimals == 0):
        return "%d" % value
    return "%.*f" % (decimals, value)


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
    return "%.10g" % value


def _csv_numbers(values):
    """_csv_number of each float of an array (one format per value, no type test)."""
    return ["%.10g" % v if math.isfinite(v) else "" for v in np.asarray(values, dtype=np.float64).tolist()]


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
        methods = list(a.methods.values())[1:] if a.ground_truth else []
        for s, name in enumerate(a.names):
            row = [a.label, name]
            if a.ground_truth:
                low, high = a.intervals[a.primary]
                row += [int(a.rank[s]), a.primary, _csv_number(a.values[a.primary][s]), _csv_number(low[s]),
                        _csv_number(high[s]), "%g" % a.rank_median[s], int(a.rank_interval[0][s]),
                        int(a.rank_interval[1][s])] + [int(m[s]) for m in methods] + [a.groups[s],
                                                                                      int(s in a.winners)]
            else:
                row += [""] * 16
            if g is not None:
                rank = g["reference_rank"][s]
                row += [_csv_number(g["metrics"]["f_measure"][s]), int(g["f_rank"][s]),
                        "" if s == g["reference_index"] else int(g["rank_values"][s]),
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
        for key, tests in a.tests.items():
            columns = [_csv_numbers(v) for v in (tests.difference, tests.low, tests.high, -tests.difference,
                                                 -tests.high, -tests.low, tests.p, tests.p_adjusted)]
            for (i, j), d, low, high, back, back_low, back_high, p, q in zip(tests.pairs.tolist(), *columns):
                rows.append([a.label, key, a.names[i], a.names[j], d, low, high, p, q, tests.test])
                rows.append([a.label, key, a.names[j], a.names[i], back, back_low, back_high, p, q, tests.test])
    return csv_text(PAIRS_HEADER, rows)


def ranks_csv(analyses):
    """The bootstrap rank distributions: the share of resamples giving each submission each
    rank (ranks never drawn are left out)."""
    rows = []
    for a in analyses:
        if not a.ground_truth:
            continue
        for s, name in enumerate(a.names):
            for r in np.flatnonzero(a.rank_frequency[s] > 0):
                rows.append([a.label, a.primary, name, int(r + 1), _csv_number(a.rank_frequency[s][r])])
    return csv_text(["track", "score", "submission", "rank", "share"], rows)


# -- report.html ----------------------------------------------------------------------------

STYLE = """
*{box-sizing:border-box}
body{font-family:sans-serif;margin:0 auto;padding:1em;color:#222;max-width:75em;line-height:1.45}
h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:1.6em}h3{font-size:1.05em}
h4{font-size:1em;margin:1em 0 .3em}
.scroll{overflow-x:auto;max-width:100%;margin:.6em 0}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;white-space:nowrap}
th{background:#f4f4f4;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
table.wrap td.txt{white-space:normal;min-width:8em}
caption{text-align:left;font-style:italic;white-space:normal}
figure{margin:.8em 0;overflow-x:auto;max-width:100%}figcaption{font-size:.9em;color:#444;max-width:60em}
figure svg{display:block;height:auto}
p.reading{background:#f3f7fb;border-left:4px solid #1f77b4;padding:.4em .7em;max-width:60em}
.glance{list-style:none;padding:0}.glance li{margin:.3em 0}
.card{border:1px solid #ccc;border-radius:6px;padding:.4em 1em;margin:.6em 0;background:#fafafa}
.files li{font-family:monospace}
nav ul{padding-left:1.2em}
"""


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
            self.parts.append('<h%d id="%s">%s</h%d>' % (level, anchor, html.escape(text), level))
        else:
            self.parts.append("<h%d>%s</h%d>" % (level, html.escape(text), level))

    def paragraph(self, text):
        self.parts.append("<p>%s</p>" % html.escape(text))

    def reading(self, text):
        """The one plain sentence under an analysis saying what it shows."""
        self.parts.append('<p class="reading"><strong>What it shows:</strong> %s</p>' % html.escape(text))

    def raw(self, text):
        self.parts.append(text)

    def table(self, columns, rows, caption="", wrap=False):
        """wrap: text cells wrap (a table of sentences) instead of scrolling sideways."""
        head = "".join("<th>%s</th>" % html.escape(c) for c in columns)
        body = "".join("<tr>%s</tr>" % "".join(
            '<td class="%s">%s</td>' % ("num" if isinstance(v, (int, float, np.integer, np.floating)) or
                                        _numeric_text(v) else "txt",
                                        html.escape(v if isinstance(v, str) else shown(v))) for v in row)
            for row in rows)
        caption = "<caption>%s</caption>" % html.escape(caption) if caption else ""
        self.parts.append('<div class="scroll"><table%s>%s<thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>'
                          % (' class="wrap"' if wrap else "", caption, head, body))

    def figure(self, svg, caption, name):
        """A chart inline, and as the standalone file svg/<name>.svg. Its displayed width is
        its own up to the page's, and never below 60% of it (text stays at least 7 px; a
        wider chart scrolls in its box on a phone)."""
        width = int(re.search(r'width="(\d+)"', svg).group(1))
        sized = svg.replace("<svg ", '<svg style="width:100%%;max-width:%dpx;min-width:%dpx" ' % (
            width, int(0.6 * width)), 1)
        path = "svg/%s.svg" % name
        self.files[path] = '<?xml version="1.0" encoding="UTF-8"?>\n' + svg + "\n"
        self.parts.append('<figure>%s<figcaption>%s (<a href="%s">SVG</a>)</figcaption></figure>' % (
            sized, html.escape(caption), html.escape(path)))


def _numeric_text(value):
    return isinstance(value, str) and value[:1] in "0123456789-+<" and value not in ("-",)


def _interval(value, low, high):
    return "%.4f [%.4f, %.4f]" % (value, low, high)


def _order(a):
    return np.argsort(a.rank, kind="mergesort")


def at_a_glance(analyses):
    """The first lines of the page: per track, the leader's primary score and interval."""
    items = []
    for a in analyses:
        if not a.ground_truth:
            items.append("<li><strong>%s</strong>: no ground truth (ground-truth-free analysis only)</li>"
                         % html.escape(a.label))
            continue
        leaders = [s for s in _order(a) if a.rank[s] == 1]
        leader = int(leaders[0])
        low, high = a.intervals[a.primary]
        beaten = int(a.tests[a.primary].better()[leader].sum())
        items.append('<li><strong>%s</strong>: leader %s, <span data-primary="%s">%s %s</span> (%s); '
                     'significantly ahead of %d of %d others; could win: %d submission%s</li>' % (
                         html.escape(a.label), html.escape(" and ".join(a.names[s] for s in leaders)),
                         html.escape(a.primary), html.escape(a.primary),
                         _interval(a.values[a.primary][leader], low[leader], high[leader]), direction(a), beaten,
                         len(a.names) - 1, len(a.winners), "" if len(a.winners) == 1 else "s"))
    return '<ul class="glance">%s</ul>' % "".join(items)


def summary(doc, analyses):
    doc.heading(2, "Summary", "summary")
    for a in analyses:
        doc.raw('<div class="card">')
        doc.heading(3, "Track %s (%d submissions)" % (a.label, len(a.names)))
        if not a.ground_truth:
            doc.paragraph("No ground truth: only the ground-truth-free analysis below.")
            doc.raw("</div>")
            continue
        order = _order(a)
        low, high = a.intervals[a.primary]
        rows = [[int(a.rank[s]), a.names[s], _interval(a.values[a.primary][s], low[s], high[s]),
                 "%s [%d, %d]" % (shown_rank(a.rank_median[s]), a.rank_interval[0][s], a.rank_interval[1][s]),
                 a.groups[s], "yes" if s in a.winners else "no"] for s in order]
        doc.table(["rank", "submission", "%s [95%%] (%s)" % (a.primary, direction(a)), "bootstrap rank [95%]",
                   "group", "could win"], rows, "Every submission, by rank")
        tests = a.tests[a.primary]
        better = tests.better()
        significant = int(np.count_nonzero(tests.p_adjusted < analysis.ALPHA))
        leader = int(order[0])
        doc.paragraph("Distinguishable: %d of %d pairs differ significantly in %s (%s, adjusted p < 0.05). "
                      "The leader %s is significantly better than %d of the %d others; %.1f%% of the bootstrap "
                      "resamples rank it first. Could be the winner (no leader is significantly better): %s." % (
                          significant, len(tests.pairs), a.primary, tests.test, a.names[leader],
                          int(better[leader].sum()), len(a.names) - 1, 100 * a.rank_frequency[leader][0],
                          ", ".join(a.names[s] for s in a.winners)))
        stable = "; ".join("%s: %s" % (name, shown(tau, 3)) for name, tau, _ in a.stability)
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


def _confidence(doc, a, anchor, name):
    doc.heading(3, "Scores with 95% intervals", anchor + "-confidence")
    order = _order(a)
    doc.paragraph(
        "Stratified bootstrap with %d resamples (seed %d): %ss are drawn within their resampling blocks "
        "(stratum and, where the view has one, true class), each block of b items with b - 1 draws (Rao and "
        "Wu's rescaled bootstrap: unbiased variance for few items), and every score is recomputed from the "
        "per-item terms. Percentile intervals recentred on the score and widened by t/z (%s), clipped to the "
        "score's range. Each interval holds the submission's expected score (the mean of its scores over test "
        "sets drawn like this one: for a mean over items, what an unlimited test set of this kind would give; "
        "for an average precision, the expectation at this test set's size, above a large one's) about 95 times "
        "in 100, as "
        "measured by simulation at the sizes of the tracks (bench/coverage.py); a second test set's score varies "
        "about that expectation too and falls outside more often. "
        "Scores are compared exactly (as the rationals they are), so equal scores share a rank." % (
            a.resamples, a.seed, a.unit, "; ".join("%s: %.3f, %d degrees of freedom" % (k, a.widening[k], a.df[k])
                                                   for k in a.ranked)))
    if a.small_strata:
        doc.paragraph("Small strata (fewer than 10 %ss): %s; their intervals rest on few items." % (
            a.unit, ", ".join("%s (%d)" % s for s in a.small_strata)))
    rows = []
    for s in order:
        row = [int(a.rank[s]), a.names[s]]
        for key in a.ranked:
            low, high = a.intervals[key]
            row.append(_interval(a.values[key][s], low[s], high[s]))
        rows.append(row)
    doc.table(["rank", "submission"] + ["%s (%s)" % (k, direction(a, k)) for k in a.ranked], rows,
              "Ranked by %s" % a.primary)
    low, high = a.intervals[a.primary]
    labels = ["%d. %s" % (a.rank[s], a.names[s]) for s in order]
    x_range = _range(a, a.primary, np.concatenate([low, high]))
    doc.figure(charts.forest(labels, a.values[a.primary][order], low[order], high[order],
                             "%s with 95%% intervals" % a.primary, "%s (%s)" % (a.primary, direction(a)),
                             x_range=x_range, width=charts.MIN_WIDTH,
                             description="One row per submission: its score and 95% bootstrap interval."),
               "Interval chart: the dot is the score, the bar its 95% bootstrap interval.", name + "-intervals")
    doc.reading("Where two bars overlap much, the test set cannot tell those submissions apart with confidence; "
                "the bar shows where the submission's expected score lies (its mean over test sets drawn like "
                "this one), 95 times in 100; the score on one more such test set varies more: the interval "
                "that holds it (the prediction interval of the participant's page) is about 1.4 times as wide.")


def _uncertainty(doc, a, anchor, name):
    doc.heading(3, "How certain is the ranking", anchor + "-uncertainty")
    order = _order(a)
    names = [a.names[s] for s in order]
    doc.figure(charts.blob(names, a.rank_frequency[order], a.rank_median[order], a.rank_interval[0][order],
                           a.rank_interval[1][order], "Bootstrap rank distributions of %s" % a.primary,
                           "Per submission, the share of bootstrap resamples giving each rank."),
               "Blob plot (challengeR's stability plot): a disc's area is the share of resamples giving that "
               "rank; black dot: median rank; line: 95% interval of the rank.", name + "-ranks")
    doc.reading("A submission whose discs spread over several ranks could have landed elsewhere on another "
                "test set; one large disc means its place is stable.")
    groups = [("leaderboard", a.tau["leaderboard"])] + [(t, v) for t, v in a.tau.items() if t != "leaderboard"]
    doc.figure(charts.violin(groups[:TASK_CHART_LIMIT + 1], "Kendall's tau with each bootstrap ranking",
                             "Kendall's tau-b"),
               "Violin plot (challengeR's violin): per ranking (the leaderboard, then each stratum's), the "
               "distribution over the resamples of Kendall's tau-b between it and the ranking of the resample; "
               "bar: median.", name + "-tau")
    medians = [float(np.median(v)) for _, v in groups[1:] if len(v)]
    spread = (", from %.3f to %.3f in the strata" % (min(medians), max(medians))) if medians else ""
    doc.reading("Tau near 1 means resampling the test set keeps the order (median tau %.3f for the leaderboard%s); "
                "a low or widely spread tau means the order rests on the particular test items." % (
                    float(np.median(groups[0][1])) if len(groups[0][1]) else float("nan"), spread))


def _strata(doc, a, anchor, name):
    if len(a.strata) < 2:
        return
    doc.heading(3, "Per stratum", anchor + "-strata")
    order = _order(a)
    statistic_values = a.stratum_values
    ranks = a.stratum_ranks
    rows = [[a.names[s]] + ["%.4f (%d)" % (statistic_values[s, h], ranks[s, h]) for h in range(len(a.strata))]
            for s in order]
    doc.table(["submission"] + list(a.strata), rows, "%s of each stratum (rank in the stratum)" % a.primary)
    doc.figure(charts.podium(a.names, order, statistic_values, a.strata, "%s (%s)" % (a.primary, direction(a)),
                             "Podium: %s per stratum" % a.primary, y_range=_range(a, a.primary, statistic_values)),
               "Column i: the submission ranked i-th; one marker per stratum at its value there, joined per "
               "stratum.", name + "-podium")
    doc.reading("Lines that cross show strata where the order differs from the leaderboard's: a submission "
                "strong on some strata and weak on others.")
    if a.task_bootstrap:
        doc.figure(charts.blob([a.names[s] for s in order], a.stratum_rank_share[order],
                               np.median(a.stratum_ranks, axis=1)[order], None, None,
                               "Ranks across strata", "Per submission, the share of strata giving each rank.",
                               what="strata"),
                   "Stability across strata (challengeR's blob plot across tasks): a disc's area is the share of "
                   "strata where the submission has that rank; dot: median rank over the strata.",
                   name + "-across-strata")
        doc.reading("Submissions with one disc rank the same on every stratum; spread discs mean the ranking "
                    "depends on which strata the test set holds.")
        for h, (stratum, found) in enumerate(list(a.task_bootstrap.items())[:TASK_CHART_LIMIT]):
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
    for t, task in enumerate(cases.tasks[:TASK_CHART_LIMIT]):
        columns = cases.of_task(t)
        rows = [cases.values[s, columns] for s in order]
        doc.figure(charts.dot_box(names, rows, "%s per case: %s" % (a.primary, task), "%s (%s)" % (
            a.primary, direction(a)), y_range),
            "Dot and box plot (challengeR's boxplot) of task %s: every case's value, and the quartiles." % task,
            "%s-cases-%d" % (name, t))
        ranks = a.case_ranks[t]
        counts = np.stack([np.bincount(ranks[s], minlength=len(a.names) + 2)[1:len(a.names) + 1]
                           for s in order])
        doc.figure(charts.heatmap(names, counts, "Ranks per case: %s" % task,
                                  "Per submission, how many cases gave it each rank."),
                   "Ranking heatmap (challengeR's rankingHeatmap) of task %s: columns in leaderboard order, rows "
                   "the rank on a case; darker cells, more cases." % task, "%s-heatmap-%d" % (name, t))
    if len(cases.tasks) > TASK_CHART_LIMIT:
        doc.paragraph("Charts drawn for the first %d of %d tasks." % (TASK_CHART_LIMIT, len(cases.tasks)))
    doc.reading("A submission whose dots sit high with a short box is good on most cases; a dark diagonal in the "
                "heatmap means the cases agree with the final order, dark cells off it mean many cases order "
                "the submissions otherwise.")


def _missing(doc, a):
    cases = a.cases
    counted = cases.missing.sum(axis=1)
    if not cases.missing.any() and not any(a.missing_items):
        doc.paragraph("Missing cases: none (every submission gave every case).")
        return
    treatment = {"track": "kept at the value the track scored them with (the leaderboard's rule; challengeR's "
                          "na.treat given that value)",
                 "na.rm": "left out for that submission (challengeR's na.treat = \"na.rm\")",
                 "worst": "replaced by %s, the worst value of the score (challengeR's na.treat = %s)" % (
                     shown(cases.replaced), shown(cases.replaced))}.get(
        cases.treatment, "replaced by %s (challengeR's na.treat = %s)" % (cases.treatment, cases.treatment))
    rows = [[a.names[s], int(a.missing_items[s]), int(counted[s])] for s in range(len(a.names))
            if a.missing_items[s] or counted[s]]
    doc.table(["submission", "%ss not given" % a.unit, "missing cases"], rows, "Missing cases")
    doc.paragraph("Items a submission did not give are scored by the track's own rule on the leaderboard, in "
                  "the intervals and in the tests; in the per-case analysis below (challengeR's methods, dot "
                  "plots, heatmaps) the missing cases are %s." % treatment)


def _methods(doc, a, anchor, name):
    doc.heading(3, "Ranking methods (challengeR) and stability", anchor + "-methods")
    order = _order(a)
    methods = list(a.methods.items())
    doc.table(["method", "what it ranks by", "challengeR"],
              [[method, text, _challenger(method)] for method, text in analysis.METHODS.items()],
              "The methods, and the challengeR 1.0.5 function each reproduces", wrap=True)
    doc.table(["submission"] + [method for method, _ in methods] + ["P(rank 1)"],
              [[a.names[s]] + [int(r[s]) for _, r in methods] + ["%.1f%%" % (100 * a.rank_frequency[s][0])]
               for s in order], "Ranks of %s by each method (ties share the best rank); P(rank 1) over the "
                                "bootstrap resamples" % a.primary)
    positions, cost, optimal, exact = a.kemeny
    doc.paragraph("Kemeny consensus of the mean-then-rank task rankings: %s (summed symmetric-difference "
                  "distance %d)." % (
                      ("exact, one of %d optimal orders, ties among them broken by the leaderboard" % optimal
                       if optimal > 1 else "exact, the only optimal order") if exact else
                      "not exact beyond %d submissions: a local optimum reached from the leaderboard's order"
                      % challenger.KEMENY_EXACT, cost))
    doc.table(["method", "Kendall tau-b with the leaderboard", "rank distance"],
              [[method, shown(tau, 3), "%g" % distance] for method, tau, distance in a.stability],
              "Rank distance: pairwise tie-aware (a pair ordered oppositely costs 1, a pair tied in one ranking "
              "only 0.5)")
    doc.reading("Where the methods agree (tau near 1), the winner does not depend on how the cases are "
                "aggregated; a method that moves a submission far says its lead rests on the aggregation.")


def _challenger(method):
    if method in challenger.METHODS:
        return challenger.METHODS[method] + "; consensus(method = \"euclidean\")"
    if method.startswith("Kemeny"):
        return "consensus(method = \"symdiff/L\")"
    return "none (compare.py's own)"


#: Units (pages, images) below which the report warns that rare failures may escape the test.
FEW_UNITS = 50


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
            a.unit, a.permutations, 1.0 / (a.permutations + 1),
            "Westfall and Young's max-T step-down" if a.adjustment == "maxT" else "Holm's step-down"))
    few = [key for key, tests in a.tests.items() if tests.units == "item" and tests.unit_count < FEW_UNITS]
    if few:
        doc.paragraph(
            "%s rest%s on %d %ss: where a submission fails rarely (one %s in ten), a test set this small often "
            "holds no failure of it, and no test of equal expected scores keeps its level there (measured: "
            "11.5%% at 0.05 with 18 pages, bench/coverage.py); the p-values above hold where failures are "
            "frequent enough to show in this many units."
            % (", ".join(few), "s" if len(few) == 1 else "", a.tests[few[0]].unit_count, a.unit, a.unit))
    order = _order(a)
    rank = dict((s, r) for r, s in enumerate(order))
    for number, (key, tests) in enumerate(a.tests.items()):
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
            rows.append([a.names[i], a.names[j], "%+.4f [%+.4f, %+.4f]" % (sign * tests.difference[k], low, high),
                         "%+.2f" % (sign * tests.effect[k]),
                         "%.1f%%" % (100 * (tests.p_better[k] if sign > 0 else tests.p_worse[k])),
                         shown_p(tests.p[k]), shown_p(tests.p_adjusted[k]),
                         "yes" if tests.p_adjusted[k] < analysis.ALPHA else "no"])
        doc.table(["A", "B", "difference A - B [95%]", "effect", "P(A better)", "p", "adjusted p", "significant"],
                  rows, "%s (%s): %s" % (key, direction(a, key), "every pair" if len(a.names) <= PAIR_TABLE_LIMIT
                                         else "neighbours on the leaderboard (every pair in pairs.csv)"))
        if tests.disagreements:
            doc.raw("<ul>%s</ul>" % "".join("<li>%s</li>" % html.escape(
                "%s vs %s: %s" % (a.names[tests.pairs[j][0]], a.names[tests.pairs[j][1]], reason))
                for j, reason in tests.disagreements))
            doc.paragraph("Above: the pairs of %s where the raw test (p < 0.05 or not) and the 95%% interval of the "
                          "difference (holding 0 or not) disagree, and why." % key)
        else:
            doc.paragraph("The raw test and the 95%% interval of the difference agree on every pair of %s." % key)
    doc.reading("A green cell is a difference the test set supports after accounting for the number of pairs "
                "compared; white cells are pairs whose order could flip on another test set.")
    m = getattr(a, "mcnemar", None)
    if m is not None:
        rows = [[a.names[i], a.names[j], int(b), int(c), shown_p(p), shown_p(q)]
                for (i, j), b, c, p, q in zip(m["pairs"].tolist(), m["b"], m["c"], m["p"], m["p_holm"])]
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
    reference = g["reference"]
    text = ("Fedorchuk and Lamiroy (ICAPR 2017): the consensus P(d) is the share of submissions deciding "
            "positive on item d; pseudo-metrics compare each submission to it (NRM: lower is better). "
            "Reference-classifier McNemar test (reference: %s), per %s; ranking protocol: every pair with "
            "p < 0.05 adds one to the rank value of the submission that agrees more with the reference." % (
                reference, g["unit"]))
    if g["reference_index"] is None:
        text += (" The majority vote includes the two submissions compared: with %d submissions each holds 1/%d "
                 "of the vote, so the reference leans towards both and the test is not independent of the pair."
                 % (len(a.names), len(a.names)))
    else:
        text += " The reference submission is not ranked by the protocol (it would agree with itself everywhere)."
    doc.paragraph(text)
    accuracy = g.get("reference_accuracy")
    if accuracy is not None:
        doc.paragraph("The reference's own accuracy against the ground truth: %.4f (balanced %.4f); the paper "
                      "assumes a reference better than random (above 0.5): %s." % (
                          accuracy["accuracy"], accuracy["balanced_accuracy"],
                          "holds" if accuracy["balanced_accuracy"] > 0.5 else "does NOT hold"))
    names = ["precision", "recall", "f_measure", "nrm", "ncc", "psnr"]
    rows = []
    for s in range(len(a.names)):
        own = s == g["reference_index"]
        rows.append([a.names[s]] + [float(g["metrics"][m][s]) for m in names]
                    + [int(g["f_rank"][s]), "reference" if own else int(g["rank_values"][s]),
                       "reference" if own else int(g["reference_rank"][s])])
    doc.table(["submission"] + names + ["rank by pseudo F", "reference rank value", "rank by reference protocol"],
              rows)
    if "agreement" in g:
        pairs = len(a.names) * (len(a.names) - 1) // 2
        doc.table(["ground-truth-free ranking", "ground-truth score", "rank distance", "tau-b"],
                  [[n, k, "%g" % d, shown(t, 3)] for n, k, d, t in g["agreement"]],
                  "Agreement with the ranking by the ground-truth score")
        doc.reading(agreement_sentence(a, g["agreement"], pairs))
    else:
        doc.reading("Without ground truth these rankings say which submissions agree with the others; they "
                    "rank a submission well for agreeing, not for being right.")


def agreement_sentence(a, rows, pairs):
    """What the agreement of the ground-truth-free rankings with the ground truth means."""
    parts = []
    for name, key, distance, tau in rows:
        if tau is None:
            reading = "cannot be compared (one ranking is all ties)"
        elif distance == 0:
            reading = "orders the submissions exactly as %s does" % key
        elif tau >= 0.6:
            reading = "mostly agrees with %s (tau-b %s; %g of %d pairs out of order)" % (key, shown(tau, 3),
                                                                                       distance, pairs)
        elif tau > 0:
            reading = "agrees only loosely with %s (tau-b %s)" % (key, shown(tau, 3))
        else:
            reading = ("orders the submissions against %s (tau-b %s): without ground truth it would have "
                       "ranked them the wrong way round" % (key, shown(tau, 3)))
        parts.append("the %s ranking %s" % (name, reading))
    return "Checked against the ground truth, " + "; ".join(parts) + "."


def paper_files(doc, analyses):
    """latex/<track>-ranking.tex and latex/<track>-strata.tex for every track with ground truth."""
    for a in analyses:
        if not a.ground_truth:
            continue
        name = slug(a.label)
        doc.files["latex/%s-ranking.tex" % name] = latex_ranking(a)
        if len(a.strata) > 1:
            doc.files["latex/%s-strata.tex" % name] = latex_strata(a)


_LATEX = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
          "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}"}


def latex(text):
    """Text for a LaTeX table cell (UTF-8 kept; LaTeX's special characters escaped)."""
    return "".join(_LATEX.get(c, c) for c in str(text))


def latex_ranking(a):
    """The final ranking with the 95% interval of the score and of the rank, the
    significance groups and whether a submission could win (booktabs)."""
    low, high = a.intervals[a.primary]
    lines = ["% compare.py: the ranking of track " + latex(a.label) + " by " + latex(a.primary) +
             " (" + direction(a) + "); needs \\usepackage{booktabs}",
             "\\begin{tabular}{rlrrlll}", "\\toprule",
             "Rank & Submission & %s & 95\\%% interval & Bootstrap rank [95\\%%] & Group & Could win \\\\"
             % latex(a.primary), "\\midrule"]
    for s in _order(a):
        lines.append("%d & %s & %.4f & [%.4f, %.4f] & %s [%d, %d] & %s & %s \\\\" % (
            a.rank[s], latex(a.names[s]), a.values[a.primary][s], low[s], high[s], shown_rank(a.rank_median[s]),
            a.rank_interval[0][s], a.rank_interval[1][s], latex(a.groups[s]), "yes" if s in a.winners else "no"))
    lines += ["\\bottomrule", "\\end{tabular}", ""]
    return "\n".join(lines)


def latex_strata(a):
    """Per stratum, each submission's value of the primary score and its rank there."""
    columns = "l" + "r" * len(a.strata)
    lines = ["% compare.py: " + latex(a.primary) + " per stratum of track " + latex(a.label) +
             " (rank in the stratum in parentheses); needs \\usepackage{booktabs}",
             "\\begin{tabular}{%s}" % columns, "\\toprule",
             "Submission & %s \\\\" % " & ".join(latex(s) for s in a.strata), "\\midrule"]
    for s in _order(a):
        lines.append("%s & %s \\\\" % (latex(a.names[s]), " & ".join(
            "%.4f (%d)" % (a.stratum_values[s, h], a.stratum_ranks[s, h]) for h in range(len(a.strata)))))
    lines += ["\\bottomrule", "\\end{tabular}", ""]
    return "\n".join(lines)


def report_html(analyses, closing):
    """(report.html, {relative path: text} of the files beside it)."""
    doc = Html()
    summary(doc, analyses)
    for index, a in enumerate(analyses):
        track_sections(doc, a, index)
    paper_files(doc, analyses)
    doc.heading(2, "For the paper", "paper")
    doc.paragraph("Beside this page: every chart as a standalone SVG file and the LaTeX tables (booktabs) of the "
                  "final rankings and of the per-stratum results.")
    doc.raw('<ul class="files">%s</ul>' % "".join('<li><a href="%s">%s</a></li>' % (html.escape(p), html.escape(p))
                                                  for p in sorted(doc.files)))
    doc.heading(2, "Closing note", "closing")
    for line in closing:
        doc.paragraph(line)
    toc = "".join('<li style="margin-left:%dem"><a href="#%s">%s</a></li>' % (level - 2, anchor, html.escape(text))
                  for level, text, anchor in doc.toc)
    head = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<title>Meta-evaluation</title><style>%s</style></head><body>' % STYLE)
    page = "\n".join([head, "<h1>Meta-evaluation of the submissions</h1>", at_a_glance(analyses),
                      "<nav><strong>Contents</strong><ul>%s</ul></nav>" % toc] + doc.parts + [page_footer()])
    return page, doc.files


def closing_note(analyses):
    lines = []
    for a in analyses:
        g = a.gt_free
        if g is None or "agreement" not in g:
            continue
        pairs = len(a.names) * (len(a.names) - 1) // 2
        lines.append("Track %s: %s" % (a.label, agreement_sentence(a, g["agreement"], pairs)))
    if not lines:
        lines.append("No ground-truth-free ranking could be compared with a ground-truth ranking.")
    return lines
