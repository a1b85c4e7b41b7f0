"""Reader of the lines track (FEST): ground-truth masks and predicted instance maps.

Finds the pages, validates names and sizes, and decodes images into canonical arrays:
a boolean mask for the ground truth, a colour-key array for a prediction (0 the
background, otherwise R<<16 | G<<8 | B, or the grey value of a 16-bit label image).
It never scores.
"""

import os

import numpy as np
from PIL import Image

from ..errors import ReferenceDataError, SubmissionError

EXTENSIONS = (".png", ".tif", ".tiff", ".bmp")
JPEG = (".jpg", ".jpeg", ".jpe", ".jfif")
BLACK = 0


class Page(object):
    """One ground-truth page: manuscript, stem (the page name), file and mask."""

    def __init__(self, manuscript, stem, filename):
        self.manuscript = manuscript
        self.stem = stem
        self.filename = filename


class Prediction(object):
    """A decoded prediction: colour keys (0 background) and notes for the fest2025 protocol.

    transparent_colour: some transparent pixels are not black (the official script, which
    ignores alpha, would see them as lines); sixteen_bit: a 16-bit or 32-bit grey image
    (the official script reduces it to 8 bits).
    """

    def __init__(self, colours, transparent_colour=False, sixteen_bit=False):
        self.colours = colours
        self.transparent_colour = transparent_colour
        self.sixteen_bit = sixteen_bit

    @property
    def foreground(self):
        return self.colours != BLACK


def manuscripts(track):
    """The manuscripts of a track: its sub-directories that hold pages, sorted."""
    names = [name for name in sorted(os.listdir(track.path))
             if os.path.isdir(os.path.join(track.path, name)) and not name.startswith(".")]
    found = [name for name in names if _page_files(os.path.join(track.path, name))]
    if not found:
        raise ReferenceDataError(
            "%s holds no <manuscript>/<page>.png ground-truth masks; expected e.g. Latin2/page01.png."
            % track.label)
    return found


def _page_files(directory):
    return [name for name in sorted(os.listdir(directory))
            if os.path.splitext(name)[1].lower() in EXTENSIONS and not name.startswith(".")]


def ground_truth_pages(track):
    """Pages per manuscript, in sorted order: [(manuscript, [Page, ...]), ...]."""
    out = []
    for manuscript in manuscripts(track):
        pages, seen = [], {}
        for filename in _page_files(os.path.join(track.path, manuscript)):
            stem = os.path.splitext(filename)[0]
            if stem in seen:
                raise ReferenceDataError("%s and %s name the same page; keep one ground-truth mask per page." % (
                    track.ref_name(manuscript, seen[stem]), track.ref_name(manuscript, filename)))
            seen[stem] = filename
            pages.append(Page(manuscript, stem, filename))
        out.append((manuscript, pages))
    return out


def _open(path, shown, error, shape=None):
    """Open an image, check its size against `shape` (height, width) from the header
    alone, then decode it: an image claiming a huge size is refused before decoding."""
    try:
        image = Image.open(path)
    except Exception as exc:  # Pillow raises many types for a broken or unknown file
        raise _unreadable(shown, exc, error, path)
    if image.format in ("JPEG", "MPO"):
        raise error("%s is a JPEG image (whatever its name says); JPEG is refused because its lossy compression "
                    "changes colours and splits lines: save the map as PNG, TIFF or BMP." % shown)
    if shape is not None:
        width, height = image.size
        if (height, width) != tuple(shape):
            raise error("%s is %dx%d pixels but the ground-truth page is %dx%d (width x height); "
                        "predict at the size of the page." % (shown, width, height, shape[1], shape[0]))
    try:
        image.load()
    except Exception as exc:
        raise _unreadable(shown, exc, error, path)
    return image


def _unreadable(shown, exc, error, path):
    """Pillow's message names the file by its path on the scoring machine: shown instead."""
    reason = (str(exc).strip() or type(exc).__name__).replace("'%s'" % path, shown).replace(path, shown)
    return error("%s cannot be read as an image (%s); save it as an uncompressed or PNG-compressed "
                 "image (.png, .tif, .tiff or .bmp)." % (shown, reason))


def read_ground_truth(track, page):
    """The ground-truth mask of a page: nonzero pixels (any channel) are text-line pixels."""
    shown = track.ref_name(page.manuscript, page.filename)
    image = _open(os.path.join(track.path, page.manuscript, page.filename), shown, ReferenceDataError)
    if image.mode == "P":
        image = image.convert("RGB")
    if image.mode not in ("1", "L", "LA", "RGB", "RGBA", "I;16", "I;16B", "I;16L", "I", "F"):
        image = image.convert("RGB")
    array = np.asarray(image)
    if array.ndim == 3:
        channels = array.shape[2]
        array = array[..., :3] if channels >= 3 else array[..., :1]
        return array.any(axis=2)
    return array != 0


def find_prediction(submission, page):
    """The file name of a page's prediction in the submission (JPEG refused)."""
    entries = submission.entries(page.manuscript)
    if not entries and not submission.isdir(page.manuscript):
        raise submission.missing(page.manuscript + "/" + page.stem + ".png",
                                 "a folder %s/ with one prediction per page of manuscript %s"
                                 % (page.manuscript, page.manuscript))
    candidates = [name for name in entries if os.path.splitext(name)[0] == page.stem]
    usable = [name for name in candidates if os.path.splitext(name)[1].lower() in EXTENSIONS]
    jpeg = [name for name in candidates if os.path.splitext(name)[1].lower() in JPEG]
    if len(usable) > 1:
        raise SubmissionError("The submission holds both %s and %s for the same page; keep one." % (
            submission.name(page.manuscript, usable[0]), submission.name(page.manuscript, usable[1])))
    if usable:
        return usable[0]
    if jpeg:
        raise SubmissionError(
            "%s is a JPEG; JPEG is refused because its lossy compression changes colours and splits "
            "lines: save the instance map as .png, .tif, .tiff or .bmp." % submission.name(page.manuscript, jpeg[0]))
    lower = [name for name in entries if os.path.splitext(name)[0].lower() == page.stem.lower()]
    if lower:
        raise SubmissionError("The submission has %s but the page is named %s (file names are case-sensitive)."
                              % (submission.name(page.manuscript, lower[0]), page.stem))
    return None


def read_prediction(submission, page, filename, shape):
    """Decode a page's prediction into colour keys, refusing a size other than the ground truth's."""
    shown = submission.name(page.manuscript, filename)
    image = _open(submission.path(page.manuscript, filename), shown, SubmissionError, shape)
    return decode_instance_map(image, shown)


def decode_instance_map(image, shown):
    """Colour keys of an instance map: RGB/RGBA colours, grey labels or a binary mask."""
    mode = image.mode
    transparent_colour = False
    if mode == "P":
        transparency = image.info.get("transparency")
        image = image.convert("RGBA" if transparency is not None else "RGB")
        mode = image.mode
    elif mode in ("PA", "RGBX", "RGBa"):
        image = image.convert("RGBA")
        mode = image.mode
    if mode == "1":
        return Prediction(np.where(np.asarray(image), 0xFFFFFF, 0).astype(np.uint32))
    if mode in ("L", "LA"):
        array = np.asarray(image)
        grey = (array[..., 0] if array.ndim == 3 else array).astype(np.uint32)
        if mode == "LA":
            transparent = array[..., 1] == 0
            transparent_colour = bool(np.any(transparent & (grey != 0)))
            grey[transparent] = 0
        return Prediction(grey * 0x010101, transparent_colour)
    if mode in ("I;16", "I;16B", "I;16L", "I"):
        array = np.asarray(image).astype(np.int64)
        if array.min() < 0:
            raise SubmissionError("%s holds negative labels; a grey label image uses 0 for the background and "
                                  "positive numbers for lines." % shown)
        return Prediction(array, sixteen_bit=True)
    if mode in ("RGB", "RGBA"):
        array = np.asarray(image)
        rgb = array[..., :3].astype(np.uint32)
        colours = (rgb[..., 0] << 16) | (rgb[..., 1] << 8) | rgb[..., 2]
        if mode == "RGBA":
            transparent = array[..., 3] == 0
            transparent_colour = bool(np.any(transparent & (colours != 0)))
            colours[transparent] = 0
        return Prediction(colours, transparent_colour)
    raise SubmissionError("%s has the image mode %s; expected an RGB/RGBA colour image, an 8- or 16-bit grey "
                          "label image or a binary mask." % (shown, mode))
