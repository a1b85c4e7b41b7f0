"""Pages as runs: decoding straight into arrays, run encoding and the components of runs.

The decoded runs are checked against colour keys computed here from the saved pixels
(R << 16 | G << 8 | B, SPEC section 4), on both of the reader's paths: Pillow decoding
into an array of ours (modes 1, L and RGB), and Pillow's own memory (every other mode,
and any Pillow that does not decode into the array).
"""

import os
import struct
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from scoring import runs
from scoring.errors import SubmissionError
from scoring.metrics import segmentation as seg
from scoring.readers import lines as reader


class Folder(object):
    """A track's folder, as the reader uses it."""

    def __init__(self, root):
        self.path = str(root)

    def name(self, manuscript, filename):
        return "%s/%s" % (manuscript, filename)

    ref_name = name


def save(root, image, filename, **options):
    os.makedirs(os.path.join(str(root), "M"), exist_ok=True)
    image.save(os.path.join(str(root), "M", filename), **options)
    return reader.Page("M", os.path.splitext(filename)[0], filename)


def read_prediction(root, image, filename, **options):
    save(root, image, filename, **options)
    return reader.read_prediction(os.path.join(str(root), "M", filename), "M/" + filename,
                                  (image.size[1], image.size[0]))


def read_ground_truth(root, image, filename, official=False):
    page = save(root, image, filename)
    return reader.read_ground_truth(Folder(root), page, official)


def expected_runs(keys):
    """(start, stop, value) of the maximal runs of one nonzero key, pixel by pixel."""
    height, width = keys.shape
    start, stop, value = [], [], []
    for y in range(height):
        x = 0
        while x < width:
            end = x
            while end < width and keys[y, end] == keys[y, x]:
                end += 1
            if keys[y, x] != 0:
                start.append(y * width + x)
                stop.append(y * width + end)
                value.append(int(keys[y, x]))
            x = end
    return start, stop, value


def as_lists(page):
    return page.start.tolist(), page.stop.tolist(), page.value.tolist()


def rgb_keys(rgb):
    rgb = rgb.astype(np.int64)
    return rgb[..., 0] << 16 | rgb[..., 1] << 8 | rgb[..., 2]


def instance_map(seed, height=9, width=13):
    """Five colours, black among them, with runs longer than a pixel."""
    rng = np.random.RandomState(seed)
    palette = np.array([[0, 0, 0], [200, 10, 10], [10, 200, 10], [1, 2, 3], [255, 255, 255]], dtype=np.uint8)
    ids = rng.randint(0, 5, size=(height, width))
    ids[:, 3:7] = ids[:, 3:4]
    return palette[ids]


@pytest.fixture(params=["direct", "pillow"])
def path(request, monkeypatch):
    """Both decoding paths: into our array, and (map_buffer unavailable) Pillow's memory."""
    if request.param == "pillow":
        monkeypatch.setattr(reader, "_map", lambda array, mode, size: None)
    return request.param


@pytest.mark.parametrize("filename", ["p.png", "p.bmp", "p.tif"])
def test_colour_prediction(tmp_path, path, filename):
    rgb = instance_map(1)
    prediction = read_prediction(tmp_path, Image.fromarray(rgb, "RGB"), filename)
    assert as_lists(prediction.runs) == expected_runs(rgb_keys(rgb))
    assert not prediction.transparent_colour and not prediction.sixteen_bit


def test_colour_prediction_with_a_transparent_colour(tmp_path, path):
    rgb = instance_map(2)
    # tRNS names (1, 2, 3) transparent: background, noted as a transparent colour that is not black.
    prediction = read_prediction(tmp_path, Image.fromarray(rgb, "RGB"), "p.png", transparency=(1, 2, 3))
    keys = rgb_keys(rgb)
    keys[keys == 0x010203] = 0
    assert as_lists(prediction.runs) == expected_runs(keys)
    assert prediction.transparent_colour


def test_grey_and_binary_predictions(tmp_path, path):
    grey = np.array([[0, 7, 7, 9, 0, 0], [9, 9, 0, 0, 7, 255]], dtype=np.uint8)
    prediction = read_prediction(tmp_path, Image.fromarray(grey), "grey.png", transparency=9)
    keys = grey.astype(np.int64) * 0x010101
    keys[grey == 9] = 0  # the tRNS grey is background
    assert as_lists(prediction.runs) == expected_runs(keys)
    assert prediction.transparent_colour
    binary = Image.fromarray(np.where(grey == 255, 255, 0).astype(np.uint8)).convert("1")
    prediction = read_prediction(tmp_path, binary, "binary.png")
    assert as_lists(prediction.runs) == expected_runs(np.where(grey == 255, 0xFFFFFF, 0))


@pytest.mark.parametrize("mode", ["1", "L", "RGB"])
def test_ground_truth_masks(tmp_path, path, mode):
    grey = np.array([[0, 255, 255, 0], [255, 40, 255, 255], [0, 0, 2, 1]], dtype=np.uint8)
    image = Image.fromarray(grey)
    if mode == "RGB":
        image = Image.fromarray(np.dstack([grey, np.zeros_like(grey), np.zeros_like(grey)]), "RGB")
    elif mode == "1":
        image = Image.fromarray(np.where(grey == 255, 255, 0).astype(np.uint8)).convert("1")
    mask, official = read_ground_truth(tmp_path, image, "gt.png", official=True)
    line = grey == 255 if mode == "1" else grey != 0
    assert as_lists(mask) == expected_runs(line.astype(np.int64))
    if mode == "RGB":
        # OpenCV's grey of red r is (4899 r + 8192) >> 14: 0 for r = 1, 1 for r = 2, 12 for r = 40.
        assert as_lists(official) == expected_runs((line & (grey > 1)).astype(np.int64))
    else:
        assert official is mask


def test_direct_decoding_is_taken_for_its_modes(tmp_path):
    # The fast path is what the benchmark measures: on this Pillow it must decode into the array.
    for mode, image in [("1", Image.new("1", (5, 3), 1)), ("L", Image.new("L", (5, 3), 9)),
                        ("RGB", Image.new("RGB", (5, 3), (1, 2, 3)))]:
        save(tmp_path, image, "d.png")
        opened = Image.open(os.path.join(str(tmp_path), "M", "d.png"))
        pixels = reader._load_pixels(opened, "M/d.png", SubmissionError, "test")
        assert pixels is not None and pixels.shape == (3, 5), mode


def test_binary_ground_truth_is_decoded_packed(tmp_path):
    # The benchmark's ground truth: a 1-bit PNG decodes on this Pillow as packed bytes.
    save(tmp_path, Image.new("1", (13, 3), 1), "b.png")
    opened = Image.open(os.path.join(str(tmp_path), "M", "b.png"))
    assert reader._packed_png(opened)
    bits = reader._load_bits(opened, "M/b.png", SubmissionError)
    assert bits is not None and bits.shape == (3, 3)
    assert (bits == [[255, 0xF8, 0]] * 3).all()  # 13 pixels, the padding bits and the zero byte after


def binary_png(rows, width):
    """A 1-bit grey PNG written by hand: rows of packed bytes, unfiltered, as given (padding
    bits included, which PNG leaves unspecified)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + bytes(bytearray(row)) for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, len(rows), 1, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


@pytest.mark.parametrize("width", [5, 8, 16, 21])
def test_binary_ground_truth_with_padding_bits_set(tmp_path, path, width):
    rng = np.random.RandomState(width)
    size = -(-width // 8)
    rows = rng.randint(0, 256, size=(6, size))
    rows[0] = 255  # every pixel and every padding bit set
    rows[1] = 0
    os.makedirs(os.path.join(str(tmp_path), "M"))
    with open(os.path.join(str(tmp_path), "M", "g.png"), "wb") as stream:
        stream.write(binary_png(rows.tolist(), width))
    mask = reader.read_ground_truth(Folder(tmp_path), reader.Page("M", "g", "g.png"))
    pixels = np.unpackbits(rows.astype(np.uint8), axis=1)[:, :width]  # PNG: the first pixel in the high bit
    assert as_lists(mask) == expected_runs(pixels.astype(np.int64))


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 5), st.integers(1, 25), st.data())
def test_runs_of_packed_bits(height, width, data):
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=height * width, max_size=height * width)))
    mask = mask.reshape(height, width)
    extra = data.draw(st.integers(1, 3))  # zero bytes after each row: at least one
    rows = np.zeros((height, -(-width // 8) + extra), dtype=np.uint8)
    packed = np.packbits(mask, axis=1)
    rows[:, :packed.shape[1]] = packed
    assert as_lists(runs.encode_bits(rows, width)) == expected_runs(mask.astype(np.int64))


def test_encode_merges_equal_keys_and_drops_the_background():
    values = np.array([[5, 6, 6, 0, 8], [8, 1, 2, 2, 0]])
    # Keys: 5 and 6 both 1 (one run of 3 pixels), 8 is 2, 1 and 2 both 0 (background).
    page = runs.encode(values, lambda v: np.array([0, 0, 0, 0, 0, 1, 1, 0, 2])[v])
    assert as_lists(page) == ([0, 4, 5], [3, 5, 6], [1, 2, 2])
    # A run never crosses a row's end, even with equal keys either side of it.
    page = runs.encode(np.array([[0, 1], [1, 0]]))
    assert as_lists(page) == ([1, 2], [2, 3], [1, 1])
    assert runs.area(page) == 2
    assert runs.encode(np.zeros((0, 4))).start.size == 0


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.data())
def test_runs_and_their_areas_and_masks(height, width, data):
    a = np.array(data.draw(st.lists(st.integers(0, 3), min_size=height * width, max_size=height * width)))
    b = np.array(data.draw(st.lists(st.integers(0, 2), min_size=height * width, max_size=height * width)))
    a, b = a.reshape(height, width), b.reshape(height, width)
    page_a, page_b = runs.encode(a), runs.encode(b)
    assert as_lists(page_a) == expected_runs(a)
    assert runs.area(page_a) == np.count_nonzero(a)
    assert runs.shared_area(page_a, page_b) == np.count_nonzero((a != 0) & (b != 0))
    shape, bits = runs.packed_mask(page_a)
    assert shape == (height, width)
    assert (np.unpackbits(bits)[:a.size].reshape(shape) == (a != 0)).all()
    assert (runs.paint(page_a, page_a.value, np.int64) == a).all()
    # Both ways of painting one-byte values: one repeat, or four pixels at a time and then
    # the runs' ends one by one (numpy 1.x), at every alignment of the runs to 4-byte words.
    bytewise = runs._BYTEWISE_REPEAT
    try:
        for runs._BYTEWISE_REPEAT in (False, True):
            for width_shift in range(4):
                shifted = np.pad(a, ((0, 0), (width_shift, 0)), mode="constant")
                page = runs.encode(shifted)
                assert (runs.paint(page, page.value.astype(np.uint8), np.uint8, background=9)
                        == np.where(shifted != 0, shifted, 9)).all()
                assert (runs.paint(page, True, bool) == (shifted != 0)).all()
    finally:
        runs._BYTEWISE_REPEAT = bytewise


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 30), st.data())
def test_smallest_connected_is_the_smallest_node_of_each_component(n, data):
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    edges = sorted(set((max(a, b), min(a, b)) for a, b in pairs if a != b))  # by high, then low
    high = np.array([e[0] for e in edges], dtype=np.int64)
    low = np.array([e[1] for e in edges], dtype=np.int64)
    # Expected: repeated relaxation of the minimum over edges until nothing changes.
    smallest = list(range(n))
    changed = True
    while changed:
        changed = False
        for a, b in edges:
            m = min(smallest[a], smallest[b])
            if smallest[a] != m or smallest[b] != m:
                smallest[a] = smallest[b] = m
                changed = True
    assert seg.smallest_connected(n, low, high).tolist() == smallest


@pytest.mark.parametrize("cut", [30, 60, 200])
def test_a_damaged_image_is_told_in_the_program_s_words(tmp_path, cut):
    """A BMP cut short (named .tif, as a fuzzer found it): Pillow 11 says 'Truncated File
    Read' or 'image file is truncated' where Pillow 6.1 says 'Unsupported BMP header type
    (...)' for the same bytes; the participant reads one sentence on every stack."""
    image = Image.fromarray(np.arange(9 * 13, dtype=np.uint8).reshape(9, 13) % 7, "L")
    save(tmp_path, image, "whole.bmp")
    with open(os.path.join(str(tmp_path), "M", "whole.bmp"), "rb") as stream:
        data = stream.read()
    with open(os.path.join(str(tmp_path), "M", "p.tif"), "wb") as stream:
        stream.write(data[:cut])
    with pytest.raises(SubmissionError) as raised:
        reader.read_prediction(os.path.join(str(tmp_path), "M", "p.tif"), "M/p.tif", (9, 13))
    assert raised.value.sentence == ("M/p.tif cannot be read as an image (%s); save it as an uncompressed or "
                                     "PNG-compressed image (.png, .tif, .tiff or .bmp)." % reader._UNDECODED)
