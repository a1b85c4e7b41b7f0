"""Reader of the lines track (FEST): ground-truth masks and predicted instance maps.

Finds the pages, validates names and sizes, and decodes images into their canonical
form, horizontal runs (runs.Runs): of the mask for the ground truth (or of its colour keys,
with track.yaml's ground_truth: instances), of the colour keys for a prediction
(R<<16 | G<<8 | B, or the grey value of a 16-bit label image; 0 the background). It
never scores.
"""

import os
import sys

import numpy as np
from PIL import Image

from .. import memory, names, runs
from ..errors import ReferenceDataError, SubmissionError
from ..layout import check_regular
from ..memory import memory_guard

EXTENSIONS = (".png", ".tif", ".tiff", ".bmp")
JPEG = (".jpg", ".jpeg", ".jpe", ".jfif")


class Page(object):
    """One ground-truth page: manuscript, stem (the page name), file and mask."""

    def __init__(self, manuscript, stem, filename):
        self.manuscript = manuscript
        self.stem = stem
        self.filename = filename


class Prediction(object):
    """A decoded prediction: the Runs of its colour keys and notes for the fest2025 protocol.

    transparent_colour: some transparent pixels are not black (the official script, which
    ignores alpha and tRNS, would see them as lines); sixteen_bit: a 16-bit or 32-bit grey
    image, or 16 bits per colour channel (the official script reduces it to 8 bits).
    """

    def __init__(self, runs, transparent_colour=False, sixteen_bit=False):
        self.runs = runs
        self.transparent_colour = transparent_colour
        self.sixteen_bit = sixteen_bit


def manuscripts(track):
    """The manuscripts of a track: its sub-directories that hold pages, sorted."""
    folders = [name for name in sorted(os.listdir(track.path))
               if os.path.isdir(os.path.join(track.path, name)) and not name.startswith(".")
               and not names.is_litter(name)]
    found = [name for name in folders if _page_files(os.path.join(track.path, name))]
    if not found:
        raise ReferenceDataError(
            "%s holds no <manuscript>/<page>.png ground-truth masks; expected e.g. Manuscript_A/page01.png."
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


#: Bytes a decoded page may take per pixel: Pillow's image, the colour keys, the labels
#: of the components and the overlap table's work arrays, with a margin.
BYTES_PER_PIXEL = 48


#: A page that Pillow could not open or decode for lack of memory.
_DECODING = "%s: decoding it needs more memory than the scoring machine has."


def image_format(head):
    """The format that an image's first bytes announce: PNG, TIFF, BMP, JPEG or None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "TIFF"
    if head[:2] == b"BM":
        return "BMP"
    if head[:3] == b"\xff\xd8\xff":
        return "JPEG"
    return None


def _open(path, shown, error, shape=None):
    """Open an image whose first bytes say PNG, TIFF or BMP (whatever its name says), and
    check its size from the header alone: against `shape` (height, width) and against the
    memory left. Nothing is decoded: a file that Pillow would recognise as another format
    (an ICO holding a huge PNG is decoded inside Image.open) never reaches Pillow."""
    check_regular(path, shown, error)
    try:
        with open(path, "rb") as stream:
            head = stream.read(16)
    except (OSError, IOError) as exc:
        raise error("%s cannot be read (%s)." % (shown, exc.strerror or exc))
    kind = image_format(head)
    if kind == "JPEG":
        raise error("%s is a JPEG image (whatever its name says); JPEG is refused because its lossy compression "
                    "changes colours and splits lines: save the map as PNG, TIFF or BMP." % shown)
    if kind is None:
        raise error("%s cannot be read as an image: its first bytes (%r) are not those of a PNG, TIFF or BMP "
                    "file; save it as .png, .tif, .tiff or .bmp." % (shown, head[:8]))
    try:  # Pillow reads the chunks before a PNG's pixels as it opens it
        with memory_guard(_DECODING % shown, error):
            image = Image.open(path)
    except error:
        raise
    except Exception as exc:  # Pillow raises many types for a broken or unknown file
        raise _unreadable(shown, exc, error, path)
    if image.format != kind:
        raise _unreadable(shown, "read as %s" % image.format, error, path)
    width, height = image.size
    if shape is not None and (height, width) != tuple(shape):
        raise error("%s is %dx%d pixels but the ground-truth page is %dx%d (width x height); "
                    "predict at the size of the page." % (shown, width, height, shape[1], shape[0]))
    if not memory.fits(width * height * BYTES_PER_PIXEL):
        raise error("%s is %dx%d pixels, more than the memory the scoring machine has left can decode; "
                    "check its size." % (shown, width, height))
    return image


def _load(image, shown, error):
    try:
        with memory_guard(_DECODING % shown, error):
            image.load()
    except error:
        raise
    except Exception as exc:
        raise _unreadable(shown, exc, error, getattr(image, "filename", None))
    return image


#: Modes that Pillow can decode straight into an array of ours (no copy afterwards), with
#: the array's dtype: its memory holds a byte a pixel (1: 0 or 255), or for RGB four bytes
#: a pixel, R, G, B and padding.
DIRECT_MODES = {"1": np.uint8, "L": np.uint8, "RGB": np.uint32}


def _load_pixels(image, shown, error, name):
    """Decode an opened image; return its pixels as an array when its mode is one of
    DIRECT_MODES and Pillow decoded it straight into that array (a scratch array called
    `name`, reused from page to page: use it before the next page), else None (the image
    is then decoded in Pillow's own memory, as by _load).

    Pillow decodes into the memory an image already has if its size and mode fit; an
    array is given that memory through Image.core.map_buffer, the call Image.frombuffer
    makes. Its signature changed in Pillow 7, and Pillow 13 maps a mode 1 image only as L
    (the same bytes); whatever a Pillow version does instead (another signature, a copy,
    memory of its own), the result is checked: only pixels decoded into the array itself
    are returned.
    """
    dtype = DIRECT_MODES.get(image.mode)
    core = None
    if dtype is not None:
        width, height = image.size
        array = runs.scratch(name, (height, width), dtype)
        core = _map(array, image.mode, (width, height))
        if core is not None:
            try:
                image.im = core
            except (AttributeError, TypeError):
                core = None
    _load(image, shown, error)
    if core is None or image.im is not core:
        return None
    return array


def _packed_png(image):
    """Whether an opened image is a binary PNG (1 bit a pixel, not interlaced) that
    _load_bits may decode."""
    if image.format != "PNG" or image.mode != "1" or image.info.get("interlace") or len(image.tile) != 1:
        return False
    tile = image.tile[0]
    return tile[0] == "zip" and tuple(tile[1]) == (0, 0) + tuple(image.size) and tile[3] in ("1", ("1",))


def _load_bits(image, shown, error):
    """The pixels of a binary PNG (_packed_png) as Pillow leaves them unpacked: rows of
    bytes, 8 pixels each (numpy.packbits order), each row followed by a zero byte and its
    bits past the image's width zeroed (runs.encode_bits' form); or None, if this Pillow
    would not decode into that array (the image must then be opened again).

    The PNG's rows are inflated and unfiltered as those of an 8-bit grey image a byte a
    pixel: PNG filters work on bytes, a byte at a time for either, so the bytes are the
    file's own. This skips Pillow's unpacking to a byte a pixel (and a pass over 8 times
    as many bytes to find the runs)."""
    width, height = image.size
    size = -(-width // 8)
    array = runs.scratch("ground truth bits", (height, size + 1), np.uint8)
    core = _map(array, "L", (size, height))
    if core is None:
        return None
    tile = image.tile[0]
    try:
        image.tile = [tile._replace(extents=(0, 0, size, height), args="L") if hasattr(tile, "_replace")
                      else (tile[0], (0, 0, size, height), tile[2], "L")]
        try:
            image.mode = "L"
        except AttributeError:  # Pillow 10 and later: a read-only property
            image._mode = "L"
        image._size = (size, height)
        image.im = core
    except (AttributeError, TypeError, ValueError):
        return None
    if image.mode != "L" or image.size != (size, height):
        return None
    _load(image, shown, error)
    if image.im is not core:
        return None
    array[:, size] = 0
    if width % 8:
        array[:, size - 1] &= (0xFF << (8 - width % 8)) & 0xFF
    return array


def _map(array, mode, size):
    """A Pillow image core of `mode` whose pixels are array's memory, or None."""
    stride = array.strides[0]
    for as_mode in (mode, "L") if mode == "1" else (mode,):
        args = (as_mode, stride, 1)
        for extra in ((0,), (None, 0)):  # (offset) in recent Pillow, (bounding box, offset) in Pillow 6
            try:
                return Image.core.map_buffer(array, size, "raw", *(extra + (args,)))
            except (AttributeError, TypeError, ValueError):
                continue
    return None


#: Why a file whose first bytes are an image's could not be decoded, in the program's words:
#: Pillow's own message for one broken file differs between its versions ("Truncated File
#: Read" in Pillow 11, "Unsupported BMP header type" in 6.1 for the same cut BMP).
_UNDECODED = "its data are damaged, cut short, or compressed in a way the program does not decode"


def _unreadable(shown, exc, error, path=None):
    """The refusal of a file Pillow could not open or decode: in the program's words
    (_UNDECODED), but for a decompression bomb, whose size Pillow states from the header
    alone (its path, the scoring machine's, replaced by the name shown)."""
    if isinstance(exc, str):
        reason = exc
    elif isinstance(exc, Image.DecompressionBombError):
        reason = str(exc).strip()
        if path:
            reason = reason.replace("'%s'" % path, shown).replace(path, shown)
    else:
        reason = _UNDECODED
    return error("%s cannot be read as an image (%s); save it as an uncompressed or PNG-compressed "
                 "image (.png, .tif, .tiff or .bmp)." % (shown, reason))


def _sixteen_bit_rawmode(image):
    """The raw mode of a 16-bit-per-channel colour image not yet decoded (Pillow decodes
    it to 8 bits a channel, the high bytes), or None."""
    if image.mode not in ("RGB", "RGBA") or len(image.tile) != 1:
        return None
    args = image.tile[0][3]
    rawmode = args if isinstance(args, str) else (args[0] if args and isinstance(args[0], str) else None)
    if rawmode in ("RGB;16B", "RGB;16L", "RGBA;16B", "RGBA;16L"):
        return rawmode
    return None


def _low_bytes(path, rawmode, shown, error):
    """The low bytes of each 16-bit sample: the same file decoded with the other byte
    order, so that Pillow's 8-bit reduction keeps the byte it otherwise drops."""
    other = rawmode[:-1] + ("L" if rawmode.endswith("B") else "B")
    image = Image.open(path)
    tile = image.tile[0]
    args = other if isinstance(tile[3], str) else (other,) + tuple(tile[3][1:])
    image.tile = [(tile[0], tile[1], tile[2], args)]
    return np.asarray(_load(image, shown, error))


def palette_size(image):
    """Colours in a palette image's palette, read before decoding (Pillow pads it later)."""
    palette = image.palette
    if palette is None or not palette.palette:
        return 256
    rawmode = (palette.rawmode or palette.mode or "RGB").split(";")[0]
    return len(palette.palette) // max(1, len(rawmode))


def official_grey(image):
    """The ground truth as the official FEST script reads it, OpenCV's 8-bit greyscale
    (cv2.imread(path, 0)): 16-bit samples reduced to their high byte, colour converted by
    cv2.cvtColor's fixed-point rule Y = (4899 R + 9617 G + 1868 B + 8192) >> 14 (0.299,
    0.587, 0.114 in 14-bit fixed point, rounded), alpha dropped."""
    mode = image.mode
    if mode in ("I;16", "I;16B", "I;16L", "I"):
        return (np.asarray(image).astype(np.int64) >> 8).clip(0, 255).astype(np.uint8)
    if mode in ("1", "L"):
        return np.asarray(image.convert("L"))
    if mode == "LA":
        return np.asarray(image)[..., 0]
    rgb = np.asarray(image if mode == "RGB" else image.convert("RGB")).astype(np.uint32)
    return ((rgb[..., 0] * 4899 + rgb[..., 1] * 9617 + rgb[..., 2] * 1868 + 8192) >> 14).astype(np.uint8)


def read_ground_truth(track, page, official=False, instances=False):
    """The ground truth of a page as Runs: by default a mask (value 1), nonzero pixels
    (any channel) being text-line pixels; with `instances` (track.yaml's ground_truth:
    instances) an instance map read as a prediction is (read_instance_map): each colour or
    grey value a class of lines, so that touching lines of different values stay apart.

    official: also the mask as the official FEST script reads it (nonzero in OpenCV's
    8-bit grey, official_grey); the result is then (ground truth, official mask), the
    same object twice where they are equal.
    """
    shown = track.ref_name(page.manuscript, page.filename)
    path = os.path.join(track.path, page.manuscript, page.filename)
    if instances:
        lines = read_instance_map(path, shown, ReferenceDataError, scratch="ground truth").runs
        return (lines, _read_mask(path, shown, True)[1]) if official else lines
    return _read_mask(path, shown, official)


def mask_values(track, page):
    """The distinct nonzero values of a page's ground truth read as an instance map (an
    RGB colour or a grey level each): more than one in a mask means lines annotated one
    value each, which ground_truth: mask merges where they touch."""
    shown = track.ref_name(page.manuscript, page.filename)
    path = os.path.join(track.path, page.manuscript, page.filename)
    values = read_instance_map(path, shown, ReferenceDataError, scratch="ground truth").runs.value
    return int(np.unique(values).size)


def _read_mask(path, shown, official):
    image = _open(path, shown, ReferenceDataError)
    if _packed_png(image):
        width = image.size[0]
        bits = _load_bits(image, shown, ReferenceDataError)
        if bits is not None:
            # A binary mask reads the same through OpenCV's grey: the mask itself.
            mask = runs.encode_bits(bits, width)
            return (mask, mask) if official else mask
        image = _open(path, shown, ReferenceDataError)  # afresh: the attempt changed its mode and size
    pixels = _load_pixels(image, shown, ReferenceDataError, "ground truth")
    # A binary or 8-bit grey mask reads the same through OpenCV's grey: the mask itself.
    if pixels is not None and image.mode in ("1", "L"):
        mask = runs.encode(pixels, _nonzero)
        return (mask, mask) if official else mask
    grey = official_grey(image) != 0 if official and image.mode not in ("1", "L") else None
    if image.mode == "P":
        image = image.convert("RGB")
    if image.mode not in ("1", "L", "LA", "RGB", "RGBA", "I;16", "I;16B", "I;16L", "I", "F"):
        image = image.convert("RGB")
    array = np.asarray(image)
    if array.ndim == 3:
        channels = array.shape[2]
        array = array[..., :3] if channels >= 3 else array[..., :1]
        array = array.any(axis=2)
    mask = runs.encode(array, _nonzero)
    if not official:
        return mask
    return mask, (mask if grey is None else runs.encode(grey))


def _nonzero(values):
    return values != 0


def find_prediction(submission, page):
    """The file name of a page's prediction in its manuscript's folder of the submission,
    or None (a JPEG, or two files for the page, refused)."""
    candidates = submission.with_stem(page.stem, page.manuscript)
    usable = [name for name in candidates if os.path.splitext(name)[1].lower() in EXTENSIONS]
    jpeg = [name for name in candidates if os.path.splitext(name)[1].lower() in JPEG]
    if len(usable) > 1:
        raise SubmissionError("The submission holds both %s and %s for the same page; keep one." % (
            submission.name(page.manuscript, usable[0]), submission.name(page.manuscript, usable[1])))
    if usable:
        return usable[0]
    folders = [name for name in submission.folders(page.manuscript) if os.path.splitext(name)[1].lower() in EXTENSIONS
               and names.canonical(os.path.splitext(name)[0]) == names.canonical(page.stem)]
    if folders:  # a folder named as the page's file ('extract to a folder')
        submission.refuse_folder((page.manuscript, folders[0]))
    if jpeg:
        raise SubmissionError(
            "%s is a JPEG; JPEG is refused because its lossy compression changes colours and splits "
            "lines: save the instance map as .png, .tif, .tiff or .bmp." % submission.name(page.manuscript, jpeg[0]))
    return None


def read_prediction(path, shown, shape):
    """Decode a page's prediction (the file at path, named shown in sentences) into colour
    keys, refusing a size other than the ground truth's."""
    return read_instance_map(path, shown, SubmissionError, shape)


def read_instance_map(path, shown, error, shape=None, scratch="prediction"):
    """The Prediction of an instance map file (decode_instance_map), of size `shape` if
    given; `scratch` names the array a directly decoded image goes into (runs.scratch)."""
    image = _open(path, shown, error, shape)
    colours = palette_size(image) if image.mode == "P" else None
    rawmode = _sixteen_bit_rawmode(image)
    if rawmode:
        _load(image, shown, error)
        return decode_instance_map(image, shown, colours, _low_bytes(path, rawmode, shown, error), error)
    pixels = _load_pixels(image, shown, error, scratch)
    if pixels is not None:
        return _decoded_instance_map(pixels, image.mode, image.info.get("transparency"))
    return decode_instance_map(image, shown, colours, error=error)


def _decoded_instance_map(pixels, mode, transparency):
    """The Prediction of pixels decoded straight into an array (_load_pixels): their runs
    are found on the raw values, and the colour keys computed per run."""
    noted = []

    def keys(values):
        if mode == "RGB":
            # Memory order R, G, B, padding: one little- or big-endian word.
            words = values.astype(np.int64)
            if sys.byteorder == "little":
                colours = (words & 0xFF) << 16 | (words & 0xFF00) | (words >> 16 & 0xFF)
            else:
                colours = words >> 8 & 0xFFFFFF
            if isinstance(transparency, tuple) and len(transparency) == 3 and max(transparency) < 256:
                r, g, b = (int(v) for v in transparency)
                transparent = colours == (r << 16 | g << 8 | b)
            else:
                transparent = None
        else:
            grey = values.astype(np.int64)
            colours = np.where(grey != 0, 0xFFFFFF, 0) if mode == "1" else grey * 0x010101
            transparent = _transparent_value(grey, transparency) if mode == "L" else None
        if transparent is not None:
            noted.append(bool(np.any(transparent & (colours != 0))))
            colours[transparent] = 0
        return colours

    page = runs.encode(pixels, keys)
    return Prediction(page, transparent_colour=any(noted))


def decode_instance_map(image, shown, palette_colours=None, low=None, error=SubmissionError):
    """The Prediction of an instance map: RGB/RGBA colours, grey labels or a binary mask.

    palette_colours: the size of a palette image's palette (from palette_size before
    decoding); an index beyond it is refused, as PNG forbids it and Pillow versions read
    it differently. low: the low bytes of a 16-bit-per-channel colour image, whose colours
    are then kept exact (R << 32 | G << 16 | B of the 16-bit samples).
    PNG transparency (tRNS) counts: a pixel of the transparent colour or grey is background.
    """
    colours, transparent_colour, sixteen_bit = instance_colours(image, shown, palette_colours, low, error)
    return Prediction(runs.encode(colours), transparent_colour, sixteen_bit)


def instance_colours(image, shown, palette_colours=None, low=None, error=SubmissionError):
    """(colour keys, transparent_colour, sixteen_bit) of a decoded instance map: a colour
    key per pixel, 0 the background (decode_instance_map)."""
    mode = image.mode
    transparent_colour = False
    transparency = image.info.get("transparency")
    if mode == "P":
        if palette_colours is not None:
            indices = np.asarray(image)
            largest = int(indices.max()) if indices.size else 0
            if largest >= palette_colours:
                raise error("%s uses the palette index %d but its palette has %d colours; save it with "
                            "every pixel's colour in the palette (or as RGB)." % (shown, largest, palette_colours))
        image = image.convert("RGBA" if transparency is not None else "RGB")
        mode = image.mode
        transparency = None
    elif mode in ("PA", "RGBX", "RGBa"):
        image = image.convert("RGBA")
        mode = image.mode
    if mode == "1":
        return np.where(np.asarray(image), 0xFFFFFF, 0).astype(np.uint32), False, False
    if mode in ("L", "LA"):
        array = np.asarray(image)
        grey = (array[..., 0] if array.ndim == 3 else array).astype(np.uint32)
        transparent = array[..., 1] == 0 if mode == "LA" else _transparent_value(grey, transparency)
        if transparent is not None:
            transparent_colour = bool(np.any(transparent & (grey != 0)))
            grey[transparent] = 0
        return grey * 0x010101, transparent_colour, False
    if mode in ("I;16", "I;16B", "I;16L", "I"):
        array = np.asarray(image).astype(np.int64)
        if array.min() < 0:
            raise error("%s holds negative labels; a grey label image uses 0 for the background and "
                        "positive numbers for lines." % shown)
        transparent = _transparent_value(array, transparency)
        if transparent is not None:
            transparent_colour = bool(np.any(transparent & (array != 0)))
            array[transparent] = 0
        return array, transparent_colour, True
    if mode in ("RGB", "RGBA"):
        array = np.asarray(image) if mode == "RGBA" or low is not None else None
        if low is not None:
            rgb = (array[..., :3].astype(np.int64) << 8) | low[..., :3]
            colours = (rgb[..., 0] << 32) | (rgb[..., 1] << 16) | rgb[..., 2]
            alpha = (array[..., 3].astype(np.int64) << 8 | low[..., 3]) if mode == "RGBA" else None
        else:
            colours = _colour_keys(array if mode == "RGBA" else np.asarray(image.convert("RGBX")))
            alpha = array[..., 3] if mode == "RGBA" else None
        if alpha is not None:
            transparent = alpha == 0
        elif isinstance(transparency, tuple) and len(transparency) == 3:
            r, g, b = (int(v) for v in transparency)
            key = (r << 32 | g << 16 | b) if low is not None else ((r & 255) << 16 | (g & 255) << 8 | (b & 255))
            transparent = colours == key if max(r, g, b) < (65536 if low is not None else 256) else None
        else:
            transparent = None
        if transparent is not None:
            transparent_colour = bool(np.any(transparent & (colours != 0)))
            colours[transparent] = 0
        return colours, transparent_colour, low is not None
    raise error("%s has the image mode %s; expected an RGB/RGBA colour image, an 8- or 16-bit grey "
                "label image or a binary mask." % (shown, mode))


def _colour_keys(array):
    """R << 16 | G << 8 | B of an (height, width, 4) uint8 array of R, G, B and a fourth
    byte: its pixels read as 4-byte integers, most significant byte first, shifted right by
    8 (two passes over the page, instead of a product per channel)."""
    words = array.view(np.uint32).reshape(array.shape[:2])
    keys = words.byteswap() if sys.byteorder == "little" else words.copy()
    keys >>= 8
    return keys


def _transparent_value(values, transparency):
    """Where a grey image has its tRNS grey value (PNG transparency), or None."""
    if isinstance(transparency, int) and not isinstance(transparency, bool):
        return values == transparency
    return None
