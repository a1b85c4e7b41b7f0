"""The report's charts as inline SVG (text selectable, crisp at any zoom, no dependency):
an interval (forest) chart, a blob plot of bootstrap rank distributions, a podium plot of
per-stratum values and a significance map. Each function returns an <svg> string."""

import html

import numpy as np

FONT = 12
ROW = 18
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf")
MAP_LIMIT = 40  # submissions drawn in a significance map (the first by rank)


def _escape(text):
    return html.escape(str(text), quote=True)


def _svg(width, height, title, body):
    return ('<svg viewBox="0 0 %d %d" width="%d" height="%d" role="img" '
            'aria-label="%s" style="max-width:100%%;height:auto" font-family="sans-serif" font-size="%d">'
            '<title>%s</title>%s</svg>' % (width, height, width, height, _escape(title), FONT, _escape(title),
                                           "".join(body)))


def _text(x, y, text, anchor="start", size=None, weight=None, rotate=None):
    extra = ' font-size="%d"' % size if size else ""
    extra += ' font-weight="%s"' % weight if weight else ""
    extra += ' transform="rotate(%d %g %g)"' % (rotate, x, y) if rotate is not None else ""
    return '<text x="%g" y="%g" text-anchor="%s"%s>%s</text>' % (x, y, anchor, extra, _escape(text))


def _line(x1, y1, x2, y2, colour="#000", width=1, dash=None):
    extra = ' stroke-dasharray="%s"' % dash if dash else ""
    return '<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="%g"%s/>' % (
        x1, y1, x2, y2, colour, width, extra)


def _label_width(labels):
    return min(220, 12 + int(0.62 * FONT * max([len(str(label)) for label in labels] + [4])))


def _ticks(low, high, count=5):
    if high <= low:
        high = low + 1e-9
    step = 10 ** np.floor(np.log10((high - low) / count))
    for factor in (1, 2, 5, 10):
        if (high - low) / (step * factor) <= count:
            step *= factor
            break
    start = np.ceil(low / step) * step
    return [round(v, 10) for v in np.arange(start, high + step * 1e-9, step)]


def forest(names, values, low, high, axis_label, title):
    """One row per submission (in the given order): the score as a dot, its interval as a bar."""
    left = _label_width(names)
    width, plot = left + 360, 340
    top, bottom = 24, 36
    height = top + ROW * len(names) + bottom
    lo, hi = float(np.min(low)), float(np.max(high))
    margin = max((hi - lo) * 0.05, 1e-3)
    lo, hi = lo - margin, hi + margin

    def x(v):
        return left + (float(v) - lo) / (hi - lo) * plot
    body = [_text(width / 2, 14, title, "middle", weight="bold")]
    base = top + ROW * len(names)
    for tick in _ticks(lo, hi):
        body.append(_line(x(tick), top, x(tick), base, "#ddd"))
        body.append(_text(x(tick), base + 14, "%g" % tick, "middle"))
    body.append(_line(left, base, left + plot, base, "#444"))
    body.append(_text(left + plot / 2, base + 30, axis_label, "middle"))
    for i, name in enumerate(names):
        y = top + ROW * i + ROW / 2
        body.append(_text(left - 6, y + 4, name, "end"))
        body.append(_line(x(low[i]), y, x(high[i]), y, "#1f77b4", 2))
        body.append('<circle cx="%g" cy="%g" r="3.5" fill="#000"/>' % (x(values[i]), y))
    return _svg(width, height, title, body)


def blob(names, frequency, median, low, high, title):
    """Columns: submissions in leaderboard order; rows: ranks (1 at the top). A disc's area
    is the share of bootstrap resamples giving that rank; the black dot is the median rank,
    the line its 95% interval."""
    size = len(names)
    cell = 16 if size <= 40 else 8
    left, top = 40, 24
    label_height = _label_width(names)
    width = left + cell * size + 10
    height = top + cell * size + label_height + 24
    body = [_text(width / 2, 14, title, "middle", weight="bold")]
    body.append(_text(12, top + cell * size / 2, "rank", "middle", rotate=-90))
    for r in range(0, size, max(1, size // 10)):
        body.append(_text(left - 4, top + cell * r + cell / 2 + 4, str(r + 1), "end"))
    for s, name in enumerate(names):
        cx = left + cell * s + cell / 2
        body.append(_line(cx, top, cx, top + cell * size, "#eee"))
        for r in np.flatnonzero(frequency[s] > 0):
            radius = 0.5 * cell * np.sqrt(frequency[s][r])
            body.append('<circle cx="%g" cy="%g" r="%.2f" fill="#1f77b4" fill-opacity="0.6"/>'
                        % (cx, top + cell * r + cell / 2, max(radius, 0.6)))
        body.append(_line(cx, top + cell * (low[s] - 0.5), cx, top + cell * (high[s] - 0.5), "#000"))
        body.append('<circle cx="%g" cy="%g" r="2" fill="#000"/>' % (cx, top + cell * (median[s] - 0.5)))
        body.append(_text(cx + 4, top + cell * size + 6, name, "end", rotate=-90))
    return _svg(width, height, title, body)


def podium(names, order, task_values, tasks, axis_label, title):
    """challengeR's podium: column i holds the submission ranked i-th on the leaderboard;
    a dot per task (stratum) at its value there, dots of one task joined across columns."""
    size = len(order)
    left, top, plot_h = 48, 24, 200
    column = 22 if size <= 40 else 10
    label_height = _label_width(names)
    width = left + column * size + 140
    height = top + plot_h + label_height + 30
    lo, hi = 0.0, 1.0
    if task_values.size:
        lo, hi = min(0.0, float(task_values.min())), max(1.0, float(task_values.max()))

    def y(v):
        return top + plot_h - (float(v) - lo) / (hi - lo) * plot_h
    body = [_text(width / 2, 14, title, "middle", weight="bold")]
    for tick in _ticks(lo, hi):
        body.append(_line(left, y(tick), left + column * size, y(tick), "#eee"))
        body.append(_text(left - 4, y(tick) + 4, "%g" % tick, "end"))
    body.append(_text(12, top + plot_h / 2, axis_label, "middle", rotate=-90))
    for t, task in enumerate(tasks):
        colour = PALETTE[t % len(PALETTE)]
        points = " ".join("%g,%g" % (left + column * i + column / 2, y(task_values[s, t])) for i, s in enumerate(order))
        body.append('<polyline points="%s" fill="none" stroke="%s" stroke-opacity="0.5"/>' % (points, colour))
        for i, s in enumerate(order):
            body.append('<circle cx="%g" cy="%g" r="2.5" fill="%s"/>' % (left + column * i + column / 2,
                                                                       y(task_values[s, t]), colour))
        if t < 20:
            body.append('<rect x="%g" y="%g" width="10" height="10" fill="%s"/>' % (
                left + column * size + 10, top + 14 * t, colour))
            body.append(_text(left + column * size + 24, top + 14 * t + 9, task))
    for i, s in enumerate(order):
        body.append(_text(left + column * i + column / 2 + 4, top + plot_h + 8, names[s], "end", rotate=-90))
    return _svg(width, height, title, body)


def significance_map(names, better, title):
    """Cell (row, column): green if the row is significantly better than the column, red if
    worse, white if they cannot be told apart. At most MAP_LIMIT submissions (given in
    leaderboard order, the first ones are drawn)."""
    shown = names[:MAP_LIMIT]
    size = len(shown)
    cell = 16 if size <= 20 else 10
    left = _label_width(shown)
    top = 24 + left
    width = left + cell * size + 10
    height = top + cell * size + 10
    body = [_text(width / 2, 14, title, "middle", weight="bold")]
    for j, name in enumerate(shown):
        body.append(_text(left + cell * j + cell / 2 + 4, top - 4, name, "start", rotate=-90))
    for i, name in enumerate(shown):
        body.append(_text(left - 4, top + cell * i + cell / 2 + 4, name, "end"))
        for j in range(size):
            colour = "#eee" if i == j else ("#7fc97f" if better[i, j] else "#f0a0a0" if better[j, i] else "#fff")
            body.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#ccc"/>'
                        % (left + cell * j, top + cell * i, cell, cell, colour))
    return _svg(width, height, title, body)
