"""Where one evaluate.py run goes: python3 bench/phases.py REPORT [--no-interval] INPUT OUTPUT.

Runs program/evaluate.py's main in this process, as evaluate.py does (the same imports
first), with a timer around the functions of each phase, and writes to REPORT, as JSON,
the wall and CPU seconds of each phase, exclusive (a phase inside another counts only in
the inner one):

    imports            evaluate.py's imports (the interpreter's own start-up is measured by
                       the caller: its wall time less this process's)
    reference checks   the tracks found, every reference file one its kind reads
    submission index   res/ listed, names matched, links refused
    reading            the track's readers (ground truth and submission files)
    scoring            the track's score() less its reading: kernels, per-item view, tables
    pages              lines only: the pages scored by the page workers (reading included)
    per-item views     the private/ views of each track
    interval           the participant's interval (bootstrap.participant_intervals)
    charts             charts and pictures rendered into the page
    page               the rest of detailed_results.html
    other outputs      scores.txt, scores.json, private/
    other              the rest (argument parsing, the log, ...)

--no-interval: participant_intervals returns no interval (the page then shows none), to
measure a run apart from it (the events interval is being replaced).
"""

import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def clock():
    """(wall, CPU of this process and of the children it waited for)."""
    times = os.times()
    return time.perf_counter(), times[0] + times[1] + times[2] + times[3]


class Phases:
    def __init__(self):
        self.seconds = {}
        self.stack = []  # [name, wall, cpu, children's wall, children's cpu]

    def wrap(self, owner, attribute, name):
        function = getattr(owner, attribute)

        def timed(*args, **kwargs):
            wall, cpu = clock()
            self.stack.append([name, wall, cpu, 0.0, 0.0])
            try:
                return function(*args, **kwargs)
            finally:
                end_wall, end_cpu = clock()
                _, wall, cpu, inner_wall, inner_cpu = self.stack.pop()
                spent = (end_wall - wall, end_cpu - cpu)
                self.add(name, spent[0] - inner_wall, spent[1] - inner_cpu)
                if self.stack:
                    self.stack[-1][3] += spent[0]
                    self.stack[-1][4] += spent[1]

        setattr(owner, attribute, timed)

    def add(self, name, wall, cpu):
        total = self.seconds.setdefault(name, [0.0, 0.0])
        total[0] += wall
        total[1] += cpu


#: The readers of each kind whose time is "reading".
READERS = {"events": ("read_reference", "read_confidences"), "lines": (),
           "authentication": ("read_ground_truth", "read_subset_labels", "read_merged_labels", "read_distances_npz",
                              "read_distances_csv")}


def instrument(phases, kind, no_interval):
    """Timers around the phases' functions; kind: the phase's track kind (only its modules
    are imported here, as the run imports them)."""
    import importlib

    from scoring import bootstrap, charts, files, report, runner, views
    from scoring.tracks import TRACKS

    phases.wrap(runner, "prepare", "reference checks")
    phases.wrap(files, "index_submission", "submission index")
    phases.wrap(TRACKS[kind], "score", "pages" if kind == "lines" else "scoring")
    reader = importlib.import_module("scoring.readers." + kind)
    for name in READERS[kind]:
        phases.wrap(reader, name, "reading")
    phases.wrap(views, "private_files", "per-item views")
    if no_interval:
        bootstrap.participant_intervals = lambda view: (None, None)
    else:
        phases.wrap(bootstrap, "participant_intervals", "interval")
    phases.wrap(report, "write_outputs", "other outputs")
    phases.wrap(report, "render_html", "page")
    for name in ("precision_recall", "confusion_matrix", "line_chart", "forest", "error_map_images", "png_bytes",
                 "data_uri"):
        phases.wrap(charts, name, "charts")


def kind_of(input_dir):
    """The kind named by INPUT/ref/track.yaml (the benchmarks' phases hold one track)."""
    with open(os.path.join(input_dir, "ref", "track.yaml")) as stream:
        for line in stream:
            if line.startswith("track:"):
                return line.split(":", 1)[1].strip()
    raise SystemExit("no 'track:' line in %s/ref/track.yaml" % input_dir)


def main(argv):
    report, args = argv[0], argv[1:]
    no_interval = "--no-interval" in args
    args = [a for a in args if a != "--no-interval"]
    start = clock()
    sys.path.insert(0, os.path.join(ROOT, "program"))
    import scoring  # noqa: F401  (what evaluate.py imports, in its order)
    from scoring.cli import main as evaluate
    imported = clock()
    phases = Phases()
    phases.add("imports", imported[0] - start[0], imported[1] - start[1])
    before = clock()
    instrument(phases, kind_of(args[0]), no_interval)  # its imports are the run's, counted in imports
    ready = clock()
    phases.add("imports", ready[0] - before[0], ready[1] - before[1])
    status = evaluate(args)
    end = clock()
    counted = [sum(v[i] for v in phases.seconds.values()) for i in (0, 1)]
    phases.add("other", end[0] - start[0] - counted[0], end[1] - start[1] - counted[1])
    with open(report, "w") as stream:
        json.dump({"status": status, "wall": end[0] - start[0], "cpu": end[1] - start[1],
                   "phases": phases.seconds}, stream)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
