"""Benchmark of compare.py at FEST's scale: 20 submissions of the lines phase of
bench_lines.py (3 manuscripts x 15 pages of 1344 x 2016 pixels), bootstrap of 1,000
resamples included, on 2 cores.

Submission j is the bench's base prediction with a share 2 j % of its line colours
blacked out, so the submissions differ. Prints, against a baseline timed in the same run:
- compare.py over the 20 submissions / 20 x evaluate.py on one submission (the scoring
  alone); the difference is the meta-evaluation (bootstrap, tests, pixel statistics
  from the foregrounds the scorer kept packed, report);
- the peak memory of the compare.py run.
"""

import os
import sys

import numpy as np
from PIL import Image
from timing import run_python

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUBMISSIONS = 20


def write_submissions(phase, outdir):
    marker = os.path.join(outdir, "submissions.done")
    dirs = [os.path.join(outdir, "res", "sub%02d" % (j + 1)) for j in range(SUBMISSIONS)]
    if os.path.exists(marker):
        return dirs
    rng = np.random.RandomState(11)
    base = os.path.join(phase, "res")
    for manuscript in sorted(os.listdir(base)):
        for name in sorted(os.listdir(os.path.join(base, manuscript))):
            image = np.asarray(Image.open(os.path.join(base, manuscript, name)).convert("RGB"))
            keys = image[..., 0].astype(np.int64) << 16 | image[..., 1].astype(np.int64) << 8 | image[..., 2]
            colours, inverse = np.unique(keys, return_inverse=True)
            for j, directory in enumerate(dirs):
                os.makedirs(os.path.join(directory, manuscript), exist_ok=True)
                dropped = rng.rand(colours.size) < 0.02 * j
                dropped[colours == 0] = False
                out = np.where(dropped[inverse].reshape(keys.shape)[..., None], 0, image).astype(np.uint8)
                Image.fromarray(out, "RGB").save(os.path.join(directory, manuscript, name), compress_level=1)
    open(marker, "w").close()
    return dirs


def main(outdir):
    sys.path.insert(0, os.path.join(ROOT, "program"))
    import bench_lines
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2])
    os.makedirs(outdir, exist_ok=True)
    phase = bench_lines.write_phase(os.path.join(os.path.dirname(outdir), "lines"))
    dirs = write_submissions(phase, outdir)
    single = os.path.join(outdir, "single")
    os.makedirs(os.path.join(single, "res"), exist_ok=True)
    if not os.path.exists(os.path.join(single, "ref")):
        os.symlink(os.path.join(phase, "ref"), os.path.join(single, "ref"))
    res = os.path.join(single, "res")
    if os.path.islink(res) or not os.listdir(res):
        if os.path.isdir(res) and not os.path.islink(res):
            os.rmdir(res)
        if not os.path.islink(res):
            os.symlink(dirs[-1], res)
    one, _ = run_python([os.path.join(ROOT, "program", "evaluate.py"), single, os.path.join(outdir, "single_out")])
    args = [os.path.join(ROOT, "program", "compare.py"), "--ref", os.path.join(phase, "ref"),
            "--out", os.path.join(outdir, "report")] + dirs
    seconds, peak = run_python(args)
    print("compare.py, %d submissions x 45 pages of 1344 x 2016, 1,000 resamples, 2 cores: %.1f s; "
          "evaluate.py on one submission: %.1f s; ratio to %d x evaluate.py: %.2f; peak memory %.0f MB"
          % (SUBMISSIONS, seconds, one, SUBMISSIONS, seconds / (SUBMISSIONS * one), peak / 1e6), flush=True)


if __name__ == "__main__":
    main(os.path.join(ROOT, "bench", "out", "compare"))
