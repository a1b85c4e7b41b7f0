"""ranking.csv, pairs.csv, ranks.csv and report.html of the meta-evaluation."""

import html
import math

import numpy as np

from ..csvtext import csv_text
from ..report import page_footer
from . import analysis, charts

PAIR_TABLE_LIMIT = 20  # up to this many submissions the report lists every pair; beyond, pairs.csv does


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


# -- the CSV files ------------------------------------------------------------------------

RANKING_HEADER = ["track", "submission", "rank", "score_key", "score", "ci_low", "ci_high", "median_rank",
                  "rank_ci_low", "rank_ci_high", "rank_by_median", "rank_by_mean_rank", "rank_by_tests",
                  "could_win", "pseudo_f_measure", "pseudo_f_rank", "reference_rank_value", "reference_rank"]


def ranking_rows(analyses):
    rows = []
    for a in analyses:
        g = a.gt_free
        methods = list(a.methods.values()) if a.ground_truth else []
        for s, name in enumerate(a.names):
            row = [a.label, name]
            if a.ground_truth:
                low, high = a.intervals[a.primary]
                row += [int(a.rank[s]), a.primary, _csv_number(a.values[a.primary][s]), _csv_number(low[s]),
                        _csv_number(high[s]), "%g" % a.rank_median[s], int(a.rank_interval[0][s]),
                        int(a.rank_interval[1][s])] + [int(m[s]) for m in methods[1:]] + [int(s in a.winners)]
            else:
                row += [""] * 12
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
            for index, (i, j) in enumerate(tests.pairs.tolist()):
                d, low, high = tests.difference[index], tests.low[index], tests.high[index]
                p, q = _csv_number(tests.p[index]), _csv_number(tests.p_adjusted[index])
                rows.append([a.label, key, a.names[i], a.names[j], _csv_number(d), _csv_number(low),
                             _csv_number(high), p, q, tests.test])
                rows.append([a.label, key, a.names[j], a.names[i], _csv_number(-d), _csv_number(-high),
                             _csv_number(-low), p, q, tests.test])
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
body{font-family:sans-serif;margin:0 auto;padding:1em;color:#222;max-width:75em;line-height:1.4}
h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:1.6em}h3{font-size:1.05em}
.scroll{overflow-x:auto;max-width:100%;margin:.6em 0}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;white-space:nowrap}
th{background:#f4f4f4;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}
caption{text-align:left;font-style:italic;white-space:normal}
figure{margin:.6em 0;overflow-x:auto;max-width:100%}figcaption{font-size:.85em;color:#555}
figure svg{max-width:100%;height:auto}
.glance{list-style:none;padding:0}.glance li{margin:.3em 0}
.card{border:1px solid #ccc;border-radius:6px;padding:.4em 1em;margin:.6em 0;background:#fafafa}
nav ul{padding-left:1.2em}
"""


class Html(object):
    def __init__(self):
        self.parts = []
        self.toc = []

    def heading(self, level, text, anchor=None):
        if anchor:
            self.toc.append((level, text, anchor))
            self.parts.append('<h%d id="%s">%s</h%d>' % (level, anchor, html.escape(text), level))
        else:
            self.parts.append("<h%d>%s</h%d>" % (level, html.escape(text), level))

    def paragraph(self, text):
        self.parts.append("<p>%s</p>" % html.escape(text))

    def raw(self, text):
        self.parts.append(text)

    def table(self, columns, rows, caption=""):
        head = "".join("<th>%s</th>" % html.escape(c) for c in columns)
        body = "".join("<tr>%s</tr>" % "".join(
            '<td class="%s">%s</td>' % ("num" if isinstance(v, (int, float, np.integer, np.floating)) or
                                        _numeric_text(v) else "txt",
                                        html.escape(v if isinstance(v, str) else shown(v))) for v in row)
            for row in rows)
        caption = "<caption>%s</caption>" % html.escape(caption) if caption else ""
        self.parts.append('<div class="scroll"><table>%s<thead><tr>%s</tr></thead><tbody>%s</tbody></table></div>'
                          % (caption, head, body))

    def figure(self, svg, caption):
        self.parts.append("<figure>%s<figcaption>%s</figcaption></figure>" % (svg, html.escape(caption)))


def _numeric_text(value):
    return isinstance(value, str) and value[:1] in "0123456789-<" and value not in ("-",)


def _interval(value, low, high):
    return "%.4f [%.4f, %.4f]" % (value, low, high)


def at_a_glance(analyses):
    """The first lines of the page: per track, the leader's primary score and interval."""
    items = []
    for a in analyses:
        if not a.ground_truth:
            items.append("<li><strong>%s</strong>: no ground truth (ground-truth-free analysis only)</li>"
                         % html.escape(a.label))
            continue
        leader = int(np.argsort(a.rank, kind="mergesort")[0])
        low, high = a.intervals[a.primary]
        beaten = int(a.tests[a.primary].better()[leader].sum())
        items.append('<li><strong>%s</strong>: leader %s, <span data-primary="%s">%s %s</span>; significantly '
                     'ahead of %d of %d others; could win: %d submission%s</li>' % (
                         html.escape(a.label), html.escape(a.names[leader]), html.escape(a.primary),
                         html.escape(a.primary), _interval(a.values[a.primary][leader], low[leader], high[leader]),
                         beaten, len(a.names) - 1, len(a.winners), "" if len(a.winners) == 1 else "s"))
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
        order = np.argsort(a.rank, kind="mergesort")
        low, high = a.intervals[a.primary]
        podium = ["rank %d: %s, %s = %s; bootstrap rank %s (95%%: %d to %d)" % (
            a.rank[s], a.names[s], a.primary, _interval(a.values[a.primary][s], low[s], high[s]),
            shown_rank(a.rank_median[s]), a.rank_interval[0][s], a.rank_interval[1][s]) for s in order[:3]]
        doc.raw("<ul>%s</ul>" % "".join("<li>%s</li>" % html.escape(p) for p in podium))
        tests = a.tests[a.primary]
        better = tests.better()
        significant = int(np.count_nonzero(tests.p_adjusted < 0.05))
        leader = order[0]
        beaten = int(better[leader].sum())
        doc.paragraph("Distinguishable: %d of %d pairs differ significantly in %s (%s, adjusted p < 0.05). "
                      "The leader %s is significantly better than %d of the %d others." % (
                          significant, len(tests.pairs), a.primary, tests.test, a.names[leader], beaten,
                          len(a.names) - 1))
        doc.paragraph("Could be the winner (no leader is significantly better): %s. Share of bootstrap resamples "
                      "ranking %s first: %.1f%%." % (", ".join(a.names[s] for s in a.winners), a.names[leader],
                                                     100 * a.rank_frequency[leader][0]))
        stable = "; ".join("%s: tau-b %s" % (analysis.METHODS[name], shown(tau, 3)) for name, tau, _ in a.stability)
        doc.paragraph("Stability of the ranking against other ranking methods (Kendall's tau-b with the "
                      "leaderboard, 1 = the same order): %s." % stable)
        doc.raw("</div>")


def track_sections(doc, a, index):
    anchor = "t%d" % index
    doc.heading(2, "Track %s" % a.label, anchor)
    doc.paragraph("Submissions: %s. Items: %s, in %d strata (%s)." % (
        ", ".join(a.names), a.unit + "s", len(a.strata), ", ".join(a.strata[:20]) +
        (", ..." if len(a.strata) > 20 else "")))
    if a.ground_truth:
        _confidence(doc, a, anchor)
        _methods(doc, a, anchor)
        _significance(doc, a, anchor)
        _protocols(doc, a, anchor)
    if a.gt_free is not None:
        _gt_free(doc, a, anchor)
    for note in a.notes:
        doc.paragraph(note)


def _confidence(doc, a, anchor):
    doc.heading(3, "Scores with 95% intervals", anchor + "-confidence")
    order = np.argsort(a.rank, kind="mergesort")
    doc.paragraph(
        "Stratified bootstrap with %d resamples (seed %d): %ss are drawn within their resampling blocks "
        "(stratum and, where the view has one, true class), each block of b items with b - 1 draws (Rao and "
        "Wu's rescaled bootstrap: unbiased variance for few items), and every score is recomputed from the "
        "per-item terms. Percentile intervals recentred on the score and widened by t/z (%s). "
        "Scores are compared at 12 decimals, so equal scores share a rank." % (
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
        row.append("%s [%d, %d]" % (shown_rank(a.rank_median[s]), a.rank_interval[0][s], a.rank_interval[1][s]))
        rows.append(row)
    doc.table(["rank", "submission"] + a.ranked + ["bootstrap rank: median [95%]"], rows,
              "Ranked by %s" % a.primary)
    low, high = a.intervals[a.primary]
    names = ["%d. %s" % (a.rank[s], a.names[s]) for s in order]
    doc.figure(charts.forest(names, a.values[a.primary][order], low[order], high[order],
                             "%s with 95%% intervals" % a.primary, a.primary,
                             description="One row per submission: its score and 95% bootstrap interval."),
               "Interval chart: the dot is the score, the bar its 95% bootstrap interval.")
    doc.figure(charts.blob([a.names[s] for s in order], a.rank_frequency[order], a.rank_median[order],
                           a.rank_interval[0][order], a.rank_interval[1][order],
                           "Bootstrap rank distributions"),
               "Blob plot: a disc's area is the share of resamples giving that rank; dot: median rank; line: "
               "95% interval of the rank.")


def _methods(doc, a, anchor):
    doc.heading(3, "Ranking methods and stability", anchor + "-methods")
    order = np.argsort(a.rank, kind="mergesort")
    methods = list(a.methods.items())
    doc.paragraph("Ranking methods (after challengeR): %s." % "; ".join(
        "%s = %s" % (name, text) for name, text in analysis.METHODS.items()))
    doc.table(["submission"] + [name for name, _ in methods] + ["P(rank 1)"],
              [[a.names[s]] + [int(r[s]) for _, r in methods] + ["%.1f%%" % (100 * a.rank_frequency[s][0])]
               for s in order], "Ranks of %s by each method; P(rank 1) over the bootstrap resamples" % a.primary)
    doc.table(["method", "Kendall tau-b with the leaderboard", "rank distance"],
              [[name, shown(tau, 3), "%g" % distance] for name, tau, distance in a.stability],
              "Rank distance: pairwise tie-aware (a pair ordered oppositely costs 1, a pair tied in one ranking "
              "only 0.5)")
    if len(a.strata) > 1:
        columns = ["submission"] + list(a.strata) + ["mean rank (consensus)"]
        rows = [[a.names[s]] + [int(r) for r in a.task_ranks[s]] + ["%.4g" % a.consensus[s]] for s in order]
        doc.table(columns, rows, "Per-stratum (task) ranks by %s and their consensus" % a.primary)
    doc.figure(charts.podium(a.names, order, a.task_values, a.strata, a.primary, "Podium: %s per stratum"
                             % a.primary),
               "Column i: the submission ranked i-th; one dot per stratum at its value there, joined per stratum.")


def _significance(doc, a, anchor):
    doc.heading(3, "Paired significance", anchor + "-significance")
    doc.paragraph(
        "Paired randomisation test of the difference in each ranked score, stratified and weighted as the score "
        "aggregates its items: under the null hypothesis the two submissions are exchangeable on every unit, "
        "so swapping them flips the sign of that unit's share of the difference. A ratio of sums over "
        "reference denominators (accuracy, recall, a mean over pages) is a sum of per-item shares and is "
        "tested by %s; any other statistic (average precision) is tested by stratum. Exact over all 2^n sign "
        "patterns where that is affordable, otherwise %d seeded patterns (smallest p %.5f). Multiplicity: %s over the "
        "pairs of each score, on the same patterns. Interval: paired bootstrap of the difference; effect: "
        "difference / its bootstrap SD; P(A > B): share of resamples where A is strictly better." % (
            a.unit, a.permutations, 1.0 / (a.permutations + 1),
            "Westfall and Young's max-T step-down" if a.adjustment == "maxT" else "Holm's step-down"))
    order = np.argsort(a.rank, kind="mergesort")
    for key, tests in a.tests.items():
        better = tests.better()
        doc.figure(charts.significance_map([a.names[s] for s in order], better[np.ix_(order, order)],
                                           "Significance map: %s" % key),
                   "Green: the row is significantly better than the column (adjusted p < 0.05); red: worse; "
                   "white: not distinguishable. %s" % ("" if len(a.names) <= charts.MAP_LIMIT else
                                                      "The first %d submissions by rank." % charts.MAP_LIMIT))
        rank = dict((s, r) for r, s in enumerate(order))
        indices = sorted(range(len(tests.pairs)), key=lambda k: (rank[tests.pairs[k][0]] + rank[tests.pairs[k][1]],
                                                                 tests.pairs[k].tolist()))
        if len(a.names) > PAIR_TABLE_LIMIT:
            indices = [k for k in indices if abs(rank[tests.pairs[k][0]] - rank[tests.pairs[k][1]]) == 1]
        rows = []
        for k in indices:
            i, j = tests.pairs[k]
            if rank[i] > rank[j]:
                i, j, sign = j, i, -1
            else:
                sign = 1
            low, high = sorted((sign * tests.low[k], sign * tests.high[k]))
            rows.append([a.names[i], a.names[j], "%+.4f [%+.4f, %+.4f]" % (sign * tests.difference[k], low, high),
                         "%+.2f" % (sign * tests.effect[k]),
                         "%.1f%%" % (100 * (tests.p_better[k] if sign > 0 else tests.p_worse[k])),
                         shown_p(tests.p[k]), shown_p(tests.p_adjusted[k]),
                         "yes" if tests.p_adjusted[k] < 0.05 else "no"])
        doc.table(["A", "B", "difference A - B [95%]", "effect", "P(A > B)", "p", "adjusted p", "significant"],
                  rows, "%s: %s" % (key, "every pair" if len(a.names) <= PAIR_TABLE_LIMIT else
                                    "neighbours on the leaderboard (every pair in pairs.csv)"))
    m = getattr(a, "mcnemar", None)
    if m is not None:
        rows = [[a.names[i], a.names[j], int(b), int(c), shown_p(p), shown_p(q)]
                for (i, j), b, c, p, q in zip(m["pairs"].tolist(), m["b"], m["c"], m["p"], m["p_holm"])]
        if len(a.names) > PAIR_TABLE_LIMIT:
            rows = rows[:len(a.names) - 1]
        doc.table(["A", "B", "b (A right, B wrong)", "c (A wrong, B right)", "p", "Holm p"], rows,
                  "Secondary view: exact McNemar test of per-%s correctness (the pooled accuracy, not the "
                  "leaderboard score)" % a.unit)


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
        doc.table(["ground-truth-free ranking", "ground-truth score", "rank distance", "tau-b"],
                  [[n, k, "%g" % d, shown(t, 3)] for n, k, d, t in g["agreement"]],
                  "Agreement with the ranking by the ground-truth score")


def report_html(analyses, closing):
    doc = Html()
    summary(doc, analyses)
    for index, a in enumerate(analyses):
        track_sections(doc, a, index)
    doc.heading(2, "Closing note", "closing")
    for line in closing:
        doc.paragraph(line)
    toc = "".join('<li style="margin-left:%dem"><a href="#%s">%s</a></li>' % (level - 2, anchor, html.escape(text))
                  for level, text, anchor in doc.toc)
    head = ('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<title>Meta-evaluation</title><style>%s</style></head><body>' % STYLE)
    return "\n".join([head, "<h1>Meta-evaluation of the submissions</h1>", at_a_glance(analyses),
                      "<nav><strong>Contents</strong><ul>%s</ul></nav>" % toc] + doc.parts + [page_footer()])


def closing_note(analyses):
    lines = []
    for a in analyses:
        g = a.gt_free
        if g is None or "agreement" not in g:
            continue
        pairs = len(a.names) * (len(a.names) - 1) // 2
        for name, key, distance, tau in g["agreement"]:
            lines.append("Track %s: the %s ranking is at rank distance %g (of at most %d) from the ranking by %s "
                         "(tau-b %s)%s." % (a.label, name, distance, pairs, key, shown(tau, 3),
                                            ": the same order" if distance == 0 else ""))
    if not lines:
        lines.append("No ground-truth-free ranking could be compared with a ground-truth ranking.")
    return lines
