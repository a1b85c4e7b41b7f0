"""A controlled scenario for compare.py (issue 7): one ground truth and submissions whose
error rates are known (5%, 10%, 15%, ...), as in the artificial-data protocol of
Fedorchuk and Lamiroy (2017, section V-A1). The true order is submission 1 > 2 > ...

python3 tools/compare_scenario.py OUT [--submissions 8]
writes OUT/ref/ (a phase with an authentication/ and an events/ track) and
OUT/res/sub1 ... OUT/res/subN. Authentication: submission i flips a share 5 i % of the
labels of every subset. Events: submission i's confidence is the label plus Gaussian
noise of standard deviation 0.3 + 0.1 (i - 1), so its average precision falls with i.
"""

import argparse
import os

import numpy as np

SUBSETS = (("Pizan", 200, 0.4), ("Tasso", 160, 0.5), ("Yaqut", 120, 0.3))
CATEGORIES = 20
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--submissions", type=int, default=8)
    args = parser.parse_args()
    make(args.out, args.submissions)


if __name__ == "__main__":
    main()
