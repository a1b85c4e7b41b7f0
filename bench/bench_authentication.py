"""Benchmark of the authentication track at FalsID's scale: one subset of 5,000 images
(csv_5000/, its distances as a labeled CSV), then one of 10,000 images.

Run: python3 bench/run.py authentication

The 10,000 images' distances are submitted twice, in two phases under bench/out/authentication/:
- npz/: Pizan_distances.npz, names and a float32 matrix (400 MB);
- csv/: Pizan_distances.csv, the same values as a labeled CSV, 6 decimals (about 0.9 GB).
Distances are Euclidean distances between class-dependent features, rounded to 1e-4 so
that ties occur (also at the k-th place). Each scoring run (the whole evaluate.py in a
fresh process, start-up included, phase by phase: bench/phases.py) is timed against a
baseline run in a fresh process in the same session, alternately, and the medians compared:
- npz: numpy.load of the archive + one numpy.partition of the matrix along its rows
  (goal: at most 1.4x);
- csv: numpy.loadtxt of the same CSV file (goal: at most 0.6x);
and the peak resident memory of each scoring run is reported (goal: at most 1.2 x the
decoded matrix + 150 MB). The phases are generated once and kept under bench/out/.
"""

import os
import shutil
import sys

import numpy as np
from timing import against_baseline

N = 10000
SUBSET = "Pizan"
DECIMALS = 6  # cells are written as 0.dddddd
#: Runs of each, best kept: the machine's memory management now and then adds a second of
#: system time to reading the 400 MB archive (measured: np.load 0.36 s, and 1.4 to 1.6 s in
#: one run of three), which best of 3 did not always leave out of the .npz baseline.
REPEAT = {"npz": 7, "csv": 3, "csv_5000": 5}
#: The subset of the CSV phase measured first (issue 35's shape): 5,000 images.
SMALL = 5000
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVALUATE = os.path.join(ROOT, "program", "evaluate.py")


def make_distances(rng, labels):
    """Symmetric distances in [0, 1), rounded to 1e-4 (ties), zero diagonal."""
    features = rng.randn(len(labels), 16).astype(np.float64) + labels[:, None] * 0.35
    squared = (features ** 2).sum(axis=1)
    distances = squared[:, None] + squared[None, :] - 2.0 * features.dot(features.T)
    np.maximum(distances, 0.0, out=distances)
    np.sqrt(distances, out=distances)
    distances /= distances.max() * 1.0001
    distances = (distances + distances.T) / 2.0
    np.round(distances, 4, out=distances)
    np.fill_diagonal(distances, 0.0)
    return distances


def write_labeled_csv(path, names, distances):
    """The labeled CSV, written a block of rows at a time as fixed-width bytes ('0.dddddd,')."""
    n = len(names)
    scale = 10 ** DECIMALS
    width = DECIMALS + 3
    with open(path, "wb") as stream:
        stream.write(("," + ",".join(names) + "\n").encode("ascii"))
        for start in range(0, n, 500):
            stop = min(n, start + 500)
            q = np.rint(distances[start:stop] * scale).astype(np.int64)
            cells = np.empty((stop - start, n, width), dtype=np.uint8)
            cells[:, :, 0] = ord("0")
            cells[:, :, 1] = ord(".")
            for p in range(DECIMALS):
                cells[:, :, 2 + p] = (q // 10 ** (DECIMALS - 1 - p)) % 10 + ord("0")
            cells[:, :, -1] = ord(",")
            cells[:, -1, -1] = ord("\n")
            rows = cells.reshape(stop - start, n * width)
            for i in range(stop - start):
                stream.write(names[start + i].encode("ascii") + b",")
                stream.write(rows[i].tobytes())


def make_phases(outdir, n=None, forms=("npz", "csv")):
    """The phases of a subset of n images (default N) under outdir: one folder per form,
    named by the form (suffixed with n when n is not N)."""
    n = N if n is None else n
    rng = np.random.RandomState(2026)
    numbers = np.sort(rng.choice(np.arange(1, 900000), size=n, replace=False))
    names = ["PIZAN_%06d.jpg" % number for number in numbers]
    labels = (rng.rand(n) < 0.4).astype(np.int64)
    predicted = np.where(rng.rand(n) < 0.15, 1 - labels, labels)
    distances = make_distances(rng, labels)
    phases = {}
    for form in forms:
        phase = os.path.join(outdir, form if n == N else "%s_%d" % (form, n))
        ref, res = os.path.join(phase, "ref"), os.path.join(phase, "res")
        os.makedirs(ref)
        os.makedirs(res)
        with open(os.path.join(ref, "track.yaml"), "w") as stream:
            stream.write("track: authentication\nk: [1, 3, 5]\n")
        with open(os.path.join(ref, SUBSET + ".csv"), "w") as stream:
            stream.write("filename,label\n" + "".join("%s,%d\n" % row for row in zip(names, labels)))
        with open(os.path.join(res, SUBSET + "_labels.csv"), "w") as stream:
            stream.write("filename,label\n" + "".join("%s,%d\n" % row for row in zip(names, predicted)))
        with open(os.path.join(res, "README.md"), "w") as stream:
            stream.write("Benchmark submission: Euclidean distances of 16-d features.\n")
        phases[form] = phase
    if "npz" in phases:
        np.savez(os.path.join(phases["npz"], "res", SUBSET + "_distances.npz"), names=np.array(names),
                 distances=distances.astype(np.float32))
    write_labeled_csv(os.path.join(phases["csv"], "res", SUBSET + "_distances.csv"), names, distances)


def prepare(outdir):
    """The phases under outdir, generated once and kept for the next runs."""
    marker = os.path.join(outdir, "phases.done")
    if not os.path.exists(marker):
        shutil.rmtree(outdir, ignore_errors=True)
        os.makedirs(outdir)
        make_phases(outdir)
        open(marker, "w").close()
    if not os.path.exists(os.path.join(outdir, "csv_%d.done" % SMALL)):
        shutil.rmtree(os.path.join(outdir, "csv_%d" % SMALL), ignore_errors=True)
        make_phases(outdir, SMALL, ("csv",))
        open(os.path.join(outdir, "csv_%d.done" % SMALL), "w").close()


def loadtxt_code(csv, n):
    return ("import numpy\n"
            "numpy.loadtxt(%r, delimiter=',', skiprows=1, usecols=range(1, %d), dtype=numpy.float64)\n"
            % (csv, n + 1))


def main(outdir):
    prepare(outdir)
    small = os.path.join(outdir, "csv_%d" % SMALL)
    small_csv = os.path.join(small, "res", SUBSET + "_distances.csv")
    print("subset of %d images, %s: %.0f MB" % (SMALL, os.path.basename(small_csv), os.path.getsize(small_csv) / 1e6))
    against_baseline("scoring from .csv vs numpy.loadtxt", small, os.path.join(outdir, "output_csv_%d" % SMALL),
                     ["-c", loadtxt_code(small_csv, SMALL)], REPEAT["csv_%d" % SMALL], goal=0.6)
    phases = dict((form, os.path.join(outdir, form)) for form in ("npz", "csv"))
    npz = os.path.join(phases["npz"], "res", SUBSET + "_distances.npz")
    csv = os.path.join(phases["csv"], "res", SUBSET + "_distances.csv")
    print("subset of %d images; %s: %.0f MB (float32), %s: %.0f MB" % (
        N, os.path.basename(npz), os.path.getsize(npz) / 1e6, os.path.basename(csv), os.path.getsize(csv) / 1e6),
        flush=True)
    npz_code = (
        "import numpy\n"
        "with numpy.load(%r) as archive:\n"
        "    names, distances = archive['names'], archive['distances']\n"
        "distances.partition(4, axis=1)\n" % npz)
    scores = {}
    for form, baseline_code, goal, itemsize in (("npz", npz_code, 1.4, 4), ("csv", loadtxt_code(csv, N), 0.6, 8)):
        out = os.path.join(outdir, "output_" + form)
        label = "scoring from .npz vs load+partition" if form == "npz" else "scoring from .csv vs numpy.loadtxt"
        runs = against_baseline(label, phases[form], out, ["-c", baseline_code], REPEAT[form], goal=goal)
        with open(os.path.join(out, "scores.txt")) as stream:
            scores[form] = stream.read().split()
        # The largest decoded input is the matrix (float32 from the archive, float64 from the CSV).
        peak, limit = max(run["peak"] for run in runs) / 1e9, (1.2 * N * N * itemsize + 150e6) / 1e9
        print("%-34s %6.2f GB (goal <= 1.2 x the matrix + 150 MB = %.2f GB: %s)" % (
            "peak memory, scoring from ." + form, peak, limit, "met" if peak <= limit else "MISSED"))
    same = scores["npz"] == scores["csv"]
    print("scores from .npz and .csv identical: %s (%s)" % (same, " ".join(scores["npz"][:8])))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main(os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "authentication"))
