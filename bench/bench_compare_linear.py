"""Does compare.py grow linearly with the number of submissions? compare.py over 200
submissions against 10 times compare.py over 20 of them (goal: at most 1.1), timed in the
same run, on a small lines phase (one manuscript of 3 pages of 1344 x 2016 from
bench_lines.py's generator) so that 200 submissions take minutes, not hours; 1,000
resamples. Submission j blacks out a share (j mod 50) % of the prediction's line colours.
What grows faster than the submissions (pair matrices, Gram products of the pixel
statistics, charts of every pair) shows in the ratio.
"""

import os
import sys

import numpy as np
from PIL import Image
from timing import run_python

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANY, FEW, PAGES = 200, 20, 3


def write_phase(outdir):
    import bench_lines
    marker = os.path.join(outdir, "phase.done")
    ref = os.path.join(outdir, "ref", "Latin2")
    dirs = [os.path.join(outdir, "res", "sub%03d" % (j + 1)) for j in range(MANY)]
    if os.path.exists(marker):
        return os.path.dirname(ref), dirs
    os.makedirs(ref, exist_ok=True)
    with open(os.path.join(outdir, "ref", "track.yaml"), "w") as stream:
        stream.write("track: lines\nprotocol: both\n")
    rng = np.random.RandomState(2025)
    for number in range(1, PAGES + 1):
        gt, pred = bench_lines.page(rng)
        name = "latin2_%03d.png" % number
        Image.fromarray(np.where(gt > 0, 255, 0).astype(np.uint8)).convert("1").save(os.path.join(ref, name))
        colours = rng.randint(30, 256, size=(int(pred.max()) + 1, 3)).astype(np.uint8)
        colours[0] = 0
        for j, directory in enumerate(dirs):
            dropped = rng.rand(colours.shape[0]) < 0.01 * (j % 50)
            dropped[0] = False
            mine = np.where(dropped[:, None], 0, colours).astype(np.uint8)
            os.makedirs(os.path.join(directory, "Latin2"), exist_ok=True)
            Image.fromarray(mine[pred], "RGB").save(os.path.join(directory, "Latin2", name), compress_level=1)
    open(marker, "w").close()
    return os.path.dirname(ref), dirs


def main(outdir):
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2])
    os.makedirs(outdir, exist_ok=True)
    ref, dirs = write_phase(outdir)
    compare = os.path.join(ROOT, "program", "compare.py")
    few = many = float("inf")
    peak_few = peak_many = 0
    for repeat in range(2):
        seconds, peak = run_python([compare, "--ref", ref, "--out", os.path.join(outdir, "report_few")] + dirs[:FEW])
        few, peak_few = min(few, seconds), max(peak_few, peak)
        if repeat == 0:  # one run of the long side: it takes minutes
            many, peak_many = run_python([compare, "--ref", ref, "--out", os.path.join(outdir, "report_many")] + dirs)
    ratio = many / (MANY // FEW * few)
    print("compare.py, %d submissions x %d pages: %.1f s (peak %.0f MB); %d submissions: %.1f s (peak %.0f MB); "
          "ratio to %d x %d submissions: %.2f (goal <= 1.1: %s)"
          % (MANY, PAGES, many, peak_many / 1e6, FEW, few, peak_few / 1e6, MANY // FEW, FEW, ratio,
             "met" if ratio <= 1.1 else "MISSED"), flush=True)


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(ROOT, "program"))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main(os.path.join(ROOT, "bench", "out", "compare_linear"))
