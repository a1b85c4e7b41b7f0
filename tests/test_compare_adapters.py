"""Per-track adapters: the leaderboard values they recompute from items equal the
track's own scores (authentication) or the definitions (lines, events contracts)."""

import numpy as np
import pytest
import sample_authentication
from scoring import runner
from scoring.log import Log
from scoring.metaeval import adapters, analysis
from scoring.result import TrackResult


@pytest.fixture(scope="module")
def sample_result(tmp_path_factory):
    base = tmp_path_factory.mktemp("sample")
    sample_authentication.make(str(base / "ref"), str(base / "res"))
    import io
    _, results = runner.score_submission(str(base), Log(stream=io.StringIO()))
    return results[0]


def test_authentication_view_reproduces_the_track_scores(sample_result):
    view = adapters.view(sample_result)
    for key in ("uar", "balanced_accuracy", "top1", "top3", "top5"):
        assert view.value(key) == pytest.approx(sample_result.scores[key], abs=1e-12)
    kind, correct = view.paired
    assert kind == "mcnemar" and correct.dtype == bool
    assert len(correct) == len(view.units) == len(view.binary)
    assert view.comparable == ["uar", "balanced_accuracy", "top1"]


def _lines_items(rng, manuscripts):
    items = {}
    for name, pages in manuscripts:
        item = {"pages": ["p%d" % i for i in range(pages)]}
        for metric in adapters.LINE_METRICS:
            item[metric] = rng.rand(pages)
        items[name] = item
    return items


def test_lines_view_means_over_pages_then_manuscripts():
    rng = np.random.RandomState(0)
    result = TrackResult("lines", "Lines")
    result.items = _lines_items(rng, [("Latin2", 3), ("Syr341", 5)])
    result.items["fest2025"] = _lines_items(rng, [("Latin2", 3), ("Syr341", 5)])
    view = adapters.view(result)
    for metric in adapters.LINE_METRICS:
        expected = np.mean([result.items[m][metric].mean() for m in ("Latin2", "Syr341")])
        assert view.value(metric) == pytest.approx(expected)
        fest = np.mean([result.items["fest2025"][m][metric].mean() for m in ("Latin2", "Syr341")])
        assert view.value("fest2025_" + metric) == pytest.approx(fest)
    assert view.strata == ["Latin2", "Syr341"]
    assert view.paired[0] == "sign_flip" and len(view.paired[1]) == 8
    assert "fest2025_line_iu" in view.comparable and "pixel_iu" in view.comparable


def test_events_view_is_the_mean_ap():
    result = TrackResult("events", "Events")
    ap = np.array([0.2, 0.8, 0.5])
    result.items = {"categories": {"names": ["a", "b", "c"], "ap": ap}}
    view = adapters.view(result)
    assert view.value("map") == pytest.approx(0.5)
    assert view.units == ["a", "b", "c"]


def test_analysis_on_synthetic_lines_recovers_a_clear_order():
    rng = np.random.RandomState(1)
    views = []
    for quality in (0.9, 0.7, 0.5, 0.3):
        result = TrackResult("lines", "Lines")
        items = _lines_items(rng, [("A", 10), ("B", 12)])
        for m in items.values():
            for metric in adapters.LINE_METRICS:
                m[metric] = np.clip(quality + 0.05 * rng.randn(len(m["pages"])), 0, 1)
        result.items = items
        views.append(adapters.view(result))
    a = analysis.analyse("lines", ["q9", "q7", "q5", "q3"], views, resamples=200, seed=3)
    assert a.rank.tolist() == [1, 2, 3, 4]
    assert a.rank_median.tolist() == [1, 2, 3, 4]
    # 22 pages with a gap of 0.2 each: every pair differs after Holm.
    assert np.all(a.p_holm[np.triu_indices(4, 1)] < 0.05)
    assert a.gt_free is None  # no per-item binary decisions for lines pages


def test_a_single_submission_still_gets_a_report():
    from scoring.metaeval import page
    result = TrackResult("events", "Events")
    result.items = {"categories": {"names": ["a", "b"], "ap": np.array([0.25, 0.75])}}
    a = analysis.analyse("events", ["only"], [adapters.view(result)], resamples=20, seed=1)
    assert a.rank.tolist() == [1] and a.p_holm.shape == (1, 1)
    html = page.report_html([a], page.closing_note([a]))
    assert "only" in html and "NaN" not in html and "nan" not in html
