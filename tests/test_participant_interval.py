"""The 95% interval of the ranking score on the participant's page: compare.py's interval
for that submission (the same code, draws, seed and resamples), the same numbers on every
numpy version, turned off by interval: false in track.yaml."""

import hashlib
import os
import re
import shutil

import numpy as np
from conftest import ROOT, run_scorer
from scoring.itemview import AveragePrecision, ItemView, Ratio, Score
from scoring import bootstrap
from scoring.metaeval import analysis

SAMPLE = os.path.join(ROOT, "input")
#: The sample phase's intervals as evaluate.py printed them once (the ratios: Satterthwaite's degrees
#: of freedom, line_iu 2 of 8, one manuscript holding most of the variance; uar's low end Hall's).
#: numpy 2.4, 1.26 and 1.17 give the same: the draws are RandomState's, whose stream numpy keeps;
#: map's needs none.
SAMPLE_INTERVALS = {"uar": ("0.7657", "0.8667"), "map": ("0.6006", "0.6767"), "line_iu": ("0.2984", "1.0000")}


def intervals_on_page(output):
    with open(os.path.join(output, "detailed_results.html"), encoding="utf-8") as stream:
        page = stream.read()
    return dict((key, (low, high)) for key, low, high in re.findall(
        r'data-interval="([^"]+)">95% interval: <b>([0-9.]+)</b> to <b>([0-9.]+)</b>', page)), page


def test_the_sample_page_shows_each_ranking_scores_interval(tmp_path):
    run = run_scorer(SAMPLE, tmp_path / "out")
    assert run.status == 0, run.stderr
    found, page = intervals_on_page(run.output)
    assert found == SAMPLE_INTERVALS
    assert page.count("Where your score on an unlimited test set of this kind would lie, at least 93 times in 100") == 2
    assert page.count("Where your expected score on test sets of this size lies") == 1  # map
    assert "your score would fall in this interval" not in page  # the sentence 0.1.0 said, measured false
    predictions = dict((key, (low, high)) for key, low, high in re.findall(
        r'data-prediction="([^"]+)">On one more test set of the same size: <b>([0-9.]+)</b> to <b>([0-9.]+)</b>',
        page))
    assert sorted(predictions) == sorted(found)
    scores = run.scores()
    for key, (low, high) in found.items():
        assert float(low) <= scores[key] <= float(high)
        # the prediction interval holds the interval: a second score varies about the expected one too
        assert float(predictions[key][0]) <= float(low) and float(high) <= float(predictions[key][1])


def test_interval_false_turns_it_off(tmp_path):
    phase = tmp_path / "input"
    shutil.copytree(SAMPLE, str(phase))
    yaml = phase / "ref" / "lines" / "track.yaml"
    yaml.write_text(yaml.read_text() + "interval: false\n")
    run = run_scorer(phase, tmp_path / "out")
    assert run.status == 0, run.stderr
    found, _ = intervals_on_page(run.output)
    assert sorted(found) == ["map", "uar"]
    yaml.write_text(yaml.read_text().replace("interval: false", "interval: maybe"))
    run = run_scorer(phase, tmp_path / "bad")
    assert run.status == 2 and "interval" in run.last_line


def page_view(seed, pages=(5, 7)):
    rng = np.random.RandomState(seed)
    x = rng.rand(sum(pages))
    return ItemView(["m%d" % h for h in range(len(pages))], list(pages), [str(i) for i in range(sum(pages))],
                    {"x": x, "one": np.ones(x.shape)}, [("s", Score(Ratio(("x", "one")), ranked=True))], "s",
                    ["one"], unit="page")


def test_the_interval_of_a_ratio_is_compare_pys_for_that_submission():
    views = [page_view(1), page_view(2)]
    a = analysis.analyse("t", ["A", "B"], views, analysis.Options(permutations=200))
    for k, view in enumerate(views):
        assert bootstrap.score_interval(view) == (a.confidence.intervals["s"][0][k], a.confidence.intervals["s"][1][k])


def test_the_draws_are_the_same_in_chunks_and_on_every_numpy():
    view = page_view(3, (4, 9, 1))
    whole = bootstrap.draw_weights(view, 50, 17)
    chunked = {}
    for h, _, weights in bootstrap.weight_chunks(view, 50, 17, rows=7):
        chunked.setdefault(h, []).append(weights)
    for h, weights in enumerate(whole):
        assert np.array_equal(np.concatenate(chunked[h]), weights)
    digest = hashlib.sha256(b"".join(w.astype(np.int64).tobytes() for w in whole)).hexdigest()
    # Kept from numpy 2.4.6; numpy 1.17.2 and 1.26.4 give the same (RandomState's stream).
    assert digest == FINGERPRINT


FINGERPRINT = "ad0d7914f21ef64c5c97b8483d44ab33c148b1f7f96ada74148a31eadcc1ce1c"


def category_view(seed, n=400, positives=40, decimals=6):
    rng = np.random.RandomState(seed)
    labels = np.zeros(n)
    labels[:positives] = 1
    confidence = np.round(rng.rand(n) + labels * rng.rand() * 0.8, decimals)
    return ItemView(["c"], [n], [str(i) for i in range(n)], {"label": labels, "confidence": confidence},
                    [("map", Score(AveragePrecision("label", "confidence"), ranked=True))], "map", ["label"],
                    block=labels.astype(int), unit="image")


def test_the_map_interval_is_compare_pys_for_that_submission():
    """Average precision is resampled as compare.py resamples it: the same numbers."""
    views = [category_view(5), category_view(6)]
    a = analysis.analyse("t", ["A", "B"], views, analysis.Options(permutations=200))
    for k, view in enumerate(views):
        intervals = a.confidence.intervals["map"]
        assert bootstrap.score_interval(view) == (intervals[0][k], intervals[1][k])


def test_blas_runs_one_thread_set_before_numpy_is_imported():
    """The scoring package (imported first by evaluate.py and compare.py) asks for one BLAS
    thread before anything imports numpy: products split across threads are rounded as the
    thread count says, and spinning threads slow the interval down on a busy worker."""
    import subprocess
    import sys
    code = ("import os, sys\n"
            "for name in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):\n"
            "    os.environ.pop(name, None)\n"
            "sys.path.insert(0, %r)\n"
            "import scoring\n"
            "print('numpy' in sys.modules, os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS'])\n"
            % os.path.join(ROOT, "program"))
    out = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, universal_newlines=True, check=True)
    assert out.stdout.split() == ["False", "1", "1"]
