"""Every case of the malformed-submission corpus: a clean refusal or the clean score, one
of the sentences the participant manual lists (test_manual.documented), and the
participant's checker (check_submission.py) answering as the scoring program does.

For the checker, the phase's public items are written, the reference data are then moved
out of reach, and check_submission.py must answer with the exit status and the last stderr
line that evaluate.py gave on the real phase."""

import json
import os
import re
import shutil

import pytest
from conftest import assert_clean_failure, run_checker, run_scorer
from malformed import CASES
from phases import sample_phase
from test_manual import documented

from scoring import public

_clean_scores = {}


def clean_scores(track, tmp_path_factory):
    """Scores of the untouched sample submission of a track alone in its phase."""
    if track not in _clean_scores:
        phase = sample_phase(tmp_path_factory.mktemp("clean-" + track), track)
        run = run_scorer(phase, phase / "out")
        assert run.status == 0, run.stderr
        _clean_scores[track] = run.scores()
    return _clean_scores[track]


@pytest.mark.parametrize("item", CASES, ids=[c.id for c in CASES])
def test_malformed_submission(item, tmp_path, tmp_path_factory):
    phase = item.build(tmp_path)
    out = os.path.join(str(tmp_path), "out")
    run = run_scorer(phase, out)
    if item.status == 0:
        assert run.status == 0, run.stderr
        assert "Traceback" not in run.stderr
        if item.same:
            assert run.scores() == clean_scores(item.track, tmp_path_factory)
    else:
        assert_clean_failure(run, item.status, *item.fragments)
        assert run.last_line.startswith("Submission error: ")
        assert run.last_line.count(". ") <= 2  # one sentence, perhaps with an abbreviation
        assert documented(item.track, run.last_line), run.last_line  # the kit's manual lists it
    for name in ("scores.txt", "scores.json"):
        path = os.path.join(out, name)
        if os.path.exists(path):
            text = open(path).read().lower()
            assert "nan" not in text and "inf" not in text
            if name == "scores.json":
                json.loads(text)

    # The checker, without the reference data, says what the scoring program said.
    items_path = os.path.join(str(tmp_path), "public_items.json")
    with open(items_path, "w", encoding="utf-8") as stream:
        stream.write(public.dumps(public.public_items(os.path.join(phase, "ref"))))
    shutil.rmtree(os.path.join(phase, "ref"))
    checked, last_line = run_checker(os.path.join(phase, "res"), items_path)
    assert checked.returncode == run.status, (checked.stderr, run.stderr)
    assert "Traceback" not in checked.stderr
    assert str(tmp_path) not in run.last_line  # no path of the scoring machine
    if run.status:
        # the free memory of the machine is the one thing that moves between two runs
        free = re.compile(r"has [0-9.]+ GB free")
        assert free.sub("has N GB free", last_line) == free.sub("has N GB free", run.last_line)
    else:
        assert checked.stdout.startswith("The submission is valid")
