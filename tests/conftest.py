"""Shared test helpers: the scoring program on the import path, and a runner that
calls evaluate.py as Codalab does (a separate process, INPUT and OUTPUT arguments)."""

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "program")
sys.path.insert(0, PROGRAM)
sys.path.insert(0, os.path.join(ROOT, "tools"))


class Run(object):
    def __init__(self, completed, output):
        self.status = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr
        self.output = output

    @property
    def last_line(self):
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def scores(self):
        """scores.txt parsed as Codalab v1.5 does: split(':') and float()."""
        values = {}
        with open(os.path.join(self.output, "scores.txt")) as stream:
            for line in stream:
                key, value = line.split(":")
                values[key.strip()] = float(value)
        return values

    def has_scores(self):
        return os.path.exists(os.path.join(self.output, "scores.txt"))


def run_scorer(input_dir, output_dir, *extra):
    completed = subprocess.run(
        [sys.executable, os.path.join(PROGRAM, "evaluate.py"), str(input_dir), str(output_dir)] + list(extra),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=600,
    )
    return Run(completed, str(output_dir))


@pytest.fixture
def scorer():
    return run_scorer


def assert_clean_failure(run, status, *fragments):
    """A refused run: the exit status, no traceback, no scores, one sentence naming the problem."""
    assert run.status == status, (run.status, run.stderr)
    assert "Traceback" not in run.stderr, run.stderr
    assert not run.has_scores()
    for fragment in fragments:
        assert fragment in run.last_line, (fragment, run.last_line)


@pytest.fixture(scope="session")
def fest_scale_output(tmp_path_factory):
    """OUTPUT of evaluate.py on the lines benchmark's FEST-scale phase (3 manuscripts x 15
    pages of 1344 x 2016, bench/bench_lines.py), with public_details so that its 45 error
    maps are in the page: generated and scored once per session."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import bench_lines

    base = tmp_path_factory.mktemp("fest_scale")
    phase = bench_lines.write_phase(str(base))
    with open(os.path.join(phase, "ref", "track.yaml"), "a") as stream:
        stream.write("public_details: true\n")
    run = run_scorer(phase, str(base / "output"))
    assert run.status == 0, run.stderr
    return run


@pytest.fixture(scope="session")
def events_scale_output(tmp_path_factory):
    """OUTPUT of evaluate.py on the events benchmark's phase (100 categories x 30,000
    images, bench/bench_events.py): a precision/recall chart per category."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import bench_events

    base = tmp_path_factory.mktemp("events_scale")
    phase = bench_events.generate(str(base), False)
    run = run_scorer(phase, str(base / "output"))
    assert run.status == 0, run.stderr
    return run


def pytest_collection_modifyitems(config, items):
    """Under HYPOTHESIS_EXAMPLES_SCALE (set by tests/floor/run for the floor environments),
    every property test draws that fraction of its examples (at least 10): the floors
    re-check the same properties on other library versions, the full counts run in .venv."""
    scale = float(os.environ.get("HYPOTHESIS_EXAMPLES_SCALE", "1"))
    if scale >= 1:
        return
    from hypothesis import settings
    for item in items:
        function = getattr(item, "obj", None)
        chosen = getattr(function, "_hypothesis_internal_use_settings", None)
        if chosen is not None:
            function._hypothesis_internal_use_settings = settings(
                chosen, max_examples=max(10, int(chosen.max_examples * scale)))
