"""Timing helpers shared by the benchmarks: best-of-n wall time and peak memory."""

import subprocess
import sys
import time

# A fresh intermediate process runs the measured one, so that RUSAGE_CHILDREN's peak
# is that of the measured process alone; it also times the measured process (from its
# start to its exit), so that the intermediate's own start-up is not counted.
_PEAK_WRAPPER = (
    "import resource, subprocess, sys, time\n"
    "start = time.perf_counter()\n"
    "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
    "elapsed = time.perf_counter() - start\n"
    "print(elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)\n"
)


def best_time(function, repeat=3):
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best


def run_python(args, repeat=1, python=None):
    """Best wall time and peak resident memory (bytes) of `python3 ARGS` in a fresh process.

    args: a list of arguments after the interpreter, or a string of code for -c.
    python: the interpreter (default: the one running the benchmark).
    """
    args = ["-c", args] if isinstance(args, str) else list(args)
    python = python or sys.executable
    best, peak = None, 0
    for _ in range(repeat):
        out = subprocess.run([python, "-c", _PEAK_WRAPPER, python] + args,
                             check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout
        elapsed, used = out.strip().splitlines()[-1].split()
        best = float(elapsed) if best is None else min(best, float(elapsed))
        peak = max(peak, int(used))
    return best, peak
