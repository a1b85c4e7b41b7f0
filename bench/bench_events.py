"""Benchmark of the events track at ChaLearn's scale: 100 categories x 30,000 images.

Prints ratios against baselines timed in the same run:
- end to end (python3 program/evaluate.py, a fresh process) against a fresh process
  that only reads the numbers of the same files with numpy.loadtxt, and against
  numpy.loadtxt of the same files in-process (issue 15's baseline), in wall time and
  in CPU time (user + system, which a busy machine disturbs less);
- the track in-process (reader + AP + tables + charts) against numpy.loadtxt of the
  same files in-process;
- where the end-to-end time goes, each part against the same in-process numpy.loadtxt:
  start-up (a fresh process that imports what evaluate.py imports for this phase, then
  exits), the track in-process, the participant's 95% interval of the mAP in-process, and
  writing the outputs in-process (page, private/, scores); their sum is about the
  end-to-end ratio;
- the AP kernel alone against a plain numpy.argsort of the same confidences.
"""

import io
import os
import shutil
import sys
import time
from collections import OrderedDict

import numpy as np
from timing import best_time, run_once, run_python

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


# What evaluate.py imports before it reads an events phase: the interpreter, numpy, PyYAML
# and the scoring modules (compiled from their source when, as on a fresh bundle, no
# __pycache__ is there).
STARTUP = """
import sys
sys.path.insert(0, sys.argv[1])
import scoring.cli, scoring.tracks.events
"""


def loadtxt_all(root):
    for folder in ("ref", "res"):
        directory = os.path.join(root, folder)
        for name in sorted(os.listdir(directory)):
            if name.endswith(".txt"):
                np.loadtxt(os.path.join(directory, name), usecols=1)


def main(outdir):
    sys.path.insert(0, os.path.join(ROOT, "program"))
    for shuffle_each in (False, True):
        print("-- submission files %s" % ("each in its own order" if shuffle_each else
                                          "all in one order (not the reference's)"), flush=True)
        measure(os.path.join(outdir, "own_orders" if shuffle_each else "one_order"), shuffle_each)


def measure(outdir, shuffle_each):
    from scoring.files import Submission, index_submission
    from scoring.layout import find_tracks
    from scoring.log import Log
    from scoring.metrics.ranking import average_precision
    from scoring.options import parse_options
    from scoring.report import write_outputs
    from scoring.runner import score_submission
    from scoring.tracks import events

    root = generate(outdir, shuffle_each)
    os.sync()  # the 100 MB just written are flushed now, not while the runs are timed
    output = os.path.join(outdir, "output")
    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
    print("data: %d categories x %d images, %.1f MB in %d files" % (CATEGORIES, IMAGES, size / 1e6, 2 * CATEGORIES + 1))

    script = os.path.join(outdir, "loadtxt_only.py")
    with open(script, "w") as stream:
        stream.write(LOADTXT)
    # The machine is shared and noisy: alternate the measured run and its baseline and
    # keep the best of each, so that both see the same conditions.
    base_time = track_time = in_track = in_load = float("inf")
    base_peak = track_peak = 0
    track = find_tracks(os.path.join(root, "ref"), ["events"])[0]
    options = parse_options(track.config, events.OPTIONS, "track.yaml")
    submission = Submission(index_submission(os.path.join(root, "res"), os.path.join(root, "ref")))
    quiet = Log(io.StringIO())
    from scoring.bootstrap import score_interval
    track_cpu = load_cpu = startup = in_write = in_interval = float("inf")
    scored, results = score_submission(root, quiet)
    written = os.path.join(outdir, "output_in_process")
    os.makedirs(written, exist_ok=True)
    for _ in range(REPEAT):
        elapsed, peak = run_python([script, root])
        base_time, base_peak = min(base_time, elapsed), max(base_peak, peak)
        elapsed, peak, cpu = run_once([os.path.join(ROOT, "program", "evaluate.py"), root, output])
        track_time, track_peak, track_cpu = min(track_time, elapsed), max(track_peak, peak), min(track_cpu, cpu)
        start = time.process_time()
        in_load = min(in_load, best_time(lambda: loadtxt_all(root), repeat=1))
        load_cpu = min(load_cpu, time.process_time() - start)
        in_track = min(in_track, best_time(lambda: events.score(track, submission, options, quiet), repeat=1))
        startup = min(startup, run_once(["-c", STARTUP, os.path.join(ROOT, "program")])[0])
        in_write = min(in_write, best_time(lambda: write_outputs(written, OrderedDict(scored), results, []), 1))
        in_interval = min(in_interval, best_time(lambda: score_interval(results[0].view), 1))
    print("end to end: evaluate.py %.2f s (peak %.0f MB), loadtxt of the same files %.2f s (peak %.0f MB): "
          "ratio %.2f" % (track_time, track_peak / 1e6, base_time, base_peak / 1e6, track_time / base_time))
    print("end to end against loadtxt in-process (issue 15's goal: at most 1.3 on numpy 2, 0.25 on the py37 "
          "floor): evaluate.py %.2f s, loadtxt "
          "%.2f s: ratio %.2f" % (track_time, in_load, track_time / in_load))
    print("CPU time (user + system; steadier than wall time on a busy machine): evaluate.py %.2f s, loadtxt "
          "in-process %.2f s: ratio %.2f" % (track_cpu, load_cpu, track_cpu / load_cpu))
    print("in-process: events.score %.2f s, numpy.loadtxt of the same files %.2f s: ratio %.2f"
          % (in_track, in_load, in_track / in_load))
    print("where end to end goes, each against loadtxt in-process: start-up (interpreter, numpy, the scoring "
          "modules) %.2f s: %.2f; events.score %.2f; the participant's interval %.2f s: %.2f; writing the outputs "
          "%.2f s: %.2f; sum %.2f (end to end %.2f)"
          % (startup, startup / in_load, in_track / in_load, in_interval, in_interval / in_load, in_write,
             in_write / in_load, (startup + in_track + in_interval + in_write) / in_load, track_time / in_load))

    view = results[0].view
    y_true = [view.columns["label"][a:b] > 0 for a, b in view.bounds]
    scores = [view.columns["confidence"][a:b] for a, b in view.bounds]
    ap_time = sort_time = float("inf")
    for _ in range(5):
        ap_time = min(ap_time, best_time(lambda: [average_precision(y, s) for y, s in zip(y_true, scores)], 1))
        sort_time = min(sort_time, best_time(lambda: [np.argsort(s) for s in scores], 1))
    print("AP kernel, %d categories: %.3f s, numpy.argsort of the same confidences %.3f s: ratio %.2f"
          % (len(scores), ap_time, sort_time, ap_time / sort_time), flush=True)
