"""Benchmark of compare.py at FEST's scale: 20 submissions of the lines phase of
bench_lines.py (3 manuscripts x 15 pages of 1344 x 2016 pixels), bootstrap of 1,000
resamples included, on 2 cores.

Submission j is the bench's base prediction with a share 2 j % of its line colours
blacked out, so the submissions differ. Prints, against a baseline timed in the same run:
- compare.py over the 20 submissions / 20 x evaluate.py on one submission (the scoring
  alone); the difference is the meta-evaluation (bootstrap, tests, pixel statistics
  from the foregrounds the scorer kept packed, report);
- the peak memory of the compare.py run.

Then the scale of the meta-evaluation alone (compare.py --scored on per-item views as
evaluate.py writes them under private/views/, no scoring): 200 synthetic submissions of
an authentication-like track (3 subsets x 300 images), a lines-like track (3 manuscripts
x 15 pages) and an events-like track (20 categories x 300 images), against 10 times the
same run on 20 of them (best of 3 runs at 20, of 2 at 200). A ratio near 1 means a cost
linear in the number of submissions; the quadratic parts (pairwise tests and intervals)
show as a ratio above 1. Then where the time goes at 200, part by part (one run in one
process: each analysis's time summed over the tracks, and the rest).
"""

import json
import os
import subprocess
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


SCALE = (20, 200)


def write_views(outdir, count, seed=3):
    """`count` evaluate.py-like output directories holding only private/views/."""
    from scoring.itemview import AveragePrecision, ItemView, Ratio, Score
    marker = os.path.join(outdir, "views%d.done" % count)
    dirs = [os.path.join(outdir, "views", "s%03d" % k) for k in range(count)]
    if os.path.exists(marker):
        return dirs
    rng = np.random.RandomState(seed)
    label = np.arange(900) % 2
    page_difficulty = 0.2 * rng.rand(45)
    categories = np.zeros((20, 300))
    categories[:, :30] = 1
    for directory in dirs:
        quality = rng.rand()
        correct = (rng.rand(900) < 0.55 + 0.4 * quality).astype(float)
        views = {
            "authentication": ItemView(
                ["a", "b", "c"], [300] * 3, [str(i) for i in range(900)],
                {"correct": correct, "one": np.ones(900), "label": label.astype(float)},
                [("uar", Score(Ratio(("correct", "one")), ranked=True))], "uar", ["one", "label"],
                block=2 * np.repeat(np.arange(3), 300) + label, unit="image"),
            "lines": ItemView(
                ["m1", "m2", "m3"], [15] * 3, [str(i) for i in range(45)],
                {"line_iu": np.clip(0.4 + 0.5 * quality - page_difficulty + rng.normal(0, 0.03, 45), 0, 1),
                 "one": np.ones(45)},
                [("line_iu", Score(Ratio(("line_iu", "one")), ranked=True))], "line_iu", ["one"], unit="page"),
            "events": ItemView(
                ["c%d" % h for h in range(20)], [300] * 20, [str(i) for i in range(6000)],
                {"label": categories.ravel(),
                 "confidence": (categories * (0.5 + 2 * quality) + rng.randn(20, 300)).ravel()},
                [("map", Score(AveragePrecision("label", "confidence"), ranked=True))], "map", ["label"],
                block=(2 * np.repeat(np.arange(20), 300) + categories.ravel()).astype(int), unit="image"),
        }
        folder = os.path.join(directory, "private", "views")
        os.makedirs(folder, exist_ok=True)
        for name, view in views.items():
            with open(os.path.join(folder, name + ".npz"), "wb") as stream:
                view.write(stream)
            with open(os.path.join(folder, name + ".json"), "w") as stream:
                json.dump({"kind": name, "rel": name, "prefix": "", "title": name}, stream)
    open(marker, "w").close()
    return dirs


# compare.py's run in one process, timed part by part: each analysis's seconds
# (analysis.analyse's a.seconds) summed over the tracks, and the rest (start-up, reading the
# views, the report and its files) as what the whole run took beyond them.
_BREAKDOWN = """
import io, json, sys, time
start = time.perf_counter()
sys.path.insert(0, sys.argv[1])
from scoring.metaeval import cli  # the scoring package sets one BLAS thread, as for compare.py
args = cli.parse(["--scored", "--out"] + sys.argv[2:])
parts = {}
for a in cli.compare(args, cli.submission_names(args), io.StringIO()):
    for name, seconds in a.seconds.items():
        parts[name] = parts.get(name, 0.0) + seconds
parts["start-up, reading, report and files"] = time.perf_counter() - start - sum(parts.values())
print(json.dumps(sorted(parts.items(), key=lambda part: -part[1])))
"""


def breakdown(outdir, dirs):
    """Where the time of compare.py --scored goes on `dirs`: [(part, seconds)], longest first."""
    out = subprocess.run([sys.executable, "-c", _BREAKDOWN, os.path.join(ROOT, "program"), outdir] + dirs,
                         check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def scale(outdir):
    dirs = write_views(outdir, SCALE[1])
    seconds = {}
    small, large = SCALE
    for count in SCALE:
        args = [os.path.join(ROOT, "program", "compare.py"), "--scored", "--out",
                os.path.join(outdir, "scale%d" % count)] + dirs[:count]
        # best of 3 and of 2: one run of 4 s moved by 30 percent from one run to the next on
        # the shared machine, and the ratio with it
        seconds[count], _ = run_python(args, repeat=3 if count == small else 2)
    print("compare.py --scored, 3 tracks, 1,000 resamples, 2,000 sign patterns: %d submissions %.1f s, %d "
          "submissions %.1f s; ratio %d submissions / (%d x %d submissions): %.2f"
          % (small, seconds[small], large, seconds[large], large, large // small, small,
             seconds[large] / (large // small * seconds[small])), flush=True)
    parts = breakdown(os.path.join(outdir, "breakdown%d" % large), dirs[:large])
    shown = [(name, value) for name, value in parts if value >= 0.1]
    rest = sum(value for _, value in parts) - sum(value for _, value in shown)
    print("  where the time goes at %d submissions (one run, the 3 tracks summed): %s; the rest %.1f s; "
          "total %.1f s" % (large, "; ".join("%s %.1f s" % part for part in shown), rest,
                            sum(value for _, value in parts)), flush=True)


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
    scale(outdir)


if __name__ == "__main__":
    if sys.argv[1:] == ["--scale"]:  # the meta-evaluation's scale alone, without the FEST-size phase
        sys.path.insert(0, os.path.join(ROOT, "program"))
        os.makedirs(os.path.join(ROOT, "bench", "out", "compare"), exist_ok=True)
        scale(os.path.join(ROOT, "bench", "out", "compare"))
    else:
        main(os.path.join(ROOT, "bench", "out", "compare"))
