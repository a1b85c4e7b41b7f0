"""The per-item views that evaluate.py leaves under OUTPUT/private/views/ for compare.py
--scored: one `<track>.npz` per track (itemview.ItemView.write) and, for a track whose
decisions are pixels, `<track>.foreground.npz` (its packed predicted foregrounds per page).
Here <track> is the track's directory under ref/ ("phase" for a track at the root)."""

import io
import json
import os

import numpy as np

from .errors import ReferenceDataError

FOLDER = "views"


def track_name(rel):
    return rel or "phase"


def private_files(track, prefix, result):
    """(relative path, bytes or a function writing them to a stream) of the files to
    write under private/ for one track."""
    if result.view is None:
        return []
    name = track_name(track.rel)
    meta = {"kind": result.kind, "rel": track.rel, "prefix": prefix, "title": result.title}
    files = [("%s/%s.npz" % (FOLDER, name), result.view.write),
             ("%s/%s.json" % (FOLDER, name), json.dumps(meta).encode("utf-8"))]
    if result.foregrounds:
        keys = sorted(result.foregrounds)
        arrays = {"keys": np.array([json.dumps(list(k)) for k in keys], dtype=np.str_)}
        for i, key in enumerate(keys):
            shape, bits = result.foregrounds[key]
            arrays["shape%d" % i] = np.asarray(shape, dtype=np.int64)
            arrays["bits%d" % i] = bits
        buffer = io.BytesIO()
        np.savez(buffer, **arrays)  # not compressed: zlib costs ten times the writing
        files.append(("%s/%s.foreground.npz" % (FOLDER, name), buffer.getvalue()))
    return files


def read_scored(output_dir):
    """[(meta, ItemView, foregrounds or {})] of one evaluate.py output directory."""
    from .itemview import ItemView

    folder = os.path.join(output_dir, "private", FOLDER)
    if not os.path.isdir(folder):
        raise ReferenceDataError("%s has no private/%s/: give output directories written by evaluate.py "
                                 "(this version or later)." % (output_dir, FOLDER))
    found = []
    for root, _, files in os.walk(folder):
        for filename in sorted(files):
            if filename.endswith(".json"):
                found.append(os.path.join(root, filename[:-len(".json")]))
    if not found:
        raise ReferenceDataError("%s holds no per-item view; was it written by evaluate.py?" % folder)
    out = []
    for stem in sorted(found):
        try:
            with open(stem + ".json", encoding="utf-8") as stream:
                meta = json.load(stream)
            view = ItemView.from_file(stem + ".npz")
            foregrounds = {}
            if os.path.isfile(stem + ".foreground.npz"):
                with np.load(stem + ".foreground.npz", allow_pickle=False) as data:
                    for i, key in enumerate(data["keys"]):
                        foregrounds[tuple(json.loads(str(key)))] = (tuple(data["shape%d" % i].tolist()),
                                                                   data["bits%d" % i])
        except (OSError, ValueError, KeyError) as error:
            raise ReferenceDataError("%s.npz cannot be read as a per-item view (%s)." % (stem, error))
        out.append((meta, view, foregrounds))
    return out
