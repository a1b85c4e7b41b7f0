"""Every number and sentence of compare.py's report as it reads: 0 never as -0, a tau-b
near 0 read as no agreement, a score whose input a submission never gave said so, and no
box plot of values that are all 0 or 1."""

import io
import itertools
import math
import os
import shutil

import numpy as np
import pytest
from conftest import ROOT
from scoring.itemview import ItemView, Ratio, Score
from scoring.metaeval import analysis, cli, page
from scoring.metrics.agreement import kendall_tau_b


def test_zero_is_never_minus_zero():
    assert page.fixed(-0.0) == "0.0000" and page.fixed(-0.00004) == "0.0000" and page.fixed(-0.00005) == "-0.0001"
    assert page.fixed(-0.0, plus=True) == "0.0000" and page.fixed(0.00012, plus=True) == "+0.0001"
    assert page.fixed(-0.004, 2, plus=True) == "0.00"
    assert page._csv_numbers([-0.0, 0.0, -1e-20, 0.5]) == ["0", "0", "-1e-20", "0.5"]
    assert page._csv_number(-0.0) == "0" and page.shown(-0.0) == "0.0000"


def view(values):
    x = np.asarray(values, dtype=float)
    return ItemView(["m1", "m2"], [4, 4], [str(i) for i in range(8)], {"x": x, "one": np.ones(8)},
                    [("x", Score(Ratio(("x", "one")), ranked=True, lower_is_better=True, bounds=(0.0, None)))],
                    "x", ["one"], unit="page")


def test_pairs_csv_has_no_minus_zero_for_equal_submissions():
    same = [0.25, 0.5, 0.5, 0.75, 0.0, 0.25, 1.0, 0.5]
    views = [view(same), view(same), view(same[::-1])]
    a = analysis.analyse("t", ["A", "B", "C"], views, analysis.Options(resamples=50, permutations=200))
    text = page.pairs_csv([a])
    fields = [f for line in text.splitlines() for f in line.split(",")]
    assert "0" in fields and not any(f == "-0" or f.startswith("-0.0000") for f in fields)
    report, _ = page.report_html([a], [])
    assert "-0.0000" not in report and "+0.0000" not in report


def test_chance_tau_is_the_95th_percentile_of_random_orders():
    """Six submissions without ties: the exact distribution of |tau| over the 720 orders;
    1000 seeded shuffles give its 95th percentile or a neighbouring value (steps 1/15)."""
    truth = np.arange(6)
    exact = sorted(abs(kendall_tau_b(truth, np.array(p))) for p in itertools.permutations(range(6)))
    quantile = exact[int(math.ceil(0.95 * len(exact))) - 1]
    found = analysis.chance_tau(truth, truth)
    assert abs(found - quantile) <= 1 / 15 + 1e-12
    # Three submissions: half the orders reach |tau| = 1, so nothing is beyond chance.
    assert analysis.chance_tau(np.arange(3), np.arange(3)) == 1.0
    assert analysis.chance_tau(np.arange(2), np.arange(2)) is None


def test_a_tau_near_zero_is_no_agreement_and_only_beyond_chance_the_wrong_way_round():
    rows = [("pseudo F-measure", "uar", 7, 0.0, 0.6), ("reference-classifier protocol", "uar", 8, -0.027, 0.6)]
    text = page.agreement_sentence(None, rows, 15)
    assert text.count("shows no agreement with uar beyond chance") == 2 and "wrong way round" not in text
    assert "tau-b 0.000;" in text and "tau-b -0.027;" in text
    text = page.agreement_sentence(None, [("pseudo F-measure", "uar", 14, -0.867, 0.6)], 15)
    assert "against uar (tau-b -0.867, beyond the 0.600 that 95 of 100 random orders reach)" in text
    assert "wrong way round" in text
    text = page.agreement_sentence(None, [("pseudo F-measure", "uar", 1, 0.867, 0.6)], 15)
    assert "mostly agrees with uar" in text


def test_a_submission_without_distances_is_said_to_have_sent_none(tmp_path):
    """Distances optional, submission b without any: compare.py compares both (the same
    reference denominators), and says b gave no distances instead of top1 0 [0, 0]."""
    ref, a, b = (str(tmp_path / n) for n in ("ref", "a", "b"))
    shutil.copytree(os.path.join(ROOT, "input", "ref", "authentication"), ref)
    for target in (a, b):
        shutil.copytree(os.path.join(ROOT, "input", "res", "authentication"), target)
    for name in os.listdir(b):
        if "_distances" in name:
            os.remove(os.path.join(b, name))
    with open(os.path.join(ref, "track.yaml"), encoding="utf-8") as stream:
        text = stream.read().replace("distances: required", "distances: optional")
    with open(os.path.join(ref, "track.yaml"), "w", encoding="utf-8") as stream:
        stream.write(text)
    args = cli.parse(["--ref", ref, "--out", str(tmp_path / "out"), "--resamples", "50", "--permutations", "200",
                      "--names", "a,b", a, b])
    found = cli.compare(args, cli.submission_names(args), io.StringIO())
    assert found[0].leaderboard.given["top1"].tolist() == [True, False]
    report = open(str(tmp_path / "out" / "report.html"), encoding="utf-8").read()
    assert "none given (0.0000 on the leaderboard)" in report
    assert ("b gave none of the input of top1 (the view&#x27;s column retrieved is 0 on every image): its leaderboard "
            "value 0.0000 is the track&#x27;s value for nothing, not a measurement.") in report
    # Per-image correctness is 0 or 1: no box plot of it, and a sentence why.
    assert "a dot and box plot of them would show two dots and an empty box" in report
    assert not any("-cases-" in name for name in os.listdir(str(tmp_path / "out" / "svg")))


@pytest.mark.parametrize("values", [[0.25, 0.5, 0.5, 0.75, 0.0, 0.25, 1.0, 0.5]])
def test_continuous_cases_keep_their_box_plot(values):
    views = [view(values), view(values[::-1]), view([v / 2 for v in values])]
    a = analysis.analyse("t", ["A", "B", "C"], views, analysis.Options(resamples=50, permutations=200))
    _, files = page.report_html([a], [])
    assert "svg/t-cases-0.svg" in files
