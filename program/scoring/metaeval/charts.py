"""The report's pictures, drawn with Pillow: rank frequencies, a significance matrix,
a heat map of protocol agreement."""

from PIL import Image, ImageDraw

from ..plots import BLACK, GREY, WHITE, centered_text, drawable, png_bytes, text_size


def _label_width(draw, labels):
    return max([text_size(draw, str(label))[0] for label in labels] + [20]) + 10


def _grid(row_labels, columns, cell, title, paint):
    """A titled grid: one row per label, `columns` numbered cells per row; paint(draw,
    box, i, j) fills cell (i, j)."""
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    left = _label_width(probe, row_labels)
    top = 40
    image = Image.new("RGB", (left + columns * cell + 10, top + len(row_labels) * cell + 10), WHITE)
    draw = ImageDraw.Draw(image)
    centered_text(draw, (0, 0, image.size[0], 18), title)
    for j in range(columns):
        centered_text(draw, (left + j * cell, 20, left + (j + 1) * cell, top), str(j + 1))
    for i, label in enumerate(row_labels):
        y0 = top + i * cell
        draw.text((4, y0 + cell // 2 - 5), drawable(str(label)), fill=BLACK)
        for j in range(columns):
            paint(draw, (left + j * cell, y0, left + (j + 1) * cell - 1, y0 + cell - 1), i, j)
    return png_bytes(image)


def rank_frequencies(names, frequency, title):
    """One row per submission, one cell per rank; the cell's darkness is the share of
    bootstrap resamples that gave the submission that rank."""
    def paint(draw, box, s, r):
        share = float(frequency[s][r])
        shade = int(255 - 215 * share)
        draw.rectangle(box, fill=(shade, shade, 255), outline=GREY)
        if share >= 0.05:
            centered_text(draw, box, "%d" % round(100 * share), fill=WHITE if share > 0.5 else BLACK)
    return _grid(names, len(names), 28 if len(names) <= 20 else 18, title, paint)


def matrix(names, values, title, colour_of, text_of):
    """A square matrix picture: colour_of(i, j) and text_of(i, j) per cell (diagonal blank)."""
    def paint(draw, box, i, j):
        if i == j:
            draw.rectangle(box, fill=(235, 235, 235), outline=GREY)
            return
        draw.rectangle(box, fill=colour_of(i, j), outline=GREY)
        centered_text(draw, box, text_of(i, j))
    labels = ["%d %s" % (i + 1, name) for i, name in enumerate(names)]
    return _grid(labels, len(names), 34 if len(names) <= 20 else 22, title, paint)


def significance_matrix(names, p_holm, values, alpha=0.05):
    """Green: the row is significantly better than the column; red: worse; white: no
    significant difference (Holm-adjusted p >= alpha). Cells show the adjusted p."""
    def colour(i, j):
        if p_holm[i][j] >= alpha:
            return WHITE
        return (150, 220, 150) if values[i] > values[j] else (240, 160, 160)

    def text(i, j):
        return "<.01" if p_holm[i][j] < 0.01 else "%.2f" % p_holm[i][j]
    return matrix(names, p_holm, "Holm-adjusted p (row vs column)", colour, text)


def agreement_heatmap(names, tau):
    """Kendall's tau-b between the rankings of every two scores: dark = agree."""
    def colour(i, j):
        shade = int(255 - 200 * max(0.0, float(tau[i][j])))
        return (255, shade, shade) if tau[i][j] < 0 else (shade, shade, 255)

    def text(i, j):
        return "%.2f" % tau[i][j]
    return matrix(names, tau, "Kendall tau-b between rankings", colour, text)
