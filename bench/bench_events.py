"""Benchmark of the events track at ChaLearn's scale: 100 categories x 30,000 images.

Prints ratios against baselines timed in the same run:
- the whole run (evaluate.py in a fresh process, start-up and writing included) against a
  fresh process that only reads the numbers of the same files with numpy.loadtxt, medians
  of wall and CPU time (user + system, which a busy machine disturbs less), also without
  the participant's interval; then where the run goes, phase by phase (bench/phases.py);
- the AP kernel alone against a plain numpy.argsort of the same confidences.
"""

import io
import os
import shutil
import sys

import numpy as np
from timing import against_baseline, best_time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATEGORIES = 100
IMAGES = 30000
REPEAT = 5


def generate(outdir, shuffle_each, seed=2015):
    """ref/ and res/ of one events phase. The submission lists the images in another
    order than the reference: one order for every category file (what a participant
    writing one line per test image in each file produces) or, with shuffle_each, a
    different order in each file (the worst case of the id lookup)."""
    rng = np.random.RandomState(seed)
    root = os.path.join(outdir, "input")
    shutil.rmtree(root, ignore_errors=True)
    ref, res = os.path.join(root, "ref"), os.path.join(root, "res")
    os.makedirs(ref)
    os.makedirs(res)
    with open(os.path.join(ref, "track.yaml"), "w") as stream:
        stream.write("track: events\n")
    ids = np.array(["%06d.jpg" % i for i in rng.choice(np.arange(1, 10 ** 6), IMAGES, replace=False)])
    event = rng.randint(0, CATEGORIES, IMAGES)
    shared_order = rng.permutation(IMAGES)
    for k in range(CATEGORIES):
        name = "Event_%03d" % k
        positive = event == k
        labels = np.where(positive, "1", np.where(rng.rand(IMAGES) < 0.5, "0", "-1"))
        with open(os.path.join(ref, name + ".txt"), "w") as stream:
            stream.write("".join("%s %s\n" % pair for pair in zip(ids.tolist(), labels.tolist())))
        confidence = np.round(rng.rand(IMAGES) * 0.7 + positive * 0.3, 6)  # six decimals: some ties
        order = rng.permutation(IMAGES) if shuffle_each else shared_order
        with open(os.path.join(res, name + ".txt"), "w") as stream:
            stream.write("".join("%s %.6f\n" % pair for pair in zip(ids[order].tolist(), confidence[order].tolist())))
    return root


LOADTXT = """
import glob, os, sys
import numpy as np
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*", "*.txt"))):
    np.loadtxt(path, usecols=1)
"""


def main(outdir):
    sys.path.insert(0, os.path.join(ROOT, "program"))
    for shuffle_each in (False, True):
        print("-- submission files %s" % ("each in its own order" if shuffle_each else
                                          "all in one order (not the reference's)"), flush=True)
        measure(os.path.join(outdir, "own_orders" if shuffle_each else "one_order"), shuffle_each)


def measure(outdir, shuffle_each):
    from scoring.log import Log
    from scoring.metrics.ranking import average_precision
    from scoring.runner import score_submission

    root = generate(outdir, shuffle_each)
    os.sync()  # the 100 MB just written are flushed now, not while the runs are timed
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
    print("data: %d categories x %d images, %.1f MB in %d files" % (CATEGORIES, IMAGES, size / 1e6, 2 * CATEGORIES + 1))
    script = os.path.join(outdir, "loadtxt_only.py")
    with open(script, "w") as stream:
        stream.write(LOADTXT)
    against_baseline("end to end against numpy.loadtxt of the same files in a fresh process", root,
                     os.path.join(outdir, "output"), [script, root], REPEAT, goal=1.3)
    _, results = score_submission(root, Log(io.StringIO()))
    view = results[0].view
    y_true = [view.columns["label"][a:b] > 0 for a, b in view.bounds]
    scores = [view.columns["confidence"][a:b] for a, b in view.bounds]
    ap_time = sort_time = float("inf")
    for _ in range(5):
        ap_time = min(ap_time, best_time(lambda: [average_precision(y, s) for y, s in zip(y_true, scores)], 1))
        sort_time = min(sort_time, best_time(lambda: [np.argsort(s) for s in scores], 1))
    print("AP kernel, %d categories: %.3f s, numpy.argsort of the same confidences %.3f s: ratio %.2f"
          % (len(scores), ap_time, sort_time, ap_time / sort_time), flush=True)
