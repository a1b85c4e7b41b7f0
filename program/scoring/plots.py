"""Pillow drawing helpers of the meta-evaluation's raster pictures (metaeval/charts.py).

The participant's page draws no text with Pillow: its charts are SVG (charts.py)."""

import io

from PIL import ImageFont

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


def font():
    return ImageFont.load_default()


def text_size(draw, text):
    """Width and height of `text` in the default font (Pillow 6 has textsize only)."""
    if hasattr(draw, "textbbox"):
        left, top, right, bottom = draw.textbbox((0, 0), text, font=font())
        return right - left, bottom - top
    return draw.textsize(text, font=font())


def centered_text(draw, box, text, fill=BLACK):
    width, height = text_size(draw, text)
    x = box[0] + (box[2] - box[0] - width) // 2
    y = box[1] + (box[3] - box[1] - height) // 2
    draw.text((x, y), text, fill=fill, font=font())
