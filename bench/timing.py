"""Timing helpers shared by the benchmarks: best-of-n wall time and peak memory."""

import os
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


PHASES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "phases.py")
#: BENCH_INTERVAL=off: the runs measured by run_phases compute no participant interval
#: (phases.py --no-interval), for a quick look while the interval is being made cheap.
INTERVAL = os.environ.get("BENCH_INTERVAL", "on") != "off"


def run_phases(input_dir, output_dir, python=None, interval=INTERVAL):
    """One evaluate.py run of INPUT into OUTPUT in a fresh process, start-up included,
    timed phase by phase (bench/phases.py): {phase: (wall, CPU seconds)} with 'start-up'
    (the interpreter's, before evaluate.py's imports) and 'total' (the whole process, as
    run_once measures it), and 'peak' (bytes)."""
    import json
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        args = [PHASES, report.name] + ([] if interval else ["--no-interval"]) + [input_dir, output_dir]
        wall, peak, cpu = run_once(args, python, quiet=True)
        with open(report.name) as stream:
            inside = json.load(stream)
    if inside["status"] != 0:
        raise SystemExit("evaluate.py exited with status %d on %s" % (inside["status"], input_dir))
    phases = dict((name, tuple(seconds)) for name, seconds in inside["phases"].items())
    phases["start-up"] = (wall - inside["wall"], cpu - inside["cpu"])
    phases["total"] = (wall, cpu)
    phases["peak"] = peak
    return phases


#: The order in which print_phases shows the phases (others after them).
PHASE_ORDER = ("start-up", "imports", "reference checks", "submission index", "reading", "scoring", "pages",
               "per-item views", "interval", "charts", "page", "other outputs", "other")


def median(values):
    values = sorted(values)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2.0


def print_phases(label, runs, baseline_cpu):
    """One line per phase of runs (run_phases' results): median wall and CPU seconds, and
    the median CPU as a share of the baseline's median CPU (the phases' shares add up to the
    run's ratio)."""
    names = sorted(set(name for run in runs for name in run if name not in ("total", "peak")),
                   key=lambda name: (PHASE_ORDER.index(name) if name in PHASE_ORDER else len(PHASE_ORDER), name))
    print("  where %s goes (median of %d runs; CPU against the baseline's CPU):" % (label, len(runs)))
    for name in names:
        wall = median([run.get(name, (0.0, 0.0))[0] for run in runs])
        cpu = median([run.get(name, (0.0, 0.0))[1] for run in runs])
        print("    %-18s %6.3f s wall %6.3f s CPU  %5.2f" % (name, wall, cpu, cpu / baseline_cpu))
    sys.stdout.flush()


def against_baseline(label, input_dir, output_dir, baseline_args, repeat, goal=None, python=None):
    """Whole evaluate.py runs of INPUT (run_phases) and fresh baseline processes
    (baseline_args as run_once's), alternately, repeat times each (so that a busy spell of
    the machine hits both); prints the median ratio in wall and CPU time, also without the
    participant's interval, and where the run goes. Returns the runs."""
    runs, baselines = [], []
    for _ in range(repeat):
        baselines.append(run_once(baseline_args, python, quiet=True))
        runs.append(run_phases(input_dir, output_dir, python))
    wall, cpu = median([r["total"][0] for r in runs]), median([r["total"][1] for r in runs])
    base_wall, base_cpu = median([b[0] for b in baselines]), median([b[2] for b in baselines])
    bare = median([r["total"][1] - r.get("interval", (0.0, 0.0))[1] for r in runs])
    verdict = "" if goal is None else "; goal <= %g: %s" % (goal, "met" if cpu / base_cpu <= goal else "MISSED")
    print("%s: evaluate.py %.2f s wall, %.2f s CPU (peak %.0f MB); baseline %.2f s wall, %.2f s CPU; ratio "
          "%.2f wall, %.2f CPU, %.2f CPU without the interval%s (medians of %d, load average %.2f)"
          % (label, wall, cpu, max(r["peak"] for r in runs) / 1e6, base_wall, base_cpu, wall / base_wall,
             cpu / base_cpu, bare / base_cpu, verdict, repeat, os.getloadavg()[0]))
    print_phases("evaluate.py", runs, base_cpu)
    return runs
