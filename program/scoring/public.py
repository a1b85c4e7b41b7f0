"""The public items of a phase, and a stand-in reference made from them.

A participant's checker (check_submission.py) has no ground truth. The build writes,
for each phase, the list of its test items that participants know anyway: the image
names of each authentication subset, the pages of each manuscript with their width and
height, the image ids of each event category, and each track's track.yaml. Nothing
else of the ground truth (no label, no mask pixel) is written.

From that list, stand_in_reference() writes a reference directory with the same names
and sizes and made-up labels (blank masks, alternating labels). The checker then runs
the scoring program's own code (layout, readers, tracks) on the submission against it:
every sentence about the submission is the one the scoring program prints, because it
depends only on names, sizes and options, never on the labels.
"""

import json
import os

from . import layout
from .readers import authentication as authentication_reader
from .readers import events as events_reader
from .readers import lines as lines_reader
from .tracks import TRACKS

FORMAT = 1


def _authentication_items(track):
    return {"subsets": [{"name": subset.name, "images": list(subset.filenames)}
                        for subset in authentication_reader.read_ground_truth(track)]}


def _lines_items(track):
    from PIL import Image

    manuscripts = []
    for manuscript, pages in lines_reader.ground_truth_pages(track):
        listed = []
        for page in pages:
            with Image.open(os.path.join(track.path, manuscript, page.filename)) as image:
                width, height = image.size
            listed.append({"file": page.filename, "width": width, "height": height})
        manuscripts.append({"name": manuscript, "pages": listed})
    return {"manuscripts": manuscripts}


def _events_items(track):
    lists, categories = [], []
    for category in events_reader.read_reference(track):
        ids = list(category.ids)
        if ids not in lists:
            lists.append(ids)
        categories.append({"name": category.name, "images": lists.index(ids)})
    return {"image_lists": lists, "categories": categories}


ITEMS = {"authentication": _authentication_items, "lines": _lines_items, "events": _events_items}


def public_items(ref_root, shown_root="ref"):
    """The public items of a phase whose reference data are ref_root (INPUT/ref, named
    shown_root in sentences)."""
    tracks = []
    for track in layout.find_tracks(ref_root, TRACKS, shown_root):
        with open(os.path.join(track.path, "track.yaml"), "rb") as stream:
            track_yaml = stream.read().decode("utf-8")
        tracks.append({"dir": track.rel, "kind": track.kind, "track_yaml": track_yaml,
                       "items": ITEMS[track.kind](track)})
    return {"format": FORMAT, "tracks": tracks}


def dumps(items):
    return json.dumps(items, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- the stand-in reference


def _write_text(path, text):
    with open(path, "w", encoding="utf-8", newline="\n") as stream:
        stream.write(text)


def _authentication_reference(items, directory):
    for subset in items["subsets"]:
        rows = ["filename,label"] + ["%s,%d" % (name, i % 2) for i, name in enumerate(subset["images"])]
        _write_text(os.path.join(directory, subset["name"] + ".csv"), "\n".join(rows) + "\n")


def _lines_reference(items, directory):
    from PIL import Image

    for manuscript in items["manuscripts"]:
        folder = os.path.join(directory, manuscript["name"])
        os.makedirs(folder)
        for page in manuscript["pages"]:
            Image.new("1", (page["width"], page["height"]), 0).save(os.path.join(folder, page["file"]))


def _events_reference(items, directory):
    for category in items["categories"]:
        ids = items["image_lists"][category["images"]]
        lines = ["%s %d" % (image, 1 if i % 2 == 0 else 0) for i, image in enumerate(ids)]
        _write_text(os.path.join(directory, category["name"] + ".txt"), "\n".join(lines) + "\n")


REFERENCES = {"authentication": _authentication_reference, "lines": _lines_reference,
              "events": _events_reference}


def stand_in_reference(items, ref_root, marked=False):
    """Write into ref_root (created) a reference with the items' names and sizes. marked:
    its track.yaml files say stand_in: true, so that evaluate.py validates a submission
    against it and scores nothing (runner.stand_in_result): the reference data a platform
    may show to anyone while the real ones stay with the organizer."""
    os.makedirs(ref_root)
    for track in items["tracks"]:
        directory = os.path.join(ref_root, track["dir"]) if track["dir"] else ref_root
        if track["dir"]:
            os.makedirs(directory)
        text = track["track_yaml"]
        if marked:
            text = text.rstrip("\n") + "\nstand_in: true\n"
        _write_text(os.path.join(directory, "track.yaml"), text)
        REFERENCES[track["kind"]](track["items"], directory)


def load(path):
    with open(path, encoding="utf-8") as stream:
        items = json.load(stream)
    if not isinstance(items, dict) or items.get("format") != FORMAT:
        raise ValueError("%s is not a public item list of format %d." % (path, FORMAT))
    return items


# ---------------------------------------------------------------- a dummy submission


def _authentication_dummy(items, directory):
    import numpy as np

    for subset in items["subsets"]:
        names = subset["images"]
        rows = ["filename,label"] + ["%s,0" % name for name in names]
        _write_text(os.path.join(directory, subset["name"] + "_labels.csv"), "\n".join(rows) + "\n")
        np.savez_compressed(os.path.join(directory, subset["name"] + "_distances.npz"),
                            names=np.array(names), distances=np.ones((len(names), len(names)), dtype=np.float32))
    _write_text(os.path.join(directory, "README.md"),
                "A dummy submission: every image authentic, every distance 1. Replace these files by yours.\n")


def _lines_dummy(items, directory):
    from PIL import Image

    for manuscript in items["manuscripts"]:
        folder = os.path.join(directory, manuscript["name"])
        os.makedirs(folder)
        for page in manuscript["pages"]:
            name = os.path.splitext(page["file"])[0] + ".png"
            Image.new("1", (page["width"], page["height"]), 0).save(os.path.join(folder, name))


def _events_dummy(items, directory):
    for category in items["categories"]:
        ids = items["image_lists"][category["images"]]
        _write_text(os.path.join(directory, category["name"] + ".txt"),
                    "".join("%s 0.5\n" % image for image in ids))


DUMMIES = {"authentication": _authentication_dummy, "lines": _lines_dummy, "events": _events_dummy}


def dummy_submission(items, res_root):
    """Write into res_root (created) a valid submission that predicts nothing useful:
    the starting kit's sample when the organizer gives none."""
    os.makedirs(res_root)
    for track in items["tracks"]:
        directory = os.path.join(res_root, track["dir"]) if track["dir"] else res_root
        if track["dir"]:
            os.makedirs(directory)
        DUMMIES[track["kind"]](track["items"], directory)
