"""Scoring program for document-analysis competitions on Codabench, EvalAI and Codalab v1.5.

Flow: layout (find tracks, resolve the submission) -> tracks (reader -> metric kernels
-> aggregation) -> TrackResult -> report (scores.txt, scores.json,
detailed_results.html, private/).
"""

import contextlib
import os
import sys

# One BLAS thread, set here because both entry points (evaluate.py, compare.py) import this
# package before numpy: the products of the program (the interval's resampled sums, the
# pixel statistics' thin Gram products) gain nothing from threads, spinning BLAS threads
# make them many times slower on a busy worker, and a sum split across threads is
# rounded as the thread count says, which would make a score depend on the machine.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

__version__ = "0.2.0"  #: the one version: evaluate.py --version, the log, every page's footer (CHANGELOG.md)

#: The packages the scoring program needs (requirements.txt), by import name.
RUNTIME_PACKAGES = ("numpy", "scipy", "PIL", "yaml")


def missing_package(error, how_to_install):
    """The sentence for a ModuleNotFoundError of a runtime package, else None (a bug)."""
    name = (getattr(error, "name", None) or "").split(".")[0]
    if name not in RUNTIME_PACKAGES:
        return None
    return ("The Python package %s is not installed for %s; the scoring program needs numpy, scipy, Pillow and "
            "PyYAML: %s." % (name, sys.executable, how_to_install))


def unmapped(error):
    """Whether `error` (or an error it was raised from) is a library that could not be
    mapped under an address-space limit (ulimit -v): glibc's dlopen says "failed to map
    segment from shared object" when the kernel refuses its mmap."""
    try:
        import resource
    except ImportError:  # not on Linux: no address-space limit
        return False
    if resource.getrlimit(resource.RLIMIT_AS)[0] == resource.RLIM_INFINITY:
        return False
    while error is not None:
        if isinstance(error, ImportError) and "failed to map segment from shared object" in str(error):
            return True
        error = error.__cause__ or error.__context__
    return False


def no_room_to_start(error):
    """The sentence for an error raised while loading the program's packages for lack of
    memory (a MemoryError, or unmapped()), else None."""
    if not (isinstance(error, MemoryError) or unmapped(error)):
        return None
    return ("The scoring program cannot start: the machine leaves it too little memory to load its packages "
            "(numpy, scipy, Pillow, PyYAML); raise its memory or address-space limit (ulimit -v).")


@contextlib.contextmanager
def loading(how_to_install):
    """`with loading(how_to_install):` around an entry script's imports: a missing runtime
    package (missing_package) or too little memory to load the packages (no_room_to_start)
    is one sentence on stderr and exit status 3; any other error is raised as it is (a bug)."""
    try:
        yield
    except ModuleNotFoundError as error:
        sentence = missing_package(error, how_to_install)
        if sentence is None:
            raise
    except (MemoryError, ImportError) as error:  # no room to load a package (ulimit -v)
        sentence = no_room_to_start(error)
        if sentence is None:
            raise
    else:
        return
    sys.stderr.write(sentence + "\n")
    sys.exit(3)
