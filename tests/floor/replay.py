"""replay.py RECORD RESULT: evaluate.py on every case that the suite recorded under
RECORD (SCORING_RECORD, tests/conftest.py, record_case), under the interpreter running
this script; writes RESULT, a JSON object: case -> [exit status, last stderr line,
scores.txt or null]. Run by tests/test_differential.py once per stack.

Each case runs in a child forked from this process (the scoring program imported once), its
own OUTPUT under RESULT's folder, killed after the case's timeout, under the address-space
limit it was recorded with (RLIMIT_AS). A killed case is [-9, "killed after N s", null].
"""

import io
import json
import os
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
                return [-9, "killed after %d s" % timeout, None]
            time.sleep(0.005)
        status = os.WEXITSTATUS(code) if os.WIFEXITED(code) else -os.WTERMSIG(code)
        err.seek(0)
        lines = [line for line in err.read().decode("utf-8", "replace").splitlines() if line.strip()]
    scores = None
    if status == 0 and os.path.exists(os.path.join(output, "scores.txt")):
        with open(os.path.join(output, "scores.txt")) as stream:
            scores = stream.read()
    shutil.rmtree(output, ignore_errors=True)
    return [status, (lines[-1] if lines else "").replace(output, "OUTPUT"), scores]


def run(record, result):
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
