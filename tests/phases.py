"""The one way the tests build a phase (INPUT of evaluate.py: ref/ and res/).

    write_phase(root, ref={path: content}, res={path: content}, track_yaml=None)
    sample_phase(root, track, yaml=None)

and the build and the zips as an organizer and the platforms meet them:

    build_bundle(folder, dist)     tools/make_bundle.py --competition FOLDER --out DIST
    unzipped(data, folder)         a zip unpacked as the platforms' workers do

A content is text (written as UTF-8, as given), bytes, a PIL image or a numpy array (saved
as an image by the path's extension), or None for an empty folder at that path.
"""

import io
import os
import pathlib
import shutil
import subprocess
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLE = os.path.join(ROOT, "input")


def write_file(path, content):
    """One file (or, content None, an empty folder) at path, its folders made."""
    if content is None:
        os.makedirs(path, exist_ok=True)
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(content, str):
        content = content.encode("utf-8")
    if isinstance(content, bytes):
        with open(path, "wb") as stream:
            stream.write(content)
        return
    if not hasattr(content, "save"):  # a numpy array
        from PIL import Image

        content = Image.fromarray(content)
    content.save(path)


def write_phase(root, ref=None, res=None, track_yaml=None):
    """root/ref/ and root/res/ (both made, even empty) holding the files given as
    {relative path: content}; track_yaml, if given, as ref/track.yaml. Returns root (a
    pathlib.Path)."""
    root = pathlib.Path(root)
    ref = dict(ref or {})
    if track_yaml is not None:
        ref["track.yaml"] = track_yaml
    for side, files in (("ref", ref), ("res", res or {})):
        os.makedirs(str(root / side), exist_ok=True)
        for name, content in files.items():
            write_file(str(root.joinpath(side, *name.split("/"))), content)
    return root


def sample_phase(root, track, yaml=None):
    """root/ref/<track>/ and root/res/<track>/: the track of the sample phase in input/
    (the demo), its track.yaml replaced by `yaml` if given. Returns root (a pathlib.Path)."""
    root = pathlib.Path(root)
    for side in ("ref", "res"):
        shutil.copytree(os.path.join(SAMPLE, side, track), str(root / side / track))
    if yaml is not None:
        write_file(str(root / "ref" / track / "track.yaml"), yaml)
    return root


def build_bundle(folder, dist, fresh=False):
    """tools/make_bundle.py --competition FOLDER --out DIST, as an organizer runs it, in a
    process of its own forked from the test's (conftest.run_forked; the phases its manuals
    score are not recorded for the differential test), or with `fresh` in a fresh
    interpreter: a Completed or CompletedProcess (returncode, stdout, stderr)."""
    import make_bundle
    from conftest import _unrecorded, run_forked

    if fresh:
        return subprocess.run([sys.executable, os.path.join(ROOT, "tools", "make_bundle.py"), "--competition",
                               str(folder), "--out", str(dist)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=600)
    _unrecorded.append("build")
    try:
        return run_forked(make_bundle.main, ["make_bundle.py", "--competition", str(folder), "--out", str(dist)])
    finally:
        _unrecorded.pop()


def read_zip(data):
    """A zip's bytes as name -> content of its files (folder entries left out)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return dict((name, archive.read(name)) for name in archive.namelist() if not name.endswith("/"))


def unzipped(data, folder):
    """A zip's bytes unpacked into folder (made) as the platforms' workers do: Python's
    zipfile, extractall. Returns folder."""
    os.makedirs(str(folder))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        archive.extractall(str(folder))
    return str(folder)
