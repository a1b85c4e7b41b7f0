"""Charts as inline SVG, and error maps as images: the writers' drawing layer.

Every chart is a self-contained <svg> string: a title, axes with tick labels and axis
titles (with units), and a legend where there is more than one mark. Text is real SVG
text (selectable, any script, crisp at any zoom); every string that comes from data is
XML-escaped here, in one place. The drawing code knows no track: callers hand it numbers
and labels.

Primitives:
  line_chart(...)          curves on [x0, x1] x [y0, y1], optional shaded areas
  precision_recall(...)    raw and monotone precision, the AP area shaded
  confusion_matrix(...)    a labelled count matrix, shaded by row share
  forest(...)              one row per label: a point and its interval (scores, ranks)
  error_map_images(...)    PNGs of an error map's outcome classes (palette images)
"""

import base64
import io
import math
import re
import struct
import sys
import unicodedata
import zlib

import numpy as np

from . import bidi

FONT = "system-ui,-apple-system,'Segoe UI',Roboto,'Noto Sans',sans-serif"
TEXT = "#222"
MUTED = "#666"
GRID = "#e3e3e3"
AXIS = "#888"
BLUE = "#1f5fbf"
GREY = "#9a9a9a"
SHADE = "#cfe0f7"

_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def escape(text):
    """Text for an SVG/HTML text node or attribute: &, <, >, quotes escaped, the
    characters XML cannot hold at all (control characters) replaced by U+FFFD, and every
    run of right-to-left text isolated between FSI and PDI (bidi.py: a name keeps its own
    direction, the sentence around it its own)."""
    text = bidi.plain(_INVALID_XML.sub("\ufffd", str(text)))
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&#39;"))


#: Advance widths (em) of the ASCII characters in DejaVu Sans, the widest of the usual
#: sans-serif faces (Debian's and many Linux desktops' default; Arial, Helvetica, Segoe UI
#: and Roboto are narrower): an estimate of a text's width from them is rarely short, so
#: text laid out by it is not cut by its frame, nor shortened with much room to spare.
ASCII_WIDTHS = dict(zip(
    " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~",
    (0.318, 0.401, 0.460, 0.838, 0.636, 0.950, 0.780, 0.275, 0.390, 0.390, 0.500, 0.838, 0.318, 0.361, 0.318,
     0.337) + (0.636,) * 10 + (0.337, 0.337, 0.838, 0.838, 0.838, 0.531, 1.000, 0.684, 0.686, 0.698, 0.770,
     0.632, 0.575, 0.775, 0.752, 0.295, 0.295, 0.656, 0.557, 0.863, 0.748, 0.787, 0.603, 0.787, 0.695,
     0.635, 0.611, 0.732, 0.684, 0.989, 0.685, 0.611, 0.685, 0.390, 0.337, 0.390, 0.838, 0.500, 0.500,
     0.613, 0.635, 0.550, 0.635, 0.615, 0.352, 0.635, 0.634, 0.278, 0.278, 0.579, 0.278, 0.974, 0.634,
     0.612, 0.635, 0.635, 0.411, 0.521, 0.392, 0.634, 0.592, 0.818, 0.592, 0.592, 0.525, 0.636, 0.337,
     0.636, 0.838)))
#: Bold (titles are drawn at weight 600) widens DejaVu Sans' letters by about this much.
BOLD = 1.12


def text_width(text, size, bold=False):
    """An estimate of the width of `text` at font size `size` (px), for layout only: ASCII
    by ASCII_WIDTHS, a Latin letter with accents as its base letter, wide (East Asian)
    characters one em, combining marks and the invisible bidi controls nothing, letters
    written right to left 0.6 em, others 0.7 em."""
    width = 0.0
    for char in str(text):
        if char in ASCII_WIDTHS:
            width += ASCII_WIDTHS[char]
        elif unicodedata.combining(char) or unicodedata.category(char) == "Cf":
            continue
        elif unicodedata.east_asian_width(char) in ("W", "F"):
            width += 1.0
        else:
            base = unicodedata.normalize("NFD", char)[0]
            width += ASCII_WIDTHS.get(base, 0.6 if unicodedata.bidirectional(char) in ("R", "AL") else 0.7)
    return width * size * (BOLD if bold else 1.0)


def shorten(text, size, limit, bold=False):
    """`text` cut with an ellipsis so that it fits `limit` px at font size `size`; whole
    when it fits."""
    text = str(text)
    if text_width(text, size, bold) <= limit:
        return text
    while text and text_width(text + "\u2026", size, bold) > limit:
        text = text[:-1]
    return text + "\u2026"


def number(value, digits=4):
    """A number for display: integers without decimals, others with `digits` decimals
    (trailing zeros kept, so columns align); 'undefined' for NaN or None."""
    if value is None:
        return "undefined"
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    value = float(value)
    if not math.isfinite(value):
        return "undefined"
    if value == int(value) and abs(value) >= 10 ** digits:
        return "%d" % value
    text = "%.*f" % (digits, value)
    return "0.%s" % ("0" * digits) if text == "-0.%s" % ("0" * digits) else text


def nice_ticks(low, high, count=5):
    """About `count` round tick values covering [low, high] (1, 2, 2.5, 5 x 10^k steps)."""
    if high <= low:
        high = low + 1.0
    raw = (high - low) / float(max(1, count))
    power = 10.0 ** math.floor(math.log10(raw))
    step = next(f * power for f in (1, 2, 2.5, 5, 10) if f * power >= raw)
    first = math.ceil(low / step - 1e-9)
    last = math.floor(high / step + 1e-9)
    return [round(i * step, 10) for i in range(int(first), int(last) + 1)]


def tick_label(value, ticks):
    """A tick value with as many decimals as its step needs."""
    if len(ticks) > 1:
        step = abs(ticks[1] - ticks[0])
        decimals = max(0, -int(math.floor(math.log10(step) + 1e-9))) if step < 1 else 0
        if step < 1 and round(step * 10 ** decimals, 6) % 1:
            decimals += 1
    else:
        decimals = 2
    return "%.*f" % (decimals, value)


#: A rectangle: x, y, width, height (formatted by _n), fill, stroke, what it holds.
RECT = '<rect x="%s" y="%s" width="%s" height="%s" fill="%s" stroke="%s">%s</rect>'


class Svg(object):
    """An SVG document being drawn: elements appended as strings; str() closes it."""

    def __init__(self, width, height, title, description=""):
        self.width, self.height = int(math.ceil(width)), int(math.ceil(height))
        self.parts = []
        self.title = title
        self.description = description

    def add(self, element):
        self.parts.append(element)

    def text(self, x, y, content, size=12, anchor="start", fill=TEXT, weight=None, rotate=None,
             tooltip=None):
        attrs = 'x="%s" y="%s" font-size="%s" fill="%s"' % (_n(x), _n(y), _n(size), fill)
        if anchor != "start":
            attrs += ' text-anchor="%s"' % anchor
        if weight:
            attrs += ' font-weight="%s"' % weight
        if rotate is not None:
            attrs += ' transform="rotate(%s %s %s)"' % (_n(rotate), _n(x), _n(y))
        inner = escape(content)
        if tooltip is not None and tooltip != content:
            inner = "<title>%s</title>%s" % (escape(tooltip), inner)
        self.add("<text %s>%s</text>" % (attrs, inner))

    def line(self, x1, y1, x2, y2, stroke=AXIS, width=1, dash=None):
        extra = ' stroke-dasharray="%s"' % dash if dash else ""
        self.add('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"%s/>'
                 % (_n(x1), _n(y1), _n(x2), _n(y2), stroke, _n(width), extra))

    def rect(self, x, y, w, h, fill, stroke="none", tooltip=None):
        inner = "<title>%s</title>" % escape(tooltip) if tooltip else ""
        self.add(RECT % (_n(x), _n(y), _n(w), _n(h), fill, stroke, inner))

    def __str__(self):
        return ('<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" viewBox="0 0 %d %d" '
                'width="%d" height="%d" font-family="%s"><title>%s</title>%s%s</svg>'
                % (self.width, self.height, self.width, self.height, escape(FONT), escape(self.title),
                   "<desc>%s</desc>" % escape(self.description) if self.description else "",
                   "".join(self.parts)))


def _n(value):
    """A coordinate with at most one decimal (small files, still sub-pixel precise)."""
    text = "%.1f" % float(value)
    return text[:-2] if text.endswith(".0") else text


class Axes(object):
    """A plot area inside an Svg: linear scales from data to pixels, and its frame."""

    def __init__(self, svg, left, top, width, height, x_range, y_range):
        self.svg, self.left, self.top, self.width, self.height = svg, left, top, width, height
        self.x0, self.x1 = x_range
        self.y0, self.y1 = y_range

    def x(self, value):
        return self.left + (float(value) - self.x0) / (self.x1 - self.x0) * self.width

    def y(self, value):
        return self.top + self.height - (float(value) - self.y0) / (self.y1 - self.y0) * self.height

    def xs(self, values):
        return self.left + (np.asarray(values, dtype=float) - self.x0) / (self.x1 - self.x0) * self.width

    def ys(self, values):
        return self.top + self.height - (np.asarray(values, dtype=float) - self.y0) / (self.y1 - self.y0) * self.height

    def polyline(self, xs, ys):
        """polyline() of data points, thinned."""
        return polyline(self.xs(xs), self.ys(ys), limit=self.svg.width)

    def draw_frame(self, x_label, y_label, x_ticks=None, y_ticks=None, size=11):
        """Grid lines at the ticks, the two axes, tick labels and axis titles."""
        x_ticks = nice_ticks(self.x0, self.x1) if x_ticks is None else x_ticks
        y_ticks = nice_ticks(self.y0, self.y1) if y_ticks is None else y_ticks
        svg, bottom, right = self.svg, self.top + self.height, self.left + self.width
        for value in y_ticks:
            y = self.y(value)
            svg.line(self.left, y, right, y, stroke=GRID)
            svg.text(self.left - 5, y + size * 0.35, tick_label(value, y_ticks), size=size, anchor="end", fill=MUTED)
        for value in x_ticks:
            x = self.x(value)
            svg.line(x, self.top, x, bottom, stroke=GRID)
            svg.text(x, bottom + size + 4, tick_label(value, x_ticks), size=size, anchor="middle", fill=MUTED)
        svg.line(self.left, bottom, right, bottom)
        svg.line(self.left, self.top, self.left, bottom)
        if x_label:
            svg.text(self.left + self.width / 2.0, bottom + 2 * size + 10, x_label, size=size + 1, anchor="middle")
        if y_label:
            svg.text(self.left - 38, self.top + self.height / 2.0, y_label, size=size + 1, anchor="middle",
                     rotate=-90)


def thin(xs, ys, resolution=0.5, limit=None):
    """Pixel coordinates thinned to what can be seen: rounded to `resolution` px, repeated
    points dropped (visible), and at most `limit` points. Returns the two arrays."""
    xs, ys = _rounded(xs, resolution), _rounded(ys, resolution)
    if xs.size == 0:
        return xs, ys
    keep = np.ones(xs.size, dtype=bool)
    keep[1:] = (xs[1:] != xs[:-1]) | (ys[1:] != ys[:-1])
    return visible(xs[keep], ys[keep], limit)


def visible(xs, ys, limit=None):
    """Rounded points without a repeat, reduced to what the line shows: the points inside
    straight runs left out (the line is unchanged), then, where pixel columns hold more
    than four points each on average, only each column's first, lowest, highest and last
    (the line's extent in the column, in order). A precision/recall curve of 30,000
    images keeps under a hundred points and draws the same pixels. When more than `limit` points remain
    (a curve turning within most of its pixel columns), one point a column is kept, the
    column's extreme farther from the point kept before it, so that the line still sweeps
    each column's extent: a chart never holds more points than it has pixels across."""
    xs, ys = _thin_columns(*_straight(xs, ys))
    if limit is None or xs.size <= limit:
        return xs, ys
    starts, _, lowest, highest, first_low, first_high = _columns(xs, ys)
    chosen = [0]
    for low, high, at_low, at_high in zip(lowest.tolist(), highest.tolist(), first_low.tolist(),
                                          first_high.tolist()):
        previous = ys[chosen[-1]]
        chosen.append(at_low if abs(low - previous) >= abs(high - previous) else at_high)
    chosen = np.unique(chosen + [xs.size - 1])
    if chosen.size > limit:  # more pixel columns than the limit: evenly spaced points among them
        chosen = chosen[np.unique(np.linspace(0, chosen.size - 1, int(limit)).round().astype(np.int64))]
    return xs[chosen], ys[chosen]


def _straight(xs, ys):
    """The points without those inside a straight run: a point on the segment between its
    two neighbours, in the same direction, is left out (a run of such points is one
    segment: the drawn line is unchanged). Exact on points rounded to a multiple of half a
    pixel."""
    if xs.size < 3:
        return xs, ys
    dx, dy = np.diff(xs), np.diff(ys)
    inside = (dx[:-1] * dy[1:] == dy[:-1] * dx[1:]) & (dx[:-1] * dx[1:] + dy[:-1] * dy[1:] > 0)
    keep = np.concatenate(([True], ~inside, [True]))
    return xs[keep], ys[keep]


def _rounded(values, resolution):
    out = np.asarray(values, dtype=float) / resolution
    np.round(out, out=out)
    out *= resolution
    return out


def _thin_columns(xs, ys):
    """thin() of rounded points without a repeat: of each pixel column, the first, the
    first lowest, the first highest and the last point, when the columns hold more than
    four points each on average (else every point)."""
    starts, ends, _, _, first_low, first_high = _columns(xs, ys)
    if xs.size <= 4 * starts.size:
        return xs, ys
    order = np.unique(np.concatenate((starts, ends, first_low, first_high)))
    return xs[order], ys[order]


def _columns(xs, ys):
    """Of each run of (at least one) points in one pixel column: its first and last index,
    its lowest and highest y, and the index of its first lowest and first highest point."""
    column = np.floor(xs).astype(np.int64)
    starts = np.flatnonzero(np.concatenate(([True], column[1:] != column[:-1])))
    ends = np.concatenate((starts[1:], [xs.size])) - 1
    position = np.arange(xs.size)
    lengths = ends - starts + 1
    lowest = np.minimum.reduceat(ys, starts)
    highest = np.maximum.reduceat(ys, starts)
    first_low = np.minimum.reduceat(np.where(ys == np.repeat(lowest, lengths), position, xs.size), starts)
    first_high = np.minimum.reduceat(np.where(ys == np.repeat(highest, lengths), position, xs.size), starts)
    return starts, ends, lowest, highest, first_low, first_high


def relative_moves(xs, ys):
    """The moves between successive points as an SVG path's relative lineto arguments
    ("dx,dy dx,dy ..."): small numbers, about half the bytes of absolute points."""
    dx, dy = np.diff(xs), np.diff(ys)
    if dx.size and _halves(dx) and _halves(dy) and not (np.signbit(dx) & (dx == 0)).any() and \
            not (np.signbit(dy) & (dy == 0)).any():
        # Multiples of half a pixel below 1e5, no -0 (what thin returns): %g writes them as _n
        # does, faster; and each distinct move is written once (a curve repeats few moves).
        key = ((dx * 2).astype(np.int64) << 20) + (dy * 2).astype(np.int64)
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        texts = ["%g,%g" % move for move in zip(dx[first].tolist(), dy[first].tolist())]
        return " ".join(map(texts.__getitem__, inverse.ravel().tolist()))
    return " ".join("%s,%s" % (_n(x), _n(y)) for x, y in zip(dx.tolist(), dy.tolist()))


def _halves(values):
    return bool(np.abs(values).max() < 1e5) and bool((values * 2 == np.round(values * 2)).all())


def polyline(xs, ys, limit=None):
    """(first point, its relative moves) of a polyline through the points (pixel
    coordinates), thinned (at most `limit` points); None for no point."""
    return _polyline(*thin(xs, ys, limit=limit))


def _polyline(xs, ys):
    if xs.size == 0:
        return None
    return (xs[0], ys[0]), relative_moves(xs, ys)


def line_path(line):
    """The d attribute of a polyline (from polyline)."""
    if line is None:
        return ""
    (x, y), moves = line
    return "M%s,%s%s" % (_n(x), _n(y), "l" + moves if moves else "")


def area_path(line, base):
    """The d attribute of the region between a polyline (from polyline) and the horizontal
    line y = base."""
    if line is None:
        return ""
    (x, y), moves = line
    return "M%s,%sV%s%sV%sZ" % (_n(x), _n(base), _n(y), "l" + moves if moves else "", _n(base))


def _legend_rows(entries, width, size=10.5):
    """Legend entries (label, colour, kind) laid out in rows that fit `width` px."""
    rows, row, used = [], [], 0.0
    for entry in entries:
        need = 18 + text_width(entry[0], size) + 14
        if row and used + need > width:
            rows.append(row)
            row, used = [], 0.0
        row.append(entry)
        used += need
    if row:
        rows.append(row)
    return rows


def _legend(svg, x, y, rows, size=10.5):
    """Draw legend rows from (x, y): kind 'line', 'area' or 'dot' for each entry's swatch."""
    for row in rows:
        cursor = x
        for label, colour, kind in row:
            if kind == "area":
                svg.rect(cursor, y - size * 0.75, 14, size * 0.8, colour)
            elif kind == "dot":
                svg.add('<circle cx="%s" cy="%s" r="4" fill="%s"/>' % (_n(cursor + 7), _n(y - size * 0.35), colour))
            else:
                svg.line(cursor, y - size * 0.35, cursor + 14, y - size * 0.35, stroke=colour, width=2)
            svg.text(cursor + 18, y, label, size=size)
            cursor += 18 + text_width(label, size) + 14
        y += size + 5


def line_chart(series, title, x_label, y_label, x_range=(0.0, 1.0), y_range=(0.0, 1.0), areas=(),
               width=340, height=270, description=""):
    """Curves on a plot area with axes. series: (label, xs, ys, colour, stroke width) drawn
    in order; areas: (label, xs, ys, colour) shaded between the curve and y = y_range[0].
    The legend lists areas then series."""
    entries = [(a[0], a[3], "area") for a in areas] + [(s[0], s[3], "line") for s in series]
    legend = _legend_rows(entries, width - 20)
    height += 15.5 * (len(legend) - 1)
    svg = Svg(width, height, title, description)
    left, top, right, bottom = 52, 30, 14, 47 + 15.5 * len(legend)
    axes = Axes(svg, left, top, width - left - right, height - top - bottom, x_range, y_range)
    svg.text(width / 2.0, 18, shorten(title, 13, width - 8, bold=True), size=13, anchor="middle", weight="600",
             tooltip=title)
    axes.draw_frame(x_label, y_label)
    base = axes.y(y_range[0])
    for _, xs, ys, colour in areas:
        path = area_path(axes.polyline(xs, ys), base)
        if path:
            svg.add('<path class="area" d="%s" fill="%s"/>' % (path, colour))
    for _, xs, ys, colour, stroke in series:
        path = line_path(axes.polyline(xs, ys))
        if path:
            svg.add('<path class="curve" d="%s" fill="none" stroke="%s" stroke-width="%s" stroke-linejoin="round"/>'
                    % (path, colour, _n(stroke)))
    _legend(svg, 12, top + axes.height + 48, legend)
    return str(svg)


def precision_recall(recall, precision, envelope, title, ap=None):
    """The precision/recall chart of one ranking (metrics/ranking.py).

    recall, precision, envelope: one value per operating point, in ranking order. Grey:
    the raw precision; blue: the monotone precision joined from (0, p*_1) through each
    (r_i, p*_i), the curve whose area by the trapezoidal rule is the AP (shaded).
    """
    recall = np.asarray(recall, dtype=float)
    envelope = np.asarray(envelope, dtype=float)
    mono_x = np.concatenate(([0.0], recall))
    mono_y = np.concatenate((envelope[:1], envelope))
    label = "AP area" if ap is None else "AP area = %s" % number(ap)
    return line_chart(
        [("raw precision", recall, precision, GREY, 1.2), ("monotone precision", mono_x, mono_y, BLUE, 2)],
        title, "recall (fraction of positives found)", "precision", areas=[(label, mono_x, mono_y, SHADE)],
        description="Precision against recall over the ranking's operating points.")


#: The widest a small chart grows to hold its title whole (px).
TITLE_ROOM = 560


def confusion_matrix(cells, row_labels, column_labels, title, row_title="true class",
                     column_title="predicted class"):
    """A count matrix: rows are the truth, columns the prediction. Each cell shows its count
    and its share of the row, shaded green on the diagonal (correct) and red elsewhere,
    darker for a larger share."""
    size = 12
    label_w = max(text_width(label, size) for label in row_labels) + 12
    cell_w = max(96.0, max(text_width(label, size) for label in column_labels) + 16)
    cell_h = 50
    left = 26 + label_w
    top = 58
    n_rows, n_cols = len(row_labels), len(column_labels)
    # As wide as its title, up to TITLE_ROOM: shortened only when it cannot fit.
    width = max(left + n_cols * cell_w + 8, min(TITLE_ROOM, text_width(title, 13, bold=True) + 16))
    height = top + n_rows * cell_h + 8
    svg = Svg(width, height, title, "Rows: %s; columns: %s." % (row_title, column_title))
    svg.text(width / 2.0, 17, shorten(title, 13, width - 8, bold=True), size=13, anchor="middle", weight="600",
             tooltip=title)
    svg.text(left + n_cols * cell_w / 2.0, 36, column_title, size=size, anchor="middle", fill=MUTED)
    svg.text(14, top + n_rows * cell_h / 2.0, row_title, size=size, anchor="middle", fill=MUTED, rotate=-90)
    for c, label in enumerate(column_labels):
        svg.text(left + (c + 0.5) * cell_w, top - 7, label, size=size, anchor="middle")
    for r, label in enumerate(row_labels):
        y = top + r * cell_h
        svg.text(left - 6, y + cell_h / 2.0 + 4, label, size=size, anchor="end")
        total = sum(cells[r])
        for c in range(n_cols):
            count = cells[r][c]
            share = count / float(total) if total else 0.0
            colour = _mix((46, 139, 87) if r == c else (200, 55, 45), share * 0.75)
            svg.rect(left + c * cell_w, y, cell_w, cell_h, colour, stroke="#fff",
                     tooltip="%s %s, %s %s: %d" % (row_title, label, column_title, column_labels[c], count))
            ink = "#fff" if share > 0.55 else TEXT
            svg.text(left + (c + 0.5) * cell_w, y + cell_h / 2.0, "%d" % count, size=15, anchor="middle",
                     fill=ink, weight="600")
            svg.text(left + (c + 0.5) * cell_w, y + cell_h / 2.0 + 15, "%.0f%% of row" % (100 * share) if total
                     else "no image", size=10, anchor="middle", fill=ink)
    return str(svg)


def _mix(colour, amount):
    """`colour` blended over white by `amount` (0 white, 1 the colour), as #rrggbb."""
    return "#%02x%02x%02x" % tuple(int(round(255 - amount * (255 - v))) for v in colour)


def forest(labels, values, lows, highs, title, x_label, x_range=None, integer=False, reference=None,
           reference_label="", marks=None, width=480, description=""):
    """An interval (forest) chart: one row per label, a dot at its value and a bar over its
    interval [low, high]; rows in the given order (top to bottom).

    x_range: the axis limits (default: the data's, padded; [0, 1] suits scores); integer:
    ticks on whole numbers (ranks); reference: a value drawn as a dashed vertical line;
    marks: an optional colour per row (e.g. a podium or a group). Values that are None or
    not finite are written "undefined" at the row instead of drawn.
    """
    size = 12
    rows = len(labels)
    finite = [v for v in list(values) + list(lows) + list(highs) if v is not None and math.isfinite(float(v))]
    if x_range is None:
        low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
        pad = (high - low) * 0.05 or (1.0 if integer else 0.05)
        x_range = (low - pad, high + pad)
        if integer:
            x_range = (math.floor(x_range[0]), math.ceil(x_range[1]))
    label_w = min(220.0, max([text_width(label, size) for label in labels] + [40]) + 10)
    value_w = 58
    left, right, top, row_h = label_w + 8, value_w + 10, 44, 22
    bottom = 48
    height = top + rows * row_h + bottom
    svg = Svg(width, height, title, description or "One row per %s: point and 95%% interval." % "item")
    svg.text(width / 2.0, 18, shorten(title, 13, width - 8, bold=True), size=13, anchor="middle", weight="600",
             tooltip=title)
    axes = Axes(svg, left, top, width - left - right, rows * row_h, x_range, (0, rows))
    if integer:
        span = x_range[1] - x_range[0]
        step = max(1, int(math.ceil(span / 8.0)))
        ticks = list(range(int(math.ceil(x_range[0] / float(step)) * step), int(x_range[1]) + 1, step))
    else:
        ticks = nice_ticks(x_range[0], x_range[1])
    ticks = [t for t in ticks if x_range[0] - 1e-9 <= t <= x_range[1] + 1e-9]
    for i in range(rows):
        if i % 2 == 0:
            svg.rect(left, top + i * row_h, axes.width, row_h, "#f6f7f9")
    axes.draw_frame(x_label, None, x_ticks=ticks, y_ticks=[])
    if reference is not None:
        x = axes.x(reference)
        svg.line(x, top, x, top + rows * row_h, stroke="#b44", dash="4 3")
        if reference_label:
            svg.text(x, top - 5, reference_label, size=10, anchor="middle", fill="#b44")
    for i, label in enumerate(labels):
        y = top + (i + 0.5) * row_h
        svg.text(left - 6, y + 4, shorten(label, size, label_w - 4), size=size, anchor="end", tooltip=label)
        value, low, high = values[i], lows[i], highs[i]
        colour = (marks[i] if marks else None) or BLUE
        defined = all(v is not None and math.isfinite(float(v)) for v in (value, low, high))
        if not defined:
            svg.text(left + 6, y + 4, "undefined", size=11, fill=MUTED)
            continue
        tip = "%s: %s [%s, %s]" % (label, number(value), number(low), number(high))
        svg.add('<g><title>%s</title><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="3" '
                'stroke-linecap="round" opacity="0.55"/><circle cx="%s" cy="%s" r="4.5" fill="%s"/></g>'
                % (escape(tip), _n(axes.x(low)), _n(y), _n(axes.x(high)), _n(y), colour,
                   _n(axes.x(value)), _n(y), colour))
        shown = "%d" % round(value) if integer and float(value) == round(value) else number(value, 3)
        svg.text(width - right + 6, y + 4, shown, size=11, fill=MUTED)
    return str(svg)


def data_uri(png):
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def png_bytes(image, fast=False, bits=None):
    """PNG bytes of an image: zlib level 1 if fast, else the smallest; bits: the bit depth
    of a palette image's pixels (1, 2, 4 or 8; its palette's first 2**bits colours)."""
    options = {"compress_level": 1} if fast else {"optimize": True}
    if bits is not None:
        options["bits"] = bits
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", **options)
    return buffer.getvalue()


# The error map's colours and words, one per outcome code of metrics.segmentation: the
# legend, the map's palette and the per-page tables' column names all come from here.
# (code, name as in the tables, RGB, what it means)
ERROR_MAP_OUTCOMES = (
    (1, "correct", (0, 158, 115), "ground-truth line detected (precision and recall >= the threshold)"),
    (2, "missed", (0, 90, 200), "ground-truth line missed (no match, or recall below the threshold)"),
    (3, "imprecise", (235, 165, 0), "ground-truth line found (recall >= the threshold) by a prediction whose "
                                     "precision is below it: not missed, but that prediction counts as extra"),
    (4, "extra", (225, 50, 30), "pixels of a predicted line counted as extra, outside the line it is matched to "
                                "(every other pixel where it covers another ground-truth line)"),
    (5, "outside, not counted", (185, 185, 185), "predicted pixels outside the ground truth, of a line not "
                                                 "counted as extra"),
    (6, "not counted", (140, 200, 235), "ground-truth line without any overlapping prediction: the official "
                                        "FEST 2025 script counts it nowhere"),
)
ERROR_MAP_BACKGROUND = (255, 255, 255)
#: Largest side of the map embedded in the page; the full size goes to private/.
PREVIEW_SIDE = 1008
#: Bits a pixel of an error map's PNG: its codes 0..6 fit in 4 (PNG's depths: 1, 2, 4, 8).
ERROR_MAP_BITS = 4


def error_map_palette():
    """The 768-entry palette of an error map image: index = outcome code."""
    palette = list(ERROR_MAP_BACKGROUND)
    for code, _, colour, _ in ERROR_MAP_OUTCOMES:
        assert len(palette) == 3 * code
        palette += list(colour)
    return palette + [0] * (768 - len(palette))


def outcome_name(code):
    return dict((c, name) for c, name, _, _ in ERROR_MAP_OUTCOMES)[code]


def outcome_colour(code):
    return "#%02x%02x%02x" % dict((c, colour) for c, _, colour, _ in ERROR_MAP_OUTCOMES)[code]


def downscale_classes(classes, factor):
    """An outcome map shrunk by an integer factor: each block of factor x factor pixels
    takes its most frequent outcome other than background (ties: the higher code, so
    errors win), or background if it has no line pixel; blocks mixing extra pixels and a
    ground-truth line alternate between the two. Thin lines stay visible and every pixel
    keeps an exact legend colour (no blended shades)."""
    if factor <= 1:
        return classes
    height, width = classes.shape
    h, w = -(-height // factor), -(-width // factor)
    codes = len(ERROR_MAP_OUTCOMES) + 1
    # One bincount over (code, block) pairs, code-major: counts[code] is a row over the
    # blocks, so that every reduction below runs over a few long rows, not many short ones.
    # (Padding past the map's edge would only add background, which is never counted.)
    block = ((np.arange(height) // factor) * w)[:, None] + (np.arange(width) // factor)[None, :]
    counts = np.bincount((classes.astype(np.int64) * (h * w) + block).ravel(),
                         minlength=codes * h * w).reshape(codes, h * w)
    # The most frequent code, ties to the higher code: the largest count * 8 + code.
    key = counts[1:] * 8 + np.arange(1, codes)[:, None]
    best = key.max(axis=0) % 8
    best[counts[1:].sum(axis=0) == 0] = 0
    # A block where extra pixels lie over a ground-truth line keeps the full map's
    # checkerboard: every other block shows the line's own outcome (the most frequent of
    # correct, missed, imprecise, not counted; ties to the first), so it stays visible.
    line_codes = np.array([1, 2, 3, 6])
    lines = counts[line_codes]
    own = line_codes[3 - (lines * 4 + np.arange(3, -1, -1)[:, None]).max(axis=0) % 4]
    mixed = (counts[4] > 0) & (lines.sum(axis=0) > 0)
    parity = ((np.arange(h)[:, None] + np.arange(w)[None, :]) % 2 == 1).ravel()
    best[mixed & parity] = own[mixed & parity]
    return best.astype(np.uint8).reshape(h, w)


def error_map_images(classes, preview=True):
    """(full-size PNG, preview) of an outcome map: palette images in the legend's exact
    colours, pixel = outcome code; preview (when asked for) is (PNG, width, height), at most
    PREVIEW_SIDE px."""
    palette = error_map_palette()
    full = palette_png(classes, palette, ERROR_MAP_BITS)
    if not preview:
        return full, None
    from PIL import Image

    factor = max(1, -(-max(classes.shape) // PREVIEW_SIDE))
    small = downscale_classes(classes, factor)
    image = Image.fromarray(np.ascontiguousarray(small))
    image.putpalette(palette)
    return full, (png_bytes(image, bits=ERROR_MAP_BITS), small.shape[1], small.shape[0])


def palette_png(indices, palette, bits):
    """PNG bytes of a palette image, written here for speed (Pillow's writer took twice
    the time): indices (uint8, 2-D, each below 2**bits) packed `bits` (1, 2, 4 or 8) a
    pixel, rows unfiltered, zlib level 1; palette: R, G, B of each index (its first
    2**bits colours are written)."""
    height, width = indices.shape
    per_byte = 8 // bits
    padded = -(-width // per_byte) * per_byte
    pixels = np.asarray(indices, dtype=np.uint8)
    if padded != width:
        pixels = np.zeros((height, padded), dtype=np.uint8)
        pixels[:, :width] = indices
    rows = np.empty((height, 1 + padded // per_byte), dtype=np.uint8)
    rows[:, 0] = 0  # each row's filter type: none
    packed = rows[:, 1:]
    if bits == 4:  # two pixels a byte, the first in the high bits: a pass over byte pairs
        pairs = np.ascontiguousarray(pixels).view(np.uint16)
        high, low = (pairs, pairs >> 8) if sys.byteorder == "little" else (pairs >> 8, pairs)
        combined = high << 4
        combined |= low
        np.copyto(packed, combined, casting="unsafe")  # the low byte of each
    else:
        np.left_shift(pixels[:, 0::per_byte], 8 - bits, out=packed)  # the first pixel in the high bits
        for k in range(1, per_byte):
            np.bitwise_or(packed, pixels[:, k::per_byte] << (8 - bits * (k + 1)), out=packed)
    compressor = zlib.compressobj(1)
    data = compressor.compress(rows) + compressor.flush()
    colours = bytes(bytearray(palette[:3 * (1 << bits)]))
    return b"".join([b"\x89PNG\r\n\x1a\n",
                     _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bits, 3, 0, 0, 0)),
                     _png_chunk(b"PLTE", colours), _png_chunk(b"IDAT", data), _png_chunk(b"IEND", b"")])


def _png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
