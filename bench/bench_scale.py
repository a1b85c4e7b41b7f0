"""Cost against scale: for each dimension a competition can grow in, the cost of 10 times
the work in that dimension alone, as a ratio (goal: at most 11, start-up included).

Each dimension is a phase written here at a base size and at 10 times its work, scored
by evaluate.py (compare.py for the last) in a fresh process, start-up included, best of
REPEAT runs taken alternately. The work of a subset of n images is its n x n distance
matrix, so 10 times the work there is sqrt(10) n images; elsewhere it is 10 times the
count. Every other dimension stays at its base. BENCH_SCALE (default 1) multiplies every
base size (0.1 to try the benchmark quickly); BENCH_ONLY=subsets,pages measures only the
dimensions named (by their first word).

    subsets              authentication, subsets of 10 images (labels and distance CSV)
    images per subset    authentication, one subset, its distance matrix as .npz
    manuscripts          lines, manuscripts of one small page
    pages                lines, pages of one manuscript
    categories           events, categories of 10 images
    images per category  events, 5 categories
    files in submission  events, 10 categories, files the phase does not read beside them
    submissions          compare.py over an authentication phase (3 subsets x 100 images)

compare.py compares every two submissions, so its pairwise part grows with the square of
the number of submissions; its line shows what that costs at this scale.

Each line also gives the ratio of CPU time (user + system, of the process and the page
workers it waited for): on a busy machine the wall-clock ratio follows the load of the
moment, the CPU ratio much less.
"""

import math
import os
import sys

import numpy as np
from timing import run_once

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVALUATE = os.path.join(ROOT, "program", "evaluate.py")
COMPARE = os.path.join(ROOT, "program", "compare.py")
REPEAT = 2
SCALE = float(os.environ.get("BENCH_SCALE", "1"))
GOAL = 11.0


def _write(path, text):
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        os.makedirs(folder)
    with open(path, "w", encoding="utf-8", newline="\n") as stream:
        stream.write(text)


def _distances_csv(names, rng):
    points = rng.rand(len(names), 4)
    distances = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(axis=2))
    rows = [",".join([""] + names)]
    rows += [name + "," + ",".join("%.6f" % value for value in row) for name, row in zip(names, distances)]
    return "\n".join(rows) + "\n"


def authentication_phase(folder, subsets, images, npz=False, seed=1):
    """ref/ and res/ of an authentication phase: `subsets` subsets of `images` images."""
    rng = np.random.RandomState(seed)
    _write(os.path.join(folder, "ref", "track.yaml"), "track: authentication\n")
    for s in range(subsets):
        subset = "Subset %04d" % s
        names = ["s%04d_%05d.png" % (s, i) for i in range(images)]
        labels = rng.randint(0, 2, images)
        predicted = np.where(rng.rand(images) < 0.8, labels, 1 - labels)
        _write(os.path.join(folder, "ref", subset + ".csv"),
               "filename,label\n" + "".join("%s,%d\n" % pair for pair in zip(names, labels)))
        _write(os.path.join(folder, "res", subset + "_labels.csv"),
               "filename,label\n" + "".join("%s,%d\n" % pair for pair in zip(names, predicted)))
        if npz:
            points = rng.rand(images, 4).astype(np.float32)
            squared = (points ** 2).sum(axis=1)
            distances = np.sqrt(np.maximum(squared[:, None] + squared[None, :] - 2 * points.dot(points.T), 0))
            np.savez(os.path.join(folder, "res", subset + "_distances.npz"), names=np.array(names),
                     distances=distances.astype(np.float32))
        else:
            _write(os.path.join(folder, "res", subset + "_distances.csv"), _distances_csv(names, rng))
    _write(os.path.join(folder, "res", "README.md"), "Distances of random 4-d features.\n")


def lines_phase(folder, manuscripts, pages, seed=2):
    """ref/ and res/ of a lines phase: `manuscripts` x `pages` pages of 120 x 80 pixels
    with 4 text lines, the prediction the ground truth with one line shifted."""
    from PIL import Image

    rng = np.random.RandomState(seed)
    _write(os.path.join(folder, "ref", "track.yaml"), "track: lines\nprotocol: standard\n")
    for m in range(manuscripts):
        manuscript = "Codex %04d" % m
        for directory in (os.path.join(folder, side, manuscript) for side in ("ref", "res")):
            os.makedirs(directory)
        for p in range(pages):
            truth = np.zeros((80, 120), dtype=np.uint8)
            colours = np.zeros((80, 120, 3), dtype=np.uint8)
            for line in range(4):
                top = 6 + 18 * line + rng.randint(0, 3)
                truth[top:top + 8, 10:110] = 255
                colours[top + (2 if line == 0 else 0):top + 8, 10:110] = (40 * line + 30, 200, 90)
            name = "page%04d.png" % p
            Image.fromarray(truth, "L").convert("1").save(os.path.join(folder, "ref", manuscript, name))
            Image.fromarray(colours, "RGB").save(os.path.join(folder, "res", manuscript, name))


def events_phase(folder, categories, images, extra_files=0, seed=3):
    """ref/ and res/ of an events phase: `categories` categories of `images` images (one
    id list), and extra_files files the phase does not read, in 10 folders of res/."""
    rng = np.random.RandomState(seed)
    _write(os.path.join(folder, "ref", "track.yaml"), "track: events\n")
    ids = ["%07d.jpg" % i for i in range(images)]
    for c in range(categories):
        category = "Event_%04d" % c
        labels = (rng.rand(images) < 0.1).astype(int)
        labels[c % images] = 1
        confidences = np.clip(labels * 0.3 + rng.rand(images) * 0.7, 0, 1)
        _write(os.path.join(folder, "ref", category + ".txt"),
               "".join("%s %d\n" % pair for pair in zip(ids, labels)))
        _write(os.path.join(folder, "res", category + ".txt"),
               "".join("%s %.6f\n" % pair for pair in zip(ids, confidences)))
    for f in range(extra_files):
        _write(os.path.join(folder, "res", "notes%d" % (f % 10), "note%06d.md" % f), "")


def compare_phase(folder, submissions, seed=4):
    """ref/ of a small authentication phase and `submissions` res folders for compare.py."""
    authentication_phase(os.path.join(folder, "phase"), 3, 100, seed=seed)
    rng = np.random.RandomState(seed)
    phase = os.path.join(folder, "phase")
    for k in range(submissions):
        res = os.path.join(folder, "submissions", "s%03d" % k)
        for name in sorted(os.listdir(os.path.join(phase, "res"))):
            with open(os.path.join(phase, "res", name), encoding="utf-8") as stream:
                text = stream.read()
            if name.endswith("_labels.csv"):  # each submission flips a different share of its labels
                lines = text.splitlines()
                flip = rng.rand(len(lines)) < 0.02 * (k % 20)
                lines = [line[:-1] + str(1 - int(line[-1])) if f and i else line
                         for i, (line, f) in enumerate(zip(lines, flip))]
                text = "\n".join(lines) + "\n"
            _write(os.path.join(res, name), text)


#: The base size of each dimension (before BENCH_SCALE).
BASES = {"subsets": 300, "images per subset": 2000, "manuscripts": 100, "pages": 100, "categories": 300,
         "images per category": 60000, "files in submission": 5000, "submissions": 8}


def _size(dimension):
    return max(1, int(round(BASES[dimension] * SCALE)))


def dimensions():
    """(label, writer(folder, factor), command(folder, out)) of each dimension; factor 1 is
    the base, 10 the work multiplied by 10."""
    def evaluate(folder, out):
        return [EVALUATE, folder, out]

    def compare(folder, out):
        runs = sorted(os.listdir(os.path.join(folder, "submissions")))
        return [COMPARE, "--ref", os.path.join(folder, "phase", "ref"), "--out", out, "--resamples", "200"] + [
            os.path.join(folder, "submissions", run) for run in runs]

    images = _size("images per subset")
    return [
        ("subsets", lambda f, x: authentication_phase(f, _size("subsets") * x, 10), evaluate),
        ("images per subset", lambda f, x: authentication_phase(f, 1, int(round(images * math.sqrt(x))), npz=True),
         evaluate),
        ("manuscripts", lambda f, x: lines_phase(f, _size("manuscripts") * x, 1), evaluate),
        ("pages", lambda f, x: lines_phase(f, 1, _size("pages") * x), evaluate),
        ("categories", lambda f, x: events_phase(f, _size("categories") * x, 10), evaluate),
        ("images per category", lambda f, x: events_phase(f, 5, _size("images per category") * x), evaluate),
        ("files in submission", lambda f, x: events_phase(f, 10, 100, extra_files=_size("files in submission") * x),
         evaluate),
        ("submissions (compare.py)", lambda f, x: compare_phase(f, max(2, _size("submissions")) * x), compare),
    ]


def prepared(folder, label, write, factor):
    """The phase of a dimension at a factor, written once for these sizes."""
    spec = repr((label, SCALE, factor, BASES.get(label.split(" (")[0])))
    marker = os.path.join(folder, "written")
    if os.path.exists(marker):
        with open(marker) as stream:
            if stream.read() == spec:
                return folder
    if os.path.isdir(folder):
        import shutil
        shutil.rmtree(folder)
    write(folder, factor)
    with open(marker, "w") as stream:
        stream.write(spec)
    return folder


def main(outdir):
    print("Python %s, numpy %s; BENCH_SCALE %g; best of %d runs, start-up included"
          % (sys.version.split()[0], np.__version__, SCALE, REPEAT), flush=True)
    only = [word for word in os.environ.get("BENCH_ONLY", "").split(",") if word]
    for label, write, command in dimensions():
        slug = label.split(" (")[0].replace(" ", "_")
        if only and slug.split("_")[0] not in only:
            continue
        folders = [prepared(os.path.join(outdir, slug, "x%d" % factor), label, write, factor) for factor in (1, 10)]
        best, cpu = [float("inf")] * 2, [float("inf")] * 2
        for _ in range(REPEAT):
            for i, folder in enumerate(folders):
                elapsed, _, used = run_once(command(folder, os.path.join(folder, "output")), quiet=True)
                best[i], cpu[i] = min(best[i], elapsed), min(cpu[i], used)
        ratio = best[1] / best[0]
        print("%-26s base %7.2f s, 10x the work %7.2f s: ratio %5.2f (goal <= %g: %s); CPU time ratio %5.2f"
              % (label, best[0], best[1], ratio, GOAL, "met" if ratio <= GOAL else "MISSED", cpu[1] / cpu[0]),
              flush=True)
