"""One behaviour on every stack (issue 24): every case of the malformed corpus
(tests/malformed.py), the hostile tests (test_hostile.py) and the fuzzers (test_fuzz.py)
gives the same exit status, the same last line of stderr and, when scored, the same
scores.txt under the modern stack (.venv) and under every floor (.venv-py37: Python 3.7,
numpy 1.17.2; .venv-py312: numpy 1.26.4; .venv-py39: EvalAI's worker).

The cases are the suite's own: those three files run once under .venv with SCORING_RECORD
set (tests/conftest.py, record_case), which copies every phase they score, and its limits,
before it is scored (the fuzzers' examples drawn from a fixed seed, a quarter of each
count, or DIFFERENTIAL_EXAMPLES_SCALE of it). tests/floor/replay.py then runs evaluate.py
on every recorded case under each stack, all side by side.

The modern stack's suite runs this test for every stack; a floor's suite skips it. A stack
whose environment is absent is built (make .venv-<floor>/.floor, under the lock that
tests/floor/run takes too) when its Python is found; else the test skips, except under
CI=true, where every stack must be there.
"""

import json
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT, remove_tree

FLOORS = {"py37": "3.7", "py39": "3.9", "py312": "3.12"}
FILES = ["tests/test_malformed.py", "tests/test_hostile.py", "tests/test_fuzz.py"]
#: What may differ from one run to the next on one machine: the free memory a sentence quotes.
MOVING = re.compile(r"[0-9]+(\.[0-9]+)? GB")


def interpreter(stack):
    return os.path.join(ROOT, ".venv" if stack == "modern" else ".venv-" + stack, "bin", "python")


def floor_environment(floor):
    """The floor's interpreter, its environment built if its Python is found; else None."""
    if os.path.exists(os.path.join(ROOT, ".venv-" + floor, ".floor")):
        return interpreter(floor)
    found = subprocess.run([os.path.join(ROOT, "tests", "floor", "find-python"), FLOORS[floor]],
                           stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()
    if not found:
        return None
    built = subprocess.run(["flock", os.path.join(ROOT, ".venv-floor.lock"), "make", "--no-print-directory",
                            ".venv-%s/.floor" % floor], cwd=ROOT, env=dict(os.environ, MAKEFLAGS=""))
    return interpreter(floor) if built.returncode == 0 else None


def stacks():
    found = {"modern": interpreter("modern")}
    missing = []
    for floor in FLOORS:
        python = floor_environment(floor)
        if python is None:
            missing.append(floor)
        else:
            found[floor] = python
    if missing:
        message = "no environment for %s (its Python is not on PATH nor under pyenv)" % ", ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true: every stack must be there; " + message)
        pytest.skip(message)
    return found


def normalised(outcome):
    status, line, scores = outcome
    return status, MOVING.sub("N GB", line), scores


@pytest.mark.skipif(os.path.realpath(sys.prefix) != os.path.realpath(os.path.join(ROOT, ".venv")),
                    reason="the modern stack's suite runs the differential test for the three stacks")
def test_every_case_behaves_alike_on_every_stack(tmp_path):
    pythons = stacks()
    record = tmp_path / "record"
    record.mkdir()
    try:
        compare_on_every_stack(pythons, record, tmp_path)
    finally:  # pytest's own clean-up of old temporary folders recurses: the deep trees go here
        remove_tree(str(record))


def compare_on_every_stack(pythons, record, tmp_path):
    recorded = subprocess.run(
        [pythons["modern"], "-m", "pytest", "-q", "-p", "no:cacheprovider", "--hypothesis-seed=0"] + FILES,
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
        env=dict(os.environ, SCORING_RECORD=str(record),
                 HYPOTHESIS_EXAMPLES_SCALE=os.environ.get("DIFFERENTIAL_EXAMPLES_SCALE", "0.25")))
    cases = len(os.listdir(str(record)))
    assert cases > 300, recorded.stdout[-3000:]
    replays = {}
    for stack, python in pythons.items():
        result = tmp_path / ("%s.json" % stack)
        replays[stack] = (result, subprocess.Popen(
            [python, os.path.join(ROOT, "tests", "floor", "replay.py"), str(record), str(result)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True))
    outcomes = {}
    for stack, (result, process) in replays.items():
        output, _ = process.communicate(timeout=3600)
        assert process.returncode == 0, (stack, output[-3000:])
        with open(str(result)) as stream:
            outcomes[stack] = json.load(stream)
    modern = outcomes.pop("modern")
    assert len(modern) == cases
    differences = []
    for stack, theirs in sorted(outcomes.items()):
        for case in sorted(modern):
            if normalised(modern[case]) != normalised(theirs[case]):
                differences.append("%s: modern %r, %s %r" % (case, modern[case][:2], stack, theirs[case][:2]))
    assert not differences, "%d differences in %d cases, e.g.\n%s" % (
        len(differences), cases, "\n".join(differences[:20]))
    tracebacks = [case for case, (_, line, _) in modern.items() if line.startswith("Internal error")]
    assert not tracebacks, tracebacks[:10]
