"""The same submission, zipped as real tools zip it and unpacked by Python's zipfile as the
platforms' workers do, scores identically (issue 21).

The phase is the sample phase with names in other scripts: authentication subsets
"Victor Hugo" and "Sévigné", lines manuscripts "CSG 863" and "Syriaque ܐܪܡܝܐ", events
categories "Carnaval_de_Río" and "Fête_des_Lumières", and the events track in a folder
"fêtes". The zips:

- Python's zipfile (names in UTF-8 with the zip's UTF-8 flag);
- Info-ZIP's zip (UTF-8 bytes without the flag: zipfile unpacks them as cp437), made by
  the `zip` command when it is installed, and in any case byte for byte by writing the
  raw names without the flag;
- macOS's Finder (names decomposed, NFD, with __MACOSX/ and ._ AppleDouble files and a
  .DS_Store beside them);
- old Windows zip tools ('\\' between folders: files at the top level named
  authentication\\Victor Hugo_labels.csv once unpacked on Linux).
"""

import io
import os
import shutil
import subprocess
import unicodedata
import zipfile

import pytest
from conftest import run_checker, run_scorer
from malformed import SAMPLE
from phases import unzipped

RENAMED = {
    ("authentication", "Tasso"): "Victor Hugo",
    ("authentication", "Yaqut"): "S\u00e9vign\u00e9",
    ("lines", "Latin2"): "CSG 863",
    ("lines", "Syriaque341"): "Syriaque \u0710\u072a\u0721\u071d\u0710",
    ("events", "La_Tomatina"): "Carnaval_de_R\u00edo",
    ("events", "Oktoberfest"): "F\u00eate_des_Lumi\u00e8res",
}
FOLDERS = {"authentication": "authentication", "lines": "lines", "events": "f\u00eates"}


def rename(path, track):
    """A path of the sample phase's track with the names of RENAMED."""
    parts = path.split("/")
    for i, part in enumerate(parts):
        for (kind, old), new in RENAMED.items():
            if kind == track and (part == old or part.startswith(old + "_") or part.startswith(old + ".")):
                parts[i] = new + part[len(old):]
    return "/".join(parts)


@pytest.fixture(scope="module")
def phase(tmp_path_factory):
    """(input folder with ref/ and res/, {relative path under res/: bytes})."""
    root = str(tmp_path_factory.mktemp("names") / "input")
    files = {}
    for track, folder in FOLDERS.items():
        for side in ("ref", "res"):
            base = os.path.join(SAMPLE, side, track)
            for directory, _, filenames in os.walk(base):
                for filename in filenames:
                    rel = os.path.relpath(os.path.join(directory, filename), base).replace(os.sep, "/")
                    target = os.path.join(root, side, folder, rename(rel, track))
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    shutil.copyfile(os.path.join(directory, filename), target)
                    if side == "res":
                        with open(target, "rb") as stream:
                            files[folder + "/" + rename(rel, track)] = stream.read()
    return root, files


def score(tmp_path, phase_root, res):
    """Score res/ against the phase's ref/: (scores.txt bytes, the log)."""
    work = str(tmp_path / ("run-" + os.path.basename(res)))
    os.makedirs(work)
    os.symlink(os.path.join(phase_root, "ref"), os.path.join(work, "ref"))
    os.rename(res, os.path.join(work, "res"))
    run = run_scorer(work, os.path.join(work, "out"))
    assert run.status == 0, run.stderr
    with open(os.path.join(work, "out", "scores.txt"), "rb") as stream:
        return stream.read(), run.stderr


def python_zip(files):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(files.items()):
            archive.writestr(name, data)
    return buffer.getvalue()


def zip_without_utf8_flag(files):
    """What Info-ZIP's zip writes on Linux: each name's UTF-8 bytes, without the UTF-8 flag.
    Written by zipfile under an ASCII placeholder of the same length, then the placeholder's
    bytes replaced by the name's (in the local header and the central directory)."""
    buffer = io.BytesIO()
    raw = {}
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for i, (name, data) in enumerate(sorted(files.items())):
            encoded = name.encode("utf-8")
            placeholder = ("~%d~" % i).rjust(len(encoded), "~")
            raw[placeholder.encode("ascii")] = encoded
            archive.writestr(placeholder, data)
    out = buffer.getvalue()
    for placeholder, encoded in raw.items():
        assert out.count(placeholder) == 2
        out = out.replace(placeholder, encoded)
    return out


def finder_zip(files):
    """macOS's Finder: names in NFD, an AppleDouble ._ file per file under __MACOSX/, and a
    .DS_Store in the folders."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(files.items()):
            nfd = unicodedata.normalize("NFD", name)
            archive.writestr(nfd, data)
            folder, _, filename = nfd.rpartition("/")
            archive.writestr("__MACOSX/%s/._%s" % (folder, filename), b"\x00\x05\x16\x07AppleDouble")
        for folder in sorted(set(unicodedata.normalize("NFD", n.rpartition("/")[0]) for n in files)):
            archive.writestr(folder + "/.DS_Store", b"Bud1")
            archive.writestr(folder + "/._.DS_Store", b"\x00\x05\x16\x07")
    return buffer.getvalue()


def backslash_zip(files):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in sorted(files.items()):
            archive.writestr(zipfile.ZipInfo(name.replace("/", "\\")), data)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def plain(phase, tmp_path_factory):
    """The scores of the submission as a folder, never zipped."""
    root, files = phase
    tmp = tmp_path_factory.mktemp("plain")
    res = str(tmp / "res")
    shutil.copytree(os.path.join(root, "res"), res)
    scores, _ = score(tmp, root, res)
    return scores


def test_keys_from_the_names_and_the_page_shows_them_as_written(phase, plain):
    keys = [line.split(":")[0] for line in plain.decode("ascii").splitlines()]
    for key in ("victor_hugo_accuracy", "sevigne_top5", "csg_863_line_iu", "map"):
        assert key in keys
    syriaque = [k for k in keys if k.startswith("syriaque_u") and k.endswith("_line_iu")]
    assert syriaque and syriaque[0].startswith("syriaque_u") and len(syriaque[0]) == len("syriaque_u123456_line_iu")
    assert all(ord(c) < 128 for k in keys for c in k) and all(k == k.lower() for k in keys)


@pytest.mark.parametrize("tool", ["python", "no utf-8 flag", "finder", "backslashes"])
def test_every_zip_tool_scores_identically(phase, plain, tmp_path, tool):
    root, files = phase
    make = {"python": python_zip, "no utf-8 flag": zip_without_utf8_flag, "finder": finder_zip,
            "backslashes": backslash_zip}[tool]
    res = unzipped(make(files), str(tmp_path / "res"))
    if tool == "no utf-8 flag":  # what the worker's disk then holds: S├⌐vign├⌐_labels.csv
        assert "S\u251c\u2310vign\u251c\u2310_labels.csv" in os.listdir(os.path.join(res, "authentication"))
    if tool == "backslashes":
        assert "authentication\\Victor Hugo_labels.csv" in os.listdir(res)
    scores, log = score(tmp_path, root, res)
    assert scores == plain
    said = {"python": None, "no utf-8 flag": "stored without the zip's UTF-8 flag", "finder": "decomposed (Unicode "
            "NFD, as macOS writes them)", "backslashes": "with '\\' between folders"}[tool]
    if said is not None:
        assert said in log, log


@pytest.mark.skipif(shutil.which("zip") is None, reason="Info-ZIP's zip is not installed (Debian: apt-get install zip)")
def test_info_zip_scores_identically(phase, plain, tmp_path):
    root, files = phase
    source = str(tmp_path / "source")
    for name, data in files.items():
        os.makedirs(os.path.dirname(os.path.join(source, name)), exist_ok=True)
        with open(os.path.join(source, name), "wb") as stream:
            stream.write(data)
    archive = str(tmp_path / "submission.zip")
    environment = dict(os.environ, LC_ALL="C.UTF-8")
    subprocess.run(["zip", "-q", "-r", archive] + sorted(os.listdir(source)), cwd=source, check=True,
                   env=environment)
    with open(archive, "rb") as stream:
        data = stream.read()
    res = unzipped(data, str(tmp_path / "res"))
    scores, _ = score(tmp_path, root, res)
    assert scores == plain


def test_the_kit_checker_reads_the_same_zips(phase, tmp_path):
    """check_submission.py unpacks a zip with zipfile too: the cp437 zip is valid there."""
    from scoring import public

    root, files = phase
    items = str(tmp_path / "public_items.json")
    with open(items, "w", encoding="utf-8") as stream:
        stream.write(public.dumps(public.public_items(os.path.join(root, "ref"))))
    archive = str(tmp_path / "submission.zip")
    with open(archive, "wb") as stream:
        stream.write(zip_without_utf8_flag(files))
    completed, last = run_checker(archive, items)
    assert completed.returncode == 0, completed.stderr
    assert "stored without the zip's UTF-8 flag" in completed.stderr


def test_one_name_written_twice_is_refused(phase, tmp_path):
    """Sévigné_labels.csv composed and decomposed, both in the zip: two files for one name."""
    root, files = phase
    files = dict(files)
    name = "authentication/S\u00e9vign\u00e9_labels.csv"
    files[unicodedata.normalize("NFD", name)] = files[name]
    res = unzipped(python_zip(files), str(tmp_path / "res"))
    work = str(tmp_path / "run")
    os.makedirs(work)
    os.symlink(os.path.join(root, "ref"), os.path.join(work, "ref"))
    os.rename(res, os.path.join(work, "res"))
    run = run_scorer(work, os.path.join(work, "out"))
    assert run.status == 1 and "Traceback" not in run.stderr
    assert run.last_line == (
        "Submission error: The submission holds 2 files named authentication/S\u00e9vign\u00e9_labels.csv, written "
        "differently in the zip ('authentication/Se\\u0301vigne\\u0301_labels.csv', "
        "'authentication/S\\xe9vign\\xe9_labels.csv'); keep one.")
