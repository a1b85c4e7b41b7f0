"""The same work on Codalab's default stack and on the modern one: every track's
benchmark phase scored by evaluate.py under the floor's interpreter (Python 3.7 with
numpy 1.17, scipy 1.3, Pillow 6.1, PyYAML 5.1: `make .venv-py37/.floor`, or the
interpreter named by FLOOR_PYTHON) and under the one running this benchmark, alternately,
best of REPEAT each. Prints floor time / modern time per phase (goal: at most 1.5) and
whether both wrote the same scores.txt, byte for byte.

The phases are those of bench_events.py (one order), bench_authentication.py (CSV and
.npz) and bench_lines.py, generated here if absent.
"""

import os
import subprocess

from timing import run_python

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVALUATE = os.path.join(ROOT, "program", "evaluate.py")
REPEAT = 5


def phases(out):
    import bench_authentication
    import bench_events
    import bench_lines
    events = os.path.join(out, "events", "one_order", "input")
    if not os.path.exists(os.path.join(events, "res", "Event_099.txt")):
        bench_events.generate(os.path.dirname(events), False)
    authentication = os.path.join(out, "authentication")
    if not os.path.exists(os.path.join(authentication, "phases.done")):
        bench_authentication.prepare(authentication)
    lines = bench_lines.write_phase(os.path.join(out, "lines"))
    return [("events, 100 x 30,000", events),
            ("authentication, CSV 5,000", os.path.join(authentication, "csv_%d" % bench_authentication.SMALL)),
            ("authentication, CSV 10,000", os.path.join(authentication, "csv")),
            ("authentication, .npz 10,000", os.path.join(authentication, "npz")),
            ("lines, 45 pages, protocol both", lines)]


def main(outdir):
    floor = os.environ.get("FLOOR_PYTHON") or os.path.join(ROOT, ".venv-py37", "bin", "python")
    if not os.path.exists(floor):
        print("no floor interpreter (%s): run `make .venv-py37/.floor` or set FLOOR_PYTHON" % floor)
        return
    version = subprocess.run([floor, "-c", "import sys, numpy; print(sys.version.split()[0], numpy.__version__)"],
                             check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout.split()
    print("floor: Python %s, numpy %s" % tuple(version))
    for label, phase in phases(os.path.dirname(outdir)):
        outputs, times = {}, {}
        for _ in range(REPEAT):
            for name, python in (("floor", floor), ("modern", None)):
                out = os.path.join(outdir, name)
                seconds, _ = run_python([EVALUATE, phase, out], python=python)
                times[name] = min(times.get(name, seconds), seconds)
                with open(os.path.join(out, "scores.txt"), "rb") as stream:
                    outputs[name] = stream.read()
        ratio = times["floor"] / times["modern"]
        print("%-32s floor %6.2f s, modern %6.2f s: ratio %.2f (goal <= 1.5: %s); scores.txt identical: %s"
              % (label, times["floor"], times["modern"], ratio, "met" if ratio <= 1.5 else "MISSED",
                 outputs["floor"] == outputs["modern"]), flush=True)
