"""Sample phase of the lines track: three manuscripts named as U-DIADS-TL names them.

Small synthetic pages: ground-truth lines are bands of ink (binary masks), and the
submission's instance maps exercise the rules: merged lines, a line split in two,
missed lines, extra blobs, lines thickened until they touch (kept apart by their
colours), a binary-mask prediction, an 8-bit grey and a 16-bit grey label image.
"""

import os

import numpy as np
from PIL import Image

MANUSCRIPTS = ("Latin2", "Latin14396", "Syriaque341")
HEIGHT, WIDTH = 96, 128


def page_lines(rng, n_lines):
    """Ground-truth lines as (top, bottom, left, right) bands with a ragged right margin."""
    bands, top = [], 6
    for _ in range(n_lines):
        height = int(rng.randint(4, 7))
        left, right = int(rng.randint(6, 14)), int(WIDTH - rng.randint(6, 30))
        bands.append((top, top + height, left, right))
        top += height + int(rng.randint(4, 7))
    return bands


def ground_truth(bands):
    mask = np.zeros((HEIGHT, WIDTH), dtype=np.uint8)
    for top, bottom, left, right in bands:
        mask[top:bottom, left:right] = 255
    return mask


def palette(rng, n):
    colours = set()
    while len(colours) < n:
        colours.add(tuple(int(c) for c in rng.randint(40, 256, size=3)))
    return sorted(colours)


def prediction(rng, bands, variant):
    """An instance map (id per pixel, 0 background) of the page, with the variant's errors."""
    ids = np.zeros((HEIGHT, WIDTH), dtype=np.int32)
    next_id = 1
    for index, (top, bottom, left, right) in enumerate(bands):
        jitter = int(rng.randint(-2, 3))
        if variant == "miss" and index % 3 == 1:
            continue
        if variant == "merge" and index in (1, 2):
            # Lines 1 and 2 predicted as one region bridging the gap between them.
            if index == 1:
                nxt = bands[2]
                ids[top:nxt[1], min(left, nxt[2]):max(right, nxt[3])] = next_id
                next_id += 1
            continue
        if variant == "split" and index == 0:
            middle = (left + right) // 2
            ids[top:bottom, left:middle] = next_id
            ids[top:bottom, middle:right] = next_id + 1  # touching, another colour
            next_id += 2
            continue
        if variant == "touching":
            # Thickened lines that touch their neighbours; only the colours separate them.
            ids[max(0, top - 3):bottom + 3, left:right] = next_id
        else:
            ids[top:bottom, left:right + jitter] = next_id
        next_id += 1
    if variant in ("extra", "miss", "binary"):
        # An extra blob in the margin, and a half-covered line (extra and missed at once).
        ids[HEIGHT - 8:HEIGHT - 3, WIDTH - 20:WIDTH - 6] = next_id
        next_id += 1
    if variant == "extra":
        top, bottom, left, right = bands[-1]
        ids[top:bottom, left:right] = 0
        ids[top:bottom + 6, left:(left + right) // 2] = next_id
    return ids


def colourise(rng, ids):
    colours = np.array([(0, 0, 0)] + palette(rng, int(ids.max())), dtype=np.uint8)
    shuffled = np.concatenate([[0], 1 + rng.permutation(int(ids.max()))])
    return colours[shuffled[ids]]


def make(ref, res, seed=2025, public_details=True):
    """The sample phase; public_details: whether the page draws the ground truth (never in a
    final phase, whose ground truth is hidden: tools/make_bundle.py generates it with False)."""
    rng = np.random.RandomState(seed)
    os.makedirs(ref, exist_ok=True)
    with open(os.path.join(ref, "track.yaml"), "w") as stream:
        stream.write("track: lines\nprotocol: both\nthreshold: 0.75\nmatch_threshold: 0.75\nconnectivity: 8\n"
                     "public_details: %s\n" % ("true" if public_details else "false"))
    variants = {
        "Latin2": ("exact", "merge", "split", "extra"),
        "Latin14396": ("touching", "miss", "binary"),
        "Syriaque341": ("grey8", "grey16", "split", "exact"),
    }
    for manuscript in MANUSCRIPTS:
        for folder in (ref, res):
            os.makedirs(os.path.join(folder, manuscript), exist_ok=True)
        for number, variant in enumerate(variants[manuscript], start=1):
            stem = "%s_%03d" % (manuscript.lower(), number)
            bands = page_lines(rng, int(rng.randint(5, 8)))
            Image.fromarray(ground_truth(bands)).convert("1").save(os.path.join(ref, manuscript, stem + ".png"))
            ids = prediction(rng, bands, variant)
            out = os.path.join(res, manuscript, stem + ".png")
            if variant == "binary":
                Image.fromarray(np.where(ids > 0, 255, 0).astype(np.uint8)).save(out)
            elif variant == "grey8":
                Image.fromarray((ids * 17).astype(np.uint8)).save(out)
            elif variant == "grey16":
                Image.fromarray((ids * 1000).astype(np.uint16)).save(out)
            else:
                Image.fromarray(colourise(rng, ids), "RGB").save(out)
