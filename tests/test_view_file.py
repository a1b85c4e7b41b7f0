"""The per-item view's file (private/views/<track>.npz): what ItemView.write stores,
ItemView.from_file gives back array for array, bit for bit, whatever narrower types the
file uses."""

import io
import zipfile

import numpy as np
import pytest
from scoring.itemview import AveragePrecision, ItemView, Ratio, Score, StrataItems


def read_back(view, tmp_path):
    path = str(tmp_path / "view.npz")
    with open(path, "wb") as stream:
        view.write(stream)
    return ItemView.from_file(path), path


def assert_same(a, b):
    assert a.strata == b.strata and a.sizes.tolist() == b.sizes.tolist() and a.items == b.items
    assert a.block.dtype == np.int64 and a.block.tolist() == b.block.tolist()
    assert list(a.columns) == list(b.columns)
    for name in a.columns:
        assert a.columns[name].dtype == np.float64
        assert a.columns[name].tobytes() == b.columns[name].tobytes(), name
    assert [[k, s.to_json()] for k, s in a.scores.items()] == [[k, s.to_json()] for k, s in b.scores.items()]
    assert (a.primary, a.reference_columns, a.decision, a.truth, a.unit) == \
        (b.primary, b.reference_columns, b.decision, b.truth, b.unit)


def test_categories_sharing_their_images(tmp_path):
    # Categories c0 and c2 list the same images in the same order, c1 other ones: the file
    # stores the names of c0 once and refers to them for c2.
    items = ["a.jpg", "b.jpg", "c.jpg"] + ["b.jpg", "a.jpg", "d.jpg"] + ["a.jpg", "b.jpg", "c.jpg"]
    labels = np.array([1, 0, 0, 0, 1, 1, 0, 0, 1], dtype=float)
    confidence = np.array([0.5, -0.0, 0.0, 1e-300, 2.0, 255.0, 3.0, 7.0, 0.1])
    view = ItemView(["c0", "c1", "c2"], [3, 3, 3], items, {"label": labels, "confidence": confidence},
                    [("map", Score(AveragePrecision("label", "confidence"), ranked=True))], "map", ["label"],
                    block=2 * np.repeat(np.arange(3), 3) + labels.astype(int), truth="label", unit="image")
    back, path = read_back(view, tmp_path)
    assert_same(back, view)
    with np.load(path) as data:
        assert data["names"].tolist() == ["a.jpg", "b.jpg", "c.jpg", "d.jpg"]
        assert data["items"].tolist() == [0, 1, 2, 1, 0, 3] and data["starts"].tolist() == [0, 3, 0]
        assert data["column0"].dtype == np.uint8  # labels 0 and 1
        assert data["column1"].dtype == np.float64  # -0.0 would come back as 0.0 from uint8
        assert data["block"].dtype == np.int8


def test_columns_that_are_not_small_integers_stay_float64(tmp_path):
    # 256, 0.5 and -1 do not fit uint8 exactly; a column of 0, 1 and 255 does.
    columns = {"big": np.array([0.0, 256.0]), "half": np.array([0.5, 1.0]), "negative": np.array([-1.0, 1.0]),
               "one": np.array([255.0, 0.0])}
    view = ItemView(["s"], [2], ["x", "y"], columns, [("r", Score(Ratio(("half", "one"))))], "r", ["one"],
                    block=np.array([0, 70000]))
    back, path = read_back(view, tmp_path)
    assert_same(back, view)
    with np.load(path) as data:
        assert [data["column%d" % i].dtype for i in range(4)] == [np.float64] * 3 + [np.uint8]
        assert data["block"].dtype == np.int32


def test_the_file_is_not_compressed(tmp_path):
    view = ItemView(["s"], [1000], [str(i) for i in range(1000)], {"one": np.ones(1000)},
                    [("r", Score(Ratio(("one", "one"))))], "r", ["one"])
    buffer = io.BytesIO()
    view.write(buffer)
    with zipfile.ZipFile(buffer) as archive:
        assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_STORED}


def test_items_given_per_stratum(tmp_path):
    # The same view with its items as one list, and as one list per stratum where c0 and
    # c2 share one list object: the same file content, and the same items when read.
    shared, other = ["a.jpg", "b.jpg"], ["b.jpg", "c.jpg"]
    flat = shared + other + shared
    columns = {"label": np.array([1.0, 0, 0, 1, 1, 0]), "confidence": np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])}
    scores = [("map", Score(AveragePrecision("label", "confidence"), ranked=True))]
    views = [ItemView(["c0", "c1", "c2"], [2, 2, 2], items, columns, scores, "map", ["label"])
             for items in (flat, StrataItems([shared, other, shared]))]
    assert views[1].items == flat and list(views[1].items) == flat and views[1].items[2:4] == other
    assert len(views[1].items) == 6
    backs = [read_back(view, tmp_path)[0] for view in views]
    assert backs[0].items == backs[1].items == flat
    assert_same(backs[1], backs[0])
    with pytest.raises(ValueError):
        ItemView(["c0", "c1"], [3, 3], StrataItems([shared, other]), {"label": np.zeros(6)}, scores, "map")


def test_a_file_of_the_earlier_layout_is_read(tmp_path):
    # Before the narrow layout: every item's code (no 'starts'), float64 labels, int64 blocks,
    # deflated. compare.py --scored still reads such an output directory.
    import json
    spec = {"strata": ["c0", "c1"], "sizes": [2, 1], "primary": "map",
            "scores": [["map", {"statistic": {"kind": "average_precision", "label": "label",
                                              "confidence": "confidence"}, "stratum": None, "ranked": True}]],
            "reference_columns": ["label"], "decision": None, "truth": "label", "unit": "image",
            "columns": ["label", "confidence"]}
    path = str(tmp_path / "old.npz")
    np.savez_compressed(path, spec=np.array(json.dumps(spec)), names=np.array(["a", "b"]),
                        items=np.array([0, 1, 1]), block=np.array([1, 0, 3]),
                        column0=np.array([1.0, 0.0, 1.0]), column1=np.array([0.9, 0.2, 0.5]))
    view = ItemView.from_file(path)
    assert view.items == ["a", "b", "b"] and view.sizes.tolist() == [2, 1] and view.block.tolist() == [1, 0, 3]
    assert view.columns["confidence"].tolist() == [0.9, 0.2, 0.5] and view.scores["map"].ranked


def test_a_score_keeps_its_direction_and_bounds(tmp_path):
    # An error rate: lower is better and it has no upper bound; a file of an earlier
    # version (no direction written) reads back as higher-is-better in [0, 1].
    columns = {"errors": np.array([3.0, 1.0]), "chars": np.array([2.0, 2.0])}
    scores = [("cer", Score(Ratio(("errors", "chars")), ranked=True, lower_is_better=True, bounds=(0.0, None))),
              ("other", Score(Ratio(("chars", "chars"))))]
    view = ItemView(["s"], [2], ["x", "y"], columns, scores, "cer", ["chars"])
    back, _ = read_back(view, tmp_path)
    assert_same(back, view)
    assert back.scores["cer"].lower_is_better and back.scores["cer"].bounds == (0.0, None)
    assert not back.scores["other"].lower_is_better and back.scores["other"].bounds == (0.0, 1.0)
    assert back.scores["cer"].oriented(np.array([1.0, 2.0])).tolist() == [-1.0, -2.0]
    old = Score.from_json({"statistic": {"kind": "ratio", "terms": [["errors", "chars"]]}, "stratum": None,
                           "ranked": True})
    assert not old.lower_is_better and old.bounds == (0.0, 1.0)
