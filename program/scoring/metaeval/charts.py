"""The report's charts, drawn with the SVG primitives of scoring/charts.py: the interval
(forest) chart comes from there; here challengeR's views (blob plots of rank
distributions, the podium, dot and box plots of the cases, the ranking heatmap, the
violin of Kendall's tau, stability across strata) and a significance map.

Every chart is at least MIN_WIDTH px wide in its own coordinates (a third of a desktop
window), its title shortened to the chart's width (never cut by the frame), its text at
least SIZE px; series get a distinct colour and marker each (style(i): 12 colours times 9
markers), drawn in the legend with data-series and data-style attributes. Each function
returns an <svg> string; only the significance map and the heatmap grow with the square
of the number of submissions (the map is drawn for the first MAP_LIMIT by rank).
"""

import math

import numpy as np

from ..charts import AXIS, GRID, MUTED, RECT, TEXT, Axes, Svg, _n, escape, forest, nice_ticks, shorten, text_width

__all__ = ["forest", "blob", "podium", "significance_map", "violin", "dot_box", "heatmap", "style", "MAP_LIMIT",
           "MIN_WIDTH"]

SIZE = 12
MIN_WIDTH = 600
MAP_LIMIT = 40
#: Twelve colours told apart at a glance (no two of one hue).
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
           "#000000", "#7f7f7f", "#f4c20d")
MARKERS = ("circle", "square", "triangle", "diamond", "down", "cross", "plus", "star", "bar")


def style(index):
    """(colour, marker) of series `index`: distinct for the first 108 series."""
    return PALETTE[index % len(PALETTE)], MARKERS[(index // len(PALETTE)) % len(MARKERS)]


def marker(x, y, shape, colour, radius=4.0, extra=""):
    """An SVG element drawing a marker centred at (x, y)."""
    r = radius
    if shape == "circle":
        return '<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"%s/>' % (x, y, r, colour, extra)
    if shape == "square":
        return '<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"%s/>' % (
            x - r * 0.85, y - r * 0.85, 1.7 * r, 1.7 * r, colour, extra)
    points = {
        "triangle": [(0, -1.15), (1.05, 0.75), (-1.05, 0.75)],
        "down": [(0, 1.15), (1.05, -0.75), (-1.05, -0.75)],
        "diamond": [(0, -1.25), (1.0, 0), (0, 1.25), (-1.0, 0)],
        "star": [(math.cos(math.pi / 2 + k * math.pi / 5) * (1.3 if k % 2 == 0 else 0.55),
                  -math.sin(math.pi / 2 + k * math.pi / 5) * (1.3 if k % 2 == 0 else 0.55)) for k in range(10)],
    }
    if shape in points:
        return '<polygon points="%s" fill="%s"%s/>' % (
            " ".join("%.1f,%.1f" % (x + dx * r, y + dy * r) for dx, dy in points[shape]), colour, extra)
    if shape == "bar":
        return '<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"%s/>' % (
            x - 1.3 * r, y - 0.45 * r, 2.6 * r, 0.9 * r, colour, extra)
    d = ("M%.1f,%.1fL%.1f,%.1fM%.1f,%.1fL%.1f,%.1f" % (x - r, y - r, x + r, y + r, x - r, y + r, x + r, y - r)
         if shape == "cross" else
         "M%.1f,%.1fL%.1f,%.1fM%.1f,%.1fL%.1f,%.1f" % (x - r * 1.2, y, x + r * 1.2, y, x, y - r * 1.2, x, y + r * 1.2))
    return '<path d="%s" stroke="%s" stroke-width="2.2" fill="none"%s/>' % (d, colour, extra)


def _title(svg, width, title):
    svg.text(width / 2.0, 20, shorten(title, 14, width - 20, bold=True), size=14, anchor="middle", weight="600",
             tooltip=title)


def _label_space(labels):
    return min(200.0, max([text_width(label, SIZE) for label in labels] + [30]) + 12)


def _column_labels(svg, labels, axes, top, space):
    """Names under columns (column i at x = i + 1), rotated, shortened to their space."""
    for i, label in enumerate(labels):
        x = axes.x(i + 1)
        svg.text(x + 4, top + 8, shorten(label, SIZE, space - 8), size=SIZE, anchor="end", rotate=-90,
                 tooltip=label)


def _columns_frame(count, minimum_plot=MIN_WIDTH - 90):
    """Column spacing and plot width of a chart with one column per submission (at least
    12 px a column, at least minimum_plot px in all)."""
    plot = max(minimum_plot, 12.0 * count)
    return plot / float(max(count, 1)), plot


def legend(svg, entries, x, y, width):
    """Legend rows of (label, colour, marker) from (x, y) within `width`; returns the height
    used. Each entry is marked data-series / data-style for the browser test."""
    cursor, row_y, used = x, y, 0.0
    for label, colour, shape in entries:
        need = 22 + text_width(label, SIZE) + 16
        if cursor > x and cursor + need > x + width:
            cursor, row_y = x, row_y + SIZE + 8
        svg.add('<g data-series="%s" data-style="%s %s">%s</g>' % (
            escape(label), colour, shape, marker(cursor + 7, row_y - SIZE * 0.35, shape, colour, 4.5)))
        svg.text(cursor + 18, row_y, label, size=SIZE)
        cursor += need
        used = row_y - y + SIZE + 8
    return used


def legend_height(entries, width):
    rows, cursor = 1, 0.0
    for label, _, _ in entries:
        need = 22 + text_width(label, SIZE) + 16
        if cursor > 0 and cursor + need > width:
            rows, cursor = rows + 1, 0.0
        cursor += need
    return rows * (SIZE + 8) if entries else 0


# -- rank distributions ----------------------------------------------------------------------

def blob(names, frequency, median, low, high, title, description, y_label="rank", what="resamples"):
    """Columns: submissions in the given order; rows: ranks (1 at the top). A disc's area is
    the share of `what` giving that rank; the black dot is the median rank, the line its
    95% interval (omitted where low is None)."""
    count = len(names)
    ranks = frequency.shape[1] if frequency.ndim == 2 else count
    column, plot_w = _columns_frame(count)
    plot_h = max(200.0, min(26.0, 400.0 / max(ranks, 1)) * ranks)
    left, top = 56.0, 40.0
    space = _label_space(names)
    width = left + plot_w + 16
    svg = Svg(width, top + plot_h + space + 16, title, description)
    _title(svg, width, title)
    axes = Axes(svg, left, top, plot_w, plot_h, (0.5, count + 0.5), (ranks + 0.5, 0.5))
    ticks = [t for t in nice_ticks(1, ranks) if float(t).is_integer() and 1 <= t <= ranks] or [1]
    axes.draw_frame(None, y_label, x_ticks=[], y_ticks=ticks)
    step = min(column, 32.0, plot_h / max(ranks, 1))
    for s in range(count):
        x = axes.x(s + 1)
        drawn = np.flatnonzero(frequency[s] > 0)
        discs = "".join('<circle cx="%.1f" cy="%.1f" r="%.2f"/>' % (
            x, axes.y(r + 1), max(0.8, 0.5 * step * np.sqrt(frequency[s][r]))) for r in drawn)
        tip = "%s: median rank %g" % (names[s], median[s])
        if low is not None:
            tip += ", 95%% interval %d to %d" % (low[s], high[s])
        svg.add('<g fill="%s" fill-opacity="0.55"><title>%s</title>%s</g>' % (PALETTE[0], escape(tip), discs))
        if low is not None:
            svg.line(x, axes.y(low[s]), x, axes.y(high[s]), stroke="#000", width=1.2)
        svg.add('<circle cx="%.1f" cy="%.1f" r="2.4" fill="#000"/>' % (x, axes.y(median[s])))
    _column_labels(svg, names, axes, top + plot_h, space)
    return str(svg)


def podium(names, order, task_values, tasks, axis_label, title, y_range=None):
    """challengeR's podium, by strata: column i holds the submission ranked i-th on the
    leaderboard; a marker per task (stratum) at its value there, one series per task
    joined across columns; each task its own colour and marker."""
    count = len(order)
    column, plot_w = _columns_frame(count)
    left, top, plot_h = 60.0, 40.0, 220.0
    entries = [(task,) + style(t) for t, task in enumerate(tasks)]
    space = _label_space([names[s] for s in order])
    width = left + plot_w + 16
    legend_h = legend_height(entries, width - 24)
    svg = Svg(width, top + plot_h + space + legend_h + 24, title,
              "Per-stratum values of each submission, submissions in leaderboard order.")
    _title(svg, width, title)
    lo, hi = y_range if y_range is not None else (0.0, 1.0)
    if task_values.size and y_range is None:
        lo, hi = min(0.0, float(task_values.min())), max(1.0, float(task_values.max()))
    if hi <= lo:
        hi = lo + 1.0
    axes = Axes(svg, left, top, plot_w, plot_h, (0.5, count + 0.5), (lo, hi))
    axes.draw_frame(None, axis_label, x_ticks=[])
    for t, task in enumerate(tasks):
        colour, shape = style(t)
        xs = [axes.x(i + 1) for i in range(count)]
        ys = [axes.y(task_values[s, t]) for s in order]
        svg.add('<polyline points="%s" fill="none" stroke="%s" stroke-opacity="0.5"/>'
                % (" ".join("%.1f,%.1f" % p for p in zip(xs, ys)), colour))
        svg.add('<g><title>%s</title>%s</g>' % (escape(task), "".join(marker(x, y, shape, colour, 3.6)
                                                                       for x, y in zip(xs, ys))))
    _column_labels(svg, [names[s] for s in order], axes, top + plot_h, space)
    legend(svg, entries, 12, top + plot_h + space + 18, width - 24)
    return str(svg)


def significance_map(names, better, title):
    """Cell (row, column): green if the row is significantly better than the column, red if
    worse, white if they cannot be told apart. At most MAP_LIMIT submissions (given in
    leaderboard order, the first ones are drawn)."""
    shown = names[:MAP_LIMIT]
    count = len(shown)
    space = _label_space(shown)
    cell = max(11.0, min(26.0, (MIN_WIDTH - space - 30) / float(max(count, 1))))
    grid = cell * count
    width = max(MIN_WIDTH, space + grid + 30)
    left = (width - grid + space) / 2.0
    top = 40 + space
    svg = Svg(width, top + grid + 14, title,
              "Green: the row is significantly better than the column; red: worse; white: undecided.")
    _title(svg, width, title)
    for j, name in enumerate(shown):
        svg.text(left + cell * (j + 0.5) + 4, top - 6, shorten(name, SIZE, space - 8), size=SIZE, rotate=-90,
                 tooltip=name)
    for i, name in enumerate(shown):
        svg.text(left - 6, top + cell * (i + 0.5) + 4, shorten(name, SIZE, space - 8), size=SIZE, anchor="end",
                 tooltip=name)
        for j in range(count):
            colour = "#eee" if i == j else ("#7fc97f" if better[i, j] else "#f0a0a0" if better[j, i] else "#fff")
            svg.rect(left + cell * j, top + cell * i, cell, cell, colour, stroke=GRID)
    return str(svg)


def violin(groups, title, x_label, x_range=(-1.0, 1.0)):
    """Horizontal violins, one row per group (label, values): the density of the values
    (a histogram of 40 bins smoothed over three), mirrored, with the median as a bar.
    challengeR's violin plot of Kendall's tau between a ranking and its bootstrap rankings."""
    labels = [label for label, _ in groups]
    label_w = min(220.0, max([text_width(label, SIZE) for label in labels] + [40]) + 16)
    left, top, row_h = label_w + 10, 40.0, 46.0
    width = max(MIN_WIDTH, left + 420)
    plot_w = width - left - 24
    height = top + row_h * max(len(groups), 1) + 52
    svg = Svg(width, height, title, "Per group, the distribution of the values over the bootstrap resamples.")
    _title(svg, width, title)
    axes = Axes(svg, left, top, plot_w, row_h * max(len(groups), 1), x_range, (0, max(len(groups), 1)))
    axes.draw_frame(x_label, None, y_ticks=[])
    bins = np.linspace(x_range[0], x_range[1], 41)
    for g, (label, values) in enumerate(groups):
        colour, shape = style(g)
        centre = top + row_h * (g + 0.5)
        values = np.asarray([v for v in values if v is not None and np.isfinite(v)], dtype=float)
        svg.text(left - 8, centre + 4, shorten(label, SIZE, label_w - 8), size=SIZE, anchor="end", tooltip=label)
        if values.size == 0:
            svg.text(left + 6, centre + 4, "undefined", size=SIZE, fill=MUTED)
            continue
        counts = np.histogram(np.clip(values, x_range[0], x_range[1]), bins=bins)[0].astype(float)
        counts = np.convolve(counts, np.ones(3) / 3.0, mode="same")
        filled = np.flatnonzero(counts > 0)
        span = slice(max(filled[0] - 1, 0), filled[-1] + 2) if filled.size else slice(0, 0)
        half = (0.42 * row_h * counts / max(counts.max(), 1e-12))[span]
        mids = ((bins[:-1] + bins[1:]) / 2.0)[span]
        upper = ["%.1f,%.1f" % (axes.x(m), centre - h) for m, h in zip(mids, half)]
        lower = ["%.1f,%.1f" % (axes.x(m), centre + h) for m, h in zip(mids[::-1], half[::-1])]
        median = float(np.median(values))
        svg.add('<g data-series="%s" data-style="%s %s"><title>%s: median %.3f over %d resamples</title>'
                '<polygon points="%s" fill="%s" fill-opacity="0.45" stroke="%s"/>%s</g>' % (
                    escape(label), colour, shape, escape(label), median, values.size, " ".join(upper + lower),
                    colour, colour, marker(axes.x(median), centre, shape, colour, 4.5)))
        svg.line(axes.x(median), centre - 0.42 * row_h, axes.x(median), centre + 0.42 * row_h, stroke=TEXT,
                 width=1.5)
    return str(svg)


def dot_box(names, rows, title, axis_label, y_range, cap=300):
    """challengeR's dot and box plot: per submission (in the given order) a box of its case
    values (quartiles, whiskers to the furthest value within 1.5 box lengths) and every
    case as a dot, spread sideways by a fixed jitter; rows: one array of values per
    submission. Beyond `cap` cases a submission's dots are every k-th case (the box
    always covers all)."""
    count = len(names)
    column, plot_w = _columns_frame(count)
    left, top, plot_h = 60.0, 40.0, 240.0
    space = _label_space(names)
    width = left + plot_w + 16
    svg = Svg(width, top + plot_h + space + 16, title,
              "Per submission, its value on every case: dots, and a box of their quartiles.")
    _title(svg, width, title)
    lo, hi = y_range
    if hi <= lo:
        hi = lo + 1.0
    axes = Axes(svg, left, top, plot_w, plot_h, (0.5, count + 0.5), (lo, hi))
    axes.draw_frame(None, axis_label, x_ticks=[])
    for s, values in enumerate(rows):
        values = np.asarray(values, dtype=float)
        values = values[np.isfinite(values)]
        x = axes.x(s + 1)
        if values.size == 0:
            continue
        q1, q2, q3 = np.percentile(values, [25, 50, 75])
        reach = 1.5 * (q3 - q1)
        whisker_low = values[values >= q1 - reach].min()
        whisker_high = values[values <= q3 + reach].max()
        box = 0.32 * min(column, 40.0)
        shown = values if values.size <= cap else values[::int(math.ceil(values.size / float(cap)))]
        jitter = ((np.arange(shown.size) * 0.6180339887) % 1.0 - 0.5) * 0.5 * min(column, 40.0)
        svg.add('<g fill="%s" fill-opacity="0.45"><title>%s: %d cases</title>%s</g>' % (
            PALETTE[0], escape(names[s]), values.size, "".join(
                '<circle cx="%.1f" cy="%.1f" r="1.8"/>' % point for point in zip((x + jitter).tolist(),
                                                                                  axes.ys(shown).tolist()))))
        svg.line(x, axes.y(whisker_low), x, axes.y(q1), stroke=TEXT)
        svg.line(x, axes.y(q3), x, axes.y(whisker_high), stroke=TEXT)
        svg.add('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="%s" stroke-width="1.4">'
                '<title>%s: median %.4f, quartiles %.4f and %.4f</title></rect>' % (
                    x - box, axes.y(q3), 2 * box, max(0.5, axes.y(q1) - axes.y(q3)), TEXT, escape(names[s]), q2, q1,
                    q3))
        svg.line(x - box, axes.y(q2), x + box, axes.y(q2), stroke="#d62728", width=2)
    _column_labels(svg, names, axes, top + plot_h, space)
    return str(svg)


def heatmap(names, counts, title, description):
    """challengeR's ranking heatmap: columns the submissions (in the given order), rows the
    ranks 1..K (1 at the top); a cell's shade is the number of cases where the submission
    had that rank (darker: more), the count written in it where it fits."""
    count = len(names)
    ranks = counts.shape[1]
    space = _label_space(names)
    cell = max(11.0, min(30.0, (MIN_WIDTH - 90) / float(max(count, 1))))
    grid_w, grid_h = cell * count, cell * ranks
    left, top = 56.0, 40.0
    width = max(MIN_WIDTH, left + grid_w + 16)
    svg = Svg(width, top + grid_h + space + 16, title, description)
    _title(svg, width, title)
    peak = float(counts.max()) if counts.size and counts.max() > 0 else 1.0
    for r in range(ranks):
        if ranks <= 20 or (r + 1) % max(1, ranks // 10) == 0 or r == 0:
            svg.text(left - 6, top + cell * (r + 0.5) + 4, "%d" % (r + 1), size=SIZE, anchor="end", fill=MUTED)
    svg.text(14, top + grid_h / 2.0, "rank on a case", size=SIZE, anchor="middle", rotate=-90)
    # K x K cells (40,000 at 200 submissions): each column's and row's place, each name
    # and each count's shade formatted once, a cell one format (svg.rect's text)
    xs = [_n(left + cell * s) for s in range(count)]
    ys = [_n(top + cell * r) for r in range(ranks)]
    template = RECT % ("%s", "%s", _n(cell), _n(cell), "%s", "#fff", "<title>%s, rank %d: %d cases</title>")
    shades = {}
    for s, row in enumerate(counts.tolist()):
        label = escape(names[s])
        for r, n in enumerate(row):
            if n not in shades:
                shade = 1.0 - 0.85 * n / peak
                shades[n] = shade, "#%02x%02x%02x" % (int(255 * shade), int(255 * (0.3 + 0.7 * shade)), 255)
            shade, colour = shades[n]
            svg.add(template % (xs[s], ys[r], colour, label, r + 1, n))
            if n and cell >= 18 and text_width("%d" % n, 11) < cell - 2:
                svg.text(left + cell * (s + 0.5), top + cell * (r + 0.5) + 4, "%d" % n, size=11, anchor="middle",
                         fill="#fff" if shade < 0.45 else TEXT)
    axes = Axes(svg, left, top, grid_w, grid_h, (0.5, count + 0.5), (0, 1))
    _column_labels(svg, names, axes, top + grid_h, space)
    svg.line(left, top + grid_h, left + grid_w, top + grid_h, stroke=AXIS)
    return str(svg)
