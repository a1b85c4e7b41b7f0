"""The public items of a phase, and a stand-in reference made from them.

A participant's checker (check_submission.py) has no ground truth. The build writes, for
each phase, the list of its test items that participants know anyway, as each track's
kind declares them (its public_items: names and sizes, never a label or a mask pixel), and
each track's track.yaml.

From that list, stand_in_reference() writes a reference directory with the same names and
sizes and made-up labels (each kind's stand_in_reference). The checker then runs the
scoring program's own code (layout, readers, tracks) on the submission against it: every
sentence about the submission is the one the scoring program prints, because it depends
only on names, sizes and options, never on the labels.
"""

import json
import os

from . import layout
from .files import write_text
from .tracks import TRACKS, require

FORMAT = 1


def public_items(ref_root, shown_root="ref"):
    """The public items of a phase whose reference data are ref_root (INPUT/ref, named
    shown_root in sentences)."""
    tracks = []
    for track in layout.find_tracks(ref_root, TRACKS, shown_root):
        with open(os.path.join(track.path, "track.yaml"), "rb") as stream:
            track_yaml = stream.read().decode("utf-8")
        items = require(track.kind, "public_items", "the starting kit's list of test items")(track)
        tracks.append({"dir": track.rel, "kind": track.kind, "track_yaml": track_yaml, "items": items})
    return {"format": FORMAT, "tracks": tracks}


def dumps(items):
    return json.dumps(items, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _folders(items, root):
    """(track, its folder under root, created) of each track of the items."""
    for track in items["tracks"]:
        directory = os.path.join(root, track["dir"]) if track["dir"] else root
        if track["dir"]:
            os.makedirs(directory)
        yield track, directory


def stand_in_reference(items, ref_root, marked=False):
    """Write into ref_root (created) a reference with the items' names and sizes. marked:
    its track.yaml files say stand_in: true, so that evaluate.py validates a submission
    against it and scores nothing (runner.stand_in_result): the reference data a platform
    may show to anyone while the real ones stay with the organizer."""
    os.makedirs(ref_root)
    for track, directory in _folders(items, ref_root):
        text = track["track_yaml"]
        if marked:
            text = text.rstrip("\n") + "\nstand_in: true\n"
        write_text(os.path.join(directory, "track.yaml"), text)
        require(track["kind"], "stand_in_reference", "the starting kit's checker")(track["items"], directory)


def load(path):
    with open(path, encoding="utf-8") as stream:
        items = json.load(stream)
    if not isinstance(items, dict) or items.get("format") != FORMAT:
        raise ValueError("%s is not a public item list of format %d." % (path, FORMAT))
    return items


def dummy_submission(items, res_root):
    """Write into res_root (created) a valid submission that predicts nothing useful:
    the starting kit's sample when the organizer gives none."""
    os.makedirs(res_root)
    for track, directory in _folders(items, res_root):
        require(track["kind"], "dummy_submission", "a sample submission")(track["items"], directory)
