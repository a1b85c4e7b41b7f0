"""What the platforms' workers do around the program, and how the program answers.

Codalab v1.5's compute worker (codalab/competitions-v1-compute-worker, worker.py, run()):

* before the program starts it creates OUTPUT/detailed_results.html, empty (it always
  does: the site always passes a detailed_results_url, apps/web/tasks.py);
* with the program it starts a watcher (detailed_result_put.sh: `while sleep 1; do echo
  FILE | entr -d python detailed_result_put.py URL FILE; done`). entr (3.9 in the worker's
  Ubuntu 18.04 image; it needs no terminal) uploads the file when it starts and whenever
  the file changes, each upload run to its end; when the number of files in OUTPUT
  changes (-d) it uploads once more and exits, and the loop starts it again a second
  later. The worker polls the program once a second and then kills the loop's shell
  alone: the entr running at that moment lives on, and uploads again when the worker
  removes OUTPUT/private;
* after the program, it uploads OUTPUT/detailed_results.html again only if it is still
  empty: then it uploads every .html file of OUTPUT in os.walk order.

Running that worker showed both ways of leaving the page in a sub-folder and the file
empty to fail: the surviving entr uploaded the empty file after the worker's final upload of
the page. So on v1.5 too the page is OUTPUT/detailed_results.html, and every upload made
after it is written sends it; the program then waits V15_QUIET_SECONDS before exiting, so
that the loop is still alive to start entr again (one second) after the program's last new
file, and that entr uploads the page. Codabench (compute_worker/compute_worker.py,
Run.watch_detailed_results) sends OUTPUT/detailed_results.html while the program runs and
once more after it, and never creates the file itself.
"""

import os
import time

PAGE = "detailed_results.html"
V15_QUIET_SECONDS = 5.0


def is_v15_worker(output):
    """True if OUTPUT/detailed_results.html exists and is empty: only v1.5's worker makes it
    (to be asked before the program writes its page)."""
    path = os.path.join(output, PAGE)
    return os.path.isfile(path) and not os.path.islink(path) and os.path.getsize(path) == 0


def page_path(output):
    """Where the detailed results page goes, on every platform (see the module's docstring)."""
    return os.path.join(output, PAGE)


def settle(sleep=time.sleep):
    """On v1.5, once every file is written: wait V15_QUIET_SECONDS (see the module's docstring)."""
    sleep(V15_QUIET_SECONDS)
