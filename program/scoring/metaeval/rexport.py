"""cases.csv and challenger.R: the per-case values compare.py ranks, in challengeR's long
format, and the R script that ranks them with challengeR (Wiesenfarth et al., "Methods and
open-source toolkit for analyzing and visualizing challenge results", Scientific Reports
11, 2021; github.com/wiesenfa/challengeR) and prints its ranks beside compare.py's.

A row of cases.csv is one submission's value of one case of one task of a track: `value`
as a float (the shortest text that reads back as the same double), `value_exact` as the
fraction it is (compare.py compares those), `missing` 1 where the submission gave nothing
for the case. Under --missing-cases track a missing case keeps the value the track scored
it with; under any other treatment its value is empty (R's NA) and the script passes the
treatment to challengeR as `na.treat`.
"""

from ..csvtext import csv_text

CASES_HEADER = ["track", "submission", "task", "case", "value", "value_exact", "missing"]


def _fraction(value):
    return "%d/%d" % (value.numerator, value.denominator)


def cases_csv(analyses):
    rows = []
    for a in analyses:
        if not a.ground_truth:
            continue
        cases = a.cases
        blank = cases.treatment != "track"
        for k, name in enumerate(a.names):
            for c, case in enumerate(cases.names):
                missing = bool(cases.missing[k, c])
                if missing and blank:
                    value, exact = "", ""
                else:
                    exact = cases.value(k, c)
                    value, exact = repr(float(exact)), _fraction(exact)
                rows.append([a.label, name, cases.tasks[cases.task_of[c]], case, value, exact, int(missing)])
    return csv_text(CASES_HEADER, rows)


def _r_string(text):
    """An R string literal of any text (UTF-8 kept; backslash, quote and controls escaped)."""
    out = []
    for c in str(text):
        if c in '\\"':
            out.append("\\" + c)
        elif ord(c) < 32 or ord(c) == 127:
            out.append("\\x%02x" % ord(c))
        else:
            out.append(c)
    return '"%s"' % "".join(out)


def _na_treat(cases):
    if cases.treatment == "track":
        return "NULL"
    if cases.treatment == "na.rm":
        return '"na.rm"'
    return repr(float(cases.replaced))


R_SCRIPT = """\
# challengeR's rankings of the cases in cases.csv beside compare.py's (ranking.csv).
# Run in this folder: Rscript challenger.R   (challengeR 1.0.5: github.com/wiesenfa/challengeR)
# Per track and method, challengeR's consensus ranks, compare.py's, and the submissions where
# they differ. R ranks the doubles of `value`, compare.py the exact fractions: two values
# equal as fractions but stored as different doubles can tie in compare.py and not in R.
suppressMessages(library(challengeR))
read <- function(file) read.csv(file, encoding = "UTF-8", stringsAsFactors = FALSE, na.strings = "",
                                check.names = FALSE, colClasses = "character")
cases <- read(%(cases)s)
cases$value <- as.numeric(cases$value)
ranking <- read(%(ranking)s)
tracks <- list(
%(tracks)s)
symdiff <- function(position, tasks) {
  # relations' symdiff distance of the linear order `position` to each task's ranking, summed
  total <- 0
  for (r in tasks) for (a in names(r)) for (b in names(r)) if (a < b) {
    if (r[[a]] == r[[b]]) total <- total + 1
    else if ((r[[a]] < r[[b]]) != (position[[a]] < position[[b]])) total <- total + 2
  }
  total
}
for (t in tracks) {
  d <- cases[cases$track == t$track, ]
  ch <- suppressMessages(as.challenge(d, by = "task", algorithm = "submission", case = "case", value = "value",
                                     smallBetter = t$smallBetter, na.treat = t$na.treat))
  methods <- list(
    mean_then_rank = aggregateThenRank(ch, FUN = mean, ties.method = "min"),
    median_then_rank = aggregateThenRank(ch, FUN = median, ties.method = "min"),
    rank_then_mean = rankThenAggregate(ch, FUN = mean, ties.method = "min"),
    test_then_rank = suppressWarnings(testThenRank(ch, alpha = 0.05, p.adjust.method = "none",
                                                   ties.method = "min")))
  ours <- ranking[ranking$track == t$track, ]
  for (m in names(methods)) {
    e <- consensus(methods[[m]], method = "euclidean")
    theirs <- rank(e, ties.method = "min")
    mine <- as.integer(ours[[paste0("rank_by_", m)]][match(names(e), ours$submission)])
    cat("##", t$track, m, ":", paste(names(e), theirs, collapse = " | "), "\\n")
    cat("  ", if (all(theirs == mine)) "the same ranks as compare.py" else
        paste("differs from compare.py:", paste(names(e)[theirs != mine], "R", theirs[theirs != mine],
                                                "compare.py", mine[theirs != mine], collapse = "; ")), "\\n")
  }
  tasks <- lapply(methods$mean_then_rank$matlist, function(x) setNames(x$rank, rownames(x)))
  k <- consensus(methods$mean_then_rank, method = "symdiff/L")
  mine <- setNames(as.integer(ours$rank_by_kemeny), ours$submission)
  cat("##", t$track, "kemeny :", paste(names(k), k, collapse = " | "), "\\n")
  cat("   summed symdiff distance: challengeR's order", symdiff(k, tasks), "compare.py's", symdiff(mine, tasks),
      if (all(k[names(mine)] == mine)) "(the same order)" else "(another order)", "\\n")
}
"""


def r_script(analyses):
    tracks = ",\n".join("  list(track = %s, smallBetter = %s, na.treat = %s)" % (
        _r_string(a.label), "TRUE" if a.lower_is_better() else "FALSE", _na_treat(a.cases))
        for a in analyses if a.ground_truth)
    return R_SCRIPT % {"cases": _r_string("cases.csv"), "ranking": _r_string("ranking.csv"), "tracks": tracks}
