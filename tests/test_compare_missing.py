"""compare.py's --missing-cases on a real missing case: under the events track's
`missing: last`, a category file a submission left out is a missing case (its images
ranked last, tied, on the leaderboard), and the per-case analysis treats it as challengeR's
na.treat says."""

import csv
import io

from phases import write_phase
from scoring.metaeval import cli

REF = {"K1.txt": "a.jpg 1\nb.jpg 0\nc.jpg 1\nd.jpg 0\n",
       "K2.txt": "a.jpg 1\nb.jpg 1\nc.jpg 0\nd.jpg 0\n",
       "K3.txt": "a.jpg 1\nb.jpg 0\nc.jpg 0\nd.jpg 0\n"}
PERFECT = {name: "".join("%s %d\n" % (line.split()[0], int(line.split()[1]) * 2 - 1) for line in text.splitlines())
           for name, text in REF.items()}


def phase(tmp_path):
    """A: every category perfect (AP 1, 1, 1). B: K3 reversed, its one positive last
    (AP 1/4): mean 3/4. C: no K2.txt, K1 and K3 perfect: K2's four images tied, precision
    2/4 over all recall: AP 1/2 on the leaderboard, mean 5/6."""
    reversed_k3 = "a.jpg -1\nb.jpg 1\nc.jpg 1\nd.jpg 1\n"
    subs = {"A": PERFECT, "B": dict(PERFECT, **{"K3.txt": reversed_k3}),
            "C": dict((k, v) for k, v in PERFECT.items() if k != "K2.txt")}
    write_phase(tmp_path / "phase", REF, None, "track: events\nmissing: last\n")
    dirs = []
    for name, files in subs.items():
        write_phase(tmp_path / name, None, files)
        dirs.append(str(tmp_path / name / "res"))
    return str(tmp_path / "phase" / "ref"), dirs


def rows(path):
    with open(path, encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


def test_a_category_left_out_is_a_missing_case_that_na_treat_acts_on(tmp_path):
    ref, dirs = phase(tmp_path)
    common = ["--ref", ref, "--names", "A,B,C", "--resamples", "50", "--permutations", "200"] + dirs
    out = {}
    for treatment in ("track", "na.rm", "0"):
        folder = tmp_path / ("out-" + treatment)
        progress = io.StringIO()
        args = cli.parse(common + ["--out", str(folder), "--missing-cases", treatment])
        cli.compare(args, cli.submission_names(args), progress)
        out[treatment] = folder
    ranking = dict((r["submission"], r) for r in rows(str(out["track"] / "ranking.csv")))
    assert ranking["C"]["score"] == "%.10g" % (5 / 6) and ranking["B"]["score"] == "0.75"
    # track: the case keeps the leaderboard's AP 1/2; C (5/6) between A (1) and B (3/4).
    case = [r for r in rows(str(out["track"] / "cases.csv")) if r["submission"] == "C" and r["case"] == "K2"]
    assert case == [{"track": "Event recognition", "submission": "C", "task": "all strata", "case": "K2",
                     "value": "0.5", "value_exact": "1/2", "missing": "1"}]
    assert [ranking[s]["rank_by_mean_then_rank"] for s in "ABC"] == ["1", "3", "2"]
    # na.rm: C's mean over K1 and K3 is 1, tied with A.
    case = [r for r in rows(str(out["na.rm"] / "cases.csv")) if r["submission"] == "C" and r["case"] == "K2"]
    assert case[0]["value"] == "" and case[0]["missing"] == "1"
    ranking = dict((r["submission"], r) for r in rows(str(out["na.rm"] / "ranking.csv")))
    assert [ranking[s]["rank_by_mean_then_rank"] for s in "ABC"] == ["1", "3", "1"]
    assert 'na.treat = "na.rm"' in open(str(out["na.rm"] / "challenger.R"), encoding="utf-8").read()
    # 0: C's mean (1 + 0 + 1) / 3 = 2/3, below B's 3/4.
    ranking = dict((r["submission"], r) for r in rows(str(out["0"] / "ranking.csv")))
    assert [ranking[s]["rank_by_mean_then_rank"] for s in "ABC"] == ["1", "2", "3"]
    page = open(str(out["0"] / "report.html"), encoding="utf-8").read()
    assert "Missing cases" in page and "replaced by 0" in page
