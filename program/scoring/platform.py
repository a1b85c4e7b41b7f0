"""What the platforms' workers do around the program, and how the program answers.

Codalab v1.5's compute worker (codalab/competitions-v1-compute-worker, worker.py, run()):

* before the program starts it creates OUTPUT/detailed_results.html, empty (it always
  does: the site always passes a detailed_results_url, apps/web/tasks.py);
* while the program runs, a watcher (detailed_result_put.sh: `while sleep 1; do ... entr
  ...`) uploads that file when it changes; the worker polls the program once a second and
  kills the watcher as soon as the program has exited, so a page written at the end of a
  fast run may never be uploaded (and a watcher started just before the kill uploads the
  file as it was when it started);
* after the program, it uploads OUTPUT/detailed_results.html again only if it is still
  empty: then it uploads every .html file of OUTPUT in os.walk order (top-down), private/
  having been removed, so the last one uploaded is one inside a sub-folder.

So on v1.5 the page goes to OUTPUT/details/detailed_results.html and the empty file is
left alone: the worker's final upload sends the page whatever the scoring time. The run
also lasts at least V15_MIN_SECONDS, so that the watcher's first upload (of the empty
file) is over before the worker's final one. Codabench (compute_worker/compute_worker.py,
Run.watch_detailed_results) sends OUTPUT/detailed_results.html while the program runs and
once more after it, and never creates the file itself: there, and on a local run, the page
is OUTPUT/detailed_results.html.
"""

import os
import time

PAGE = "detailed_results.html"
V15_PAGE_FOLDER = "details"
V15_MIN_SECONDS = 5.0


def is_v15_worker(output):
    """True if OUTPUT/detailed_results.html exists and is empty: only v1.5's worker makes it."""
    path = os.path.join(output, PAGE)
    return os.path.isfile(path) and not os.path.islink(path) and os.path.getsize(path) == 0


def page_path(output):
    """Where the detailed results page goes (see the module's docstring)."""
    if is_v15_worker(output):
        return os.path.join(output, V15_PAGE_FOLDER, PAGE)
    return os.path.join(output, PAGE)


def settle(started, now=time.time, sleep=time.sleep):
    """On v1.5, wait until V15_MIN_SECONDS have passed since `started` (time.time())."""
    remaining = V15_MIN_SECONDS - (now() - started)
    if remaining > 0:
        sleep(remaining)
