"""The SVG charts: well-formed XML whatever the labels, axes with text, and marks where the
numbers put them (areas and positions checked from the definitions, not from the code)."""

import math
import re
import xml.etree.ElementTree as ET

import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import charts

NS = "{http://www.w3.org/2000/svg}"
HOSTILE = ["a <b> & \"c\" 'd'", "日本語の提出", "العربية", "Ελληνικά", "tab\there", "bell\x07", "]]>"]


def parse(svg):
    return ET.fromstring(svg)


def texts(root):
    return ["".join(t.itertext()) for t in root.iter(NS + "text")]


def plot_frame(root):
    """(left, top, right, bottom) of the plot area: the two axis lines drawn last by draw_frame."""
    axis = [line for line in root.iter(NS + "line") if line.get("stroke") == charts.AXIS]
    x_axis, y_axis = axis[-2], axis[-1]
    return (float(x_axis.get("x1")), float(y_axis.get("y1")), float(x_axis.get("x2")), float(x_axis.get("y1")))


def points(element):
    """The absolute vertices of a path drawn by charts.py: M x,y [V y] [l dx,dy ...] [V y] [Z]."""
    out = []
    for command, args in re.findall(r"([MVlZ])([^MVlZ]*)", element.get("d")):
        numbers = [float(v) for v in re.findall(r"-?[0-9.]+", args)]
        if command == "M":
            out.append(numbers)
        elif command == "V":
            out.append([out[-1][0], numbers[0]])
        elif command == "l":
            for dx, dy in zip(numbers[0::2], numbers[1::2]):
                out.append([out[-1][0] + dx, out[-1][1] + dy])
    return np.array(out)


def curves(root, colour):
    return [p for p in root.iter(NS + "path") if p.get("stroke") == colour]


def shoelace(xy):
    x, y = xy[:, 0], xy[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


@pytest.mark.parametrize("label", HOSTILE)
def test_any_label_gives_well_formed_svg_with_the_text_kept(label):
    for svg in (charts.forest([label, "b"], [0.5, 0.6], [0.4, 0.5], [0.6, 0.7], label, "score"),
                charts.confusion_matrix([[1, 2], [3, 4]], [label, "x"], ["y", label], label),
                charts.precision_recall([0.5, 1.0], [1.0, 0.5], [1.0, 0.5], label, ap=0.75)):
        root = parse(svg)
        shown = label.replace("\x07", "\ufffd")
        title = root.find(NS + "title").text
        # A label written right to left is isolated (FSI ... PDI), the text itself kept.
        assert unisolated(title) == shown
        assert (title[0] == "\u2068") == any(unicodedata.bidirectional(c) in ("R", "AL") for c in label)
        assert any(shown in unisolated(t) or t.endswith("\u2026") for t in texts(root))


def unisolated(text):
    return text.replace("\u2068", "").replace("\u2069", "")


def test_precision_recall_shades_exactly_the_ap_area():
    # Ranking + - + + - (P = 3): operating points r = 1/3, 1/3, 2/3, 1, 1 with p = 1, 1/2, 2/3,
    # 3/4, 3/5; monotone p* = 1, 3/4, 3/4, 3/4, 3/5; AP = the trapezoids over (0, p*_1), (r_i, p*_i).
    recall = np.array([1, 1, 2, 3, 3]) / 3.0
    precision = np.array([1, 1 / 2.0, 2 / 3.0, 3 / 4.0, 3 / 5.0])
    envelope = np.array([1, 3 / 4.0, 3 / 4.0, 3 / 4.0, 3 / 5.0])
    xs = np.concatenate(([0.0], recall))
    ys = np.concatenate(([envelope[0]], envelope))
    ap = float(np.sum(np.diff(xs) * (ys[1:] + ys[:-1]) / 2))
    root = parse(charts.precision_recall(recall, precision, envelope, "c", ap=ap))
    left, top, right, bottom = plot_frame(root)
    area = [p for p in root.iter(NS + "path") if p.get("class") == "area"][0]
    shaded = shoelace(points(area))
    assert shaded / ((right - left) * (bottom - top)) == pytest.approx(ap, abs=0.005)
    blue = points(curves(root, charts.BLUE)[0])  # the monotone curve through (0, p*_1), (r_i, p*_i)
    expected = [(x, y) for x, y in zip(xs, ys)]
    expected = [p for i, p in enumerate(expected) if i == 0 or p != expected[i - 1]]
    expected = without_inner_points(expected)  # (2/3, 3/4) lies on the line from (1/3, 3/4) to (1, 3/4)
    assert len(blue) == len(expected) == 5
    for (px, py), (x, y) in zip(blue, expected):
        assert (px - left) / (right - left) == pytest.approx(x, abs=0.004)
        assert (bottom - py) / (bottom - top) == pytest.approx(y, abs=0.004)
    all_text = texts(root)
    for axis_text in ("recall (fraction of positives found)", "precision", "0.0", "1.0", "raw precision",
                      "monotone precision"):
        assert axis_text in all_text
    assert "AP area = %s" % charts.number(ap) in all_text


def without_inner_points(points):
    """The points without each one that lies on the segment between its two neighbours,
    in the same direction (the line through the others is the same line)."""
    kept = [points[0]] if points else []
    for before, point, after in zip(points, points[1:], points[2:]):
        (ax, ay), (bx, by), (cx, cy) = before, point, after
        collinear = (bx - ax) * (cy - by) == (by - ay) * (cx - bx)
        if not (collinear and (bx - ax) * (cx - bx) + (by - ay) * (cy - by) > 0):
            kept.append(point)
    return kept + points[-1:] if len(points) > 1 else kept


def test_long_curves_are_thinned_but_keep_their_extremes():
    """A curve turning in every pixel column (20,000 random points): no more points than
    the chart has pixels across, and the line still sweeps each column's extent (one point
    a column, its extreme farther from the point before)."""
    rng = np.random.RandomState(0)
    recall = np.sort(rng.uniform(size=20000))
    precision = rng.uniform(size=20000)
    svg = charts.precision_recall(recall, precision, np.maximum.accumulate(precision[::-1])[::-1], "big")
    root = parse(svg)
    drawn = points(curves(root, charts.GREY)[0])
    assert len(drawn) <= 340  # the chart's width in pixels
    left, top, right, bottom = plot_frame(root)
    assert drawn[:, 1].min() == pytest.approx(top, abs=1)  # precision near 1 still reaches the top
    assert drawn[:, 1].max() == pytest.approx(bottom, abs=1)  # and near 0 the bottom
    # The line sweeps each column's extent: the segments around a point span most of the plot.
    swept = [np.ptp(drawn[i - 1:i + 2, 1]) for i in range(1, len(drawn) - 1)]
    assert np.median(swept) > 0.5 * (bottom - top)
    assert len(svg) < 20000


def test_the_drawn_line_keeps_every_point_it_leaves_out():
    """Points inside straight runs are left out: each lies on the segment drawn between the
    points kept around it (a staircase of 30,000 points keeps its 200 corners)."""
    steps = np.repeat(np.arange(100), 300)
    xs = 52 + np.arange(steps.size) * 274.0 / steps.size
    ys = 30 + steps * 0.5
    got_x, got_y = charts.thin(xs, ys)
    rounded = [(round(x * 2) / 2.0, round(y * 2) / 2.0) for x, y in zip(xs, ys)]
    kept = list(zip(got_x.tolist(), got_y.tolist()))
    assert len(kept) == 200
    position = 0
    for x, y in rounded:  # every rounded point on the polyline through the kept ones
        while position + 1 < len(kept) and kept[position + 1][0] < x:
            position += 1
        (ax, ay), (bx, by) = kept[position], kept[min(position + 1, len(kept) - 1)]
        on = (x, y) in kept or ((bx - ax) * (y - ay) == (by - ay) * (x - ax) and min(ax, bx) <= x <= max(ax, bx))
        assert on, (x, y)


def test_forest_places_each_point_and_interval_on_its_row():
    values, lows, highs = [0.9, 0.5, 0.7], [0.85, 0.3, 0.6], [0.95, 0.6, 0.8]
    root = parse(charts.forest(["A", "B", "C"], values, lows, highs, "t", "line_iu", x_range=(0.0, 1.0)))
    left, top, right, bottom = plot_frame(root)
    circles = list(root.iter(NS + "circle"))
    segments = [line for line in root.iter(NS + "line") if line.get("stroke-width") == "3"]
    for i, (circle, segment) in enumerate(zip(circles, segments)):
        x = float(circle.get("cx"))
        assert (x - left) / (right - left) == pytest.approx(values[i], abs=0.003)
        assert (float(segment.get("x1")) - left) / (right - left) == pytest.approx(lows[i], abs=0.003)
        assert (float(segment.get("x2")) - left) / (right - left) == pytest.approx(highs[i], abs=0.003)
        assert top < float(circle.get("cy")) < bottom
    ys = [float(c.get("cy")) for c in circles]
    assert ys == sorted(ys)  # rows top to bottom in the given order
    assert {"A", "B", "C", "line_iu", "0.0", "1.0"} <= set(texts(parse(charts.forest(
        ["A", "B", "C"], values, lows, highs, "t", "line_iu", x_range=(0.0, 1.0)))))


def test_forest_writes_undefined_rather_than_drawing_nan():
    root = parse(charts.forest(["A", "B"], [float("nan"), 2], [1, 1], [2, 3], "ranks", "rank", integer=True))
    assert "undefined" in texts(root)
    assert len(list(root.iter(NS + "circle"))) == 1


def test_confusion_matrix_counts_and_row_shares():
    root = parse(charts.confusion_matrix([[5, 1], [2, 7]], ["authentic", "imitation"], ["authentic", "imitation"],
                                         "t"))
    shown = texts(root)
    for count, share in ((5, "83%"), (1, "17%"), (2, "22%"), (7, "78%")):
        assert str(count) in shown
        assert "%s of row" % share in shown
    assert "true class" in shown and "predicted class" in shown


@pytest.mark.parametrize("value,shown", [
    (3, "3"), (14.0, "14.0000"), (0.123456, "0.1235"), (-0.00001, "0.0000"), (float("nan"), "undefined"),
    (None, "undefined"), (123456.0, "123456"),
])
def test_number(value, shown):
    assert charts.number(value) == shown


def test_nice_ticks_cover_the_range_with_round_steps():
    assert charts.nice_ticks(0, 1) == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    assert charts.nice_ticks(0.93, 0.97) == [0.93, 0.94, 0.95, 0.96, 0.97]


def _points_by_definition(xs, ys, resolution=0.5):
    """thin written point by point: rounded points, repeats dropped, points inside
    straight runs dropped; of each pixel column's run of points (when there are many) its
    first, last, first lowest and first highest."""
    points = []
    for x, y in zip(xs, ys):
        point = (float(np.round(x / resolution)) * resolution, float(np.round(y / resolution)) * resolution)
        if not points or point != points[-1]:
            points.append(point)
    points = without_inner_points(points)
    runs = []
    for point in points:
        if runs and math.floor(runs[-1][-1][0]) == math.floor(point[0]):
            runs[-1].append(point)
        else:
            runs.append([point])
    if len(points) > 4 * len(runs):
        kept = []
        for run in runs:
            low = min(run, key=lambda p: p[1])
            high = max(run, key=lambda p: p[1])
            chosen = sorted(set([0, len(run) - 1, run.index(low), run.index(high)]))
            kept.extend(run[i] for i in chosen)
        points = kept
    return points


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.lists(st.tuples(st.floats(-50, 400), st.floats(-50, 400)), max_size=60),
                 st.lists(st.tuples(st.floats(0, 6), st.floats(0, 3)), max_size=200)),  # dense columns
       st.sampled_from([0.5, 1.0, 0.25]))
def test_thin_and_moves_as_defined(points, resolution):
    from scoring.charts import _n, relative_moves, thin
    xs = sorted(p[0] for p in points)  # charts draw along increasing x, as the curves do
    ys = [p[1] for p in points]
    expected = _points_by_definition(xs, ys, resolution)
    got_x, got_y = thin(xs, ys, resolution)
    assert list(zip(got_x.tolist(), got_y.tolist())) == expected
    # Each move written as _n writes a coordinate.
    moves = [(b[0] - a[0], b[1] - a[1]) for a, b in zip(expected, expected[1:])]
    assert relative_moves(got_x, got_y) == " ".join("%s,%s" % (_n(x), _n(y)) for x, y in moves)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 30), st.one_of(st.floats(0, 1), st.integers(0, 40).map(lambda k: k / 1000.0))),
                min_size=1, max_size=40),
       st.integers(0, 2 ** 32 - 1), st.sampled_from([0.002, 0.05, 1.0]), st.sampled_from([(0.0, 1.0), (-2.0, 3.0)]))
def test_runs_of_one_x_are_thinned_as_point_by_point(runs, seed, spread, x_range):
    # A precision/recall curve comes in runs of points of one x (its recall): Axes.polyline
    # keeps the definition's points of the curve in pixels.
    xs = np.repeat([x for _, x in runs], [n for n, _ in runs])
    ys = np.clip(0.5 + np.cumsum(np.random.RandomState(seed).uniform(-spread, spread, xs.size)), 0, 1)
    axes = charts.Axes(charts.Svg(340, 270, "t"), 52, 30, 274, 177.5, x_range, (0.0, 1.0))
    pixel_x = [52 + (x - x_range[0]) / (x_range[1] - x_range[0]) * 274 for x in xs.tolist()]
    pixel_y = [30 + 177.5 - y * 177.5 for y in ys.tolist()]
    expected = _points_by_definition(pixel_x, pixel_y)
    drawn = axes.polyline(xs, ys)
    assert (float(drawn[0][0]), float(drawn[0][1])) == expected[0]
    moves = [(b[0] - a[0], b[1] - a[1]) for a, b in zip(expected, expected[1:])]
    assert drawn[1] == " ".join("%s,%s" % (charts._n(x), charts._n(y)) for x, y in moves)
