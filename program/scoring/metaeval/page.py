"""ranking.csv and report.html of the meta-evaluation."""

import csv
import html
import io

import numpy as np

from ..report import page_head, render_block
from ..result import Paragraph, Picture, Table
from . import charts


MCNEMAR_NOTE = ("b counts the items the first submission got right and the second wrong, c the reverse; "
                "p = min(1, 2 BinomCDF(min(b, c); b + c, 1/2)), and 1 when b + c = 0.")
SIGN_FLIP_NOTE = ("Under the null hypothesis each per-unit difference is as likely positive as negative; the "
                  "test is exact over all sign patterns up to 16 nonzero differences, Monte Carlo (20,000 "
                  "fixed-seed patterns) beyond.")


def ranking_rows(analyses):
    """Rows of ranking.csv: one per track and submission."""
    header = ["track", "submission", "rank", "score_key", "score", "ci_low", "ci_high",
              "median_rank", "rank_ci_low", "rank_ci_high", "pseudo_f_measure", "pseudo_f_rank",
              "reference_rank_value", "reference_rank"]
    rows = []
    for a in analyses:
        g = a.gt_free
        for s, name in enumerate(a.names):
            row = [a.kind, name]
            if a.ground_truth:
                low, high = a.intervals[a.primary]
                row += [int(a.rank[s]), a.primary, _f(a.values[a.primary][s]), _f(low[s]), _f(high[s]),
                        _f(a.rank_median[s]), _f(a.rank_interval[0][s]), _f(a.rank_interval[1][s])]
            else:
                row += [""] * 8
            if g is not None:
                row += [_f(g["metrics"]["f_measure"][s]), int(g["f_rank"][s]), int(g["rank_values"][s]),
                        int(g["reference_rank"][s])]
            else:
                row += [""] * 4
            rows.append(row)
    return header, rows


def _f(value):
    return "%.6f" % float(value)


def ranking_csv(analyses):
    header, rows = ranking_rows(analyses)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def track_blocks(a):
    """(title, blocks) sections of the report for one track."""
    sections = []
    if a.ground_truth:
        order = np.argsort(a.rank, kind="mergesort")
        columns = ["rank", "submission"]
        rows = []
        for s in order:
            row = [int(a.rank[s]), a.names[s]]
            for name in a.score_names:
                low, high = a.intervals[name]
                row.append("%.4f [%.4f, %.4f]" % (a.values[name][s], low[s], high[s]))
            row.append("%g [%g, %g]" % (a.rank_median[s], a.rank_interval[0][s], a.rank_interval[1][s]))
            rows.append(row)
        blocks = [
            Paragraph("Stratified bootstrap: %d resamples with seed %d; items are resampled within each "
                      "stratum and every score is recomputed from the per-item results. Intervals are "
                      "95%% percentile intervals." % (a.resamples, a.seed)),
            Table(columns + list(a.score_names) + ["median rank [95%]"], rows,
                  "Leaderboard scores with 95%% intervals, ranked by %s" % a.primary),
            Picture(charts.rank_frequencies([a.names[s] for s in order], a.rank_frequency[order],
                                            "Share of resamples (%) per rank"),
                    "Rank distribution per submission (rows) over the bootstrap resamples"),
        ]
        sections.append(("Confidence", blocks))
        size = len(a.names)
        pair_rows = []
        for i in range(size):
            for j in range(i + 1, size):
                pair_rows.append([a.names[i], a.names[j], a.pair_detail[(i, j)], float(a.p_raw[i, j]),
                                  float(a.p_holm[i, j]), "yes" if a.p_holm[i, j] < 0.05 else "no"])
        sections.append(("Paired significance", [
            Paragraph("Test: %s; Holm's correction over the %d pairs of this track. %s"
                      % (a.test, size * (size - 1) // 2, MCNEMAR_NOTE if a.pair_counts else SIGN_FLIP_NOTE)),
            Picture(charts.significance_matrix(a.names, a.p_holm, a.values[a.primary]),
                    "Green: the row is significantly better than the column (Holm p < 0.05); red: worse"),
            Table(["A", "B", "difference", "p", "Holm p", "significant"], pair_rows, "Every pair"),
        ]))
        if a.protocol_pairs:
            names = [k for k in a.comparable if k in a.values]
            tau = np.eye(len(names))
            for p, q, _, t in a.protocol_pairs:
                tau[names.index(p), names.index(q)] = tau[names.index(q), names.index(p)] = t
            sections.append(("Comparing metrics and protocols", [
                Paragraph("For each two scores, the distance between the rankings they give: a pair of "
                          "submissions ordered differently costs 1, a pair tied in one ranking only 0.5 "
                          "(the comparison of text-detection evaluation protocols, section III-B and Figure 3), and "
                          "Kendall's tau-b. Pairs of submissions: %d." % (size * (size - 1) // 2)),
                Table(["score", "score", "rank distance", "tau-b"],
                      [[p, q, float(d), float(t)] for p, q, d, t in a.protocol_pairs]),
                Picture(charts.agreement_heatmap(names, tau), "tau-b between the rankings of the scores"),
            ]))
    g = a.gt_free
    if g is not None:
        metric_names = ["precision", "recall", "f_measure", "nrm", "ncc", "psnr"]
        rows = [[a.names[s]] + [float(g["metrics"][m][s]) for m in metric_names]
                + [int(g["f_rank"][s]), int(g["rank_values"][s]), int(g["reference_rank"][s])]
                for s in range(len(a.names))]
        blocks = [
            Paragraph("Without ground truth (Fedorchuk and Lamiroy, ICAPR 2017): the consensus P(d) is the "
                      "share of submissions deciding positive on item d; pseudo-metrics compare each "
                      "submission to it (NRM: lower is better). Reference-classifier McNemar test with "
                      "reference: %s; ranking protocol: every pair with p < 0.05 adds one to the rank "
                      "value of the submission that agrees more with the reference." % g["reference"]),
            Table(["submission"] + metric_names + ["rank by pseudo F", "reference rank value",
                                                   "rank by reference protocol"], rows),
        ]
        if "agreement" in g:
            blocks.append(Table(["ground-truth-free ranking", "ground-truth score", "rank distance", "tau-b"],
                                [[n, k, float(d), float(t)] for n, k, d, t in g["agreement"]],
                                "Agreement with the rankings by ground-truth scores"))
        sections.append(("Without ground truth", blocks))
    for note in a.notes:
        sections.append(("Note", [Paragraph(note)]))
    return sections


def report_html(analyses, closing):
    parts = [page_head("Meta-evaluation"), "<h1>Meta-evaluation of the submissions</h1>"]
    for a in analyses:
        parts.append("<h2>Track %s</h2>" % html.escape(a.kind))
        parts.append("<p>Submissions: %s.</p>" % html.escape(", ".join(a.names)))
        for title, blocks in track_blocks(a):
            parts.append("<h3>%s</h3>" % html.escape(title))
            parts.extend(render_block(b) for b in blocks)
    parts.append("<h2>Closing note</h2>")
    parts.extend("<p>%s</p>" % html.escape(line) for line in closing)
    parts.append("</body></html>\n")
    return "\n".join(parts)


def closing_note(analyses):
    lines = []
    for a in analyses:
        g = a.gt_free
        if g is None or "agreement" not in g:
            continue
        pairs = len(a.names) * (len(a.names) - 1) // 2
        for name, key, distance, tau in g["agreement"]:
            lines.append("Track %s: the %s ranking is at rank distance %g (of at most %d) from the ranking by %s "
                         "(tau-b %.3f)%s." % (a.kind, name, distance, pairs, key, tau,
                                              ": the same order" if distance == 0 else ""))
    if not lines:
        lines.append("No ground-truth-free ranking could be compared with a ground-truth ranking.")
    return lines
