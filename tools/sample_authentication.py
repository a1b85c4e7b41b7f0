"""Sample phase of the authentication track: three subsets named as FalsID names them.

Ground truth and an imperfect submission (about 85% accuracy), per-subset label files,
distances as a labeled CSV for Pizan and Yaqut and as .npz for Tasso, distances
rounded to two decimals so that ties occur, and Tasso's submission naming its images
.jpg where the ground truth says .JPG (matched without the extension).
"""

import os

import numpy as np

SUBSETS = (
    # name, how FalsID names its images, number of images, share of imitations
    ("Pizan", "PIZAN_%06d.jpg", 120, 0.4),
    ("Tasso", "tasso_%06d.JPG", 90, 0.5),
    ("Yaqut", "Yaqut_%05d.png", 60, 0.3),
)


def write_csv(path, header, rows):
    with open(path, "w", newline="") as stream:
        stream.write(",".join(header) + "\n")
        for row in rows:
            stream.write(",".join(str(c) for c in row) + "\n")


def make(ref, res, seed=2026, public_details=None):
    """The sample phase; public_details: written in track.yaml unless None (the sample of
    input/ leaves it out; tools/make_bundle.py's final phase says false)."""
    rng = np.random.RandomState(seed)
    for folder in (ref, res):
        os.makedirs(folder, exist_ok=True)
    with open(os.path.join(ref, "track.yaml"), "w") as stream:
        stream.write("track: authentication\ndistances: required\nk: [1, 3, 5]\ndocumentation: optional\n")
        if public_details is not None:
            stream.write("public_details: %s\n" % ("true" if public_details else "false"))
    for name, pattern, n, share in SUBSETS:
        numbers = np.sort(rng.choice(np.arange(1, 40000), size=n, replace=False))
        filenames = [pattern % number for number in numbers]
        labels = (rng.rand(n) < share).astype(int)
        write_csv(os.path.join(ref, name + ".csv"), ["filename", "label"], zip(filenames, labels))
        # An imperfect classifier: about 15% of the labels flipped.
        predicted = np.where(rng.rand(n) < 0.15, 1 - labels, labels)
        submitted = [f.replace(".JPG", ".jpg") for f in filenames]
        order = rng.permutation(n)
        write_csv(os.path.join(res, name + "_labels.csv"), ["filename", "label"],
                  [(submitted[i], predicted[i]) for i in order])
        # Features: a class centre plus noise; distances rounded to 2 decimals (ties).
        features = rng.randn(n, 6) * 0.9 + labels[:, None] * 1.2
        distances = np.sqrt(((features[:, None, :] - features[None, :, :]) ** 2).sum(-1))
        distances = np.round(distances, 2)
        if name == "Tasso":
            np.savez(os.path.join(res, name + "_distances.npz"), names=np.array(submitted), distances=distances)
        else:
            with open(os.path.join(res, name + "_distances.csv"), "w", newline="") as stream:
                stream.write("," + ",".join(submitted) + "\n")
                for i in range(n):
                    stream.write(submitted[i] + "," + ",".join("%.2f" % d for d in distances[i]) + "\n")
    with open(os.path.join(res, "README.md"), "w") as stream:
        stream.write("# Sample method\n\nDistances: Euclidean distance between 6-d stroke-width and slant "
                     "features. Classification: a threshold on the distance to the authentic centroid.\n")
