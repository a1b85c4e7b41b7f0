"""Reference data without labels: the ground-truth-free analysis only.

A track module may say which of its reference files list items without their truth
(`unlabeled_files(track)`, and `write_placeholder_labels(track_dir, files)` to fill them).
Its scorer needs labels to align and validate the submissions, so such a track is scored
against a copy of the reference with placeholder labels; its ground-truth scores are then
meaningless and the report shows only the ground-truth-free analysis for it.
"""

import os
import shutil

from .. import layout
from ..tracks import TRACKS


def unlabeled_tracks(ref_dir):
    """{track rel: (kind, what the track's unlabeled_files returned)} for tracks without labels."""
    found = {}
    for track in layout.find_tracks(ref_dir, TRACKS):
        finder = getattr(TRACKS[track.kind], "unlabeled_files", None)
        files = finder(track) if finder is not None else None
        if files:
            found[track.rel] = (track.kind, files)
    return found


def placeholder_reference(ref_dir, work_dir, unlabeled):
    """A copy of ref_dir whose unlabeled files carry placeholder labels."""
    copy = os.path.join(work_dir, "ref")
    shutil.copytree(ref_dir, copy)
    for rel, (kind, files) in unlabeled.items():
        TRACKS[kind].write_placeholder_labels(os.path.join(copy, rel), files)
    return copy
