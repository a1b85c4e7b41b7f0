"""Reference data without labels: the ground-truth-free analysis only.

An authentication subset file `<Subset>.csv` with a `filename` column and no `label`
column (or empty labels) lists the test images without their truth. The track scorer
needs labels to align and validate the submissions, so such a track is scored against a
copy of the reference whose labels are a placeholder (0); its ground-truth scores are
then meaningless and the report shows only the ground-truth-free analysis for it.
"""

import csv
import io
import os
import shutil

from .. import layout
from ..readers.text import decode_lines, read_bytes
from ..errors import ReferenceDataError
from ..tracks import TRACKS


def _unlabeled_csv(path, shown):
    lines = decode_lines(read_bytes(path, shown, ReferenceDataError), shown, ReferenceDataError)
    if not lines:
        return None
    rows = list(csv.reader(lines))
    header = [c.strip().lower() for c in rows[0]]
    if "filename" not in header:
        return None
    if "label" not in header:
        return [row[header.index("filename")] for row in rows[1:] if row]
    column = header.index("label")
    if all(len(row) > column and not row[column].strip() for row in rows[1:] if row):
        return [row[header.index("filename")] for row in rows[1:] if row]
    return None


def unlabeled_tracks(ref_dir):
    """{track rel: {csv name: [filenames]}} for authentication tracks without labels."""
    found = {}
    for track in layout.find_tracks(ref_dir, TRACKS):
        if track.kind != "authentication":
            continue
        files = {}
        for name in sorted(os.listdir(track.path)):
            if name.lower().endswith(".csv"):
                filenames = _unlabeled_csv(os.path.join(track.path, name), track.ref_name(name))
                if filenames is not None:
                    files[name] = filenames
        if files:
            found[track.rel] = files
    return found


def placeholder_reference(ref_dir, work_dir, unlabeled):
    """A copy of ref_dir whose unlabeled subset files carry the placeholder label 0."""
    copy = os.path.join(work_dir, "ref")
    shutil.copytree(ref_dir, copy)
    for rel, files in unlabeled.items():
        for name, filenames in files.items():
            out = io.StringIO()
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(["filename", "label"])
            writer.writerows([f, 0] for f in filenames)
            with open(os.path.join(copy, rel, name), "w", encoding="utf-8") as stream:
                stream.write(out.getvalue())
    return copy
