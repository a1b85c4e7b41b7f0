"""Small pictures drawn with Pillow (no matplotlib on the runtime floor)."""

import base64
import io

from PIL import Image, ImageDraw, ImageFont

WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
GREY = (160, 160, 160)
GREEN = (0, 170, 0)
RED = (220, 0, 0)
BLUE = (0, 0, 230)


def png_bytes(image):
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def data_uri(png):
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def font():
    return ImageFont.load_default()


def drawable(text):
    """`text` as the default bitmap font can draw it: Pillow 6's encodes it as Latin-1 and
    raises on anything else (a subset named in Greek or Arabic), so other characters
    become '?'."""
    return text.encode("latin-1", "replace").decode("latin-1")


def text_size(draw, text):
    """Width and height of `text` in the default font (Pillow 6 has textsize only)."""
    text = drawable(text)
    if hasattr(draw, "textbbox"):
        left, top, right, bottom = draw.textbbox((0, 0), text, font=font())
        return right - left, bottom - top
    return draw.textsize(text, font=font())


def centered_text(draw, box, text, fill=BLACK):
    text = drawable(text)
    width, height = text_size(draw, text)
    x = box[0] + (box[2] - box[0] - width) // 2
    y = box[1] + (box[3] - box[1] - height) // 2
    draw.text((x, y), text, fill=fill, font=font())


def confusion_matrix(cells, row_labels, column_labels, title):
    """A 2x2 confusion matrix: cells[r][c] counts, shaded by their share of the row.

    Rows are the truth, columns the prediction; the diagonal (correct) is green,
    the rest red, the shade proportional to the fraction of the row's images.
    """
    cell_w, cell_h, left, top = 120, 56, 110, 46
    image = Image.new("RGB", (left + 2 * cell_w + 10, top + 2 * cell_h + 30), WHITE)
    draw = ImageDraw.Draw(image)
    centered_text(draw, (0, 0, image.size[0], 18), title)
    centered_text(draw, (left, 18, left + 2 * cell_w, 32), "predicted")
    for c, label in enumerate(column_labels):
        centered_text(draw, (left + c * cell_w, 30, left + (c + 1) * cell_w, top), label)
    for r, label in enumerate(row_labels):
        y0 = top + r * cell_h
        centered_text(draw, (0, y0, left, y0 + cell_h), "true " + label)
        total = sum(cells[r])
        for c in range(2):
            share = cells[r][c] / float(total) if total else 0.0
            base = GREEN if r == c else RED
            colour = tuple(int(255 - share * (255 - v) * 0.6) for v in base)
            box = (left + c * cell_w, y0, left + (c + 1) * cell_w - 1, y0 + cell_h - 1)
            draw.rectangle(box, fill=colour, outline=GREY)
            centered_text(draw, box, "%d (%.0f%%)" % (cells[r][c], 100 * share))
    return png_bytes(image)
