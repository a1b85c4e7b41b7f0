"""Timing helpers shared by the benchmarks: best-of-n wall time and peak memory."""

import subprocess
import sys
import time

# A fresh intermediate process runs the measured one, so that RUSAGE_CHILDREN's peak and
# CPU time are those of the measured process alone; it also times the measured process
# (from its start to its exit), so that the intermediate's own start-up is not counted.
_PEAK_WRAPPER = (
    "import resource, subprocess, sys, time\n"
    "quiet = sys.argv[1] == 'quiet'\n"
    "start = time.perf_counter()\n"
    "subprocess.run(sys.argv[2:], check=True, stdout=subprocess.DEVNULL,\n"
    "               stderr=subprocess.DEVNULL if quiet else None)\n"
    "elapsed = time.perf_counter() - start\n"
    "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(elapsed, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime)\n"
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
    best, peak = None, 0
    for _ in range(repeat):
        elapsed, used, _ = run_once(args, python)
        best = elapsed if best is None else min(best, elapsed)
        peak = max(peak, used)
    return best, peak


def run_once(args, python=None, quiet=False):
    """(wall time, peak resident memory in bytes, user + system CPU seconds) of one run of
    `python3 ARGS` in a fresh process, start-up included; args and python as run_python's.
    quiet: the process's stderr (its log) is discarded."""
    args = ["-c", args] if isinstance(args, str) else list(args)
    out = subprocess.run([python or sys.executable, "-c", _PEAK_WRAPPER, "quiet" if quiet else "loud",
                          python or sys.executable] + args,
                         check=True, stdout=subprocess.PIPE, universal_newlines=True).stdout
    elapsed, used, cpu = out.strip().splitlines()[-1].split()
    return float(elapsed), int(used), float(cpu)
