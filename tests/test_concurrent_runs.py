"""Two runs of evaluate.py on one OUTPUT at once, and runs repeated on it (issue 24): a
re-run on the same worker, a participant's script scoring side by side. Each run ends with
its exit status and one sentence, never a traceback; OUTPUT then holds one run's files, all
of them whole: scores.txt and scores.json with the same numbers, the page and private/ of
that same run (the later of the two to write), or that run's refusal and no score.

Round after round on one OUTPUT, two runs start a few milliseconds apart (their order and
gap drawn from the round's seed): two valid submissions with different scores, or a valid
one and a refused one. What a mixed OUTPUT would look like (scores.txt of one run and
scores.json of the other, a page of one and views of the other, a half-written file, a
stray temporary file) fails the round.
"""

import json
import os
import random
import subprocess
import sys
import time

from conftest import PROGRAM, Forked, program_main, run_scorer
import phases

from scoring.itemview import ItemView, leaderboard
from scoring.report import format_score

ROUNDS = 50


def make_phase(root, change=None):
    phases.sample_phase(root, "events")
    if change is not None:
        change(os.path.join(root, "res", "events"))
    return root


def reverse_first_category(res):
    """Another valid submission: one category's confidences in reverse order (another AP)."""
    name = sorted(n for n in os.listdir(res) if n.endswith(".txt"))[0]
    path = os.path.join(res, name)
    with open(path) as stream:
        pairs = [line.split() for line in stream if line.strip()]
    values = [value for _, value in pairs][::-1]
    with open(path, "w") as stream:
        stream.write("".join("%s %s\n" % (image, value) for (image, _), value in zip(pairs, values)))


def drop_first_category(res):
    os.remove(os.path.join(res, sorted(n for n in os.listdir(res) if n.endswith(".txt"))[0]))


def read(path):
    with open(path, "rb") as stream:
        return stream.read()


def solo(phase, output):
    """What OUTPUT holds after one run alone: (status, last stderr line, scores or None, page)."""
    run = run_scorer(phase, output)
    scores = run.scores() if run.has_scores() else None
    return run.status, run.last_line, scores, read(os.path.join(output, "detailed_results.html"))


def outcome(output):
    """(scores.txt, scores.json, leaderboard of private/views, page) of OUTPUT, each None if absent."""
    def parsed(name, parse):
        path = os.path.join(output, name)
        return parse(read(path).decode("utf-8")) if os.path.exists(path) else None

    txt = parsed("scores.txt", lambda text: dict((k.strip(), float(v)) for k, v in
                                                  (line.split(":") for line in text.splitlines())))
    js = parsed("scores.json", json.loads)
    views = os.path.join(output, "private", "views", "events.npz")
    board = None
    if os.path.exists(views):  # as scores.txt writes them
        board = dict((k, float(format_score(v))) for k, v in leaderboard(ItemView.from_file(views)).items())
    return txt, js, board, read(os.path.join(output, "detailed_results.html"))


def start(phase, output, delay, fresh_interpreter):
    if delay:
        time.sleep(delay)
    if fresh_interpreter:
        return subprocess.Popen([sys.executable, os.path.join(PROGRAM, "evaluate.py"), phase, output],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return Forked(program_main("evaluate"), [phase, output])


def finish(handle):
    if isinstance(handle, Forked):
        completed = handle.wait(300)
        return completed.returncode, completed.stderr
    out, err = handle.communicate(timeout=300)
    return handle.returncode, err


def test_two_runs_on_one_output_fifty_rounds(tmp_path):
    inputs = {"a": make_phase(str(tmp_path / "a")),
              "b": make_phase(str(tmp_path / "b"), reverse_first_category),
              "refused": make_phase(str(tmp_path / "refused"), drop_first_category)}
    expected = dict((name, solo(phase, str(tmp_path / ("solo-" + name)))) for name, phase in inputs.items())
    assert expected["a"][0] == expected["b"][0] == 0 and expected["refused"][0] == 1
    assert expected["a"][2] != expected["b"][2]  # two different sets of scores: a mix would show
    output = str(tmp_path / "output")
    for round_number in range(ROUNDS):
        rng = random.Random(round_number)
        pair = ["a", "refused"] if round_number % 5 == 4 else ["a", "b"]
        rng.shuffle(pair)
        delay = rng.uniform(0.0, 0.05)
        # The first round starts two fresh interpreters, as a worker would; the others fork.
        first = start(inputs[pair[0]], output, 0.0, round_number == 0)
        second = start(inputs[pair[1]], output, delay, round_number == 0)
        results = [finish(first), finish(second)]
        for name, (status, stderr) in zip(pair, results):
            assert "Traceback" not in stderr, (round_number, stderr)
            lines = [line for line in stderr.splitlines() if line.strip()]
            if name == "refused":
                assert (status, lines[-1]) == expected["refused"][:2], (round_number, stderr)
            else:
                assert status == 0, (round_number, stderr)
        leftovers = sorted(set(os.listdir(output)) - {"scores.txt", "scores.json", "detailed_results.html", "private"})
        assert not leftovers, (round_number, leftovers)
        txt, js, board, page = outcome(output)
        if txt is None:  # the refused run wrote last: its page, no score
            assert js is None and page == expected["refused"][3], round_number
            continue
        assert txt == js == board, round_number  # one run's scores, views and both score files
        winner = [name for name in pair if expected[name][2] == txt]
        assert winner, (round_number, txt)
        assert page == expected[winner[0]][3], round_number  # the same run's page, whole
