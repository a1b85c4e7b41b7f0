"""One behaviour on every stack (issue 24): every phase the suite scores (the malformed
corpus of tests/malformed.py, the hostile tests, the fuzzers, the tracks' tests) gives the
same exit status, the same stderr and, when scored, the same scores.txt, scores.json, page
(but its PNG images) and files of private/ under the modern stack (.venv) and under every floor (.venv-py37: Python
3.7, numpy 1.17.2; .venv-py312: numpy 1.26.4; .venv-py39: EvalAI's worker).

The cases are the suite's own: `make test` runs the suite in .venv with SCORING_RECORD set
(tests/conftest.py, record_case), which copies every phase it scores, and its limits, before
it is scored (of a test's many phases, the first five, then one in four; each distinct one
once), and hands the record to this test in SCORING_RECORDED. Run alone, the test records its own: FILES, with a
fixed seed and a quarter of each property test's examples. tests/floor/replay.py then runs
evaluate.py on every recorded case under each stack, all side by side; the floors' suite
(tests/floor/run) leaves to this test what it shows.

The modern stack's suite runs this test for every stack; a floor's suite skips it. A stack
whose environment is absent is built (make .venv-<floor>/.floor, under the lock
.venv-<floor>.lock that tests/floor/run takes too), all side by side, when its Python is
found; else the test skips, except under CI=true, where every stack must be there.
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
#: What the libraries and the interpreter, not the program, write to stderr: a library's
#: warning (its file and line, then the line of source) and Python 3.7's parser giving up
#: on a deep literal (an .npz header's).
FOREIGN = re.compile(r"^\S+\.py:[0-9]+: [A-Za-z]*Warning: .*\n(  .*\n)?|^s_push: parser stack overflow\n", re.M)


def interpreter(stack):
    return os.path.join(ROOT, ".venv" if stack == "modern" else ".venv-" + stack, "bin", "python")


def build_floor(floor):
    """The build of the floor's environment, started if it is absent and its Python is
    found (a Popen, or None)."""
    found = subprocess.run([os.path.join(ROOT, "tests", "floor", "find-python"), FLOORS[floor]],
                           stdout=subprocess.PIPE, universal_newlines=True).stdout.strip()
    if not found:
        return None
    return subprocess.Popen(["flock", os.path.join(ROOT, ".venv-%s.lock" % floor), "make", "--no-print-directory",
                             ".venv-%s/.floor" % floor], cwd=ROOT, env=dict(os.environ, MAKEFLAGS=""))


def stacks():
    found = {"modern": interpreter("modern")}
    builds = {floor: None if os.path.exists(os.path.join(ROOT, ".venv-" + floor, ".floor")) else build_floor(floor)
              for floor in FLOORS}
    missing = []
    for floor in FLOORS:
        built = builds[floor] is None and os.path.exists(os.path.join(ROOT, ".venv-" + floor, ".floor"))
        if built or (builds[floor] is not None and builds[floor].wait() == 0):
            found[floor] = interpreter(floor)
        else:
            missing.append(floor)
    if missing:
        message = "no environment for %s (its Python is not on PATH nor under pyenv)" % ", ".join(missing)
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true: every stack must be there; " + message)
        pytest.skip(message)
    return found


def normalised(outcome):
    status, line, scores, stderr, scores_json, private, page = outcome
    return (status, MOVING.sub("N GB", line), scores, MOVING.sub("N GB", FOREIGN.sub("", stderr)), scores_json,
            private, page)


@pytest.mark.skipif(os.path.realpath(sys.prefix) != os.path.realpath(os.path.join(ROOT, ".venv")),
                    reason="the modern stack's suite runs the differential test for the three stacks")
def test_every_case_behaves_alike_on_every_stack(tmp_path):
    pythons = stacks()
    recorded = os.environ.get("SCORING_RECORDED")
    if recorded:  # the suite's record (make test), kept for a look after a failure
        compare_on_every_stack(pythons, recorded, tmp_path, "")
        return
    record = tmp_path / "record"
    record.mkdir()
    try:
        output = subprocess.run(
            [pythons["modern"], "-m", "pytest", "-q", "-p", "no:cacheprovider", "--hypothesis-seed=0"] + FILES,
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
            env=dict(os.environ, SCORING_RECORD=str(record), SCORING_RECORD_ALL="1",
                     HYPOTHESIS_EXAMPLES_SCALE=os.environ.get("DIFFERENTIAL_EXAMPLES_SCALE", "0.25"))).stdout
        compare_on_every_stack(pythons, str(record), tmp_path, output)
    finally:  # pytest's own clean-up of old temporary folders recurses: the deep trees go here
        remove_tree(str(record))


def compare_on_every_stack(pythons, record, tmp_path, output):
    names = [name for name in os.listdir(record) if os.path.isfile(os.path.join(record, name, "case.json"))]
    cases = len(names)
    assert cases > 300, output[-3000:]
    for name in FILES:  # whoever recorded, each file's cases are in
        assert any(case.startswith(name.replace("/", "_") + "_") for case in names), (name, output[-3000:])
    replays = {}
    for stack, python in pythons.items():
        result = tmp_path / ("%s.json" % stack)
        replays[stack] = (result, subprocess.Popen(
            [python, os.path.join(ROOT, "tests", "floor", "replay.py"), record, str(result)],
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
                differences.append("%s: modern %r, %s %r" % (case, normalised(modern[case])[:4], stack,
                                                              normalised(theirs[case])[:4]))
    assert not differences, "%d differences in %d cases, e.g.\n%s" % (
        len(differences), cases, "\n".join(differences[:20]))
    tracebacks = [case for case, outcome in modern.items() if outcome[1].startswith("Internal error")]
    assert not tracebacks, tracebacks[:10]
