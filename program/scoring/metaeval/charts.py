"""The report's charts, drawn with the SVG primitives of scoring/charts.py: the interval
(forest) chart comes from there; here the blob plot of bootstrap rank distributions,
challengeR's podium plot and a significance map. Each function returns an <svg> string;
none grows with the square of the number of submissions except the significance map,
which is drawn for the first MAP_LIMIT submissions by rank."""

import numpy as np

from ..charts import BLUE, GRID, MUTED, Axes, Svg, escape, forest, nice_ticks, shorten, text_width

__all__ = ["forest", "blob", "podium", "significance_map", "MAP_LIMIT"]

SIZE = 11
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
MAP_LIMIT = 40


def _label_space(labels):
    return min(180.0, max([text_width(label, SIZE) for label in labels] + [30]) + 10)


def _column_labels(svg, labels, left, column, top):
    """Names under columns, rotated, shortened to the space kept for them."""
    space = _label_space(labels)
    for i, label in enumerate(labels):
        x = left + column * (i + 0.5)
        svg.text(x + 4, top + 6, shorten(label, SIZE, space - 6), size=SIZE, anchor="end", rotate=-90,
                 tooltip=label)
    return space


def blob(names, frequency, median, low, high, title):
    """Columns: submissions in leaderboard order; rows: ranks (1 at the top). A disc's area
    is the share of bootstrap resamples giving that rank; the black dot is the median rank,
    the line its 95% interval. Only drawn ranks cost: linear in the submissions when ranks
    are stable."""
    count = len(names)
    column = 18.0 if count <= 40 else 9.0
    left, top = 58.0, 34.0
    plot = column * count
    space = _label_space(names)
    svg = Svg(left + plot + 12, top + plot + space + 12, title,
              "Per submission, the share of bootstrap resamples giving each rank.")
    svg.text((left + plot) / 2.0 + 6, 18, title, size=13, anchor="middle", weight="600")
    axes = Axes(svg, left, top, plot, plot, (0.5, count + 0.5), (count + 0.5, 0.5))
    ticks = [t for t in nice_ticks(1, count) if float(t).is_integer() and 1 <= t <= count] or [1]
    axes.draw_frame(None, "rank", x_ticks=[], y_ticks=ticks)
    for s in range(count):
        x = axes.x(s + 1)
        ranks = np.flatnonzero(frequency[s] > 0)
        discs = "".join('<circle cx="%.1f" cy="%.1f" r="%.2f"/>' % (
            x, axes.y(r + 1), max(0.6, 0.5 * column * np.sqrt(frequency[s][r]))) for r in ranks)
        svg.add('<g fill="%s" fill-opacity="0.55"><title>%s: median rank %g, 95%% interval %d to %d</title>%s</g>'
                % (BLUE, escape(names[s]), median[s], low[s], high[s], discs))
        svg.line(x, axes.y(low[s]), x, axes.y(high[s]), stroke="#000", width=1.2)
        svg.add('<circle cx="%.1f" cy="%.1f" r="2.2" fill="#000"/>' % (x, axes.y(median[s])))
    _column_labels(svg, names, left, column, top + plot)
    return str(svg)


def podium(names, order, task_values, tasks, axis_label, title):
    """challengeR's podium: column i holds the submission ranked i-th on the leaderboard;
    a dot per task (stratum) at its value there, dots of one task joined across columns."""
    count = len(order)
    column = 22.0 if count <= 40 else 10.0
    left, top, plot_h = 56.0, 34.0, 200.0
    plot_w = column * count
    legend = min(len(tasks), 20)
    legend_w = 20 + max([text_width(t, SIZE) for t in tasks[:legend]] + [0])
    space = _label_space([names[s] for s in order])
    svg = Svg(left + plot_w + legend_w + 16, top + plot_h + space + 12, title,
              "Per-stratum values of each submission, submissions in leaderboard order.")
    svg.text((left + plot_w) / 2.0 + 6, 18, title, size=13, anchor="middle", weight="600")
    lo, hi = 0.0, 1.0
    if task_values.size:
        lo, hi = min(0.0, float(task_values.min())), max(1.0, float(task_values.max()))
    axes = Axes(svg, left, top, plot_w, plot_h, (0, count), (lo, hi))
    axes.draw_frame(None, axis_label, x_ticks=[])
    for t, task in enumerate(tasks):
        colour = PALETTE[t % len(PALETTE)]
        xs = [axes.x(i + 0.5) for i in range(count)]
        ys = [axes.y(task_values[s, t]) for s in order]
        svg.add('<polyline points="%s" fill="none" stroke="%s" stroke-opacity="0.45"/>'
                % (" ".join("%.1f,%.1f" % p for p in zip(xs, ys)), colour))
        svg.add("".join('<circle cx="%.1f" cy="%.1f" r="2.6" fill="%s"/>' % (x, y, colour) for x, y in zip(xs, ys)))
        if t < legend:
            y = top + 14 * t
            svg.rect(left + plot_w + 10, y, 10, 10, colour)
            svg.text(left + plot_w + 24, y + 9, task, size=SIZE)
    if len(tasks) > legend:
        svg.text(left + plot_w + 10, top + 14 * legend + 9, "... %d strata" % len(tasks), size=SIZE, fill=MUTED)
    _column_labels(svg, [names[s] for s in order], left, column, top + plot_h)
    return str(svg)


def significance_map(names, better, title):
    """Cell (row, column): green if the row is significantly better than the column, red if
    worse, white if they cannot be told apart. At most MAP_LIMIT submissions (given in
    leaderboard order, the first ones are drawn)."""
    shown = names[:MAP_LIMIT]
    count = len(shown)
    cell = 18.0 if count <= 20 else 11.0
    space = _label_space(shown)
    left, top = space + 6, 30 + space
    svg = Svg(left + cell * count + 10, top + cell * count + 10, title,
              "Green: the row is significantly better than the column; red: worse; white: undecided.")
    svg.text((left + cell * count) / 2.0, 18, title, size=13, anchor="middle", weight="600")
    for j, name in enumerate(shown):
        svg.text(left + cell * (j + 0.5) + 4, top - 4, shorten(name, SIZE, space - 6), size=SIZE, rotate=-90,
                 tooltip=name)
    for i, name in enumerate(shown):
        svg.text(left - 4, top + cell * (i + 0.5) + 4, shorten(name, SIZE, space - 6), size=SIZE, anchor="end",
                 tooltip=name)
        for j in range(count):
            colour = "#eee" if i == j else ("#7fc97f" if better[i, j] else "#f0a0a0" if better[j, i] else "#fff")
            svg.rect(left + cell * j, top + cell * i, cell, cell, colour, stroke=GRID)
    return str(svg)
