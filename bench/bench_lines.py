"""Benchmark of the lines track at FEST's scale: 3 manuscripts x 15 pages of 1344 x 2016 pixels,
20-40 lines a page, colour-coded predictions with touching lines, merges, splits and specks.

Prints, against baselines timed in the same run:
- per-page scoring time (decoding excluded) / Pillow's decoding of that page's two PNGs;
- the whole run (evaluate.py in a fresh process, protocol both, 2 cores) of 15 pages (issue
  35's shape) and of the 45 pages / a fresh process decoding the same PNGs with Pillow
  (medians, alternating), and where the run goes (bench/phases.py);
- the peak memory of the 45 pages' run.
"""

import io
import os
import sys

import numpy as np
from PIL import Image
from timing import against_baseline, best_time

from scoring import runs
from scoring.log import Log
from scoring.metrics import segmentation as seg
from scoring.readers.lines import instance_colours

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANUSCRIPTS = ("Latin2", "Latin14396", "Syriaque341")
PAGES = 15
WIDTH, HEIGHT = 1344, 2016
ROUNDS = 3


def page(rng):
    """Ground-truth line ids and predicted instance ids of one page."""
    n = int(rng.randint(20, 41))
    pitch = (HEIGHT - 200) // n
    gt = np.zeros((HEIGHT, WIDTH), dtype=np.int32)
    pred = np.zeros((HEIGHT, WIDTH), dtype=np.int32)
    columns = np.arange(WIDTH)
    touching = rng.rand() < 0.5
    next_id = 1
    for k in range(n):
        base = 100 + k * pitch
        wave = np.cumsum(rng.randint(-1, 2, size=WIDTH)) // 8
        wave = np.clip(wave, -pitch // 4, pitch // 4)
        top = base + wave
        bottom = top + int(pitch * 0.55) + rng.randint(-3, 4, size=WIDTH)
        left, right = int(rng.randint(60, 160)), int(WIDTH - rng.randint(60, 400))
        rows = np.arange(base - pitch, base + pitch)[:, None]
        inside = (rows >= top) & (rows < bottom) & (columns >= left) & (columns < right)
        window = gt[base - pitch:base + pitch]
        window[inside] = k + 1
        # Prediction: shifted, thickened (touching neighbours on some pages), sometimes split or missed.
        shift = int(rng.randint(-3, 4))
        grow = pitch // 2 if touching else int(rng.randint(0, 4))
        p_inside = (rows >= top + shift - grow) & (rows < bottom + shift + grow) & \
                   (columns >= left + rng.randint(-20, 20)) & (columns < right + rng.randint(-20, 20))
        roll = rng.rand()
        target = pred[base - pitch:base + pitch]
        if roll < 0.05:
            continue
        if roll < 0.12:
            middle = (left + right) // 2
            target[p_inside & (columns < middle)] = next_id
            target[p_inside & (columns >= middle)] = next_id + 1
            next_id += 2
            continue
        target[p_inside] = next_id if rng.rand() > 0.05 or k == 0 else next_id - 1  # sometimes merged
        next_id += 1
    specks = rng.randint(0, HEIGHT * WIDTH, size=300)
    pred.flat[specks] = next_id
    return gt, pred


def write_phase(root, manuscripts=MANUSCRIPTS, folder_name="input"):
    """The phase's folder (root/folder_name, holding ref/ and res/), written once."""
    marker = os.path.join(root, folder_name, "ref", "track.yaml")
    if os.path.exists(marker):
        return os.path.join(root, folder_name)
    rng = np.random.RandomState(2025)
    for manuscript in manuscripts:
        for folder in ("ref", "res"):
            os.makedirs(os.path.join(root, folder_name, folder, manuscript), exist_ok=True)
        for number in range(1, PAGES + 1):
            gt, pred = page(rng)
            name = "%s_%03d.png" % (manuscript.lower(), number)
            Image.fromarray(np.where(gt > 0, 255, 0).astype(np.uint8)).convert("1").save(
                os.path.join(root, folder_name, "ref", manuscript, name))
            colours = rng.randint(30, 256, size=(int(pred.max()) + 1, 3)).astype(np.uint8)
            colours[0] = 0
            Image.fromarray(colours[pred], "RGB").save(os.path.join(root, folder_name, "res", manuscript, name))
    with open(marker, "w") as stream:
        stream.write("track: lines\nprotocol: both\n")
    return os.path.join(root, folder_name)


#: The baseline of a whole phase: a fresh process decoding every PNG of it with Pillow.
DECODE = """
import glob, os, sys
from PIL import Image
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*", "*.png"))):
    Image.open(path).load()
"""


def whole_run(outdir, phase, label, repeat):
    """The whole evaluate.py run of a phase against Pillow's decoding of its PNGs in a fresh
    process, phase by phase (timing.against_baseline)."""
    script = os.path.join(outdir, "decode_only.py")
    with open(script, "w") as stream:
        stream.write(DECODE)
    return against_baseline(label, phase, os.path.join(outdir, "output_" + os.path.basename(phase)),
                            [script, phase], repeat, goal=1.3)


def decode(gt_path, pred_path):
    a, b = Image.open(gt_path), Image.open(pred_path)
    a.load()
    b.load()
    return a, b


def score_arrays(gt_mask, colours):
    """A page's scoring from its decoded pixels: runs, components, overlap, both protocols."""
    gt = seg.lines_of(runs.encode(gt_mask), 8)
    predicted = seg.lines_of(runs.encode(colours), 8)
    shared = seg.overlap(gt, predicted)
    standard = seg.standard_page(shared)
    keys = seg.component_colours(predicted)
    labels, n_labels = seg.fest2025_labels(keys, bool(shared.area_pred[0] > 0))
    seg.fest2025_page(seg.fest2025_table(shared, labels, n_labels), n_labels)
    return standard


def main(outdir):
    if hasattr(os, "sched_setaffinity"):
        cores = sorted(os.sched_getaffinity(0))[:2]
        os.sched_setaffinity(0, cores)  # the measured processes inherit the two cores
    phase = write_phase(outdir)
    ratios, lines = [], []
    for manuscript in MANUSCRIPTS:
        for number in (1, 8):
            name = "%s_%03d.png" % (manuscript.lower(), number)
            gt_path = os.path.join(phase, "ref", manuscript, name)
            pred_path = os.path.join(phase, "res", manuscript, name)
            decoding = best_time(lambda a=gt_path, b=pred_path: decode(a, b), repeat=5)
            gt_image, pred_image = decode(gt_path, pred_path)
            gt_mask = np.asarray(gt_image) != 0
            colours = instance_colours(pred_image, name)[0]
            scoring = best_time(lambda g=gt_mask, c=colours: score_arrays(g, c), repeat=5)
            result = score_arrays(gt_mask, colours)
            ratios.append(scoring / decoding)
            lines.append(result["gt"])
            print("  %s: %d lines, scoring %.3f s, decoding %.3f s, ratio %.2f"
                  % (name, result["gt"], scoring, decoding, scoring / decoding), flush=True)
    print("per-page scoring / decoding of its two PNGs: median %.2f, max %.2f (goal <= 1.5)"
          % (float(np.median(ratios)), max(ratios)))

    whole_run(outdir, write_phase(outdir, MANUSCRIPTS[:1], "input_%d" % PAGES),
              "%d pages (one manuscript), protocol both, 2 cores, against Pillow's decoding of the same PNGs" % PAGES,
              ROUNDS + 2)
    runs = whole_run(outdir, phase, "%d pages, protocol both, 2 cores, against Pillow's decoding of the same PNGs"
                     % (PAGES * len(MANUSCRIPTS)), ROUNDS)
    print("peak memory of the 45 pages' run: %.0f MB" % (max(run["peak"] for run in runs) / 1e6))
    Log(io.StringIO())  # the scorer's modules import cleanly in this process too


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(ROOT, "program"))
    main(os.path.join(ROOT, "bench", "out", "lines"))
