"""Images as horizontal runs of pixels: the form in which the lines track keeps its pages.

A FEST page has 2.7 million pixels but a few thousand (at most some tens of thousands of)
runs of one value, so after one pass over the pixels to find the runs, labelling,
overlapping and painting work on runs. Pure numpy, no I/O.
"""

import collections

import numpy as np

Runs = collections.namedtuple("Runs", "shape start stop value")
Runs.__doc__ = """The runs of an image, in raster order.

shape: (height, width); start, stop: flat pixel positions of each run (stop excluded; a
run never crosses a row's end); value: the run's value (int64, never 0: the background
is not stored).
"""

# Work arrays the size of a page, kept from page to page: a process that scores many pages
# would otherwise map fresh memory for each (page faults were a fifth of the time).
_scratch = {}


def scratch(name, shape, dtype):
    """A reusable uninitialised array; the same memory on the next call with the same name,
    shape and dtype, so it must not be kept past its caller's use."""
    dtype = np.dtype(dtype)
    array = _scratch.get(name)
    if array is None or array.shape != tuple(shape) or array.dtype != dtype:
        _scratch.pop(name, None)  # the old array is freed before the new one is taken
        array = _scratch[name] = np.empty(shape, dtype=dtype)
    return array


def encode(values, key=None):
    """The Runs of a 2-D array: maximal horizontal runs of one nonzero value.

    key: a function giving each raw value its value, applied to the runs' values (an array
    of them), never to pixels: runs whose keys are equal and that follow each other in a
    row are then one run, and a key of 0 is background. A boolean mask has runs of value 1.
    """
    height, width = values.shape
    flat = np.ascontiguousarray(values).reshape(-1)
    size = flat.size
    if size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return Runs((height, width), empty, empty, empty)
    edge = scratch("edge", (size + 1,), bool)
    np.not_equal(flat[1:], flat[:-1], out=edge[1:size])
    edge[0:size:width] = True  # every row starts a run
    edge[size] = True
    start = np.flatnonzero(edge)
    value = flat[start[:-1]]
    if key is not None:
        value = np.asarray(key(value), dtype=np.int64)
        same = value[1:] == value[:-1]
        if same.any():
            same &= start[1:-1] % width != 0
            kept = np.concatenate([[True], ~same])
            start, value = start[np.concatenate([kept, [True]])], value[kept]
    line = np.flatnonzero(value)
    return Runs((height, width), start[line], start[line + 1], value[line].astype(np.int64))


def encode_bits(rows, width):
    """The Runs (value 1) of a packed mask: rows (height, bytes per row) of uint8, 8 pixels
    a byte, the first in the high bit (numpy.packbits order); each row's bits from `width` on
    are zero, and at least one of them follows its last pixel (bytes per row * 8 > width).

    The runs are found on bytes, 8 pixels at a time: a bit of `edges` is set where a pixel
    differs from the one before it in its row (the pixel before a row is 0), so a row's set
    bits alternate between a run's first pixel and the pixel after its last.
    """
    height, size = rows.shape
    edges = np.empty_like(rows)
    edges[:, 0] = 0
    np.left_shift(rows[:, :-1], 7, out=edges[:, 1:])  # the previous byte's last pixel
    edges |= rows >> 1
    edges ^= rows
    flat = edges.reshape(-1)
    nonzero = np.flatnonzero(flat)
    bit = np.flatnonzero(np.unpackbits(flat[nonzero]))
    byte = nonzero[bit >> 3]
    row = byte // size
    position = row * width + (byte - row * size) * 8 + (bit & 7)
    start, stop = position[0::2], position[1::2]
    return Runs((height, width), start, stop, np.ones(start.size, dtype=np.int64))


def expand(first, count):
    """(owner, value): for every i, count[i] times i and first[i], first[i] + 1, ...,
    first[i] + count[i] - 1, concatenated. One repeat; the rest are gathers (faster
    than a repeat where most counts are 0 or 1)."""
    owner = np.repeat(np.arange(count.size, dtype=np.int64), count)
    end = np.cumsum(count)
    total = int(end[-1]) if end.size else 0
    return owner, np.arange(total, dtype=np.int64) + (first - end + count)[owner]


#: numpy 1.x's np.repeat copies one element at a time (see paint).
_BYTEWISE_REPEAT = int(np.__version__.split(".")[0]) < 2


def paint(runs, codes, dtype, background=0):
    """A page-sized array: codes[i] on the pixels of run i (or codes on every run, if one
    value), background elsewhere.

    One np.repeat writes the page, alternating the gaps and the runs. numpy 1.x repeats
    element by element, several times slower than numpy 2, so a page of one-byte values
    is painted four pixels at a time: runs cut to whole 4-byte words, then the pixels of
    each run outside them (at most three at each end) set one by one.
    """
    height, width = runs.shape
    size = height * width
    dtype = np.dtype(dtype)
    codes = np.broadcast_to(np.asarray(codes, dtype=dtype), runs.start.shape)
    if dtype.itemsize != 1 or not _BYTEWISE_REPEAT:
        return _repeat(runs.start, runs.stop, codes, background, dtype, size).reshape(height, width)
    inner_start = -(-runs.start // 4)
    inner_stop = np.maximum(runs.stop // 4, inner_start)
    fill = np.uint32(int(np.asarray(background, dtype=dtype).view(np.uint8)) * 0x01010101)
    words = _repeat(inner_start, inner_stop, codes.view(np.uint8).astype(np.uint32) * 0x01010101, fill,
                    np.dtype(np.uint32), -(-size // 4))
    page = words.view(np.uint8)[:size].view(dtype)
    # The pixels of each run outside its whole words: its head, then its tail.
    head_stop = np.minimum(inner_start * 4, runs.stop)
    tail_start = np.minimum(np.maximum(inner_stop * 4, head_stop), runs.stop)
    first = np.concatenate([runs.start, tail_start])
    count = np.concatenate([head_stop - runs.start, runs.stop - tail_start])
    owner, positions = expand(first, count)
    page[positions] = np.concatenate([codes, codes])[owner]
    return page.reshape(height, width)


def _repeat(start, stop, codes, background, dtype, size):
    """Values of length `size`: codes[i] on start[i]:stop[i] (sorted, disjoint), else background."""
    lengths = np.empty(2 * start.size + 1, dtype=np.int64)
    lengths[0:-1:2] = start
    lengths[2:-1:2] -= stop[:-1]
    lengths[1::2] = stop - start
    lengths[-1] = size - (stop[-1] if stop.size else 0)
    fill = np.full(lengths.size, background, dtype=dtype)
    fill[1::2] = codes
    return np.repeat(fill, lengths)


def packed_mask(runs):
    """The runs' pixels as a packed mask (shape, bits): 1 bit a pixel, numpy.packbits order."""
    return runs.shape, np.packbits(paint(runs, True, bool).reshape(-1))


def area(runs):
    """Pixels on the runs."""
    return int((runs.stop - runs.start).sum())


def shared_area(a, b):
    """Pixels on runs of both a and b (of the same page)."""
    first = np.searchsorted(b.stop, a.start, side="right")
    last = np.searchsorted(b.start, a.stop, side="left")
    count = np.maximum(last - first, 0)
    i = np.repeat(np.arange(a.start.size), count)
    j = np.repeat(first - np.cumsum(count) + count, count) + np.arange(int(count.sum()))
    return int((np.minimum(a.stop[i], b.stop[j]) - np.maximum(a.start[i], b.start[j])).sum())
