"""cases.csv and challenger.R (metaeval/rexport.py): challengeR, given the cases compare.py
writes, ranks them as compare.py does.

Where the numbers come from: challengeR 1.0.5 (github.com/wiesenfa/challengeR at beb3b67,
installed from source with R CMD INSTALL) with relations 0.6-18 (github.com/cran/relations
at 85bf2e1, from source), on R 4.2.2 (Debian bookworm's r-base-core 4.2.2.20221110-2 with
Debian's r-cran-dplyr, -ggplot2, -plyr, -reshape2, -tidyr, -sets, -slam, -lpsolve, -rglpk,
-knitr, -rmarkdown, -rlang, -viridislite and r-bioc-graph), run once on 2026-11-28:
`Rscript challenger.R` in a folder holding the cases.csv and challenger.R that
write_example() below writes (CASES_CSV and the script r_script() gives, both checked
here to be what the code still writes) and the ranking.csv compare.py wrote beside them.
R_OUTPUT is what it printed, verbatim but for trailing spaces. R is not needed to run
these tests: regenerate R_OUTPUT with
`PYTHONPATH=program python tests/test_metaeval_rexport.py DIR` and
`Rscript challenger.R` in DIR when the example or the script changes.

The example: three tracks of five submissions with sixteenths (exact in binary, so R's
doubles and compare.py's fractions meet the same numbers): pages in two manuscripts
(higher is better, exact ties, D gives no page p1 of m1), errors per page (lower is
better), and average precision over four categories, C giving nothing for category k2
(a missing stratum case); missing cases left out (na.treat = "na.rm").
"""

import hashlib
import os
import sys

import numpy as np
import pytest
from scoring.itemview import AveragePrecision, ItemView, Ratio, Score
from scoring.metaeval import analysis, page, rexport

NAMES = ["A", "B", "C", "D", "E"]


def example():
    rng = np.random.RandomState(7)
    views = {"pages": [], "errors": [], "categories": []}
    pages = [6, 5]
    items = ["p%d" % i for n in pages for i in range(n)]
    for k, name in enumerate(NAMES):
        x = rng.randint(0, 17, size=sum(pages)) / 16.0
        if name == "E":
            x = np.full(sum(pages), 0.5)
        absent = np.zeros(sum(pages))
        if name == "D":
            x[1], absent[1] = 0.0, 1.0
        views["pages"].append(ItemView(
            ["m1", "m2"], pages, items, {"iu": x, "one": np.ones(x.shape), "absent": absent},
            [("iu", Score(Ratio(("iu", "one")), ranked=True))], "iu", ["one"], unit="page", missing="absent"))
        e = rng.randint(0, 9, size=sum(pages)) / 16.0
        views["errors"].append(ItemView(
            ["m1", "m2"], pages, items, {"error": e, "one": np.ones(e.shape)},
            [("error", Score(Ratio(("error", "one")), ranked=True, lower_is_better=True, bounds=(0.0, None)))],
            "error", ["one"], unit="page"))
        labels = np.tile([1.0, 0.0, 1.0, 0.0, 0.0, 1.0], 4)
        confidence = rng.randint(0, 5, size=24) / 4.0 + 0.5 * labels * (k % 3)
        missing = np.zeros(24)
        if name == "C":
            confidence[6:12], missing[6:12] = 0.0, 1.0
        block = 2 * np.repeat(np.arange(4), 6) + labels.astype(int)
        views["categories"].append(ItemView(
            ["k1", "k2", "k3", "k4"], [6] * 4, ["i%d" % i for i in range(24)],
            {"label": labels, "confidence": confidence, "missing": missing},
            [("map", Score(AveragePrecision("label", "confidence"), ranked=True))], "map", ["label"],
            block=block, truth="label", unit="image", missing="missing"))
    options = analysis.Options(resamples=50, permutations=200, missing="na.rm")
    return [analysis.analyse(label, NAMES, v, options) for label, v in views.items()]


def write_example(folder):
    found = example()
    files = {"cases.csv": rexport.cases_csv(found), "challenger.R": rexport.r_script(found),
             "ranking.csv": page.ranking_csv(found)}
    for name, text in files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
    return found, files


CASES_CSV = """\
track,submission,task,case,value,value_exact,missing
pages,A,m1,p0,0.9375,15/16,0
pages,A,m1,p1,0.25,1/4,0
pages,A,m1,p2,0.1875,3/16,0
pages,A,m1,p3,0.4375,7/16,0
pages,A,m1,p4,0.875,7/8,0
pages,A,m1,p5,0.5,1/2,0
pages,A,m2,p0,0.875,7/8,0
pages,A,m2,p1,0.625,5/8,0
pages,A,m2,p2,0.5,1/2,0
pages,A,m2,p3,0.4375,7/16,0
pages,A,m2,p4,0.375,3/8,0
pages,B,m1,p0,0.0,0/1,0
pages,B,m1,p1,0.25,1/4,0
pages,B,m1,p2,0.1875,3/16,0
pages,B,m1,p3,0.0625,1/16,0
pages,B,m1,p4,0.1875,3/16,0
pages,B,m1,p5,0.0625,1/16,0
pages,B,m2,p0,0.25,1/4,0
pages,B,m2,p1,0.0625,1/16,0
pages,B,m2,p2,0.3125,5/16,0
pages,B,m2,p3,0.5625,9/16,0
pages,B,m2,p4,0.125,1/8,0
pages,C,m1,p0,0.75,3/4,0
pages,C,m1,p1,0.375,3/8,0
pages,C,m1,p2,0.5,1/2,0
pages,C,m1,p3,0.125,1/8,0
pages,C,m1,p4,0.625,5/8,0
pages,C,m1,p5,0.875,7/8,0
pages,C,m2,p0,0.375,3/8,0
pages,C,m2,p1,0.625,5/8,0
pages,C,m2,p2,0.3125,5/16,0
pages,C,m2,p3,0.9375,15/16,0
pages,C,m2,p4,0.75,3/4,0
pages,D,m1,p0,0.125,1/8,0
pages,D,m1,p1,,,1
pages,D,m1,p2,0.375,3/8,0
pages,D,m1,p3,0.5625,9/16,0
pages,D,m1,p4,0.5625,9/16,0
pages,D,m1,p5,0.8125,13/16,0
pages,D,m2,p0,0.6875,11/16,0
pages,D,m2,p1,0.0625,1/16,0
pages,D,m2,p2,0.875,7/8,0
pages,D,m2,p3,1.0,1/1,0
pages,D,m2,p4,1.0,1/1,0
pages,E,m1,p0,0.5,1/2,0
pages,E,m1,p1,0.5,1/2,0
pages,E,m1,p2,0.5,1/2,0
pages,E,m1,p3,0.5,1/2,0
pages,E,m1,p4,0.5,1/2,0
pages,E,m1,p5,0.5,1/2,0
pages,E,m2,p0,0.5,1/2,0
pages,E,m2,p1,0.5,1/2,0
pages,E,m2,p2,0.5,1/2,0
pages,E,m2,p3,0.5,1/2,0
pages,E,m2,p4,0.5,1/2,0
errors,A,m1,p0,0.25,1/4,0
errors,A,m1,p1,0.0,0/1,0
errors,A,m1,p2,0.4375,7/16,0
errors,A,m1,p3,0.0,0/1,0
errors,A,m1,p4,0.4375,7/16,0
errors,A,m1,p5,0.375,3/8,0
errors,A,m2,p0,0.1875,3/16,0
errors,A,m2,p1,0.3125,5/16,0
errors,A,m2,p2,0.5,1/2,0
errors,A,m2,p3,0.5,1/2,0
errors,A,m2,p4,0.4375,7/16,0
errors,B,m1,p0,0.1875,3/16,0
errors,B,m1,p1,0.125,1/8,0
errors,B,m1,p2,0.125,1/8,0
errors,B,m1,p3,0.3125,5/16,0
errors,B,m1,p4,0.4375,7/16,0
errors,B,m1,p5,0.1875,3/16,0
errors,B,m2,p0,0.0,0/1,0
errors,B,m2,p1,0.1875,3/16,0
errors,B,m2,p2,0.25,1/4,0
errors,B,m2,p3,0.3125,5/16,0
errors,B,m2,p4,0.1875,3/16,0
errors,C,m1,p0,0.5,1/2,0
errors,C,m1,p1,0.375,3/8,0
errors,C,m1,p2,0.3125,5/16,0
errors,C,m1,p3,0.4375,7/16,0
errors,C,m1,p4,0.3125,5/16,0
errors,C,m1,p5,0.25,1/4,0
errors,C,m2,p0,0.375,3/8,0
errors,C,m2,p1,0.5,1/2,0
errors,C,m2,p2,0.0625,1/16,0
errors,C,m2,p3,0.3125,5/16,0
errors,C,m2,p4,0.3125,5/16,0
errors,D,m1,p0,0.0625,1/16,0
errors,D,m1,p1,0.0625,1/16,0
errors,D,m1,p2,0.3125,5/16,0
errors,D,m1,p3,0.1875,3/16,0
errors,D,m1,p4,0.125,1/8,0
errors,D,m1,p5,0.0,0/1,0
errors,D,m2,p0,0.25,1/4,0
errors,D,m2,p1,0.5,1/2,0
errors,D,m2,p2,0.4375,7/16,0
errors,D,m2,p3,0.0625,1/16,0
errors,D,m2,p4,0.25,1/4,0
errors,E,m1,p0,0.1875,3/16,0
errors,E,m1,p1,0.5,1/2,0
errors,E,m1,p2,0.1875,3/16,0
errors,E,m1,p3,0.4375,7/16,0
errors,E,m1,p4,0.0625,1/16,0
errors,E,m1,p5,0.0,0/1,0
errors,E,m2,p0,0.0625,1/16,0
errors,E,m2,p1,0.25,1/4,0
errors,E,m2,p2,0.375,3/8,0
errors,E,m2,p3,0.0625,1/16,0
errors,E,m2,p4,0.0,0/1,0
categories,A,all strata,k1,0.5,1/2,0
categories,A,all strata,k2,0.9166666666666666,11/12,0
categories,A,all strata,k3,0.5,1/2,0
categories,A,all strata,k4,0.8666666666666667,13/15,0
categories,B,all strata,k1,0.8222222222222222,37/45,0
categories,B,all strata,k2,0.8333333333333334,5/6,0
categories,B,all strata,k3,0.8777777777777778,79/90,0
categories,B,all strata,k4,0.75,3/4,0
categories,C,all strata,k1,0.9583333333333334,23/24,0
categories,C,all strata,k2,,,1
categories,C,all strata,k3,0.9583333333333334,23/24,0
categories,C,all strata,k4,0.9166666666666666,11/12,0
categories,D,all strata,k1,0.5,1/2,0
categories,D,all strata,k2,0.8611111111111112,31/36,0
categories,D,all strata,k3,0.6388888888888888,23/36,0
categories,D,all strata,k4,0.8333333333333334,5/6,0
categories,E,all strata,k1,0.875,7/8,0
categories,E,all strata,k2,1.0,1/1,0
categories,E,all strata,k3,0.8333333333333334,5/6,0
categories,E,all strata,k4,0.9583333333333334,23/24,0
"""

# The SHA-256 of the challenger.R that was run (r_script() of the example).
R_SCRIPT_SHA256 = "18a0535aedfac640ae05f1b3fe484344dcd84187aed220b11f5cdac227152471"

R_OUTPUT = """\
## pages mean_then_rank : C 1 | A 2 | D 2 | E 4 | B 5
   the same ranks as compare.py
## pages median_then_rank : D 1 | C 2 | E 3 | A 4 | B 5
   the same ranks as compare.py
## pages rank_then_mean : C 1 | D 2 | A 3 | E 4 | B 5
   the same ranks as compare.py
## pages test_then_rank : D 1 | C 2 | E 2 | A 4 | B 4
   the same ranks as compare.py
## pages kemeny : D 1 | C 2 | A 3 | E 4 | B 5
   summed symdiff distance: challengeR's order 6 compare.py's 6 (another order)
## errors mean_then_rank : E 1 | D 2 | B 3 | A 4 | C 4
   the same ranks as compare.py
## errors median_then_rank : E 1 | D 2 | B 3 | A 4 | C 4
   the same ranks as compare.py
## errors rank_then_mean : E 1 | D 2 | B 3 | A 4 | C 4
   the same ranks as compare.py
## errors test_then_rank : E 1 | D 2 | B 3 | A 4 | C 4
   the same ranks as compare.py
## errors kemeny : E 1 | D 2 | B 3 | C 4 | A 5
   summed symdiff distance: challengeR's order 7 compare.py's 7 (another order)
## categories mean_then_rank : C 1 | E 2 | B 3 | D 4 | A 5
   the same ranks as compare.py
## categories median_then_rank : C 1 | E 2 | B 3 | D 4 | A 5
   the same ranks as compare.py
## categories rank_then_mean : C 1 | E 2 | A 3 | B 3 | D 5
   the same ranks as compare.py
## categories test_then_rank : A 1 | B 1 | C 1 | D 1 | E 1
   the same ranks as compare.py
## categories kemeny : C 1 | E 2 | B 3 | D 4 | A 5
   summed symdiff distance: challengeR's order 0 compare.py's 0 (the same order)
"""


def parse_r():
    """{(track, method): {submission: rank}} and {track: (R's symdiff cost, compare.py's)}."""
    ranks, costs, track = {}, {}, None
    for line in R_OUTPUT.splitlines():
        if line.startswith("## "):
            head, _, body = line[3:].partition(" : ")
            track, method = head.rsplit(" ", 1)
            ranks[(track, method)] = dict((p.split()[0], int(p.split()[1])) for p in body.split(" | "))
        elif "summed symdiff distance" in line:
            words = line.split()
            costs[track] = (int(words[words.index("challengeR's") + 2]), int(words[words.index("compare.py's") + 1]))
    return ranks, costs


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    return write_example(str(tmp_path_factory.mktemp("rexport")))


def test_cases_csv_and_the_script_are_the_files_challenger_ran(written):
    _, files = written
    assert files["cases.csv"] == CASES_CSV
    assert hashlib.sha256(files["challenger.R"].encode("utf-8")).hexdigest() == R_SCRIPT_SHA256


def test_challenger_ranks_the_cases_as_compare_py_does(written):
    found, files = written
    ranks, costs = parse_r()
    rows = [dict(zip(page.RANKING_HEADER, r)) for r in page.ranking_rows(found)[1]]
    assert len(ranks) == 3 * 5
    for (track, method), theirs in ranks.items():
        column = "rank_by_" + method
        ours = dict((r["submission"], int(r[column])) for r in rows if r["track"] == track)
        if method == "kemeny":
            continue
        assert ours == theirs, (track, method)
    for a in found:
        r_cost, our_cost = costs[a.label]
        # Both orders optimal: the same summed symdiff distance, compare.py's also its own.
        assert r_cost == our_cost == a.methods.kemeny.cost


def test_a_missing_case_is_na_in_cases_csv_and_na_rm_in_the_script(written):
    _, files = written
    lines = files["cases.csv"].splitlines()
    assert "pages,D,m1,p1,,,1" in lines
    assert sum(1 for line in lines if line.startswith("categories,C,all strata,k2,")) == 1
    assert "categories,C,all strata,k2,,,1" in lines
    assert 'list(track = "pages", smallBetter = FALSE, na.treat = "na.rm")' in files["challenger.R"]
    assert 'list(track = "errors", smallBetter = TRUE, na.treat = "na.rm")' in files["challenger.R"]


def test_values_are_the_exact_fractions_and_their_doubles(written):
    _, files = written
    from fractions import Fraction
    for line in files["cases.csv"].splitlines()[1:]:
        value, exact = line.split(",")[4:6]
        if exact:
            assert float(value) == float(Fraction(exact))


def test_r_strings_escape_what_r_reads_specially():
    assert rexport._r_string('a"b\\c\nd é') == '"a\\"b\\\\c\\x0ad é"'


if __name__ == "__main__":
    write_example(sys.argv[1])
