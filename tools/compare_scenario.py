"""A controlled scenario for compare.py (issue 7): one ground truth and submissions whose
error rates are known (5%, 10%, 15%, ...), as in the artificial-data protocol of
Fedorchuk and Lamiroy (2017, section V-A1). The true order is submission 1 > 2 > ...

python3 tools/compare_scenario.py OUT [--submissions 8]
writes OUT/ref/ (a phase with authentication/, events/ and lines/ tracks) and
OUT/res/sub1 ... OUT/res/subN. Authentication: submission i flips a share 5 i % of the
labels of every subset. Lines: every page has 20 lines and submission i misses i of them
(5 i %), the others exact. Events: submission i's confidence is the label plus Gaussian
noise of standard deviation 0.3 + 0.1 (i - 1), so its average precision falls with i.
"""

import argparse
import os

import numpy as np

SUBSETS = (("Pizan", 200, 0.4), ("Tasso", 160, 0.5), ("Yaqut", 120, 0.3))
CATEGORIES = 20
MANUSCRIPTS = ("Latin2", "Latin14396", "Syriaque341")
PAGES, LINES_PER_PAGE, WIDTH = 5, 20, 160
IMAGES = 600


def error_rates(count):
    return [0.05 * (i + 1) for i in range(count)]


def _write_csv(path, header, rows):
    with open(path, "w", newline="") as stream:
        stream.write(",".join(header) + "\n")
        for row in rows:
            stream.write(",".join(str(c) for c in row) + "\n")


def make(out, count=8, seed=7):
    """Write the scenario; returns (ref dir, [submission dirs], error rates)."""
    rng = np.random.RandomState(seed)
    ref = os.path.join(out, "ref")
    dirs = [os.path.join(out, "res", "sub%d" % (i + 1)) for i in range(count)]
    rates = error_rates(count)
    make_authentication(os.path.join(ref, "authentication"),
                        [os.path.join(d, "authentication") for d in dirs], rates, rng)
    make_events(os.path.join(ref, "events"), [os.path.join(d, "events") for d in dirs], rng)
    make_lines(os.path.join(ref, "lines"), [os.path.join(d, "lines") for d in dirs], rates, rng)
    return ref, dirs, rates


def make_authentication(ref, dirs, rates, rng):
    os.makedirs(ref, exist_ok=True)
    with open(os.path.join(ref, "track.yaml"), "w") as stream:
        stream.write("track: authentication\ndistances: required\nk: [1, 3, 5]\n")
    truth = {}
    for name, n, share in SUBSETS:
        filenames = ["%s_%04d.png" % (name.lower(), i) for i in range(n)]
        labels = (rng.rand(n) < share).astype(int)
        truth[name] = (filenames, labels)
        _write_csv(os.path.join(ref, name + ".csv"), ["filename", "label"], zip(filenames, labels))
    for res, rate in zip(dirs, rates):
        os.makedirs(res, exist_ok=True)
        for name, (filenames, labels) in truth.items():
            n = len(labels)
            flipped = rng.choice(n, size=int(round(rate * n)), replace=False)
            predicted = labels.copy()
            predicted[flipped] = 1 - predicted[flipped]
            _write_csv(os.path.join(res, name + "_labels.csv"), ["filename", "label"], zip(filenames, predicted))
            # Distances: class separation shrinking with the error rate.
            features = rng.randn(n, 4) + labels[:, None] * (3.0 - 5.0 * rate)
            distances = np.sqrt(((features[:, None, :] - features[None, :, :]) ** 2).sum(-1))
            np.savez(os.path.join(res, name + "_distances.npz"), names=np.array(filenames), distances=distances)
        with open(os.path.join(res, "README.md"), "w") as stream:
            stream.write("Synthetic submission with an error rate of %.0f%%.\n" % (100 * rate))


def make_events(ref, dirs, rng):
    os.makedirs(ref, exist_ok=True)
    with open(os.path.join(ref, "track.yaml"), "w") as stream:
        stream.write("track: events\n")
    ids = ["%06d.jpg" % i for i in range(IMAGES)]
    event = rng.randint(0, CATEGORIES, size=IMAGES)
    names = ["Event_%02d" % k for k in range(CATEGORIES)]
    for k, name in enumerate(names):
        with open(os.path.join(ref, name + ".txt"), "w") as stream:
            stream.writelines("%s %d\n" % (i, 1 if e == k else 0) for i, e in zip(ids, event))
    for index, res in enumerate(dirs):
        os.makedirs(res, exist_ok=True)
        noise = 0.3 + 0.1 * index
        for k, name in enumerate(names):
            confidence = (event == k) + noise * rng.randn(IMAGES)
            with open(os.path.join(res, name + ".txt"), "w") as stream:
                stream.writelines("%s %.6f\n" % (i, c) for i, c in zip(ids, confidence))


def make_lines(ref, dirs, rates, rng):
    from PIL import Image
    os.makedirs(ref, exist_ok=True)
    with open(os.path.join(ref, "track.yaml"), "w") as stream:
        stream.write("track: lines\nprotocol: both\n")
    for manuscript in MANUSCRIPTS:
        os.makedirs(os.path.join(ref, manuscript), exist_ok=True)
        for d in dirs:
            os.makedirs(os.path.join(d, manuscript), exist_ok=True)
        for number in range(PAGES):
            stem = "%s_%03d" % (manuscript.lower(), number + 1)
            bands, top = [], 4
            for _ in range(LINES_PER_PAGE):
                height = int(rng.randint(4, 7))
                bands.append((top, top + height, int(rng.randint(4, 12)), WIDTH - int(rng.randint(4, 30))))
                top += height + int(rng.randint(4, 7))
            ids = np.zeros((top + 4, WIDTH), dtype=np.uint8)
            for index, (y0, y1, x0, x1) in enumerate(bands):
                ids[y0:y1, x0:x1] = index + 1
            truth = Image.fromarray(np.where(ids > 0, 255, 0).astype(np.uint8))
            truth.save(os.path.join(ref, manuscript, stem + ".png"))
            for d, rate in zip(dirs, rates):
                missed = rng.choice(LINES_PER_PAGE, size=int(round(rate * LINES_PER_PAGE)), replace=False) + 1
                predicted = np.where(np.isin(ids, missed), 0, ids * 12).astype(np.uint8)
                Image.fromarray(predicted).save(os.path.join(d, manuscript, stem + ".png"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--submissions", type=int, default=8)
    args = parser.parse_args()
    make(args.out, args.submissions)


if __name__ == "__main__":
    main()
