"""Run the benchmarks: python3 bench/run.py [NAME ...] (default: every bench_*.py).

Each benchmark generates its data at the competition's real scale under bench/out/,
times the scoring program against a baseline measured in the same run, and prints
ratios (these machines are noisy; absolute seconds are shown for context only).
"""

import glob
import importlib
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(os.path.dirname(HERE), "program")
# Every measured process compiles the scoring modules from their source, as on a fresh
# bundle (the platforms unpack the program afresh for each submission): program/'s
# __pycache__ folders (written by earlier runs, they are ignored by git) are removed
# first, and no process of the benchmarks writes them again.
sys.dont_write_bytecode = True
os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
for folder, _, _ in list(os.walk(PROGRAM)):
    if os.path.basename(folder) == "__pycache__":
        shutil.rmtree(folder)
sys.path.insert(0, HERE)
sys.path.insert(0, PROGRAM)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))


def main(names):
    available = sorted(os.path.basename(p)[6:-3] for p in glob.glob(os.path.join(HERE, "bench_*.py")))
    chosen = names or available
    for name in chosen:
        if name not in available:
            sys.exit("unknown benchmark %r; available: %s" % (name, ", ".join(available)))
    for name in chosen:
        print("== %s" % name, flush=True)
        importlib.import_module("bench_" + name).main(os.path.join(HERE, "out", name))


if __name__ == "__main__":
    main(sys.argv[1:])
