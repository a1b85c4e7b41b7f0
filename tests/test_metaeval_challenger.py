"""challengeR's ranking methods, reproduced by compare.py (metaeval/challenger.py), checked
against challengeR itself on the same values.

Where the numbers come from: challengeR 1.0.5 (github.com/wiesenfa/challengeR at beb3b67,
installed from source with R CMD INSTALL) with relations 0.6-18 (CRAN's GitHub mirror
cran/relations at 85bf2e1, from source), on R 4.2.2 (Debian bookworm's r-base-core
4.2.2.20221110-2, with Debian's r-cran-dplyr, -ggplot2, -plyr, -reshape2, -tidyr, -sets, -slam,
-lpsolve, -rglpk and r-bioc-graph), run once on 2026-11-26 with the script R_SCRIPT below on
DATA below; its output is R_OUTPUT, kept verbatim. The values are sixteenths, exact in
binary floating point, so R's double arithmetic and compare.py's exact arithmetic meet
the same numbers (with decimals such as 0.9 - 0.85 against 0.75 - 0.7, R's doubles would
split ties that the decimals make).

consensus(method = "symdiff/L") (Kemeny) returns one optimal linear order chosen by a MIP
solver; where several orders are optimal, the test checks that R's order is among ours
(the same summed distance), and on a three-task case with one optimum, that they are the
same order.
"""

import csv
import io
import math
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scoring.itemview import Ratio, Score
from scoring.metaeval import cases as case_values, challenger

DATA = """\
alg,case,task,value
A,c1,T1,0.875
A,c2,T1,0.8125
A,c3,T1,0.6875
A,c4,T1,0.625
A,c5,T2,0.5
A,c6,T2,0.625
A,c7,T2,0.6875
A,c8,T2,0.5625
B,c1,T1,0.875
B,c2,T1,0.75
B,c3,T1,0.625
B,c4,T1,0.6875
B,c5,T2,0.625
B,c6,T2,0.625
B,c7,T2,0.8125
B,c8,T2,0.6875
C,c1,T1,0.875
C,c2,T1,0.8125
C,c3,T1,0.6875
C,c4,T1,0.625
C,c5,T2,0.5625
C,c6,T2,0.625
C,c7,T2,0.75
C,c8,T2,
D,c1,T1,0.5
D,c2,T1,0.5625
D,c3,T1,0.4375
D,c4,T1,0.375
D,c5,T2,0.875
D,c6,T2,0.875
D,c7,T2,0.9375
D,c8,T2,0.8125
E,c1,T1,0.6875
E,c2,T1,0.6875
E,c3,T1,0.6875
E,c4,T1,0.6875
E,c5,T2,0.625
E,c6,T2,0.625
E,c7,T2,0.625
E,c8,T2,0.625
"""

R_SCRIPT = r"""
suppressMessages(library(challengeR))
d <- read.csv("data16.csv")
show <- function(label, r) {
  cat("##", label, "\n")
  for (t in names(r$matlist)) { m <- r$matlist[[t]]; cat(t, ":", paste(rownames(m), format(m[, ncol(m)-1], digits=15), m[, "rank"], collapse=" | "), "\n") }
}
for (sb in c(FALSE, TRUE)) for (nt in list(0, "na.rm")) {
  ch <- suppressMessages(as.challenge(d, by="task", algorithm="alg", case="case", value="value", smallBetter=sb, na.treat=nt))
  tag <- paste0("smallBetter=", sb, " na.treat=", nt)
  r1 <- aggregateThenRank(ch, FUN=mean, ties.method="min"); show(paste(tag, "mean"), r1)
  r2 <- aggregateThenRank(ch, FUN=median, ties.method="min"); show(paste(tag, "median"), r2)
  r3 <- rankThenAggregate(ch, FUN=mean, ties.method="min"); show(paste(tag, "rankThenMean"), r3)
  r4 <- suppressWarnings(testThenRank(ch, alpha=0.05, p.adjust.method="none", ties.method="min")); show(paste(tag, "test"), r4)
  for (r in list(list("mean", r1), list("median", r2), list("rankThenMean", r3), list("test", r4))) {
    e <- consensus(r[[2]], method="euclidean"); cat("## consensus euclidean", tag, r[[1]], ":", paste(names(e), format(e, digits=15), rank(e, ties.method="min"), collapse=" | "), "\n")
  }
  k <- consensus(r1, method="symdiff/L"); cat("## consensus symdiff/L", tag, "mean :", paste(names(k), k, collapse=" | "), "\n")
}
ch <- suppressMessages(as.challenge(d, by="task", algorithm="alg", case="case", value="value", smallBetter=FALSE, na.treat=0))
for (t in c("T1","T2")) for (p in list(c("A","B"), c("B","A"), c("D","E"), c("A","E"), c("B","C"))) {
  x <- d[d$task==t & d$alg==p[1],]; y <- d[d$task==t & d$alg==p[2],]
  x$value[is.na(x$value)] <- 0; y$value[is.na(y$value)] <- 0
  pv <- suppressWarnings(wilcox.test(x$value, y$value, paired=TRUE, exact=FALSE, alternative="greater")$p.value)
  cat("## wilcox", t, p[1], ">", p[2], format(pv, digits=15), "\n")
}
k <- data.frame(alg=rep(c("A","B","C","D"), 3), task=rep(c("T1","T2","T3"), each=4), case="c1",
                value=c(4,3,2,1, 3,4,1,2, 4,2,3,1))
kc <- suppressMessages(as.challenge(k, by="task", algorithm="alg", case="case", value="value", smallBetter=FALSE))
kr <- aggregateThenRank(kc, FUN=mean, ties.method="min")
kk <- consensus(kr, method="symdiff/L"); cat("## kemeny3", paste(names(kk), kk, collapse=" | "), "\n")
ke <- consensus(kr, method="euclidean"); cat("## euclid3", paste(names(ke), format(ke, digits=15), collapse=" | "), "\n")
"""  # noqa: E501 (the script as it was run)

R_OUTPUT = """\
## smallBetter=FALSE na.treat=0 mean
T1 : A 0.750000 1 | B 0.734375 3 | C 0.750000 1 | D 0.468750 5 | E 0.687500 4
T2 : A 0.593750 4 | B 0.687500 2 | C 0.484375 5 | D 0.875000 1 | E 0.625000 3
## smallBetter=FALSE na.treat=0 median
T1 : A 0.75000 1 | B 0.71875 3 | C 0.75000 1 | D 0.46875 5 | E 0.68750 4
T2 : A 0.59375 4 | B 0.65625 2 | C 0.59375 4 | D 0.87500 1 | E 0.62500 3
## smallBetter=FALSE na.treat=0 rankThenMean
T1 : A 1.50 1 | B 2.25 3 | C 1.50 1 | D 5.00 5 | E 2.50 4
T2 : A 3.75 5 | B 2.00 2 | C 3.50 4 | D 1.00 1 | E 3.00 3
## smallBetter=FALSE na.treat=0 test
T1 : A 0.25 1 | B 0.25 1 | C 0.25 1 | D 0.00 4 | E 0.00 4
T2 : A 0.00 2 | B 0.00 2 | C 0.00 2 | D 0.75 1 | E 0.00 2
## consensus euclidean smallBetter=FALSE na.treat=0 mean : B 2.50 1 | A 2.75 2 | D 3.00 3 | C 3.25 4 | E 3.50 5
## consensus euclidean smallBetter=FALSE na.treat=0 median : B 2.5 1 | A 3.0 2 | C 3.0 2 | D 3.0 2 | E 3.5 5
## consensus euclidean smallBetter=FALSE na.treat=0 rankThenMean : B 2.50 1 | C 2.75 2 | D 3.00 3 | A 3.25 4 | E 3.50 5
## consensus euclidean smallBetter=FALSE na.treat=0 test : A 2.75 1 | B 2.75 1 | C 2.75 1 | D 2.75 1 | E 4.00 5
## consensus symdiff/L smallBetter=FALSE na.treat=0 mean : B 1 | E 2 | D 3 | A 4 | C 5
## smallBetter=FALSE na.treat=na.rm mean
T1 : A 0.750000 1 | B 0.734375 3 | C 0.750000 1 | D 0.468750 5 | E 0.687500 4
T2 : A 0.593750000000000 5 | B 0.687500000000000 2 | C 0.645833333333333 3 | D 0.875000000000000 1 | E 0.625000000000000 4
## smallBetter=FALSE na.treat=na.rm median
T1 : A 0.75000 1 | B 0.71875 3 | C 0.75000 1 | D 0.46875 5 | E 0.68750 4
T2 : A 0.59375 5 | B 0.65625 2 | C 0.62500 3 | D 0.87500 1 | E 0.62500 3
## smallBetter=FALSE na.treat=na.rm rankThenMean
T1 : A 1.50 1 | B 2.25 3 | C 1.50 1 | D 5.00 5 | E 2.50 4
T2 : A 3.75 5 | B 2.00 2 | C 3.00 3 | D 1.00 1 | E 3.00 3
## smallBetter=FALSE na.treat=na.rm test
T1 : A 0.25 1 | B 0.25 1 | C 0.25 1 | D 0.00 4 | E 0.00 4
T2 : A 0.00 2 | B 0.00 2 | C 0.00 2 | D 0.75 1 | E 0.00 2
## consensus euclidean smallBetter=FALSE na.treat=na.rm mean : C 2.25 1 | B 2.50 2 | D 3.00 3 | A 3.25 4 | E 4.00 5
## consensus euclidean smallBetter=FALSE na.treat=na.rm median : B 2.50 1 | C 2.50 1 | D 3.00 3 | A 3.25 4 | E 3.75 5
## consensus euclidean smallBetter=FALSE na.treat=na.rm rankThenMean : B 2.50 1 | C 2.50 1 | D 3.00 3 | A 3.25 4 | E 3.75 5
## consensus euclidean smallBetter=FALSE na.treat=na.rm test : A 2.75 1 | B 2.75 1 | C 2.75 1 | D 2.75 1 | E 4.00 5
## consensus symdiff/L smallBetter=FALSE na.treat=na.rm mean : D 1 | C 2 | B 3 | E 4 | A 5
## smallBetter=TRUE na.treat=0 mean
T1 : A 0.750000 4 | B 0.734375 3 | C 0.750000 4 | D 0.468750 1 | E 0.687500 2
T2 : A 0.593750 2 | B 0.687500 4 | C 0.484375 1 | D 0.875000 5 | E 0.625000 3
## smallBetter=TRUE na.treat=0 median
T1 : A 0.75000 4 | B 0.71875 3 | C 0.75000 4 | D 0.46875 1 | E 0.68750 2
T2 : A 0.59375 1 | B 0.65625 4 | C 0.59375 1 | D 0.87500 5 | E 0.62500 3
## smallBetter=TRUE na.treat=0 rankThenMean
T1 : A 3.00 3 | B 3.00 3 | C 3.00 3 | D 1.00 1 | E 2.75 2
T2 : A 1.50 1 | B 3.00 4 | C 1.75 2 | D 5.00 5 | E 2.00 3
## smallBetter=TRUE na.treat=0 test
T1 : A 0.00 2 | B 0.00 2 | C 0.00 2 | D 0.75 1 | E 0.00 2
T2 : A 0.25 1 | B 0.25 1 | C 0.00 4 | D 0.00 4 | E 0.25 1
## consensus euclidean smallBetter=TRUE na.treat=0 mean : E 2.50 1 | C 2.75 2 | D 3.00 3 | A 3.25 4 | B 3.50 5
## consensus euclidean smallBetter=TRUE na.treat=0 median : E 2.5 1 | A 3.0 2 | C 3.0 2 | D 3.0 2 | B 3.5 5
## consensus euclidean smallBetter=TRUE na.treat=0 rankThenMean : A 2.5 1 | E 2.5 1 | C 3.0 3 | D 3.0 3 | B 4.0 5
## consensus euclidean smallBetter=TRUE na.treat=0 test : A 2.75 1 | B 2.75 1 | D 2.75 1 | E 2.75 1 | C 4.00 5
## consensus symdiff/L smallBetter=TRUE na.treat=0 mean : E 1 | D 2 | C 3 | B 4 | A 5
## smallBetter=TRUE na.treat=na.rm mean
T1 : A 0.750000 4 | B 0.734375 3 | C 0.750000 4 | D 0.468750 1 | E 0.687500 2
T2 : A 0.593750000000000 1 | B 0.687500000000000 4 | C 0.645833333333333 3 | D 0.875000000000000 5 | E 0.625000000000000 2
## smallBetter=TRUE na.treat=na.rm median
T1 : A 0.75000 4 | B 0.71875 3 | C 0.75000 4 | D 0.46875 1 | E 0.68750 2
T2 : A 0.59375 1 | B 0.65625 4 | C 0.62500 2 | D 0.87500 5 | E 0.62500 2
## smallBetter=TRUE na.treat=na.rm rankThenMean
T1 : A 3.00 3 | B 3.00 3 | C 3.00 3 | D 1.00 1 | E 2.75 2
T2 : A 1.25 1 | B 2.75 4 | C 2.00 3 | D 4.75 5 | E 1.75 2
## smallBetter=TRUE na.treat=na.rm test
T1 : A 0.00 2 | B 0.00 2 | C 0.00 2 | D 0.75 1 | E 0.00 2
T2 : A 0.25 1 | B 0.25 1 | C 0.00 4 | D 0.00 4 | E 0.25 1
## consensus euclidean smallBetter=TRUE na.treat=na.rm mean : E 2.00 1 | A 2.75 2 | D 3.00 3 | B 3.50 4 | C 3.75 5
## consensus euclidean smallBetter=TRUE na.treat=na.rm median : E 2.25 1 | A 2.75 2 | D 3.00 3 | B 3.50 4 | C 3.50 4
## consensus euclidean smallBetter=TRUE na.treat=na.rm rankThenMean : E 2.0 1 | A 2.5 2 | D 3.0 3 | C 3.5 4 | B 4.0 5
## consensus euclidean smallBetter=TRUE na.treat=na.rm test : A 2.75 1 | B 2.75 1 | D 2.75 1 | E 2.75 1 | C 4.00 5
## consensus symdiff/L smallBetter=TRUE na.treat=na.rm mean : E 1 | D 2 | A 3 | C 4 | B 5
## wilcox T1 A > B 0.386414996342224
## wilcox T1 B > A 0.806761884614384
## wilcox T1 D > E 0.97769514098753
## wilcox T1 A > E 0.211339037085318
## wilcox T1 B > C 0.806761884614384
## wilcox T2 A > B 0.978345928594604
## wilcox T2 B > A 0.0744573365893828
## wilcox T2 D > E 0.0487562690890548
## wilcox T2 A > E 0.861848541331258
## wilcox T2 B > C 0.0867840832779608
## kemeny3 A 1 | B 2 | C 3 | D 4
## euclid3 A 1.33333333333333 | B 2.00000000000000 | C 3.00000000000000 | D 3.66666666666667
"""  # noqa: E501 (R's output, verbatim but for trailing spaces)

ALGORITHMS = ["A", "B", "C", "D", "E"]
CASES = ["c%d" % i for i in range(1, 9)]
METHOD_FUNCTIONS = {"mean": challenger.mean_then_rank, "median": challenger.median_then_rank,
                    "rankThenMean": challenger.rank_then_mean, "test": challenger.test_then_rank}


def parse_r():
    """{(small_better, na_treat, method, task): {algorithm: (value, rank)}} and
    {(small_better, na_treat, method): {algorithm: (mean rank, rank)}} of the Euclidean
    consensus, {(small_better, na_treat): [order]} of symdiff/L, and the Wilcoxon p-values."""
    tasks, consensus, kemeny, wilcoxon = {}, {}, {}, {}
    current = None
    for line in R_OUTPUT.splitlines():
        line = line.strip()
        head = re.match(r"## smallBetter=(\w+) na\.treat=(\S+) (\w+)$", line)
        if head:
            current = (head.group(1) == "TRUE", head.group(2), head.group(3))
            continue
        task = re.match(r"(T\d) : (.*)$", line)
        if task:
            cells = [c.split() for c in task.group(2).split(" | ")]
            tasks[current + (task.group(1),)] = dict((c[0], (float(c[1]), int(c[2]))) for c in cells)
            continue
        euclid = re.match(r"## consensus euclidean smallBetter=(\w+) na\.treat=(\S+) (\w+) : (.*)$", line)
        if euclid:
            cells = [c.split() for c in euclid.group(4).split(" | ")]
            consensus[(euclid.group(1) == "TRUE", euclid.group(2), euclid.group(3))] = dict(
                (c[0], (float(c[1]), int(c[2]))) for c in cells)
            continue
        symdiff = re.match(r"## consensus symdiff/L smallBetter=(\w+) na\.treat=(\S+) mean : (.*)$", line)
        if symdiff:
            cells = [c.split() for c in symdiff.group(3).split(" | ")]
            ordered = sorted(cells, key=lambda c: int(c[1]))
            kemeny[(symdiff.group(1) == "TRUE", symdiff.group(2))] = [c[0] for c in ordered]
            continue
        test = re.match(r"## wilcox (T\d) (\w) > (\w) (\S+)$", line)
        if test:
            wilcoxon[test.group(1), test.group(2), test.group(3)] = float(test.group(4))
    return tasks, consensus, kemeny, wilcoxon


def challenge(na_treat, lower_is_better):
    """DATA as compare.py's cases: tasks T1 (c1-c4) and T2 (c5-c8); C has no value on c8."""
    values = np.full((5, 8), np.nan)
    for row in csv.DictReader(io.StringIO(DATA)):
        if row["value"]:
            values[ALGORITHMS.index(row["alg"]), CASES.index(row["case"])] = float(row["value"])
    missing = np.isnan(values)
    cases = case_values.Cases("item", ["T1", "T2"], [0] * 4 + [1] * 4, CASES, np.where(missing, 0.0, values),
                              missing, lambda k, c: Fraction(0) if missing[k, c] else Fraction(values[k, c]),
                              1e-9, "case")
    cases.treat(na_treat, Score(Ratio(("x", "one")), lower_is_better=lower_is_better))
    return cases


SETTINGS = [(lower, treat) for lower in (False, True) for treat in ("0", "na.rm")]


@pytest.mark.parametrize("lower_is_better, na_treat", SETTINGS)
@pytest.mark.parametrize("method", sorted(METHOD_FUNCTIONS))
def test_each_method_and_its_euclidean_consensus_equal_challengers(lower_is_better, na_treat, method):
    tasks, consensus, _, _ = parse_r()
    cases = challenge(na_treat, lower_is_better)
    ranks = []
    for t, task_name in enumerate(["T1", "T2"]):
        task = challenger.Oriented(cases, cases.of_task(t), lower_is_better)
        got_ranks, got_values = METHOD_FUNCTIONS[method](task)
        expected = tasks[(lower_is_better, na_treat, method, task_name)]
        assert got_ranks.tolist() == [expected[a][1] for a in ALGORITHMS], (method, task_name)
        sign = -1 if lower_is_better and method in ("mean", "median") else 1  # values are oriented here
        assert (sign * got_values).tolist() == pytest.approx([expected[a][0] for a in ALGORITHMS], abs=1e-12)
        ranks.append(got_ranks)
    euclid, means = challenger.euclidean_consensus(ranks)
    expected = consensus[(lower_is_better, na_treat, method)]
    assert euclid.tolist() == [expected[a][1] for a in ALGORITHMS]
    assert means.tolist() == pytest.approx([expected[a][0] for a in ALGORITHMS], abs=1e-12)


def symmetric_difference(order, task_ranks):
    """relations' symdiff distance of a linear order to each task ranking, summed: a pair
    ordered against a task's strict order costs 2, a pair tied in a task 1."""
    position = dict((a, p) for p, a in enumerate(order))
    total = 0
    for ranks in task_ranks:
        for i in range(len(ALGORITHMS)):
            for j in range(i + 1, len(ALGORITHMS)):
                a, b = ALGORITHMS[i], ALGORITHMS[j]
                if ranks[i] == ranks[j]:
                    total += 1
                elif (ranks[i] < ranks[j]) != (position[a] < position[b]):
                    total += 2
    return total


@pytest.mark.parametrize("lower_is_better, na_treat", SETTINGS)
def test_kemeny_is_optimal_where_challenger_picks_one_of_several_optima(lower_is_better, na_treat):
    _, _, kemeny, _ = parse_r()
    cases = challenge(na_treat, lower_is_better)
    ranks = [challenger.mean_then_rank(challenger.Oriented(cases, cases.of_task(t), lower_is_better))[0]
             for t in range(2)]
    positions, cost, optimal, exact, _ = challenger.kemeny_consensus(ranks)
    ours = [a for _, a in sorted(zip(positions.tolist(), ALGORITHMS))]
    assert exact and optimal > 1
    assert cost == symmetric_difference(ours, ranks) == symmetric_difference(kemeny[(lower_is_better, na_treat)],
                                                                             ranks)


def test_kemeny_and_euclidean_consensus_of_three_tasks_equal_challengers():
    # R: kemeny3 A 1 | B 2 | C 3 | D 4 and euclid3 A 1.333 | B 2 | C 3 | D 3.667 (one optimum).
    lines = dict(line.split(" ", 2)[1:] for line in R_OUTPUT.splitlines() if line.startswith(("## kemeny3",
                                                                                            "## euclid3")))
    expected_order = [c.split()[0] for c in lines["kemeny3"].split(" | ")]
    expected_means = [float(c.split()[1]) for c in lines["euclid3"].split(" | ")]
    task_ranks = [[1, 2, 3, 4], [2, 1, 4, 3], [1, 3, 2, 4]]  # values 4 3 2 1 / 3 4 1 2 / 4 2 3 1, higher better
    positions, cost, optimal, exact, _ = challenger.kemeny_consensus(task_ranks)
    assert [a for _, a in sorted(zip(positions.tolist(), "ABCD"))] == expected_order
    assert optimal == 1 and exact and cost == 2 * 3  # three pairs ordered against one task each
    ranks, means = challenger.euclidean_consensus(task_ranks)
    assert means.tolist() == pytest.approx(expected_means, abs=1e-12)
    assert ranks.tolist() == [1, 2, 3, 4]


def test_wilcoxon_p_values_equal_rs():
    _, _, _, wilcoxon = parse_r()
    cases = challenge("0", False)
    for (task_name, first, second), expected in wilcoxon.items():
        t = int(task_name[1]) - 1
        task = challenger.Oriented(cases, cases.of_task(t), False)
        got = challenger.wilcoxon_greater(task, ALGORITHMS.index(first), ALGORITHMS.index(second))
        assert got == pytest.approx(expected, rel=1e-12), (task_name, first, second)


def test_wilcoxon_of_identical_values_is_one_as_in_r():
    # R: wilcox.test(c(1,1,1), c(1,1,1), paired = TRUE, exact = FALSE, alternative = "greater")$p.value is 1
    # (every difference zero), and 0.0907246 for c(1,2,3,4) against c(1,1,1,1): zeros dropped,
    # V = 6, z = (3 - 0.5) / sqrt(3.5).
    values = np.array([[1.0, 1, 1, 1], [1.0, 1, 1, 1], [1.0, 2, 3, 4]])
    cases = case_values.Cases("item", ["T"], [0] * 4, list("abcd"), values, np.zeros(values.shape, dtype=bool),
                              lambda k, c: Fraction(values[k, c]), 0.0, "case")
    cases.integral = True
    task = challenger.Oriented(cases, cases.of_task(0), False)
    assert challenger.wilcoxon_greater(task, 0, 1) == 1.0
    z = 2.5 / math.sqrt(3.5)
    assert challenger.wilcoxon_greater(task, 2, 0) == pytest.approx(0.5 * math.erfc(z / math.sqrt(2)))
    assert challenger.wilcoxon_greater(task, 2, 0) == pytest.approx(0.0907246, abs=1e-7)


def test_exact_ties_of_case_values_share_ranks():
    """Values equal as rationals but not as floats (1/10 + 2/10 against 3/10): the methods
    rank them together, as the exact values say."""
    floats = np.array([[0.1 + 0.2, 0.5], [0.3, 0.5]])
    exact = [[Fraction(3, 10), Fraction(1, 2)], [Fraction(3, 10), Fraction(1, 2)]]
    assert floats[0, 0] != floats[1, 0]
    cases = case_values.Cases("item", ["T"], [0, 0], ["a", "b"], floats, np.zeros(floats.shape, dtype=bool),
                              lambda k, c: exact[k][c], 1e-9, "case")
    task = challenger.Oriented(cases, cases.of_task(0), False)
    assert challenger.mean_then_rank(task)[0].tolist() == [1, 1]
    assert challenger.rank_then_mean(task)[0].tolist() == [1, 1]
    assert challenger.wilcoxon_greater(task, 0, 1) == 1.0  # no difference at all


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.one_of(st.integers(0, 3), st.none()), min_size=6, max_size=6), min_size=2, max_size=6))
def test_all_pairs_at_once_equal_each_pair_for_integral_values(rows):
    values = np.array([[np.nan if v is None else float(v) for v in row] for row in rows])
    missing = np.isnan(values)
    cases = case_values.Cases("item", ["T"], [0] * 6, list("abcdef"), np.where(missing, 0.0, values), missing,
                              lambda k, c: Fraction(int(values[k, c])), 0.0, "case")
    cases.integral = True
    cases.treat("na.rm", Score(Ratio(("x", "one"))))
    task = challenger.Oriented(cases, cases.of_task(0), False)
    matrix = challenger.wilcoxon_matrix(task)
    for i in range(len(rows)):
        for j in range(len(rows)):
            if i != j:
                assert matrix[i, j] == pytest.approx(challenger.wilcoxon_greater(task, i, j), abs=1e-12), (i, j)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0, 1, 2, 3, 5, None]), min_size=5, max_size=5),
                min_size=2, max_size=7), st.sampled_from([1, 2, 4, 3]), st.booleans())
def test_all_pairs_at_once_equal_each_pair_for_fractions(rows, tenths, spread):
    """Case values in tenths (floats whose differences tie as rationals but not always as
    floats, 0.3 - 0.1 against 0.5 - 0.3), with missing cases, and (spread) sevenths
    growing with the submission and the case, so that most pairs have differences of
    distinct sizes: the pairs ranked at once give the p-values of the pairs ranked one by
    one, exactly."""
    fractions = [[None if v is None else Fraction(v * tenths, 10) + Fraction((k + 1) * (c + 1) * spread, 7)
                  for c, v in enumerate(row)] for k, row in enumerate(rows)]
    values = np.array([[np.nan if f is None else float(f) for f in row] for row in fractions])
    missing = np.isnan(values)
    cases = case_values.Cases("item", ["T"], [0] * 5, list("abcde"), np.where(missing, 0.0, values), missing,
                              lambda k, c: fractions[k][c], 2.0 ** -40 * 64, "case")
    cases.treat("na.rm", Score(Ratio(("x", "one"))))
    task = challenger.Oriented(cases, cases.of_task(0), False)
    matrix = challenger.wilcoxon_matrix(task, cells=7)  # two or three chunks of the others in a row
    for i in range(len(rows)):
        for j in range(len(rows)):
            if i != j:
                assert matrix[i, j] == challenger.wilcoxon_greater(task, i, j), (i, j)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 6).flatmap(lambda k: st.tuples(
    st.lists(st.lists(st.integers(1, 3), min_size=k, max_size=k), min_size=1, max_size=4),
    st.lists(st.integers(1, 3), min_size=k, max_size=k))))
def test_kemeny_tau_range_is_the_least_and_most_tau_over_every_optimal_order(case):
    """Brute force: every order of the submissions, its summed symmetric difference to the
    task rankings (challengeR's symdiff: 2 per pair against a task, 1 per pair tied there),
    the optimal ones, and Kendall's tau-b of each with the leaderboard."""
    import itertools
    from scoring.metaeval import analysis
    from scoring.metrics.agreement import kendall_tau_b

    task_ranks, leaderboard = case
    count = len(leaderboard)
    rank = np.array(leaderboard)
    costs = {}
    for order in itertools.permutations(range(count)):
        positions = np.empty(count, dtype=np.int64)
        positions[list(order)] = np.arange(1, count + 1)
        cost = 0
        for ranks in task_ranks:
            for i, j in itertools.combinations(range(count), 2):
                if ranks[i] == ranks[j]:
                    cost += 1
                elif (ranks[i] < ranks[j]) != (positions[i] < positions[j]):
                    cost += 2
        costs[order] = (cost, positions)
    least = min(c for c, _ in costs.values())
    optimal = [p for c, p in costs.values() if c == least]
    taus = [kendall_tau_b(-rank, -p) for p in optimal]
    positions, cost, count_optimal, exact, concordance = challenger.kemeny_consensus(
        task_ranks, np.argsort(rank, kind="mergesort").tolist(), -rank)
    assert cost == least and count_optimal == len(optimal) and exact
    found = analysis._tau_range(rank, concordance)
    if len(set(leaderboard)) == 1:
        assert found is None
    else:
        assert found == (pytest.approx(min(taus), abs=1e-12), pytest.approx(max(taus), abs=1e-12))
        assert min(taus) - 1e-12 <= kendall_tau_b(-rank, -positions) <= max(taus) + 1e-12
