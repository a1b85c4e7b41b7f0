"""Before and after: python3 bench/versus.py BEFORE [PHASE ...]

BEFORE is the root of another checkout of the project (for instance
`git worktree add --detach /tmp/before 040a27d`, version 0.1.0). Each benchmark phase is
scored by BEFORE's program and by this tree's, alternately, REPEAT times each
(compare.py REPEAT_COMPARE times) in a fresh process, start-up included, and the best
times give after / before per phase: a figure below 1 is faster now. Alternating the two
is what makes the figure trustworthy on a shared machine: a benchmark's ratio
(bench_*.py) divides by a baseline timed in its own run, and the two runs of a
before-and-after comparison may see other load (the .npz baseline of
bench_authentication.py read its archive in 0.4 s in one run and 1.5 s in the next).

PHASE: some of events-one, events-own, authentication-csv-5000, authentication-csv,
authentication-npz, lines-15, lines,
compare-scored-20, compare-scored-200 (default: all). The phases are those the benchmarks
write under this tree's bench/out/ (run them once first), the same files for both trees;
compare.py --scored reads the per-item views that bench_compare.py wrote there (0.1.0
reads the view files of 0.2.0).
"""

import os
import sys

from timing import run_once

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
REPEAT = 5
REPEAT_COMPARE = 2  # compare.py --scored runs for tens of seconds: a spell of load is rarely that long
OUT = os.path.join(HERE, "out")


def phases():
    """(name, script, arguments(out) after the script, repeats) of each phase present."""
    found = []
    for name, phase in (("events-one", os.path.join(OUT, "events", "one_order", "input")),
                        ("events-own", os.path.join(OUT, "events", "own_orders", "input")),
                        ("authentication-csv-5000", os.path.join(OUT, "authentication", "csv_5000")),
                        ("authentication-csv", os.path.join(OUT, "authentication", "csv")),
                        ("authentication-npz", os.path.join(OUT, "authentication", "npz")),
                        ("lines-15", os.path.join(OUT, "lines", "input_15")),
                        ("lines", os.path.join(OUT, "lines", "input"))):
        if os.path.isdir(os.path.join(phase, "ref")):
            found.append((name, "evaluate.py", lambda out, phase=phase: [phase, out], REPEAT))
    if os.path.isdir(os.path.join(OUT, "compare", "views")):
        for count in (20, 200):
            def arguments(out, count=count):
                folder = os.path.join(OUT, "compare", "views")
                return ["--scored", "--out", out] + [os.path.join(folder, name)
                                                     for name in sorted(os.listdir(folder))[:count]]
            found.append(("compare-scored-%d" % count, "compare.py", arguments, REPEAT_COMPARE))
    return found


def main(argv):
    if not argv or not os.path.isfile(os.path.join(argv[0], "program", "evaluate.py")):
        sys.exit(__doc__)
    before, chosen = os.path.abspath(argv[0]), argv[1:]
    available = phases()
    unknown = set(chosen) - set(phase[0] for phase in available)
    if unknown:
        sys.exit("unknown or absent phase %s; available: %s (run the benchmarks first to write the others)"
                 % (", ".join(sorted(unknown)), ", ".join(phase[0] for phase in available)))
    print("before: %s; after: %s; best of %d each (compare.py %d), alternating"
          % (before, ROOT, REPEAT, REPEAT_COMPARE), flush=True)
    for name, script, arguments, repeat in available:
        if chosen and name not in chosen:
            continue
        best, scores = {}, {}
        for _ in range(repeat):
            for side, root in (("before", before), ("after", ROOT)):
                out = os.path.join(OUT, "versus", name, side)
                args = [os.path.join(root, "program", script)] + arguments(out)
                seconds, _, cpu = run_once(args, quiet=True)
                wall, user = best.get(side, (seconds, cpu))
                best[side] = (min(wall, seconds), min(user, cpu))
                path = os.path.join(out, "scores.txt")
                if os.path.exists(path):
                    with open(path, "rb") as stream:
                        scores[side] = stream.read()
        same = "" if not scores else "; scores.txt identical: %s" % (scores.get("before") == scores.get("after"))
        print("%-20s before %6.2f s, after %6.2f s: after / before %.2f (CPU %.2f)%s"
              % (name, best["before"][0], best["after"][0], best["after"][0] / best["before"][0],
                 best["after"][1] / best["before"][1], same), flush=True)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main(sys.argv[1:])
