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


def toy_module():
    """Track `toy`: ref/truth.csv lists item,group,answer; res/answers.csv item,answer. The
    score `hit_rate` is the mean over groups of the share of right answers."""
    module = types.ModuleType("scoring.tracks.toy")
    module.OPTIONS = {}
    hit_rate = Metric("Hit rate", "the mean over groups of the share of right answers")

    def columns(track, options):
        return [Column("hit_rate", "hit_rate", hit_rate)]

    def score(track, submission, options, log):
        truth = _read(os.path.join(track.path, "truth.csv"))
        answers = dict(_read(submission.path("answers.csv")))
        groups = sorted(set(g for _, g, _ in truth))
        ordered = sorted(truth, key=lambda row: (groups.index(row[1]), row[0]))
        right = np.array([float(answers.get(item) == answer) for item, _, answer in ordered])
        said = np.array([float(answers.get(item) == "1") for item, _, _ in ordered])
        label = np.array([float(answer == "1") for _, _, answer in ordered])
        result = TrackResult("toy")
        result.view = ItemView(groups, [sum(1 for row in truth if row[1] == g) for g in groups],
                               [row[0] for row in ordered],
                               {"right": right, "one": np.ones(right.shape), "said": said, "label": label},
                               [("hit_rate", hit_rate.score(Ratio(("right", "one")), ranked=True))], "hit_rate",
                               reference_columns=["one", "label"], decision="said", truth="label", unit="item")
        for key, value in leaderboard(result.view).items():
            result.set_score(key, value)
        return result

    module.columns, module.score = columns, score
    return module


@pytest.fixture
def toy_phase(tmp_path):
    tracks.register("toy", toy_module())
    yield _toy_phase(tmp_path)
    tracks.unregister("toy")


def _toy_phase(tmp_path):
    ref = tmp_path / "ref" / "toy"
    ref.mkdir(parents=True)
    (ref / "track.yaml").write_text("track: toy\n")
    rng = np.random.RandomState(3)
    truth = [("i%03d" % i, "g%d" % (i % 3), str(rng.randint(0, 2))) for i in range(150)]
    (ref / "truth.csv").write_text("item,group,answer\n" + "".join("%s,%s,%s\n" % row for row in truth))
    subs = []
    for k, error in enumerate((0.0, 0.1, 0.3, 0.45)):
        res = tmp_path / ("sub%d" % k) / "toy"
        res.mkdir(parents=True)
        flip = rng.rand(len(truth)) < error
        (res / "answers.csv").write_text("item,answer\n" + "".join(
            "%s,%s\n" % (item, str(1 - int(answer)) if f else answer) for (item, _, answer), f in zip(truth, flip)))
        subs.append(str(tmp_path / ("sub%d" % k)))
    return tmp_path, str(tmp_path / "ref"), subs


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
