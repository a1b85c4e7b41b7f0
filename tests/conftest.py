"""Shared test helpers: the scoring program on the import path, and runners of
evaluate.py and check_submission.py as programs (a process of their own, INPUT and OUTPUT
arguments, exit status, stdout and stderr)."""

import hashlib
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "program")
sys.path.insert(0, PROGRAM)
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "tests", "floor"))
GENERATED = os.path.join(ROOT, ".test-data")  # git-ignored; `make clean` removes it


class Run(object):
    def __init__(self, completed, output):
        self.status = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr
        self.output = output

    @property
    def last_line(self):
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def scores(self):
        """scores.txt parsed as Codalab v1.5 does: split(':') and float()."""
        values = {}
        with open(os.path.join(self.output, "scores.txt")) as stream:
            for line in stream:
                key, value = line.split(":")
                values[key.strip()] = float(value)
        return values

    def has_scores(self):
        return os.path.exists(os.path.join(self.output, "scores.txt"))


class Completed(object):
    def __init__(self, returncode, stdout, stderr):
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr


def run_forked(main, argv, timeout=600):
    """main(argv) run as a program in a child forked from the test process: (status, stdout,
    stderr) as a Completed. The child is a process of its own (its memory, its file
    descriptors 1 and 2, its exit status, its own forked workers), but it starts with the
    scoring program's modules already imported: a run costs no interpreter start-up, about
    0.3 s of CPU, paid hundreds of times by the corpus of malformed submissions in each of
    the three environments of `make test`. test_contract.py runs evaluate.py itself, in a
    fresh interpreter, as the platforms do."""
    return Forked(main, argv).wait(timeout)


class Forked(object):
    """main(argv) started in a forked child (see run_forked); wait() gives its Completed.
    Several may run at once (two runs on one OUTPUT, test_concurrent_runs.py)."""

    def __init__(self, main, argv):
        self.argv = argv
        self.out, self.err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        sys.stdout.flush()
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:  # the child: never returns into pytest
            status = 70
            try:
                os.dup2(self.out.fileno(), 1)
                os.dup2(self.err.fileno(), 2)
                sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", line_buffering=True)
                sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", line_buffering=True)
                try:
                    status = main(argv)
                except SystemExit as exit:
                    status = exit.code
                if status is None:
                    status = 0
                elif not isinstance(status, int):
                    sys.stderr.write("%s\n" % status)
                    status = 1
            except BaseException:
                traceback.print_exc()
                status = 70
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(status)

    def wait(self, timeout=600):
        deadline = time.time() + timeout
        try:
            while True:
                done, code = os.waitpid(self.pid, os.WNOHANG)
                if done:
                    break
                if time.time() > deadline:
                    os.kill(self.pid, signal.SIGKILL)
                    os.waitpid(self.pid, 0)
                    raise AssertionError("%s did not end within %d s" % (self.argv, timeout))
                time.sleep(0.005)
            status = os.WEXITSTATUS(code) if os.WIFEXITED(code) else -os.WTERMSIG(code)
            self.out.seek(0)
            self.err.seek(0)
            return Completed(status, self.out.read().decode("utf-8", "replace"),
                             self.err.read().decode("utf-8", "replace"))
        finally:
            self.out.close()
            self.err.close()


_MAINS = {}


def program_main(name):
    """The main() of program/<name>.py, imported once."""
    import importlib.util

    if name in _MAINS:
        return _MAINS[name]
    spec = importlib.util.spec_from_file_location(name, os.path.join(PROGRAM, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _MAINS[name] = module.main
    from replay import preload  # what each forked run would import again

    preload()
    return module.main


#: Set by tests/floor/run on a floor: a test that scores a whole phase in a forked child
#: (run_scorer) is skipped there, as the differential test replays on every floor every
#: phase that .venv's suite scores (status, stderr, scores, page and private/ compared).
PHASES_REPLAYED = os.environ.get("SCORING_PHASES_REPLAYED") == "1"


def organizer_s_machine():
    """Skips, on a floor, a test of what tools/make_bundle.py builds: the build runs on the
    organizer's machine (the current stack, .venv's suite), never under the platforms'
    stacks, and the phases the test scores are replayed there."""
    if PHASES_REPLAYED:
        pytest.skip("the build runs on the organizer's machine: tested in .venv")


def run_scorer(input_dir, output_dir, *extra):
    """evaluate.py INPUT OUTPUT [extra...], in a forked child (run_forked)."""
    if PHASES_REPLAYED and not _unrecorded:
        pytest.skip("a whole phase: the differential test replays it on this floor")
    completed = run_forked(program_main("evaluate"), [str(input_dir), str(output_dir)] + [str(e) for e in extra])
    return Run(completed, str(output_dir))


def run_compare(*args, timeout=600):
    """compare.py ARGS in a forked child (run_forked): the organizer's program without an
    interpreter's start-up; the phases it scores for its analysis are not recorded for the
    differential test (tests/test_compare_end_to_end.py starts compare.py itself once)."""
    _unrecorded.append("compare")
    try:
        return run_forked(program_main("compare"), [str(a) for a in args], timeout)
    finally:
        _unrecorded.pop()


def run_scorer_process(input_dir, output_dir, *extra, timeout=600, address_space=None):
    """evaluate.py as the platforms run it: a fresh interpreter, killed after `timeout` s,
    optionally under an address-space limit (RLIMIT_AS, bytes)."""
    record_case(str(input_dir), timeout=timeout, address_space=address_space)

    def limit():
        if address_space is not None:
            import resource
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    completed = subprocess.run(
        [sys.executable, os.path.join(PROGRAM, "evaluate.py"), str(input_dir), str(output_dir)] + list(extra),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout,
        preexec_fn=limit,
    )
    return Run(completed, str(output_dir))


# ------------------------------------------------------------ the cases of the differential test

#: Where every phase the suite scores is recorded (input copied, with its special files), for
#: tests/test_differential.py to replay it under each stack: set by `make test` for the
#: suite in .venv, or by that test when it records its own cases.
RECORD = os.environ.get("SCORING_RECORD")
#: Of each test's phases, the first FIRST are recorded, then one in EVERY, MOST at most: a
#: property test's examples and a test's rounds are many and alike, and each case is
#: replayed under four stacks. SCORING_RECORD_ALL=1 (the differential test recording its
#: own, a quarter of the property tests' examples) records every phase.
FIRST, EVERY, MOST = 5, 4, 12
RECORD_ALL = os.environ.get("SCORING_RECORD_ALL") == "1"
_unrecorded = []


def _seen(test):
    """How many phases `test` has scored so far, this one included, counted in a file under
    RECORD: a phase scored in a forked child counts in the test's process too."""
    import fcntl

    counts = os.path.join(RECORD, ".counts")
    os.makedirs(counts, exist_ok=True)
    with open(os.path.join(counts, hashlib.sha256(test.encode("utf-8")).hexdigest()[:20]), "a+") as stream:
        fcntl.flock(stream, fcntl.LOCK_EX)
        stream.seek(0)
        seen = int(stream.read() or 0) + 1
        stream.seek(0)
        stream.truncate()
        stream.write(str(seen))
    return seen


def record_case(input_dir, timeout=120, address_space=None):
    """Under SCORING_RECORD: a copy of the phase input_dir (ref/ and res/) as the next case,
    with the limits it ran under, before anything scores it; a phase already recorded
    (the same files, links and limits, e.g. the sample phase that many tests score) is
    recorded once, by the digest of its tree (a marker under RECORD/.digests)."""
    if not RECORD or _unrecorded or not os.path.isdir(input_dir):
        return
    import json
    import re

    test = os.environ.get("PYTEST_CURRENT_TEST", "outside-a-test").split(" ")[0]
    seen = 1 if RECORD_ALL else _seen(test)
    if seen > FIRST and (seen - FIRST) % EVERY or seen > FIRST + EVERY * (MOST - FIRST):
        return
    try:
        digest = tree_digest(input_dir, (timeout, address_space))
    except OSError as error:  # a file that cannot be read (unreadable): no case
        sys.stderr.write("not recorded (%s): %s\n" % (error, input_dir))
        return
    digests = os.path.join(RECORD, ".digests")
    os.makedirs(digests, exist_ok=True)
    try:
        os.close(os.open(os.path.join(digests, digest), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    case = tempfile.mkdtemp(prefix=re.sub(r"[^A-Za-z0-9_.-]+", "_", test)[-120:] + "-", dir=RECORD)
    try:
        copy_tree(input_dir, os.path.join(case, "input"), os.path.join(case, "outside"))
    except OSError as error:  # a file that cannot be copied (unreadable): no case
        shutil.rmtree(case, ignore_errors=True)
        sys.stderr.write("not recorded (%s): %s\n" % (error, input_dir))
        return
    with open(os.path.join(case, "case.json"), "w") as stream:
        json.dump({"test": test, "timeout": timeout, "address_space": address_space}, stream)


def tree_digest(source, limits):
    """The digest of what copy_tree copies of a folder (each entry's path and type, a file's
    bytes, a link's target, which files are one hard-linked file) and of the limits."""
    import stat

    digest = hashlib.sha256(repr(limits).encode("utf-8"))
    linked = {}
    stack = [source]
    while stack:
        folder = stack.pop()
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            status = os.lstat(path)
            mode = status.st_mode
            digest.update(b"\0%s\0%d\0" % (os.fsencode(os.path.relpath(path, source)), stat.S_IFMT(mode)))
            if stat.S_ISLNK(mode):
                digest.update(os.fsencode(os.readlink(path)))
            elif stat.S_ISDIR(mode):
                stack.append(path)
            elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
                digest.update(b"%d" % status.st_rdev)
            elif stat.S_ISREG(mode):
                if status.st_nlink > 1:
                    first = linked.setdefault((status.st_dev, status.st_ino), os.path.relpath(path, source))
                    digest.update(os.fsencode(first))
                with open(path, "rb") as stream:
                    for block in iter(lambda: stream.read(1 << 20), b""):
                        digest.update(block)
    return digest.hexdigest()


def copy_tree(source, target, outside=None):
    """A copy of a folder as a submission may hold it, without recursion (trees 1100 levels
    deep): named pipes, sockets and devices made anew, symbolic links kept (pointing into
    the copy when they pointed into the source), hard links kept between the copied files.
    With `outside`, a link to a folder or file of a test's temporary folder outside the
    source (check_submission.py's res/ linked to the submission, reference data in a store)
    points to a copy of it made under `outside`: the test's folder is gone when the case is
    replayed."""
    import socket
    import stat

    temporary = os.path.realpath(tempfile.gettempdir()) + os.sep
    linked, copied = {}, {}
    stack = [(source, target)]
    while stack:
        folder, into = stack.pop()
        os.mkdir(into)
        for name in os.listdir(folder):
            path, copy = os.path.join(folder, name), os.path.join(into, name)
            status = os.lstat(path)
            mode = status.st_mode
            if stat.S_ISLNK(mode):
                pointed = os.readlink(path)
                real = os.path.realpath(path)
                if os.path.isabs(pointed) and (pointed + os.sep).startswith(source + os.sep):
                    pointed = target + pointed[len(source):]
                elif (outside is not None and real.startswith(temporary) and os.path.exists(real)
                      and not (real + os.sep).startswith(os.path.realpath(source) + os.sep)):
                    if real not in copied:
                        copied[real] = os.path.join(outside, str(len(copied)))
                        os.makedirs(outside, exist_ok=True)
                        if os.path.isdir(real):
                            copy_tree(real, copied[real])
                        else:
                            shutil.copyfile(real, copied[real])
                    pointed = copied[real]
                os.symlink(pointed, copy)
            elif stat.S_ISDIR(mode):
                stack.append((path, copy))
            elif stat.S_ISFIFO(mode):
                os.mkfifo(copy)
            elif stat.S_ISSOCK(mode):
                server = socket.socket(socket.AF_UNIX)
                here = os.getcwd()
                os.chdir(into)  # a socket's path is limited to 107 bytes: bind by its name
                try:
                    server.bind(name)
                finally:
                    os.chdir(here)
                    server.close()
            elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
                os.mknod(copy, mode, status.st_rdev)
            elif status.st_nlink > 1 and (status.st_dev, status.st_ino) in linked:
                os.link(linked[status.st_dev, status.st_ino], copy)
            else:
                shutil.copyfile(path, copy)
                linked[status.st_dev, status.st_ino] = copy


def remove_tree(path):
    """shutil.rmtree without recursion: a recorded case may hold a tree 1100 levels deep,
    deeper than Python's recursion limit (shutil.rmtree and os.walk recurse, up to 3.11)."""
    import stat

    folders, stack = [], [path]
    while stack:
        folder = stack.pop()
        folders.append(folder)
        for name in os.listdir(folder):
            entry = os.path.join(folder, name)
            if stat.S_ISDIR(os.lstat(entry).st_mode):
                stack.append(entry)
            else:
                os.remove(entry)
    for folder in reversed(folders):
        os.rmdir(folder)


def _recording_score_submission():
    """Under SCORING_RECORD, scoring.runner.score_submission records its phase first: every
    in-process score, every forked evaluate.py and check_submission.py of the suite."""
    from scoring import runner

    original = runner.score_submission

    def score_submission(input_dir, log):
        record_case(str(input_dir))
        return original(input_dir, log)

    runner.score_submission = score_submission


if RECORD:
    _recording_score_submission()


def run_checker(submission, items_path):
    """The participant's check_submission.py against a public item list, in a forked child
    (run_forked): (run, last stderr line)."""
    completed = run_forked(program_main("check_submission"), [str(submission), "--items", str(items_path)])
    lines = [line for line in completed.stderr.splitlines() if line.strip()]
    return completed, (lines[-1] if lines else "")


@pytest.fixture
def scorer():
    return run_scorer


def assert_clean_failure(run, status, *fragments):
    """A refused run: the exit status, no traceback, no scores, one sentence naming the problem."""
    assert run.status == status, (run.status, run.stderr)
    assert "Traceback" not in run.stderr, run.stderr
    assert not run.has_scores()
    for fragment in fragments:
        assert fragment in run.last_line, (fragment, run.last_line)


def generated_once(module, write, name=None, sources=()):
    """The folder `write(folder)` fills, generated once for every suite of `make test`.

    `make test` runs the suite in several sessions side by side, under two Pythons;
    generating the benchmarks' phases (and scoring them, scored_once) costs more than the
    tests that read them, so the folder is kept under .test-data/, named after the digest
    of the generator's source and of `sources` (a changed generator or program writes a new
    folder), and the sessions take turns under a file lock: the first generates, the others
    reuse. A folder is used only once `write` has finished (its `.complete` marker)."""
    import fcntl

    digest = hashlib.sha256()
    for path in [module.__file__] + list(sources):
        with open(path, "rb") as stream:
            digest.update(stream.read())
    name = name or module.__name__
    folder = os.path.join(GENERATED, "%s-%s" % (name, digest.hexdigest()[:12]))
    if not os.path.isdir(GENERATED):
        os.makedirs(GENERATED, exist_ok=True)
    with open(os.path.join(GENERATED, name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not os.path.exists(os.path.join(folder, ".complete")):
            for stale in os.listdir(GENERATED):
                if stale.startswith(name + "-"):
                    shutil.rmtree(os.path.join(GENERATED, stale))
            write(folder)
            open(os.path.join(folder, ".complete"), "w").close()
    return folder


def program_sources():
    """Every file of program/ (the digest of the code that scores a cached phase)."""
    found = []
    for folder, folders, names in os.walk(PROGRAM):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        found += [os.path.join(folder, name) for name in sorted(names) if not name.endswith(".pyc")]
    return found


def scored_once(module, name, phase):
    """The Run of evaluate.py on the phase whose folder `phase(folder)` returns, scored once
    for every session and stack of `make test` and kept under .test-data/ until the program
    or the generator changes (generated_once), by whichever session asks first, on its
    stack; not recorded for the differential test (a heavy phase, replayed under four
    stacks)."""
    import json

    def score(folder):
        os.makedirs(folder)
        scored = phase(folder)
        _unrecorded.append(name)
        try:
            run = run_scorer(scored, os.path.join(folder, "output"))
        finally:
            _unrecorded.pop()
        assert run.status == 0, run.stderr
        with open(os.path.join(folder, "run.json"), "w") as stream:
            json.dump([run.status, run.stdout, run.stderr], stream)

    folder = generated_once(module, score, name, program_sources())
    with open(os.path.join(folder, "run.json")) as stream:
        status, stdout, stderr = json.load(stream)
    return Run(Completed(status, stdout, stderr), os.path.join(folder, "output"))


@pytest.fixture(scope="session")
def fest_scale_output():
    """OUTPUT of evaluate.py on the lines benchmark's FEST-scale phase (3 manuscripts x 15
    pages of 1344 x 2016, bench/bench_lines.py), with public_details so that its 45 error
    maps are in the page: scored once (scored_once)."""
    import bench_lines

    def phase(folder):
        generated = generated_once(bench_lines, bench_lines.write_phase)
        phase = os.path.join(folder, "input")
        shutil.copytree(os.path.join(generated, "input"), phase)
        with open(os.path.join(phase, "ref", "track.yaml"), "a") as stream:
            stream.write("public_details: true\n")
        return phase

    return scored_once(bench_lines, "fest_scale", phase)


@pytest.fixture(scope="session")
def events_scale_output():
    """OUTPUT of evaluate.py on the events benchmark's phase (100 categories x 30,000
    images, bench/bench_events.py): scored once (scored_once)."""
    import bench_events

    def phase(folder):
        generated = generated_once(bench_events, lambda folder: bench_events.generate(folder, False))
        return os.path.join(generated, "input")

    return scored_once(bench_events, "events_scale", phase)


def pytest_collection_modifyitems(config, items):
    """Under HYPOTHESIS_EXAMPLES_SCALE (set by tests/floor/run for the floor environments),
    every property test draws that fraction of its examples (at least 10): the floors
    re-check the same properties on other library versions, the full counts run in .venv."""
    scale = float(os.environ.get("HYPOTHESIS_EXAMPLES_SCALE", "1"))
    if scale >= 1:
        return
    from hypothesis import settings
    for item in items:
        function = getattr(item, "obj", None)
        chosen = getattr(function, "_hypothesis_internal_use_settings", None)
        if chosen is not None:
            function._hypothesis_internal_use_settings = settings(
                chosen, max_examples=max(10, int(chosen.max_examples * scale)))


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The demo built by make_bundle.py, one competition per track in dist/<track>/:
    codabench_competition.zip, evalai_challenge.zip, competition.zip (v1.5), and the zips they hold."""
    import make_bundle

    target = str(tmp_path_factory.mktemp("dist"))
    make_bundle.build(target)
    return target


@pytest.fixture(scope="module")
def together(tmp_path_factory):
    """The demo as one competition (make_bundle.py --together): EvalAI and v1.5, no Codabench."""
    import make_bundle

    target = str(tmp_path_factory.mktemp("together"))
    make_bundle.build(target, together=True)
    return target
