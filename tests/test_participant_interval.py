"""The 95% interval of the ranking score on the participant's page: computed by compare.py's
bootstrap (the same draws, seed and resamples; for average precision, the same bootstrap's
variance to first order), the same numbers on every numpy version, turned off by
interval: false in track.yaml."""

import hashlib
import os
import re
import shutil

import numpy as np
import pytest
from conftest import ROOT, run_scorer
from scoring.itemview import AveragePrecision, ItemView, Ratio, Score, aggregate
from scoring.metaeval import analysis, bootstrap

SAMPLE = os.path.join(ROOT, "input")
#: The sample phase's intervals as evaluate.py printed them once (numpy 2.4, 1.26 and 1.17
#: give the same: the draws are RandomState's, whose stream numpy keeps).
SAMPLE_INTERVALS = {"uar": ("0.7741", "0.8641"), "map": ("0.6027", "0.6764"), "line_iu": ("0.4911", "0.9038")}


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
    assert page.count("your score would fall in this interval 95 times in 100") == 3
    scores = run.scores()
    for key, (low, high) in found.items():
        assert float(low) <= scores[key] <= float(high)


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
        low, high = bootstrap.score_interval(view)
        assert low == pytest.approx(a.confidence.intervals["s"][0][k], abs=1e-12)
        assert high == pytest.approx(a.confidence.intervals["s"][1][k], abs=1e-12)


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


@pytest.mark.parametrize("seed, decimals", [(1, 6), (2, 2), (3, 6), (4, 1)])
def test_the_linearised_variance_of_average_precision_is_the_bootstraps(seed, decimals):
    """The first-order variance against 4,000 resamples of the stratified bootstrap (ties
    in the confidences with 1 or 2 decimals): the standard errors within 12%."""
    view = category_view(seed, decimals=decimals)
    statistic = view.scores["map"].statistic
    linearised = np.sqrt(bootstrap.ap_variance(view, statistic, 0))
    resampled = aggregate(view, bootstrap.draw_weights(view, 4000, seed))["map"].std()
    assert linearised == pytest.approx(resampled, rel=0.12)
    # Blocks that are not the classes take the item-by-item path.
    mixed = ItemView(view.strata, view.sizes, view.items, view.columns, view.scores, "map", ["label"],
                     block=np.arange(400) % 3, unit="image")
    resampled = aggregate(mixed, bootstrap.draw_weights(mixed, 4000, seed))["map"].std()
    assert np.sqrt(bootstrap.ap_variance(mixed, statistic, 0)) == pytest.approx(resampled, rel=0.12)


def test_the_map_interval_is_close_to_compare_pys():
    views = [category_view(5), category_view(6)]
    a = analysis.analyse("t", ["A", "B"], views, analysis.Options(permutations=200))
    for k, view in enumerate(views):
        low, high = bootstrap.score_interval(view)
        width = a.confidence.intervals["map"][1][k] - a.confidence.intervals["map"][0][k]
        assert abs(low - a.confidence.intervals["map"][0][k]) < 0.15 * width
        assert abs(high - a.confidence.intervals["map"][1][k]) < 0.15 * width


def _precision_ties(view):
    """Whether two operating points of the view's one stratum have the same precision (where
    AP has no derivative: the envelope's arg-max changes with the direction of a change)."""
    from fractions import Fraction
    from scoring.metrics.ranking import ranked_counts
    tp, n = ranked_counts(view.columns["label"] > 0, view.columns["confidence"])
    precisions = [Fraction(int(a), int(b)) for a, b in zip(tp, n)]
    return len(set(precisions)) < len(precisions)


@pytest.mark.parametrize("seed", range(6))
def test_the_linearised_variance_is_its_definition(seed):
    """ap_variance against its definition computed without it: D_i, the derivative of the
    weighted AP (itemview.aggregate with one item's draw count moved by +/- 1e-6, central
    differences) at the weights of the test set, and the variance of the draws' linear
    term, the sum over blocks of (m / b) sum (D_i - mean D)^2 (m = b - 1 draws of b items),
    for blocks by class (the events track's), one block per stratum, and blocks that
    mix the classes (the item-by-item path). Confidences with 1 decimal, so that points
    hold several items; cases where two points share a precision (AP has no derivative
    there) are skipped by the seed's search."""
    rng = np.random.RandomState(100 + seed)
    while True:
        n = 60
        labels = (rng.rand(n) < 0.3).astype(float)
        confidence = np.round(rng.rand(n) + 0.4 * labels, 1)
        view = ItemView(["c"], [n], [str(i) for i in range(n)], {"label": labels, "confidence": confidence},
                        [("map", Score(AveragePrecision("label", "confidence"), ranked=True))], "map", ["label"],
                        block=labels.astype(int), unit="image")
        if labels.sum() and not _precision_ties(view):
            break
    eps = 1e-6
    moved = np.ones((2 * n, n))
    moved[np.arange(n), np.arange(n)] += eps
    moved[n + np.arange(n), np.arange(n)] -= eps
    ap = aggregate(view, [moved])["map"]
    derivative = (ap[:n] - ap[n:]) / (2 * eps)
    statistic = view.scores["map"].statistic
    for blocks in (labels.astype(int), np.zeros(n, dtype=int), np.arange(n) % 3):
        expected = 0.0
        for block in np.unique(blocks):
            d = derivative[blocks == block]
            expected += (d.size - 1.0) / d.size * np.sum((d - d.mean()) ** 2)
        blocked = ItemView(view.strata, view.sizes, view.items, view.columns, view.scores, "map", ["label"],
                           block=blocks, unit="image")
        assert bootstrap.ap_variance(blocked, statistic, 0) == pytest.approx(expected, rel=1e-6)


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


@pytest.mark.parametrize("seed", range(5))
def test_distinct_is_numpys_unique(seed):
    values = np.random.RandomState(seed).randint(-5, 6, size=seed * 7)
    assert np.array_equal(bootstrap.distinct(values), np.unique(values))


def test_the_interval_of_an_average_precision_leaves_numpy_ma_unimported():
    """numpy.unique imports numpy.ma on numpy 2 (15 ms); the AP interval does without it.
    Older numpy imports numpy.ma with numpy itself: nothing to check there."""
    import subprocess
    import sys
    code = ("import sys\n"
            "sys.path.insert(0, %r)\n"
            "import numpy as np\n"
            "eager = 'numpy.ma' in sys.modules\n"
            "from scoring.itemview import AveragePrecision, ItemView, Score\n"
            "from scoring.metaeval import bootstrap\n"
            "labels = np.zeros(50); labels[:10] = 1\n"
            "confidence = np.round(np.random.RandomState(3).rand(50) + labels * 0.3, 2)\n"
            "columns = {'label': labels, 'confidence': confidence}\n"
            "scores = [('map', Score(AveragePrecision('label', 'confidence'), ranked=True))]\n"
            "view = ItemView(['c'], [50], [str(i) for i in range(50)], columns, scores, 'map', ['label'],\n"
            "                block=labels.astype(int), unit='image')\n"
            "low, high = bootstrap.score_interval(view)\n"
            "print(eager, 'numpy.ma' in sys.modules, low < high)\n" % os.path.join(ROOT, "program"))
    eager, imported, ordered = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                              universal_newlines=True, check=True).stdout.split()
    assert ordered == "True"
    if eager == "False":
        assert imported == "False"
