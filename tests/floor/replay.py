"""replay.py RECORD RESULT: evaluate.py on every case that the suite recorded under
RECORD (SCORING_RECORD, tests/conftest.py, record_case), under the interpreter running
this script; writes RESULT, a JSON object: case -> [exit status, last stderr line,
scores.txt or null, stderr, scores.json or null, the files of private/ (each [name, text
or null for an image or an array]), the page or null (its PNG images left out: the stacks'
Pillow and zlib may encode the same pixels in other bytes)]. Run by tests/test_differential.py once per stack.

Each case runs in a child forked from this process (the scoring program and every track
imported once, before the first fork), its own OUTPUT under RESULT's folder, killed after
the case's timeout, under the address-space limit it was recorded with (RLIMIT_AS). A killed
case is [-9, "killed after N s", null, "", null, [], null].
"""

import io
import json
import os
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "program"))

from scoring.cli import main  # noqa: E402


def preload():
    """What a run imports on its way, imported in this process before it forks the runs
    (otherwise each forked run imports it again: two thirds of a small run's CPU): the
    built-in track kinds, the participant's interval with what it calls of numpy
    (numpy.random, and numpy.ma, which numpy.unique imports on numpy 2), zip names' code page."""
    import encodings.cp437  # noqa: F401
    import numpy.ma  # noqa: F401
    import numpy.random  # noqa: F401
    from scoring import bootstrap  # noqa: F401
    from scoring.tracks import TRACKS

    for kind in sorted(TRACKS.built_in):
        TRACKS[kind]


PNG = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=]+")


def replay(case, output):
    with open(os.path.join(case, "case.json")) as stream:
        meta = json.load(stream)
    with tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            status = 70
            try:
                if meta.get("address_space"):
                    resource.setrlimit(resource.RLIMIT_AS, (meta["address_space"], meta["address_space"]))
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, 1)
                os.dup2(err.fileno(), 2)
                sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8")
                sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                              line_buffering=True)
                status = main([os.path.join(case, "input"), output])
            except SystemExit as exit:
                status = exit.code if isinstance(exit.code, int) else 1
            except BaseException:
                traceback.print_exc()
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(status or 0)
        timeout = meta.get("timeout") or 120
        deadline = time.time() + timeout
        while True:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.time() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return [-9, "killed after %d s" % timeout, None, "", None, [], None]
            time.sleep(0.005)
        status = os.WEXITSTATUS(code) if os.WIFEXITED(code) else -os.WTERMSIG(code)
        err.seek(0)
        stderr = err.read().decode("utf-8", "replace").replace(output, "OUTPUT").replace(case, "CASE")
    lines = [line for line in stderr.splitlines() if line.strip()]
    scores = scores_json = page = None
    private = []
    if status == 0:
        scores, scores_json, page = (read(output, name)
                                     for name in ("scores.txt", "scores.json", "detailed_results.html"))
        for folder, _, names in os.walk(os.path.join(output, "private")):
            for name in names:
                shown = os.path.relpath(os.path.join(folder, name), output)
                text = name.endswith((".csv", ".json", ".txt", ".tsv"))
                private.append([shown, read(output, shown) if text else None])
    if page is not None:
        page = PNG.sub("PNG", page)
    shutil.rmtree(output, ignore_errors=True)
    return [status, lines[-1] if lines else "", scores, stderr, scores_json, sorted(private), page]


def read(output, name):
    path = os.path.join(output, name)
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as stream:
        return stream.read()


def run(record, result):
    preload()
    outputs = tempfile.mkdtemp(prefix="outputs-", dir=os.path.dirname(os.path.abspath(result)))
    outcomes = {}
    for name in sorted(os.listdir(record)):
        case = os.path.join(record, name)
        if os.path.isfile(os.path.join(case, "case.json")):
            outcomes[name] = replay(case, os.path.join(outputs, name))
    with open(result, "w") as stream:
        json.dump(outcomes, stream, indent=0, sort_keys=True)


if __name__ == "__main__":
    run(sys.argv[1], sys.argv[2])
