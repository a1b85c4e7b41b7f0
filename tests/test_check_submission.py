"""The participant's checker: the scoring program's own sentences, without ground truth.

That it answers every case of the malformed-submission corpus as evaluate.py does is
checked case by case in test_malformed.py (each case is scored once for both)."""

import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest
from conftest import PROGRAM, run_checker
from malformed import SAMPLE

from scoring import public


def zip_folder(folder, path):
    with zipfile.ZipFile(str(path), "w") as archive:
        for directory, _, filenames in os.walk(str(folder)):
            for filename in sorted(filenames):
                full = os.path.join(directory, filename)
                archive.write(full, os.path.relpath(full, str(folder)))


def test_checker_accepts_the_sample_phase_as_a_zip(tmp_path):
    items_path = tmp_path / "public_items.json"
    items_path.write_text(public.dumps(public.public_items(os.path.join(SAMPLE, "ref"))), encoding="utf-8")
    zip_folder(os.path.join(SAMPLE, "res"), tmp_path / "submission.zip")
    checked, _ = run_checker(tmp_path / "submission.zip", items_path)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.startswith("The submission is valid")


def test_checker_reads_a_folder_in_place_and_refuses_what_the_program_refuses(tmp_path):
    """A folder is not copied (shutil.copytree raised on a named pipe, a traceback): the
    scoring program's index refuses its pipe, link or loop in its own sentence."""
    items_path = tmp_path / "public_items.json"
    items_path.write_text(public.dumps(public.public_items(os.path.join(SAMPLE, "ref"))), encoding="utf-8")
    folder = tmp_path / "submission"
    shutil.copytree(os.path.join(SAMPLE, "res"), str(folder))
    checked, _ = run_checker(folder, items_path)
    assert checked.returncode == 0, checked.stderr
    os.mkfifo(str(folder / "events" / "pipe"))
    checked, line = run_checker(folder, items_path)
    assert (checked.returncode, line) == (1, "Submission error: The submission's events/pipe is a named pipe (FIFO); "
                                             "submit regular files and folders only.")
    os.remove(str(folder / "events" / "pipe"))
    os.symlink(".", str(folder / "loop"))
    checked, line = run_checker(folder, items_path)
    assert checked.returncode == 1 and "The submission contains a symbolic link, loop;" in line


def test_public_items_hold_names_and_sizes_only(tmp_path):
    items = public.public_items(os.path.join(SAMPLE, "ref"))
    kinds = dict((track["dir"], track) for track in items["tracks"])
    authentication = kinds["authentication"]["items"]
    assert set(authentication) == {"subsets"}
    for subset in authentication["subsets"]:
        assert set(subset) == {"name", "images"}
        with open(os.path.join(SAMPLE, "ref", "authentication", subset["name"] + ".csv")) as stream:
            names = [line.split(",")[0] for line in stream.read().splitlines()[1:]]
        assert subset["images"] == names
    for manuscript in kinds["lines"]["items"]["manuscripts"]:
        for page in manuscript["pages"]:
            assert set(page) == {"file", "width", "height"}
    events = kinds["events"]["items"]
    for category in events["categories"]:
        with open(os.path.join(SAMPLE, "ref", "events", category["name"] + ".txt")) as stream:
            ids = [line.split()[0] for line in stream if line.strip()]
        assert events["image_lists"][category["images"]] == ids
    text = public.dumps(items)
    assert json.loads(text) == items
    # no label of the ground truth: the stand-in's labels alternate, whatever the truth
    assert "imitation" not in text and ",1" not in text


def test_checker_refuses_a_file_that_is_no_zip(tmp_path):
    items_path = tmp_path / "public_items.json"
    items_path.write_text(public.dumps(public.public_items(os.path.join(SAMPLE, "ref"))), encoding="utf-8")
    (tmp_path / "submission.rar").write_bytes(b"Rar!\x1a\x07\x00")
    checked, last_line = run_checker(tmp_path / "submission.rar", items_path)
    assert checked.returncode == 1
    assert last_line == ("Submission error: submission.rar is neither a zip file nor a folder; "
                         "upload a zip of your result files.")


@pytest.mark.parametrize("script,fix", [
    ("evaluate.py", "run `make score` (it installs them in .venv), then `.venv/bin/python program/evaluate.py "
                    "INPUT OUTPUT`."),
    ("check_submission.py", "install them in a virtual environment and run the checker with its Python: python3 -m "
                            "venv venv, then venv/bin/python -m pip install -r requirements.txt and venv/bin/python "
                            "check_submission.py SUBMISSION (on Windows venv\\Scripts\\python; README.md of the "
                            "starting kit)."),
])
def test_missing_packages_get_a_sentence_not_a_traceback(tmp_path, script, fix):
    """A fresh clone run with a Python without the packages (here: -S, no site-packages)."""
    completed = subprocess.run([sys.executable, "-S", os.path.join(PROGRAM, script), SAMPLE, str(tmp_path / "out")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    assert completed.returncode == 3
    assert "Traceback" not in completed.stderr
    assert completed.stderr.startswith("The Python package ")
    assert completed.stderr.rstrip().endswith("the scoring program needs numpy, scipy, Pillow and PyYAML: " + fix)


STARTED_SHORT_OF_MEMORY = """
import argparse, resource, shutil, sys, tempfile, zipfile  # the standard library's, loaded before the limit
sys.argv = sys.argv[1:]
with open(sys.argv[0]) as stream:
    code = compile(stream.read(), sys.argv[0], "exec")
with open("/proc/self/status") as status:
    size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (size + (1 << 20), resource.RLIM_INFINITY))
exec(code, {"__name__": "__main__", "__file__": sys.argv[0]})
"""


@pytest.mark.parametrize("program", ["evaluate.py", "check_submission.py"])
def test_no_memory_to_load_the_packages_is_one_sentence(program, tmp_path):
    # With 1 MB of address space beyond the interpreter's, numpy cannot be loaded (a
    # MemoryError, or its library cannot be mapped): one sentence, exit status 3, where a
    # traceback ended with status 1 (an invalid submission's).
    resource = pytest.importorskip("resource")
    if not hasattr(resource, "RLIMIT_AS") or not os.path.exists("/proc/self/status"):
        pytest.skip("no address-space limit here")
    args = [str(tmp_path), str(tmp_path / "out")] if program == "evaluate.py" else [str(tmp_path)]
    done = subprocess.run([sys.executable, "-c", STARTED_SHORT_OF_MEMORY, os.path.join(PROGRAM, program)] + args,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=20)
    assert (done.returncode, done.stderr) == (3, "The scoring program cannot start: the machine leaves it too little "
                                                 "memory to load its packages (numpy, scipy, Pillow, PyYAML); raise "
                                                 "its memory or address-space limit (ulimit -v).\n")
