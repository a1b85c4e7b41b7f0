"""The manual's examples of refusals, made by the scoring program itself: each mistake is
made to a valid submission of the phase (its kind's dummy submission, written from the
phase's public items, cut to a few items per part so that it stays quick at any scale),
which is then scored against a stand-in reference of those items, as the starting kit's
checker does; the sentence the program refuses it with is the example. An example cannot
drift from the program: a mistake the program does not refuse, or refuses with a sentence
its manual row does not describe, fails the tests on every kind's phases (sentence_for,
strict). A mistake is a function of the submission's folder and the kind's name that
changes the folder, or returns False where the phase's names leave no way to make it (a file name
without a separator cannot be spelled with other separators). MISTAKES names them by the
problem of their row (tools/manual.py's COMMON_ERRORS, the kinds' errors() and the text
files' rows of readers/text.py); a kind's module may give its own rows' (its MISTAKES,
checked first). Mistakes of permissions are scored without root's power to read past them,
mistakes of memory by the checker with a bounded address space, a page worker killed by the
system by a process whose page workers are killed as they start, the checker's own mistakes by
the checker. A row that no mistake makes here (a file changed while it is read; a page's size
beyond the memory left, which only memory taken after its ground truth of the same size was
read can make) is shown with its template filled by example values, and the manual names
those rows.
"""

import io
import os
import re
import shutil
import sys
import tempfile
import unicodedata

from scoring import public, runner
from scoring.errors import SubmissionError
from scoring.log import Log
from scoring.tracks import TRACKS

#: At most this many items of each part of the phase (images of a subset, pages of a
#: manuscript...) in the submission the mistakes are made to.
ITEMS = 3
TEXT = (".csv", ".txt", ".tsv")
_ACCENTED = {"a": "\u00e1", "e": "\u00e9", "i": "\u00ed", "o": "\u00f3", "u": "\u00fa"}


class ManualError(Exception):
    """A row of the manual that the program contradicts; one sentence saying which."""


def few_items(track_items):
    """The track's public items with at most ITEMS items in each part: every list nested in
    a part (a subset's images, a manuscript's pages) and every list of ids cut."""
    items = dict(track_items["items"])
    for name, value in items.items():
        if isinstance(value, list):
            cut = []
            for part in value:
                if isinstance(part, dict):
                    part = dict((k, v[:ITEMS] if isinstance(v, list) else v) for k, v in part.items())
                elif isinstance(part, list):
                    part = part[:ITEMS]
                cut.append(part)
            items[name] = cut
    return dict(track_items, items=items, dir="")


# ---------------------------------------------------------------- the submission's files


def expected_files(res, kind):
    """The files of the submission that look like the kind's (its looks_like), sorted."""
    looks_like = TRACKS[kind].looks_like
    found = []
    for folder, _, filenames in os.walk(res):
        for filename in filenames:
            path = os.path.join(folder, filename)
            rel = os.path.relpath(path, res).replace(os.sep, "/")
            if looks_like(rel, path):
                found.append(rel)
    return sorted(found)


def _first(res, kind, text=False):
    files = [rel for rel in expected_files(res, kind) if not text or rel.lower().endswith(TEXT)]
    return files[0] if files else None


def _rename(res, rel, name):
    """Rename the file rel (in its folder) to name; False if that changes nothing."""
    folder, old = os.path.split(rel)
    if name == old or not name:
        return False
    os.rename(os.path.join(res, rel), os.path.join(res, folder, name))
    return True


def renamed(change):
    """A mistake: the first of the kind's files renamed by change(its name) (None: no way)."""
    def mistake(res, kind):
        rel = _first(res, kind)
        if rel is None:
            return False
        name = change(os.path.basename(rel))
        return name is not None and _rename(res, rel, name)
    return mistake


def _near(name):
    stem, extension = os.path.splitext(name)
    return stem + stem[-1] + extension if stem else None


def _other_case(name):
    stem, extension = os.path.splitext(name)
    other = stem.lower() if stem.lower() != stem else stem.upper()
    return other + extension if other != stem else None


def _plain(text):
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def _other_accents(name):
    """The name without its accents, or with one on its first plain vowel."""
    stem, extension = os.path.splitext(name)
    plain = _plain(stem)
    if plain != unicodedata.normalize("NFC", stem):
        return plain + extension
    for i, letter in enumerate(stem):
        if letter.lower() in _ACCENTED:
            accented = _ACCENTED[letter.lower()]
            return stem[:i] + (accented.upper() if letter.isupper() else accented) + stem[i + 1:] + extension
    return None


def _other_accents_and_case(name):
    changed = _other_accents(name)
    return None if changed is None else _other_case(changed)


def _other_separators(name):
    stem, extension = os.path.splitext(name)
    for separator, other in (("_", " "), (" ", "_"), ("-", "_")):
        if separator in stem:
            return stem.replace(separator, other, 1) + extension
    return None


def _other_extension(name):
    stem, _ = os.path.splitext(name)
    return stem + ".dat"


def empty(res, kind):
    for name in os.listdir(res):
        path = os.path.join(res, name)
        if os.path.isdir(path):
            shutil.rmtree(path)
        else:
            os.remove(path)


def several_missing(res, kind):
    """Two files of one folder missing, a third named almost as the first."""
    files = expected_files(res, kind)
    folders = {}
    for rel in files:  # files of one folder and one extension: the same kind of file
        folders.setdefault((os.path.dirname(rel), os.path.splitext(rel)[1]), []).append(rel)
    group = next((group for _, group in sorted(folders.items()) if len(group) >= 3), None)
    if group is None:
        return False
    os.remove(os.path.join(res, group[1]))
    return _rename(res, group[0], _near(os.path.basename(group[0])))


def two_forms(res, kind):
    """A copy of the first file under the other of two forms a kind may read (.csv, .npz)."""
    rel = _first(res, kind)
    if rel is None:
        return False
    stem, extension = os.path.splitext(rel)
    shutil.copyfile(os.path.join(res, rel), os.path.join(res, stem + (".npz" if extension == ".csv" else ".csv")))
    return True


def symbolic_link(res, kind):
    """A link beside the first file, pointing to it (where the system makes links)."""
    rel = _first(res, kind)
    if rel is None:
        return False
    stem, extension = os.path.splitext(rel)
    try:
        os.symlink(os.path.basename(rel), os.path.join(res, stem + "_link" + extension))
    except (OSError, NotImplementedError):
        return False
    return True


def named_pipe(res, kind):
    """The first file replaced by a named pipe of its name (where the system makes them)."""
    rel = _first(res, kind)
    if rel is None or not hasattr(os, "mkfifo"):
        return False
    os.remove(os.path.join(res, rel))
    os.mkfifo(os.path.join(res, rel))
    return True


def hard_link(to_reference):
    """A mistake: the first file replaced by a hard link to a file of the reference data (the
    Codalab layout: ref/ beside res/) or to a file outside both (where the system makes them)."""
    def mistake(res, kind):
        rel = _first(res, kind)
        if rel is None:
            return False
        if to_reference:
            ref = os.path.join(os.path.dirname(res), "ref")
            target = next((os.path.join(folder, name) for folder, _, names in sorted(os.walk(ref))
                           for name in sorted(names)), None)
        else:
            target = os.path.join(os.path.dirname(res), "elsewhere")
            shutil.copyfile(os.path.join(res, rel), target)
        if target is None:
            return False
        os.remove(os.path.join(res, rel))
        try:
            os.link(target, os.path.join(res, rel))
        except (OSError, NotImplementedError, AttributeError):
            return False
        return True
    return mistake


def nested(res, kind):
    """A copy of the first file 65 folders deep."""
    rel = _first(res, kind)
    if rel is None:
        return False
    folder = os.path.join(res, *(["deep"] * 65))
    os.makedirs(folder)
    shutil.copyfile(os.path.join(res, rel), os.path.join(folder, os.path.basename(rel)))
    return True


def path_too_long(res, kind):
    """A copy of the first file 20 folders of 245 characters deep, a path longer than systems
    allow (4096 bytes on Linux, 1024 on macOS), made a folder at a time from the one above
    (where the system opens files relative to a folder)."""
    rel = _first(res, kind)
    if rel is None or os.mkdir not in os.supports_dir_fd or not hasattr(os, "O_DIRECTORY"):
        return False
    with open(os.path.join(res, rel), "rb") as stream:
        data = stream.read()
    name = "folder_" * 35
    folder = os.open(res, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(20):
            os.mkdir(name, dir_fd=folder)
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=folder)
            os.close(folder)
            folder = inner
        copy = os.open(os.path.basename(rel), os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=folder)
        try:
            os.write(copy, data)
        finally:
            os.close(copy)
    except OSError:
        return False
    finally:
        os.close(folder)
    return True


def folder_in_place(res, kind):
    """The first file inside a folder of its own name, in its place (a file unzipped 'to a
    folder')."""
    rel = _first(res, kind)
    if rel is None:
        return False
    path = os.path.join(res, rel)
    os.rename(path, path + ".moved")
    os.mkdir(path)
    os.rename(path + ".moved", os.path.join(path, os.path.basename(rel)))
    return True


def unprivileged(mistake):
    """A mistake of permissions: scored by a process the permissions bind (program_sentence),
    where the system has such permissions."""
    mistake.unprivileged = True
    return mistake


@unprivileged
def unreadable(res, kind):
    """The first file made unreadable (mode 000)."""
    rel = _first(res, kind)
    if rel is None or not hasattr(os, "fork"):
        return False
    os.chmod(os.path.join(res, rel), 0)
    return True


@unprivileged
def unlistable(res, kind):
    """A copy of the first file in a folder of the participant's that cannot be listed (mode 000)."""
    rel = _first(res, kind)
    if rel is None or not hasattr(os, "fork"):
        return False
    folder = os.path.join(res, "my_results")
    os.mkdir(folder)
    shutil.copyfile(os.path.join(res, rel), os.path.join(folder, os.path.basename(rel)))
    os.chmod(folder, 0)
    return True


def in_memory(headroom):
    """A mistake of memory: scored by the checker (check_submission.py, whose entry point
    turns a MemoryError into its sentence as evaluate.py's does) in a child process whose
    address space may grow by `headroom` bytes only (RLIMIT_AS, as `ulimit -v` sets it),
    where the system sets such limits."""
    def mark(mistake):
        mistake.headroom = headroom
        return mistake
    return mark


def _longer_text(res, kind):
    """The first text file followed by 40 MB of blank lines (a file the limit cannot hold twice)."""
    rel = _first(res, kind, text=True)
    if rel is None:
        return False
    with open(os.path.join(res, rel), "ab") as stream:
        stream.write(b"\n" * (40 << 20))
    return True


#: A text file the memory left cannot read, or can read but not decode (in_memory's headroom).
too_large_to_read = in_memory(16 << 20)(lambda res, kind: _longer_text(res, kind))
too_large_to_decode = in_memory(60 << 20)(lambda res, kind: _longer_text(res, kind))


def checked(argument):
    """A mistake of the checker's own: check_submission.py given `argument` (a name in the
    submission's parent folder) instead of a submission; make(folder) makes that name there
    (or not)."""
    def mark(make):
        make.checker_argument = argument
        return make
    return mark


@checked("my_submission.rar")
def not_a_zip(folder):
    with open(os.path.join(folder, "my_submission.rar"), "wb") as stream:
        stream.write(b"Rar!\x1a\x07\x00")


@checked("my_submission.zip")
def no_such_file(folder):
    pass


def written_twice(res, kind):
    """The first file under an accented name, twice: composed (NFC) and decomposed (NFD)."""
    rel = _first(res, kind)
    if rel is None:
        return False
    name = os.path.basename(rel)
    accented = name if _plain(name) != name else _other_accents(name)
    if accented is None:
        return False
    folder = os.path.join(res, os.path.dirname(rel))
    os.rename(os.path.join(res, rel), os.path.join(folder, unicodedata.normalize("NFC", accented)))
    shutil.copyfile(os.path.join(folder, unicodedata.normalize("NFC", accented)),
                    os.path.join(folder, unicodedata.normalize("NFD", accented)))
    return True


# ---------------------------------------------------------------- a text file's mistakes


def in_text(change):
    """A mistake: the first of the kind's text files (.csv, .txt, .tsv) changed by
    change(its lines as bytes, without line ends) -> bytes, or None (no way)."""
    def mistake(res, kind):
        rel = _first(res, kind, text=True)
        if rel is None:
            return False
        path = os.path.join(res, rel)
        with open(path, "rb") as stream:
            lines = stream.read().splitlines()
        data = change(lines) if len(lines) >= 2 else None
        if data is None:
            return False
        with open(path, "wb") as stream:
            stream.write(data)
        return True
    return mistake


def _joined(lines):
    return b"".join(line + b"\n" for line in lines)


def _header(lines):
    """Whether the first line is a CSV header (it names a filename column)."""
    return b"filename" in lines[0].lower()


def _csv(change):
    return in_text(lambda lines: change(lines) if _header(lines) else None)


MISTAKES = {
    # tools/manual.py, COMMON_ERRORS
    "an empty zip": empty,
    "a file named almost as expected": renamed(_near),
    "a file named in another case": renamed(_other_case),
    "a file named with other accents": renamed(_other_accents),
    "a file named with other accents and case": renamed(_other_accents_and_case),
    "a file named with other spaces, dashes or underscores": renamed(_other_separators),
    "a file with another extension": renamed(_other_extension),
    "several files missing, one named almost so": several_missing,
    "two files for one name": two_forms,
    "a symbolic link": symbolic_link,
    "a named pipe, a socket or a device": named_pipe,
    "a hard link to the reference data": hard_link(to_reference=True),
    "a hard link to a file outside the submission": hard_link(to_reference=False),
    "folders nested too deep": nested,
    "a name too long": path_too_long,
    "one name written twice (composed and decomposed, NFC and NFD)": written_twice,
    "not a file": folder_in_place,
    "a file that cannot be read": unreadable,
    "a folder that cannot be listed": unlistable,
    "larger than the memory": too_large_to_read,
    "not enough memory": too_large_to_decode,
    "check_submission.py: not a zip": not_a_zip,
    "check_submission.py: no such file": no_such_file,
    # the kinds' own rows shared by the kinds that list names in text files
    "a name listed twice": in_text(lambda lines: _joined(lines[:2] + [lines[1]] + lines[2:])),
    # readers/text.py, TEXT_ERRORS and CSV_ERRORS
    "not UTF-8": in_text(lambda lines: _joined([lines[0], b"\xe9" + lines[1]] + lines[2:])),
    "a NUL byte": in_text(lambda lines: _joined([lines[0], lines[1] + b"\x00"] + lines[2:])),
    "an empty file": in_text(lambda lines: b""),
    "a line too long": in_text(lambda lines: _joined([lines[0], lines[1] + b" " * (1 << 20)] + lines[2:])),
    "an unclosed quote": _csv(lambda lines: _joined([lines[0], b'"' + lines[1]] + lines[2:])),
    "a field too long": _csv(lambda lines: _joined([lines[0], b"x" * 131073 + b"," + lines[1]] + lines[2:])),
    "another separator": _csv(lambda lines: _joined([line.replace(b",", b";") for line in lines])),
    "no header": _csv(lambda lines: _joined(lines[1:])),
    "an unknown column": _csv(lambda lines: _joined([lines[0] + b",score"] + [line + b",0" for line in lines[1:]])),
    "a column twice": _csv(lambda lines: _joined([lines[0] + b"," + lines[0].split(b",")[-1]] + lines[1:])),
    "a blank line": _csv(lambda lines: _joined([lines[0], b""] + lines[1:])),
    "a line of another length": _csv(lambda lines: _joined([lines[0], lines[1] + b",x"] + lines[2:])),
    "the header twice": _csv(lambda lines: _joined(lines[:2] + [lines[0]] + lines[2:])),
}


# ---------------------------------------------------------------- where a missing file was found


def _foldered(res, kind, inside):
    """The first of the kind's files inside a folder (inside) or at the top (not inside)."""
    return next((rel for rel in expected_files(res, kind) if ("/" in rel) == inside), None)


def moved(where, inside=True):
    """A mistake: the first of the kind's files in a folder (inside) or at the top, moved to
    where(its path) (None: no way)."""
    def mistake(res, kind):
        rel = _foldered(res, kind, inside)
        target = where(rel) if rel is not None else None
        if target is None:
            return False
        os.makedirs(os.path.dirname(os.path.join(res, target)) or res, exist_ok=True)
        os.rename(os.path.join(res, rel), os.path.join(res, target))
        return True
    return mistake


def _folder_case(rel):
    folder, name = rel.rsplit("/", 1)
    other = folder.lower() if folder.lower() != folder else folder.upper()
    return other + "/" + name if other != folder else None


def instead(*names):
    """A mistake: the first of the kind's files removed, files of other names in its folder."""
    def mistake(res, kind):
        rel = _first(res, kind)
        if rel is None:
            return False
        os.remove(os.path.join(res, rel))
        for name in names:
            with open(os.path.join(res, os.path.dirname(rel), name), "wb") as stream:
                stream.write(b"x\n")
        return True
    return mistake


def inner_zip(res, kind):
    """The first of the kind's files in a zip inside the submission, in its place."""
    import zipfile

    rel = _first(res, kind)
    if rel is None:
        return False
    with zipfile.ZipFile(os.path.join(res, "results.zip"), "w") as archive:
        archive.write(os.path.join(res, rel), rel)
    os.remove(os.path.join(res, rel))
    return True


def other_kind(res, kind):
    """The submission replaced by the dummy submission of the first other kind that says
    what its files are (FILES) and writes a sample reference: its files, none of this kind's."""
    others = [other for other in TRACKS if other != kind and getattr(TRACKS[other], "FILES", None)
              and hasattr(TRACKS[other], "sample_reference")]
    if not others:
        return False
    empty(res, kind)
    work = tempfile.mkdtemp(prefix="manual-other-")
    try:
        ref = os.path.join(work, "ref")
        os.makedirs(ref)
        with open(os.path.join(ref, "track.yaml"), "w") as stream:
            stream.write("track: %s\n" % others[0])
        TRACKS[others[0]].sample_reference(ref)
        public.dummy_submission(public.public_items(ref), os.path.join(work, "res"))
        for name in os.listdir(os.path.join(work, "res")):
            shutil.move(os.path.join(work, "res", name), os.path.join(res, name))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return True


#: The mistakes of tools/manual.py's HINTS: where a missing file was found instead.
HINT_MISTAKES = {
    "the file in a folder named in another case": moved(_folder_case),
    "the file out of its folder": moved(lambda rel: rel.rsplit("/", 1)[1]),
    "the files inside a folder": moved(lambda rel: "my_results/" + rel, inside=False),
    "the files inside extra folders": moved(lambda rel: "my_results/" + rel),
    "the file in a folder of another name": moved(lambda rel: "Results/" + rel.rsplit("/", 1)[1]),
    "a file of another name": instead("predictions.csv"),
    "files of other names": instead("predictions.csv", "notes.md"),
    "a zip inside the zip": inner_zip,
    "another kind of track's files": other_kind,
}


def mistake_of(kind, problem):
    """The mistake that makes the row `problem` of the kind's manual: the kind's own
    (its MISTAKES), else one of every kind's (MISTAKES), else None."""
    return getattr(TRACKS[kind], "MISTAKES", {}).get(problem) or MISTAKES.get(problem)


def _score(work):
    """The sentence the scoring program refuses work/res with against work/ref, '' if none."""
    try:
        runner.score_submission(work, Log(stream=io.StringIO()))
    except SubmissionError as error:
        return error.sentence
    return ""


def _checker(work, items, argument):
    """The sentence check_submission.py refuses `argument` with (run in work, as a participant
    runs it beside the submission), '' if none."""
    import check_submission

    with open(os.path.join(work, "public_items.json"), "w", encoding="utf-8") as stream:
        stream.write(public.dumps(items))
    here, errors = os.getcwd(), io.StringIO()
    standard_error, standard_output = sys.stderr, sys.stdout
    try:
        os.chdir(work)
        sys.stderr, sys.stdout = errors, io.StringIO()
        status = check_submission.main([argument, "--items", "public_items.json"])
    finally:
        sys.stderr, sys.stdout = standard_error, standard_output
        os.chdir(here)
    last = (errors.getvalue().splitlines() or [""])[-1]
    return last[len("Submission error: "):] if status == 1 and last.startswith("Submission error: ") else ""


#: Linux's capabilities that let root read past permissions (capabilities(7)), and the
#: version of capset's header (_LINUX_CAPABILITY_VERSION_3: two 32-bit words a set).
_DAC_OVERRIDE, _DAC_READ_SEARCH, _CAPABILITY_VERSION_3 = 1, 2, 0x20080522


def _in_child(run):
    """run() (a sentence, or None) in a forked child of this process, read back through a
    pipe; None if the child reports nothing."""
    import json

    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover (the child reports through the pipe)
        try:
            os.close(read)
            os.write(write, json.dumps(run()).encode("utf-8"))
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as stream:
        data = stream.read()
    os.waitpid(child, 0)
    return json.loads(data.decode("utf-8")) if data else None


def _bound_by_permissions(run):
    """run() (a sentence) in a child process that has dropped the capabilities with which
    root reads whatever the permissions say (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH): the
    kernel then denies it what it denies a participant's own process. None where that
    cannot be done (not Linux)."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        capget, capset = libc.capget, libc.capset
    except (OSError, AttributeError):
        return None

    def dropped():
        header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
        data = (ctypes.c_uint32 * 6)()  # (effective, permitted, inheritable) twice
        mask = ~((1 << _DAC_OVERRIDE) | (1 << _DAC_READ_SEARCH)) & 0xFFFFFFFF
        if capget(header, data) == 0:
            data[0] &= mask
            data[1] &= mask
            if capset(header, data) == 0:
                return run()
        return None

    return _in_child(dropped)


def _workers_killed(run):
    """run() (a sentence) in a child process each of whose own children (the lines kind's page
    workers) is killed by SIGKILL as it starts, as Linux's out-of-memory killer kills a
    process; None where no child is forked (too few pages or processors) or the system
    cannot fork."""
    import signal

    if not hasattr(os, "register_at_fork"):
        return None

    def killing():
        forked = []
        os.register_at_fork(after_in_parent=lambda: forked.append(True),
                            after_in_child=lambda: os.kill(os.getpid(), signal.SIGKILL))
        sentence = run()
        return sentence if forked else None

    return _in_child(killing)


#: A fresh Python that imports the checker, then limits its own address space to what it
#: holds plus HEADROOM bytes (RLIMIT_AS, as `ulimit -v` sets it), then runs the checker.
_BOUNDED = """
import os, resource, sys
sys.path.insert(0, sys.argv[1])
import check_submission
from scoring import tracks
if sys.argv[3]:
    tracks.add_folder(sys.argv[3])
    tracks.TRACKS[sys.argv[4]]
with open("/proc/self/statm") as stream:
    held = int(stream.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
resource.setrlimit(resource.RLIMIT_AS, (held + int(sys.argv[2]), resource.getrlimit(resource.RLIMIT_AS)[1]))
sys.exit(check_submission.main(sys.argv[5:]))
"""


def _bound_in_memory(work, items, headroom, kind):
    """The sentence check_submission.py refuses work/res with when its address space may
    grow by `headroom` bytes only once it has imported its code and the kind's (a fresh
    process, so that no memory it freed before counts); None where that cannot be done (not
    Linux)."""
    import subprocess

    import check_submission

    if not os.path.exists("/proc/self/statm"):
        return None
    with open(os.path.join(work, "public_items.json"), "w", encoding="utf-8") as stream:
        stream.write(public.dumps(items))
    run = subprocess.run([sys.executable, "-c", _BOUNDED, os.path.dirname(os.path.abspath(check_submission.__file__)),
                          str(headroom), os.path.dirname(getattr(TRACKS[kind], "__file__", "") or ""), kind, "res",
                          "--items", "public_items.json"], cwd=work, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    last = (run.stderr.decode("utf-8", "replace").splitlines() or [""])[-1]
    return last[len("Submission error: "):] if run.returncode == 1 and last.startswith("Submission error: ") else ""


def program_sentence(track_items, mistake):
    """The sentence the scoring program refuses the phase's (cut) dummy submission with, once
    mistake has been made to it; None where the phase or the system leaves no way to make
    it, '' where the program does not refuse it. A mistake of permissions (unprivileged) is
    scored without root's power to read past permissions when the build runs as root; a mistake of the checker's
    (checked) is the checker run on what it makes; a mistake of memory (headroom) and a page
    worker killed (workers_killed), see _bound_in_memory and _workers_killed."""
    items = {"format": public.FORMAT, "tracks": [few_items(track_items)]}
    work = tempfile.mkdtemp(prefix="manual-")
    try:
        public.stand_in_reference(items, os.path.join(work, "ref"))
        argument = getattr(mistake, "checker_argument", None)
        if argument is not None:
            mistake(work)
            return _checker(work, items, argument)
        public.dummy_submission(items, os.path.join(work, "res"))
        if mistake(os.path.join(work, "res"), track_items["kind"]) is False:
            return None
        if getattr(mistake, "headroom", None):
            return _bound_in_memory(work, items, mistake.headroom, track_items["kind"])
        if getattr(mistake, "workers_killed", False):
            return _workers_killed(lambda: _score(work))
        if getattr(mistake, "unprivileged", False) and getattr(os, "geteuid", lambda: 1)() == 0:
            return _bound_by_permissions(lambda: _score(work))
        return _score(work)
    finally:
        unlistable_folder = os.path.join(work, "res", "my_results")
        if os.path.isdir(unlistable_folder):  # made unlistable by a mistake: listable, to be removed
            os.chmod(unlistable_folder, 0o700)
        shutil.rmtree(work, ignore_errors=True)


def template_pattern(template):
    """A regex for the sentences a row's template stands for: each {name} any text, {{ and }}
    a brace (as str.format reads them)."""
    return "".join(re.escape(part[0]) if part in ("{{", "}}") else ".*?" if part.startswith("{") else re.escape(part)
                   for part in re.split(r"(\{\{|\}\}|\{[a-z_0-9]+\})", template))


def clause_for(track_items, problem, clause):
    """The clause that the program's sentence for the hint row (problem, clause) ends with on
    this phase; None without a mistake for it, False where this phase never says it."""
    mistake = HINT_MISTAKES.get(problem)
    if mistake is None:
        return None
    sentence = program_sentence(track_items, mistake) or ""
    pattern = template_pattern(clause)
    for start in reversed([m.start() for m in re.finditer(r" \(", sentence)]):  # the last clause first
        if sentence.endswith(".") and re.fullmatch(pattern, sentence[start:-1], flags=re.S):
            return sentence[start:-1].strip()
    return False


def sentence_for(track_items, problem, template, own=True, strict=False):
    """The program's own sentence for the row (problem, template) of the phase's manual, or
    None when no mistake makes it here. own: a row of the kind's, which the program must
    say; where it does not refuse the mistake or says something the row does not describe,
    strict (the tests, on phases of every kind) raises ManualError, else the row keeps its
    template (a build never stops for a name too short to be misspelt). Not own: a row of
    every kind's, False where this kind says otherwise (a page of the lines kind under
    another extension is told which extensions are read) or where this phase cannot make
    the mistake (three files missing of a phase of two)."""
    mistake = mistake_of(track_items["kind"], problem)
    if mistake is None:
        return None
    sentence = program_sentence(track_items, mistake)
    if sentence is None:  # the phase's names leave no way to make it: a row of every kind's does not apply,
        return None if own or getattr(mistake, "headroom", None) else False  # but memory always may
    if not sentence or not re.fullmatch(template_pattern(template), sentence, flags=re.S):
        if not own:
            return False
        if not strict:
            return None
        raise ManualError("The participant manual's row %r of the kind %s says %r, but the scoring program %s; "
                          "make the row say what the program says (tools/mistakes.py)." % (
                              problem, track_items["kind"], template,
                              "says %r" % sentence if sentence else "accepts that mistake"))
    return sentence
