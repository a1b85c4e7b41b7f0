"""A fourth track gets the whole meta-evaluation for free: a toy track module that only
declares its per-item view runs through evaluate.py's runner and compare.py, and
compare.py --scored on the outputs gives the same files as scoring again."""

import csv
import io
import os
import types

import numpy as np
import pytest
from scoring import runner, tracks
from scoring.columns import Column, Metric
from scoring.itemview import ItemView, Ratio, leaderboard
from scoring.log import Log
from scoring.metaeval import cli
from scoring.result import TrackResult


def _read(path):
    with open(path) as stream:
        rows = list(csv.reader(stream))
    return rows[1:]


def _grouped(track):
    """(groups, their sizes, the rows of ref/truth.csv in group order) of a toy track."""
    truth = _read(os.path.join(track.path, "truth.csv"))
    groups = sorted(set(row[1] for row in truth))
    ordered = sorted(truth, key=lambda row: (groups.index(row[1]), row[0]))
    return groups, [sum(1 for row in truth if row[1] == g) for g in groups], ordered


def _result(kind, view):
    result = TrackResult(kind)
    result.view = view
    for key, value in leaderboard(view).items():
        result.set_score(key, value)
    return result


def _reference(tmp_path, kind, header, truth):
    ref = tmp_path / "ref" / kind
    ref.mkdir(parents=True)
    (ref / "track.yaml").write_text("track: %s\n" % kind)
    (ref / "truth.csv").write_text(header + "\n" + "".join(",".join(str(v) for v in row) + "\n" for row in truth))
    return str(tmp_path / "ref")


def toy_module():
    """Track `toy`: ref/truth.csv lists item,group,answer; res/answers.csv item,answer. The
    score `hit_rate` is the mean over groups of the share of right answers."""
    module = types.ModuleType("scoring.tracks.toy")
    module.OPTIONS = {}
    hit_rate = Metric("Hit rate", "the mean over groups of the share of right answers")

    def columns(track, options):
        return [Column("hit_rate", "hit_rate", hit_rate)]

    def score(track, submission, options, log):
        groups, sizes, ordered = _grouped(track)
        answers = dict(_read(submission.path("answers.csv")))
        right = np.array([float(answers.get(item) == answer) for item, _, answer in ordered])
        said = np.array([float(answers.get(item) == "1") for item, _, _ in ordered])
        label = np.array([float(answer == "1") for _, _, answer in ordered])
        return _result("toy", ItemView(
            groups, sizes, [row[0] for row in ordered],
            {"right": right, "one": np.ones(right.shape), "said": said, "label": label},
            [("hit_rate", hit_rate.score(Ratio(("right", "one")), ranked=True))], "hit_rate",
            reference_columns=["one", "label"], decision="said", truth="label", unit="item"))

    module.columns, module.score = columns, score
    module.reference_files, module.REFERENCE = (lambda track: ["truth.csv"]), "truth.csv"
    return module


@pytest.fixture
def toy_phase(tmp_path):
    tracks.register("toy", toy_module())
    yield _toy_phase(tmp_path)
    tracks.unregister("toy")


def _toy_phase(tmp_path):
    rng = np.random.RandomState(3)
    truth = [("i%03d" % i, "g%d" % (i % 3), str(rng.randint(0, 2))) for i in range(150)]
    ref = _reference(tmp_path, "toy", "item,group,answer", truth)
    subs = []
    for k, error in enumerate((0.0, 0.1, 0.3, 0.45)):
        res = tmp_path / ("sub%d" % k) / "toy"
        res.mkdir(parents=True)
        flip = rng.rand(len(truth)) < error
        (res / "answers.csv").write_text("item,answer\n" + "".join(
            "%s,%s\n" % (item, str(1 - int(answer)) if f else answer) for (item, _, answer), f in zip(truth, flip)))
        subs.append(str(tmp_path / ("sub%d" % k)))
    return tmp_path, ref, subs


def test_a_toy_track_is_compared_and_scored_outputs_give_the_same_files(toy_phase):
    base, ref, subs = toy_phase
    names = ",".join("s%d" % k for k in range(4))
    common = ["--names", names, "--resamples", "100", "--permutations", "500"]
    assert cli.main(["--ref", ref, "--out", str(base / "rescored")] + common + subs) == 0
    rows = [r for r in csv.DictReader(open(str(base / "rescored" / "ranking.csv"))) if r["track"] == "toy"]
    assert [int(r["rank"]) for r in rows] == [1, 2, 3, 4]
    assert rows[0]["could_win"] == "1" and rows[3]["could_win"] == "0"
    assert rows[0]["pseudo_f_rank"] != ""  # the ground-truth-free analysis, from the view's decisions
    # evaluate.py's runner writes the views under private/views/; --scored reads them.
    outputs = []
    for k, sub in enumerate(subs):
        work = base / ("input%d" % k)
        work.mkdir()
        os.symlink(ref, str(work / "ref"))
        os.symlink(sub, str(work / "res"))
        runner.run(str(work), str(base / ("output%d" % k)), Log(stream=io.StringIO()))
        assert os.path.isfile(str(base / ("output%d" % k) / "private" / "views" / "toy.npz"))
        outputs.append(str(base / ("output%d" % k)))
    assert cli.main(["--scored", "--out", str(base / "scored")] + common + outputs) == 0
    for name in ("ranking.csv", "pairs.csv", "ranks.csv"):
        with open(str(base / "rescored" / name)) as a, open(str(base / "scored" / name)) as b:
            assert a.read() == b.read(), name
    pairs = list(csv.reader(open(str(base / "scored" / "pairs.csv"))))
    assert pairs[0] == ["track", "score", "a", "b", "difference", "ci_low", "ci_high", "p", "p_adjusted", "test"]
    assert len(pairs) == 1 + 4 * 3  # every ordered pair of the one ranked score


def error_module():
    """Track `toyerr`: ref/truth.csv lists item,group,length; res/errors.csv item,errors.
    The score `error_rate` (lower is better, no upper bound: errors can outnumber the
    characters) is the mean over groups of sum(errors) / sum(length). An item the
    submission does not list counts as `length` errors and is marked missing."""
    module = types.ModuleType("scoring.tracks.toyerr")
    module.OPTIONS = {}
    error_rate = Metric("Error rate", "errors per character", lower_is_better=True, bounds=(0.0, None))

    def columns(track, options):
        return [Column("error_rate", "error_rate", error_rate)]

    def score(track, submission, options, log):
        groups, sizes, ordered = _grouped(track)
        given = dict(_read(submission.path("errors.csv")))
        length = np.array([float(n) for _, _, n in ordered])
        missing = np.array([item not in given for item, _, _ in ordered])
        errors = np.array([float(given.get(item, n)) for item, _, n in ordered])
        return _result("toyerr", ItemView(
            groups, sizes, [row[0] for row in ordered], {"errors": errors, "length": length, "missing": missing},
            [("error_rate", error_rate.score(Ratio(("errors", "length")), ranked=True))], "error_rate",
            reference_columns=["length"], unit="line", missing="missing"))

    module.columns, module.score = columns, score
    module.reference_files, module.REFERENCE = (lambda track: ["truth.csv"]), "truth.csv"
    return module


@pytest.fixture
def error_phase(tmp_path):
    tracks.register("toyerr", error_module())
    yield _error_phase(tmp_path)
    tracks.unregister("toyerr")


def _error_phase(tmp_path):
    rng = np.random.RandomState(7)
    truth = [("l%03d" % i, "g%d" % (i % 3), int(rng.randint(20, 40))) for i in range(90)]
    ref = _reference(tmp_path, "toyerr", "item,group,length", truth)
    subs = []
    # error rates about 0.05, 0.3, 0.6 and 1.7 (more errors than characters); s1 skips 5 lines
    for k, rate in enumerate((0.05, 0.3, 0.6, 1.7)):
        res = tmp_path / ("sub%d" % k) / "toyerr"
        res.mkdir(parents=True)
        rows = [(item, int(rng.poisson(rate * n))) for item, _, n in truth]
        if k == 1:
            rows = rows[5:]
        (res / "errors.csv").write_text("item,errors\n" + "".join("%s,%d\n" % row for row in rows))
        subs.append(str(tmp_path / ("sub%d" % k)))
    return tmp_path, ref, subs


def test_a_lower_is_better_score_ranks_the_lowest_first_and_is_not_clipped(error_phase):
    base, ref, subs = error_phase
    common = ["--names", "s0,s1,s2,s3", "--resamples", "100", "--permutations", "500"]
    assert cli.main(["--ref", ref, "--out", str(base / "rescored")] + common + subs) == 0
    rows = list(csv.DictReader(open(str(base / "rescored" / "ranking.csv"))))
    assert [r["submission"] for r in sorted(rows, key=lambda r: int(r["rank"]))] == ["s0", "s1", "s2", "s3"]
    assert [r["could_win"] for r in rows] == ["1", "0", "0", "0"]
    worst = rows[3]
    assert float(worst["score"]) > 1.5 and float(worst["ci_high"]) > float(worst["score"]) > 1.0
    assert float(rows[0]["ci_low"]) >= 0.0  # the lower bound holds
    assert all(r["rank_by_mean_then_rank"] == r["rank"] for r in rows)  # challengeR's smallBetter
    pairs = list(csv.DictReader(open(str(base / "rescored" / "pairs.csv"))))
    s0_s3 = next(p for p in pairs if p["a"] == "s0" and p["b"] == "s3")
    assert float(s0_s3["difference"]) < -1.0 and float(s0_s3["ci_low"]) < -1.0  # not clipped to [-1, 1]
    assert float(s0_s3["p_adjusted"]) < 0.05
    page = open(str(base / "rescored" / "report.html"), encoding="utf-8").read()
    assert "error_rate [95%] (lower is better)" in page
    # The missing lines of s1: counted by the track's rule, stated in the report.
    assert "Missing cases" in page and "kept at the value the track scored them with" in page
    # evaluate.py's views carry the direction: --scored gives the same files.
    outputs = []
    for k, sub in enumerate(subs):
        work = base / ("input%d" % k)
        work.mkdir()
        os.symlink(ref, str(work / "ref"))
        os.symlink(sub, str(work / "res"))
        runner.run(str(work), str(base / ("output%d" % k)), Log(stream=io.StringIO()))
        outputs.append(str(base / ("output%d" % k)))
    assert cli.main(["--scored", "--out", str(base / "scored")] + common + outputs) == 0
    for name in ("ranking.csv", "pairs.csv", "ranks.csv"):
        with open(str(base / "rescored" / name)) as a, open(str(base / "scored" / name)) as b:
            assert a.read() == b.read(), name


def test_missing_cases_follow_challengers_na_treat(error_phase):
    base, ref, subs = error_phase
    common = ["--names", "s0,s1,s2,s3", "--resamples", "50", "--permutations", "200"] + subs
    assert cli.main(["--ref", ref, "--out", str(base / "narm"), "--missing-cases", "na.rm"] + common) == 0
    page = open(str(base / "narm" / "report.html"), encoding="utf-8").read()
    assert 'left out for that submission (challengeR&#x27;s na.treat = &quot;na.rm&quot;)' in page
    assert cli.main(["--ref", ref, "--out", str(base / "two"), "--missing-cases", "2"] + common) == 0
    page = open(str(base / "two" / "report.html"), encoding="utf-8").read()
    assert "replaced by 2 (challengeR&#x27;s na.treat = 2)" in page
    # worst: the score has no bound on its bad side, so the missing cases are left out instead
    assert cli.main(["--ref", ref, "--out", str(base / "worst"), "--missing-cases", "worst"] + common) == 0
    page = open(str(base / "worst" / "report.html"), encoding="utf-8").read()
    assert "no bound on its bad side" in page
    assert cli.main(["--ref", ref, "--out", str(base / "bad"), "--missing-cases", "often"] + common) == 2
