"""A phase scored against a stand-in reference (track.yaml: stand_in: true).

The organizer keeps the real final reference off a platform that shows reference data
(docs/organizers.md, "Codabench"); the stand-in holds the test items' names and sizes
(public.stand_in_reference). evaluate.py then reads and validates the submission exactly as
on the real data and writes every key as 0, with a page that says why.
"""

import html
import json
import os
import shutil

import pytest
from conftest import ROOT, assert_clean_failure, run_scorer

from scoring import public, runner
from scoring.errors import ReferenceDataError
from scoring.log import Log
from scoring.metaeval import submissions

INPUT = os.path.join(ROOT, "input")


@pytest.fixture(scope="module")
def phases(tmp_path_factory):
    """(real phase, stand-in phase): input/ as it is, and its stand-in beside the same res/."""
    root = tmp_path_factory.mktemp("stand-in")
    real = os.path.join(str(root), "real")
    shutil.copytree(INPUT, real, ignore=shutil.ignore_patterns("output"))
    stand_in = os.path.join(str(root), "stand_in")
    public.stand_in_reference(public.public_items(os.path.join(INPUT, "ref")), os.path.join(stand_in, "ref"),
                              marked=True)
    shutil.copytree(os.path.join(INPUT, "res"), os.path.join(stand_in, "res"))
    return real, stand_in


def test_every_key_is_written_as_zero_and_the_page_says_why(phases, tmp_path):
    real, stand_in = phases
    expected = run_scorer(real, tmp_path / "real")
    run = run_scorer(stand_in, tmp_path / "stand_in")
    assert expected.status == 0 and run.status == 0, run.stderr
    assert list(run.scores()) == list(expected.scores())  # the same columns, in the same order
    assert set(run.scores().values()) == {0.0}
    with open(os.path.join(run.output, "scores.txt")) as stream:
        assert all(line.endswith(": 0.0") for line in stream.read().splitlines())
    with open(os.path.join(run.output, "scores.json")) as stream:
        assert json.load(stream) == run.scores()
    with open(os.path.join(run.output, "detailed_results.html"), encoding="utf-8") as stream:
        page = html.unescape(stream.read())
    assert page.count(runner.PENDING) == 3  # one card per track of input/
    assert "will be scored against the hidden test set after the final phase closes" in runner.PENDING
    assert not os.path.exists(os.path.join(run.output, "private"))  # the stand-in's tables mean nothing


def test_a_bad_submission_gets_the_sentence_of_the_real_data(phases, tmp_path):
    real, stand_in = phases
    runs = []
    for name, phase in (("real", real), ("stand_in", stand_in)):
        copy = str(tmp_path / name)
        shutil.copytree(phase, copy)
        os.remove(os.path.join(copy, "res", "events", sorted(os.listdir(os.path.join(copy, "res", "events")))[0]))
        runs.append(run_scorer(copy, tmp_path / (name + "-out")))
    for run in runs:
        assert_clean_failure(run, 1, "events/")
    assert runs[0].last_line == runs[1].last_line


def test_a_stand_in_value_other_than_a_boolean_is_refused(tmp_path):
    phase = tmp_path / "phase"
    shutil.copytree(os.path.join(INPUT, "ref", "events"), str(phase / "ref"))
    shutil.copytree(os.path.join(INPUT, "res", "events"), str(phase / "res"))
    with open(str(phase / "ref" / "track.yaml"), "a") as stream:
        stream.write("stand_in: maybe\n")
    run = run_scorer(phase, tmp_path / "out")
    assert_clean_failure(run, 2)
    assert run.last_line == ("Reference data error (for the organizers): ref/track.yaml sets stand_in to 'maybe'; "
                             "expected true or false.")


def test_the_meta_evaluation_refuses_a_stand_in(phases):
    _, stand_in = phases
    with pytest.raises(ReferenceDataError, match="are a stand-in"):
        submissions.score(stand_in, Log())
