"""Timing helpers shared by the benchmarks: best-of-n wall time and peak memory."""

import resource
import subprocess
import sys
import time


def best_time(function, repeat=3):
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best


def run_python(code_or_args, repeat=1):
    """Best wall time and peak resident memory (bytes) of a fresh Python process."""
    args = [sys.executable] + (["-c", code_or_args] if isinstance(code_or_args, str) else list(code_or_args))
    best, peak = None, 0
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        start = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        best = elapsed if best is None else min(best, elapsed)
        peak = max(peak, after * 1024 if after > before else 0)
    return best, peak
