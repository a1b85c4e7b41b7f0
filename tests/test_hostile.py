"""Hostile and odd input, as an attacker would submit it (issue 12): every case ends in a
score computed by the definitions or in one sentence naming the file (exit 1 for the
submission, 2 for the reference data); never a traceback, a hang, a blow-up, a score
left behind, or a file read from outside the submission.

Cases that could hang or blow up run evaluate.py in a subprocess with a timeout and,
for blow-ups, an address-space limit (RLIMIT_AS) well below what the attack needs.
"""

import io
import os
import shutil
import socket
import stat
import struct
import subprocess
import sys
import zipfile
import zlib

import numpy as np
import pytest
from conftest import PROGRAM, assert_clean_failure, run_scorer_process
from malformed import SAMPLE
from phases import sample_phase, write_phase
from PIL import Image

from scoring import memory, report, unpack
from scoring.readers import authentication as reader
from scoring.errors import ReferenceDataError, SubmissionError, printable
from scoring.log import Log
from scoring.runner import score_submission

try:
    import resource
except ImportError:  # pragma: no cover - Linux only
    resource = None

#: The address-space limit of the blow-up cases: the scoring program with numpy, scipy and
#: Pillow loaded and a sample page decoded fits in it; the attacks need several times more.
ADDRESS_SPACE = 1536 * 1024 * 1024


def score(root):
    return score_submission(str(root), Log(io.StringIO()))


def refused(root, error, *fragments):
    with pytest.raises(error) as raised:
        score(root)
    sentence = raised.value.sentence
    assert "\n" not in sentence
    for fragment in fragments:
        assert fragment in sentence, (fragment, sentence)
    return sentence


def run_limited(root, timeout=60, address_space=None):
    """evaluate.py on root in a subprocess, killed after `timeout` s, optionally under RLIMIT_AS."""
    return run_scorer_process(root, root / "out", timeout=timeout, address_space=address_space)


def fifo_in_place_of(path):
    """The file at path replaced by a named pipe that nobody writes to."""
    os.remove(path)
    os.mkfifo(path)


def bind_here(server, path):
    """Bind a Unix socket at `path` by its name alone (a socket's path is limited to 107 bytes)."""
    here = os.getcwd()
    os.chdir(os.path.dirname(path))
    try:
        server.bind(os.path.basename(path))
    finally:
        os.chdir(here)


def res(root, track, *parts):
    return str(root.joinpath("res", track, *parts))


def ref(root, track, *parts):
    return str(root.joinpath("ref", track, *parts))


# ------------------------------------------------------------ crashes: the csv module's field limit


def test_stray_quote_early_in_a_large_labels_file(tmp_path):
    root = sample_phase(tmp_path / "phase", "authentication")
    path = res(root, "authentication", "Yaqut_labels.csv")
    with open(path) as stream:
        lines = stream.read().splitlines()
    lines[2] = lines[2].replace(",", ',"', 1)
    lines += ["filler_%06d.jpg,0" % i for i in range(20000)]  # 400 KB after the quote
    with open(path, "w") as stream:
        stream.write("\n".join(lines) + "\n")
    refused(root, SubmissionError, "Yaqut_labels.csv line 3 opens a quoted field that the line does not close")


def test_a_200000_character_name_in_labels_and_in_a_distance_header(tmp_path):
    long_name = "x" * 200000
    root = sample_phase(tmp_path / "phase", "authentication")
    with open(res(root, "authentication", "Yaqut_labels.csv"), "a") as stream:
        stream.write("%s,0\n" % long_name)
    sentence = refused(root, SubmissionError, "Yaqut_labels.csv line", "longer than 131072 characters")
    assert len(sentence) < 1000
    root = sample_phase(tmp_path / "b", "authentication")
    path = res(root, "authentication", "Pizan_distances.csv")
    with open(path) as stream:
        text = stream.read()
    with open(path, "w") as stream:
        stream.write(text.replace(",", "," + long_name + ",", 1).replace(long_name + ",", long_name, 1))
    refused(root, SubmissionError, "Pizan_distances.csv line 1 holds a field longer than 131072 characters")


def test_the_organizers_csv_with_a_huge_field_is_a_reference_error(tmp_path):
    root = sample_phase(tmp_path / "phase", "authentication")
    with open(ref(root, "authentication", "Tasso.csv"), "a") as stream:
        stream.write('"%s,0\n' % ("y" * 150000))
    refused(root, ReferenceDataError, "ref/authentication/Tasso.csv line")


# ------------------------------------------------------------ only regular files from res/


def test_a_fifo_where_labels_are_expected_is_refused_without_blocking(tmp_path):
    root = sample_phase(tmp_path / "phase", "authentication")
    fifo_in_place_of(res(root, "authentication", "Pizan_labels.csv"))
    run = run_limited(root, timeout=60)
    assert_clean_failure(run, 1, "Pizan_labels.csv is a named pipe (FIFO); submit regular files and folders only.")


def test_a_fifo_in_the_reference_is_an_organizer_error(tmp_path):
    root = sample_phase(tmp_path / "phase", "events")
    fifo_in_place_of(ref(root, "events", "Oktoberfest.txt"))
    run = run_limited(root, timeout=60)
    assert run.status in (0, 2) and "Traceback" not in run.stderr  # a FIFO is no <Category>.txt file
    os.remove(ref(root, "events", "Oktoberfest.txt"))
    fifo_in_place_of(ref(root, "events", "track.yaml"))
    run = run_limited(root, timeout=60)
    assert_clean_failure(run, 2, "ref/events/track.yaml is a named pipe (FIFO), not a regular file; put the file "
                                 "itself in its place.")


def test_a_socket_and_a_device_are_refused(tmp_path):
    root = sample_phase(tmp_path / "phase", "events")
    os.remove(res(root, "events", "Diwali_Festival.txt"))
    server = socket.socket(socket.AF_UNIX)
    try:
        bind_here(server, res(root, "events", "Diwali_Festival.txt"))
        refused(root, SubmissionError, "Diwali_Festival.txt is a socket")
    finally:
        server.close()
    os.remove(res(root, "events", "Diwali_Festival.txt"))
    try:
        os.mknod(res(root, "events", "Diwali_Festival.txt"), stat.S_IFCHR | 0o644, os.makedev(1, 5))  # /dev/zero
    except (OSError, AttributeError):
        pytest.skip("no permission to create a device node here")
    refused(root, SubmissionError, "Diwali_Festival.txt is a character device")


def test_a_directory_where_a_distance_file_is_expected(tmp_path):
    root = sample_phase(tmp_path / "phase", "authentication")
    os.remove(res(root, "authentication", "Yaqut_distances.csv"))
    os.mkdir(res(root, "authentication", "Yaqut_distances.csv"))
    with pytest.raises(SubmissionError) as raised:
        score(root)
    assert "Yaqut_distances.csv" in raised.value.sentence


def test_a_hard_link_to_the_ground_truth_is_refused(tmp_path):
    root = sample_phase(tmp_path / "phase", "events")
    os.remove(res(root, "events", "Holi_Festival.txt"))
    os.link(ref(root, "events", "Holi_Festival.txt"), res(root, "events", "Holi_Festival.txt"))
    refused(root, SubmissionError, "Holi_Festival.txt is a hard link to a file of the reference data")



def _store_phase(tmp_path, link):
    """The events phase whose reference data live in INPUT/store/ (a git-annex or DVC store,
    one copy shared between phases): link 'folder' makes ref/events a symbolic link to the
    stored track folder, 'files' each reference file a link to its stored file."""
    root = sample_phase(tmp_path / "phase", "events")
    shutil.move(ref(root, "events"), str(root / "store"))
    if link == "folder":
        os.symlink(os.path.join("..", "store"), ref(root, "events"))
    else:
        os.mkdir(ref(root, "events"))
        for name in os.listdir(str(root / "store")):
            os.symlink(os.path.join("..", "..", "store", name), ref(root, "events", name))
    return root


@pytest.mark.parametrize("link", ["folder", "files"])
def test_a_hard_link_to_ground_truth_kept_in_a_store_is_refused(tmp_path, link):
    root = _store_phase(tmp_path, link)
    os.remove(res(root, "events", "Holi_Festival.txt"))
    os.link(str(root / "store" / "Holi_Festival.txt"), res(root, "events", "Holi_Festival.txt"))
    run = run_limited(root, timeout=60)
    assert_clean_failure(run, 1, "Holi_Festival.txt is a hard link to a file of the reference data")


def test_a_link_in_ref_to_a_large_tree_is_walked_within_a_bound(tmp_path, monkeypatch):
    """ref/'s links are followed to know its files, at most MAX_REFERENCE_ENTRIES entries
    (a link to / would walk the worker's disk), and a link loop is walked once."""
    from scoring import files
    root = sample_phase(tmp_path / "phase", "events")
    os.symlink(".", ref(root, "events", "loop"))
    score(root)
    monkeypatch.setattr(files, "MAX_REFERENCE_ENTRIES", 10)
    refused(root, ReferenceDataError, "The reference data folder ref/ holds more than 10 files and folders")


def test_a_store_of_the_reference_data_is_scored(tmp_path):
    """Links in ref/ are the organizer's: the phase scores as it does with plain folders."""
    plain = run_limited(sample_phase(tmp_path / "plain", "events"), timeout=60)
    stored = run_limited(_store_phase(tmp_path / "stored", "files"), timeout=60)
    assert plain.status == stored.status == 0, stored.stderr
    assert stored.scores() == plain.scores()


def test_a_hard_link_to_a_file_outside_the_submission_is_refused_unread(tmp_path):
    """A worker's credentials file: refused before it is opened, nothing of it quoted."""
    root = sample_phase(tmp_path / "phase", "authentication")
    secret = root / "credentials"
    secret.write_text("machine example.org login worker password hunter2\n")
    os.remove(res(root, "authentication", "Pizan_labels.csv"))
    os.link(str(secret), res(root, "authentication", "Pizan_labels.csv"))
    run = run_limited(root, timeout=60)
    assert_clean_failure(run, 1, "Pizan_labels.csv is a hard link to a file outside the submission (2 names, 1 of "
                                 "them in the submission)")
    page = (root / "out" / "detailed_results.html").read_text(encoding="utf-8")
    assert "hunter2" not in run.stderr + run.stdout + page


@pytest.mark.parametrize("how", ["is", "lies inside", "holds"])
def test_res_and_ref_that_are_one_folder_are_the_platforms_error(tmp_path, how):
    """INPUT/res a link to INPUT/ref would score the ground truth as the submission."""
    root = sample_phase(tmp_path / "phase", "events")
    shutil.rmtree(str(root / "res"))
    if how == "is":
        os.symlink("ref", str(root / "res"))
    elif how == "lies inside":
        os.mkdir(ref(root, "submitted"))
        shutil.copytree(os.path.join(SAMPLE, "res", "events"), ref(root, "submitted", "events"))
        os.symlink(os.path.join("ref", "submitted"), str(root / "res"))
    else:
        shutil.copytree(os.path.join(SAMPLE, "res", "events"), res(root, "events"))
        shutil.move(str(root / "ref"), res(root, "truth"))
        os.symlink(os.path.join("res", "truth"), str(root / "ref"))
    run = run_limited(root, timeout=60)
    assert_clean_failure(run, 2, "The submission folder res/ %s the reference data folder ref/" % how)


def test_a_missing_reference_folder_shows_no_path_of_the_worker(tmp_path):
    root = sample_phase(tmp_path / "phase", "events")
    shutil.rmtree(str(root / "ref"))
    run = run_limited(root, timeout=60)
    assert_clean_failure(run, 2, "The reference data folder ref/ is missing; the scoring program reads them from "
                                 "INPUT/ref/")
    page = (root / "out" / "detailed_results.html").read_text(encoding="utf-8")
    assert str(tmp_path) not in run.stderr + run.stdout + page

def test_a_hard_link_inside_the_submission_is_fine(tmp_path):
    root = sample_phase(tmp_path / "phase", "events")
    os.link(res(root, "events", "Holi_Festival.txt"), res(root, "events", "copy.dat"))
    score(root)


def test_a_tree_1100_levels_deep_is_refused_without_recursion(tmp_path):
    root = sample_phase(tmp_path / "phase", "events")
    path = res(root, "events")
    for _ in range(1100):  # os.makedirs and shutil.rmtree recurse: one level at a time
        path = os.path.join(path, "d")
        os.mkdir(path)
    run = run_limited(root, timeout=60)
    assert_clean_failure(run, 1, "The submission nests folders more than 64 levels deep")
    while path != res(root, "events"):
        os.rmdir(path)
        path = os.path.dirname(path)


def test_a_reference_folder_1100_levels_deep_is_refused_without_recursion(tmp_path):
    """The check that every reference file is read (layout.track_files) walks the reference
    folder as the index walks the submission: with a list, at most 64 levels."""
    root = sample_phase(tmp_path / "phase", "events")
    top = path = str(root / "ref" / "events")
    for _ in range(1100):
        path = os.path.join(path, "d")
        os.mkdir(path)
    run = run_limited(root, timeout=60)
    assert_clean_failure(run, 2, "ref/events/ nests folders more than 64 levels deep")
    while path != top:
        os.rmdir(path)
        path = os.path.dirname(path)


# ------------------------------------------------------------ Pillow 6's bitmap font


def test_a_subset_named_outside_latin1_is_drawn(tmp_path):
    root = sample_phase(tmp_path / "phase", "authentication")
    for side, suffix in (("ref", ".csv"), ("res", "_labels.csv"), ("res", "_distances.csv")):
        os.rename(str(root / side / "authentication" / ("Yaqut" + suffix)),
                  str(root / side / "authentication" / ("\u064a\u0627\u0642\u0648\u062a" + suffix)))
    run = run_limited(root, timeout=120)
    assert run.status == 0 and "Traceback" not in run.stderr, run.stderr
    assert "\u064a\u0627\u0642\u0648\u062a" in open(os.path.join(run.output, "detailed_results.html"),
                                                      encoding="utf-8").read()


# ------------------------------------------------------------ hangs: a killed page worker


def test_a_page_worker_killed_by_the_system_ends_the_pool(tmp_path):
    code = "\n".join([
        "import os, signal, sys",
        "sys.path.insert(0, %r)" % PROGRAM,
        "from scoring.tracks import lines",
        "from scoring.errors import SubmissionError",
        "def job(i):",
        "    if i == 2:",
        "        os.kill(os.getpid(), signal.SIGKILL)",
        "    return i",
        "lines.os.sched_getaffinity = lambda pid: set([0, 1])",
        "try:",
        "    lines.map_pages(job, list(range(6)))",
        "except SubmissionError as error:",
        "    print(error.sentence)",
    ])
    completed = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True, timeout=60)
    assert "A page worker was killed by the system" in completed.stdout, completed.stderr


# ------------------------------------------------------------ blow-ups decided from headers


def _npy_header(shape, descr="<f8", version=1, text=None):
    text = text if text is not None else "{'descr': %r, 'fortran_order': False, 'shape': %r, }" % (descr, shape)
    pad = 64 - (10 + len(text) + 1) % 64
    body = (text + " " * pad + "\n").encode("latin-1")
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(body)) + body
    return b"\x93NUMPY\x02\x00" + struct.pack("<I", len(body)) + body


def _write_npz(path, names, distances_bytes, compression=zipfile.ZIP_DEFLATED):
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(names))
    with zipfile.ZipFile(path, "w", compression) as archive:
        archive.writestr("names.npy", buffer.getvalue())
        archive.writestr("distances.npy", distances_bytes)


def _tasso_names(root):
    with open(ref(root, "authentication", "Tasso.csv")) as stream:
        return [line.split(",")[0] for line in stream.read().splitlines()[1:]]


def test_npz_declaring_a_matrix_larger_than_its_names(tmp_path):
    root = sample_phase(tmp_path / "phase", "authentication")
    names = _tasso_names(root)
    _write_npz(res(root, "authentication", "Tasso_distances.npz"), names,
               _npy_header((24000, 24000)) + zlib.compress(b"\x00" * 10 ** 6))
    run = run_limited(root, timeout=60, address_space=ADDRESS_SPACE)
    assert_clean_failure(run, 1, "Tasso_distances.npz has %d names for a 24000 x 24000 matrix" % len(names))


def test_npz_whose_matrix_exceeds_the_memory_left_names_the_file(tmp_path):
    root = sample_phase(tmp_path / "phase", "authentication")
    names = ["n%05d" % i for i in range(16000)]  # 16000 x 16000 float64: 2 GB, beyond RLIMIT_AS
    _write_npz(res(root, "authentication", "Tasso_distances.npz"), names,
               _npy_header((16000, 16000)) + b"\x00" * 1000, zipfile.ZIP_STORED)
    run = run_limited(root, timeout=60, address_space=ADDRESS_SPACE)
    assert_clean_failure(run, 1, "Tasso_distances.npz is a 16000 x 16000 matrix that needs 2.0 GB of memory")


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_npz_declaring_more_bytes_than_it_holds(tmp_path, compression):
    """A header consistent with the names, but data that cannot be there: refused before
    anything is allocated, even where memory would allow it."""
    root = sample_phase(tmp_path / "phase", "authentication")
    names = ["n%04d" % i for i in range(3000)]
    _write_npz(res(root, "authentication", "Tasso_distances.npz"), names,
               _npy_header((3000, 3000)) + b"\x00" * 1000, compression)
    refused(root, SubmissionError, "Tasso_distances.npz: the array 'distances' declares 3000 x 3000 values")


@pytest.mark.parametrize("header,fragment", [
    (b"\x93NUMPY\x02\x00" + struct.pack("<I", 2 ** 31) + b"{", "declares a header of 2147483648 bytes"),
    (_npy_header(None, text="{'descr': '<f8', 'fortran_order': False, 'shape': %s}" % ("(" * 3000 + ")" * 3000)),
     "the header of the array 'distances' cannot be read"),
    (_npy_header((10 ** 7, 10 ** 7)), "is a 10000000 x 10000000 matrix"),
])
def test_npz_headers_that_would_blow_up(tmp_path, header, fragment):
    root = sample_phase(tmp_path / "phase", "authentication")
    names = _tasso_names(root) if "10000000" not in fragment else ["a%d" % i for i in range(2)]
    if "10000000" in fragment:
        names = np.array(["a"] * 10 ** 7)  # compressed: 10 MB of 'a' in a few KB
    _write_npz(res(root, "authentication", "Tasso_distances.npz"), names, header + b"\x00" * 64)
    run = run_limited(root, timeout=60, address_space=ADDRESS_SPACE)
    assert_clean_failure(run, 1, "Tasso_distances.npz", fragment)


def _ico_with_png(png_bytes):
    entry = struct.pack("<BBBBHHII", 0, 0, 0, 0, 1, 32, len(png_bytes), 6 + 16)
    return struct.pack("<HHH", 0, 1, 1) + entry + png_bytes


def test_formats_are_told_by_content_not_by_name(tmp_path):
    root = sample_phase(tmp_path / "phase", "lines")
    page = res(root, "lines", "Latin2", "latin2_001.png")
    buffer = io.BytesIO()
    Image.new("RGB", (128, 96)).save(buffer, "PNG")
    with open(page, "wb") as stream:
        stream.write(_ico_with_png(buffer.getvalue()))
    refused(root, SubmissionError, "Latin2/latin2_001.png cannot be read as an image: its first bytes",
            "are not those of a PNG, TIFF or BMP file")
    for magic in (b"GIF89a", b"P6\n128 96\n255\n"):
        with open(page, "wb") as stream:
            stream.write(magic + b"\x00" * 64)
        refused(root, SubmissionError, "are not those of a PNG, TIFF or BMP file")


def test_an_image_too_large_for_the_memory_left_is_refused_from_its_header(tmp_path):
    """A 9000 x 9000 PNG of a few KB (below Pillow's own decompression-bomb limit): refused
    from its header in the ground truth, as decoding needs more than the memory left."""
    root = sample_phase(tmp_path / "phase", "lines")
    raw = zlib.compressobj()
    row = b"\x00" + b"\x00" * 1125  # 1-bit rows of 9000 pixels
    data = b"".join(raw.compress(row) for _ in range(200)) + raw.flush()  # too short: never decoded

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 9000, 9000, 1, 0, 0, 0, 0))
           + chunk(b"IDAT", data) + chunk(b"IEND", b""))
    with open(ref(root, "lines", "Latin2", "latin2_001.png"), "wb") as stream:
        stream.write(png)
    run = run_limited(root, timeout=60, address_space=ADDRESS_SPACE)
    assert run.status == 2 and "Traceback" not in run.stderr, run.stderr
    assert "ref/lines/Latin2/latin2_001.png is 9000x9000 pixels, more than the memory" in run.last_line


def test_yaml_alias_bomb_is_an_organizer_error(tmp_path):
    levels = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += ["a%d: &a%d [%s]" % (i, i, ", ".join(["*a%d" % (i - 1)] * 10)) for i in range(1, 9)]
    root = sample_phase(tmp_path / "phase", "events", "track: events\nmissing: " + "*a8\n" + "\n".join(levels) + "\n")
    run = run_limited(root, timeout=60, address_space=ADDRESS_SPACE)
    assert_clean_failure(run, 2, "ref/events/track.yaml uses a YAML alias (*a8) at line 2")


def test_option_values_are_quoted_briefly(tmp_path):
    root = sample_phase(tmp_path / "phase", "events", "track: events\nmissing: [%s]\n" % ", ".join(["x"] * 5000))
    sentence = refused(root, ReferenceDataError, "ref/events/track.yaml sets missing to ['x', 'x'")
    assert len(sentence) < 300


def test_did_you_mean_among_40000_decoy_names(tmp_path, monkeypatch):
    from scoring import names
    compared = []
    original = names.difflib.get_close_matches

    def counting(word, possibilities, *args, **kwargs):
        compared.append(len(possibilities))
        return original(word, possibilities, *args, **kwargs)

    monkeypatch.setattr(names.difflib, "get_close_matches", counting)
    decoys = ["La_Tomatinb%05d.txt" % i for i in range(40000)]
    assert names.near_name("La_Tomatina.txt", decoys + ["La_Tomatin.txt"]) == "La_Tomatin.txt"
    assert compared and max(compared) <= names.NEAR_CANDIDATES
    root = sample_phase(tmp_path / "phase", "events")
    os.rename(res(root, "events", "La_Tomatina.txt"), res(root, "events", "La_Tomatin.txt"))
    for name in decoys[:4000]:
        open(res(root, "events", name), "w").close()
    refused(root, SubmissionError, "found events/La_Tomatin.txt, a name close to it: rename it La_Tomatina.txt")


# ------------------------------------------------------------ unclear messages


def test_control_characters_in_names_are_escaped(tmp_path):
    assert printable("a\nb\x1b[2J\u2028c") == "a\\nb\\x1b[2J\\u2028c"
    root = sample_phase(tmp_path / "phase", "events")
    os.rename(res(root, "events", "La_Tomatina.txt"), res(root, "events", "La_Tomatina\n.txt"))
    run = run_limited(root, timeout=60)
    assert_clean_failure(run, 1, "found events/La_Tomatina\\n.txt, ")


# ------------------------------------------------------------ atomicity


def test_a_failure_between_the_two_score_files_leaves_neither(tmp_path, monkeypatch):
    written = []
    original = report._write_temporary

    def fail_second(directory, data):
        if written:
            raise OSError(28, "No space left on device")
        written.append(data)
        return original(directory, data)

    monkeypatch.setattr(report, "_write_temporary", fail_second)
    with pytest.raises(OSError):
        report.write_scores(str(tmp_path), {"uar": 0.5})
    assert sorted(os.listdir(str(tmp_path))) == []
    monkeypatch.setattr(report, "_write_temporary", original)
    renames = []
    replace = os.replace

    def fail_second_rename(source, destination):
        renames.append(destination)
        if len(renames) == 2:
            raise OSError(28, "No space left on device")
        return replace(source, destination)

    monkeypatch.setattr(report.os, "replace", fail_second_rename)
    with pytest.raises(OSError):
        report.write_scores(str(tmp_path), {"uar": 0.5})
    assert sorted(os.listdir(str(tmp_path))) == []


def test_output_files_have_the_permissions_open_gives(tmp_path):
    """The page and the scores are written under a temporary name, then renamed; the files
    read as any file the user makes does (the umask's), not as mkstemp's owner-only ones."""
    output = str(tmp_path / "out")
    os.makedirs(output)
    report.write_outputs(output, {"uar": 0.5}, [], [])
    with open(str(tmp_path / "plain"), "w"):
        pass
    expected = stat.S_IMODE(os.stat(str(tmp_path / "plain")).st_mode)
    for name in ("scores.txt", "scores.json", "detailed_results.html"):
        assert stat.S_IMODE(os.stat(os.path.join(output, name)).st_mode) == expected, name


# ------------------------------------------------------------ wrong scores


def _png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)


def _png16_rgb(array, transparent=None):
    """A 16-bit-per-channel RGB PNG of `array` (height, width, 3) written by hand."""
    height, width, _ = array.shape
    rows = b"".join(b"\x00" + row.astype(">u2").tobytes() for row in array)
    chunks = _png_chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 16, 2, 0, 0, 0))
    if transparent is not None:
        chunks += _png_chunk(b"tRNS", struct.pack(">HHH", *transparent))
    return b"\x89PNG\r\n\x1a\n" + chunks + _png_chunk(b"IDAT", zlib.compress(rows)) + _png_chunk(b"IEND", b"")


def _lines_phase(tmp_path, truth, yaml="track: lines\n"):
    """A one-page lines phase with the ground-truth mask `truth`."""
    return write_phase(tmp_path / "phase", {"lines/track.yaml": yaml, "lines/M/p.png": truth}, {"lines/M": None})


def _two_touching_lines():
    truth = np.zeros((8, 12), dtype=np.uint8)
    truth[2, 1:6] = 255
    truth[2, 6:11] = 255  # one ground-truth line of 10 pixels...
    truth[5, 1:11] = 255  # ...and a second one
    return truth


def test_sixteen_bit_colours_stay_apart(tmp_path):
    """Two predicted lines of 16-bit colours that differ only in their low byte, touching:
    read at 8 bits they would merge into one line over both ground-truth lines."""
    truth = np.zeros((8, 12), dtype=np.uint8)
    truth[2, 1:11] = 255
    truth[4, 1:11] = 255
    root = _lines_phase(tmp_path, truth)
    prediction = np.zeros((8, 12, 3), dtype=np.uint16)
    prediction[2, 1:11] = (1000, 2, 3)
    prediction[3, 1:11] = (1001, 2, 3)  # touches the first, a different 16-bit colour
    prediction[4, 1:11] = (1001, 2, 3)
    with open(res(root, "lines", "M", "p.png"), "wb") as stream:
        stream.write(_png16_rgb(prediction))
    scores = dict(score(root)[0])
    # 16 bits: line A = row 2 (IoU 1, correct); line B = rows 3-4 covers GT row 4 with
    # precision 1/2: extra. Line IU = 1 / (1 + 1) = 0.5. Read at 8 bits, rows 2-4 would be one
    # line: one match of precision 2/3 for one GT line, the other GT line missed: 0.
    assert scores["line_iu"] == 0.5


def test_png_transparency_of_rgb_and_grey_is_background(tmp_path):
    truth = np.zeros((8, 12), dtype=np.uint8)
    truth[2, 1:11] = 255
    root = _lines_phase(tmp_path, truth)
    prediction = np.full((8, 12, 3), 7, dtype=np.uint8)  # the whole page in the transparent colour
    prediction[2, 1:11] = (200, 0, 0)
    Image.fromarray(prediction).save(res(root, "lines", "M", "p.png"), transparency=(7, 7, 7))
    assert dict(score(root)[0])["line_iu"] == 1.0
    grey = np.full((8, 12), 9, dtype=np.uint8)
    grey[2, 1:11] = 200
    Image.fromarray(grey).save(res(root, "lines", "M", "p.png"), transparency=9)
    assert dict(score(root)[0])["line_iu"] == 1.0
    wide = np.full((8, 12, 3), 300, dtype=np.uint16)
    wide[2, 1:11] = (1000, 2, 3)
    with open(res(root, "lines", "M", "p.png"), "wb") as stream:
        stream.write(_png16_rgb(wide, transparent=(300, 300, 300)))
    assert dict(score(root)[0])["line_iu"] == 1.0


def test_palette_index_beyond_the_palette_is_refused(tmp_path):
    """PNG forbids it, and Pillow 6 and later Pillows read such pixels differently."""
    truth = np.zeros((8, 12), dtype=np.uint8)
    truth[2, 1:11] = 255
    root = _lines_phase(tmp_path, truth)
    rows = b"".join(b"\x00" + bytes([5 if (y == 2 and 0 < x < 11) else 0 for x in range(12)]) for y in range(8))
    png = (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", 12, 8, 8, 3, 0, 0, 0))
           + _png_chunk(b"PLTE", b"\x00\x00\x00\xff\x00\x00") + _png_chunk(b"IDAT", zlib.compress(rows))
           + _png_chunk(b"IEND", b""))
    with open(res(root, "lines", "M", "p.png"), "wb") as stream:
        stream.write(png)
    refused(root, SubmissionError, "M/p.png uses the palette index 5 but its palette has 2 colours")


def test_integer_distances_beyond_2_to_the_53_are_refused(tmp_path):
    root = sample_phase(tmp_path / "phase", "authentication")
    names = _tasso_names(root)
    n = len(names)
    matrix = np.arange(n * n, dtype=np.int64).reshape(n, n) + 2 ** 53  # 2^53 + k: all distinct integers
    np.savez(res(root, "authentication", "Tasso_distances.npz"), names=np.array(names), distances=matrix)
    refused(root, SubmissionError, "Tasso_distances.npz distances[0, 1]", "beyond 2^53")
    matrix = np.arange(n * n, dtype=np.int64).reshape(n, n) * 3  # exact in float64: scored
    np.savez(res(root, "authentication", "Tasso_distances.npz"), names=np.array(names), distances=matrix)
    score(root)


def test_a_number_followed_by_letters_is_an_error(tmp_path):
    root = sample_phase(tmp_path / "phase", "authentication")
    path = res(root, "authentication", "Pizan_distances.csv")
    with open(path) as stream:
        lines = stream.read().splitlines()
    lines[1] = lines[1] + "abc"  # the last cell of line 2, e.g. '0.75abc'
    with open(path, "w") as stream:
        stream.write("\n".join(lines) + "\n")
    refused(root, SubmissionError, "Pizan_distances.csv line 2, column", "abc'; expected a number")


@pytest.mark.parametrize("rename,fragments", [
    ({"Tasso": "Tasso-1", "Yaqut": "Tasso_1"},
     ["The subsets Tasso-1 and Tasso_1 both give the key tasso_1 ",
      "rename one of ref/authentication/Tasso-1.csv and ref/authentication/Tasso_1.csv so that every key is "
      "distinct."]),
    ({"Tasso": "S\u00e9vign\u00e9", "Yaqut": "Sevigne"},
     ["The subsets Sevigne and S\u00e9vign\u00e9 both give the key sevigne ",
      "rename one of ref/authentication/Sevigne.csv and ref/authentication/S\u00e9vign\u00e9.csv"]),
    ({"Yaqut": "balanced"},
     ["The score key balanced_accuracy would be written twice by ref/authentication/: for the track's own score "
      "balanced_accuracy and for the subset balanced; rename the subset balanced so that every key is distinct"]),
])
def test_subset_keys_colliding_after_normalisation(tmp_path, rename, fragments):
    """The sentence names both sources: the two subsets (and their files) to rename."""
    root = sample_phase(tmp_path / "phase", "authentication")
    for old, new in rename.items():
        for side, suffix in (("ref", ".csv"), ("res", "_labels.csv")):
            os.rename(str(root / side / "authentication" / (old + suffix)),
                      str(root / side / "authentication" / (new + suffix)))
    refused(root, ReferenceDataError, *fragments)


def test_a_manuscript_named_fest2025_under_protocol_both(tmp_path):
    root = sample_phase(tmp_path / "phase", "lines")
    for side in ("ref", "res"):
        os.rename(str(root / side / "lines" / "Latin2"), str(root / side / "lines" / "fest2025"))
    refused(root, ReferenceDataError, "The score key fest2025_line_iu would be written twice by ref/lines/: for the "
            "manuscript fest2025 and for the track's own score fest2025_line_iu; rename the manuscript fest2025 ")


def test_two_tracks_writing_one_key(tmp_path):
    root = tmp_path / "phase"
    for name in ("ev-1", "ev_1"):
        for side in ("ref", "res"):
            shutil.copytree(os.path.join(SAMPLE, side, "events"), str(root / side / name))
    refused(root, ReferenceDataError, "The score key ev_1_map would be written by both ref/ev-1/ and ref/ev_1/; "
            "rename one of the track folders ref/ev-1/ and ref/ev_1/ so that every key is distinct")


# ------------------------------------------------------------ memory limits


def test_cgroup_v2_limit_is_read(tmp_path):
    (tmp_path / "proc").write_text("0::/a/b\n")
    leaf = tmp_path / "cg" / "a" / "b"
    leaf.mkdir(parents=True)
    (leaf / "memory.max").write_text("max\n")
    (leaf / "memory.current").write_text("100\n")
    (tmp_path / "cg" / "a" / "memory.max").write_text("%d\n" % (2 * 1024 ** 3))
    (tmp_path / "cg" / "a" / "memory.current").write_text("%d\n" % (512 * 1024 ** 2))
    assert memory.cgroup_available(str(tmp_path / "proc"), str(tmp_path / "cg")) == 1536 * 1024 ** 2


def test_cgroup_v1_limit_is_read_also_from_the_mount_root(tmp_path):
    (tmp_path / "proc").write_text("4:memory:/docker/abc\n0::/\n")
    root = tmp_path / "cg" / "memory"
    root.mkdir(parents=True)  # inside the container, /docker/abc is not under the mount
    (root / "memory.limit_in_bytes").write_text("%d\n" % (4 * 1024 ** 3))
    (root / "memory.usage_in_bytes").write_text("%d\n" % (1024 ** 3))
    assert memory.cgroup_available(str(tmp_path / "proc"), str(tmp_path / "cg")) == 3 * 1024 ** 3
    (root / "memory.limit_in_bytes").write_text("9223372036854771712\n")  # no limit
    assert memory.cgroup_available(str(tmp_path / "proc"), str(tmp_path / "cg")) is None


def test_small_needs_do_not_read_the_machine(monkeypatch):
    """Below memory.ALWAYS_FITS nothing reads /proc or the cgroup (3,000 small subsets read
    them 3,000 times); from it on the machine decides."""
    def unavailable():
        raise AssertionError("read")
    monkeypatch.setattr(memory, "available_memory", unavailable)
    assert memory.fits(memory.ALWAYS_FITS - 1)
    reader.check_memory(2000, 8, "Pizan_distances.csv")  # 32 MB
    with pytest.raises(AssertionError):
        memory.fits(memory.ALWAYS_FITS)
    monkeypatch.setattr(memory, "available_memory", lambda: 10 ** 8)
    assert not memory.fits(memory.ALWAYS_FITS * 2)


def test_available_memory_takes_the_smallest(monkeypatch):
    monkeypatch.setattr(memory, "meminfo_available", lambda: 8 * 10 ** 9)
    monkeypatch.setattr(memory, "cgroup_available", lambda: 2 * 10 ** 9)
    monkeypatch.setattr(memory, "address_space_available", lambda: None)
    assert memory.available_memory() == 2 * 10 ** 9
    assert not memory.fits(1.7 * 10 ** 9) and memory.fits(1.5 * 10 ** 9)



def test_large_empty_is_a_writable_array_of_its_own():
    small = memory.large_empty((3, 4), np.float32)
    large = memory.large_empty((1100, 1000), np.float64)  # 8.8 MB: its own memory map
    assert (small.shape, small.dtype, large.shape, large.dtype) == ((3, 4), np.float32, (1100, 1000), np.float64)
    large[...] = 2.5
    large[1099, 999] = -1.0
    assert large.flags.writeable and large.flags.c_contiguous
    assert large.sum() == 2.5 * 1100 * 1000 - 3.5


@pytest.mark.skipif(not memory._POPULATE, reason="MAP_POPULATE is Linux's (x86-64, ARM64)")
def test_large_empty_has_its_pages_before_the_first_write():
    """A populated map: resident at once (one request to the kernel, no fault per page)."""
    def resident():
        with open("/proc/self/statm") as stream:
            return int(stream.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    before = resident()
    array = memory.large_empty((6000, 1000), np.float64)  # 48 MB, not yet written
    assert resident() - before >= 40 * 10 ** 6
    del array


def test_large_empty_beyond_the_address_space_is_a_memory_error():
    code = ("import resource, sys\n"
            "sys.path.insert(0, %r)\n"
            "from scoring import memory\n"
            "resource.setrlimit(resource.RLIMIT_AS, (2 ** 30, 2 ** 30))\n"
            "try:\n"
            "    memory.large_empty((20000, 20000), 'f8')\n"
            "except MemoryError:\n"
            "    print('MemoryError')\n" % PROGRAM)
    out = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, universal_newlines=True).stdout
    assert out.strip() == "MemoryError"

# ------------------------------------------------------------ fest2025 reads the ground truth as OpenCV


def test_opencv_grey_by_hand():
    from scoring.readers.lines import official_grey
    # Y = (4899 R + 9617 G + 1868 B + 8192) >> 14
    rgb = np.array([[[0, 0, 3], [0, 0, 5], [1, 0, 0], [2, 0, 0], [0, 1, 0], [255, 255, 255]]], dtype=np.uint8)
    assert official_grey(Image.fromarray(rgb)).tolist() == [[0, 1, 0, 1, 1, 255]]
    wide = np.array([[255, 256, 65535]], dtype=np.uint16)
    assert official_grey(Image.fromarray(wide.astype(np.int32), "I")).tolist() == [[0, 1, 255]]


def test_fest2025_reads_a_dark_ground_truth_line_as_the_official_script(tmp_path):
    """A ground-truth line drawn in (0, 0, 3): OpenCV's grey makes it black, so the official
    script sees one line where the standard protocol sees two."""
    truth = np.zeros((8, 12, 3), dtype=np.uint8)
    truth[2, 1:11] = (255, 255, 255)
    truth[5, 1:11] = (0, 0, 3)
    root = _lines_phase(tmp_path, np.zeros((8, 12), dtype=np.uint8), "track: lines\nprotocol: both\n")
    Image.fromarray(truth).save(ref(root, "lines", "M", "p.png"))
    prediction = np.zeros((8, 12, 3), dtype=np.uint8)
    prediction[2, 1:11] = (255, 0, 0)
    Image.fromarray(prediction).save(res(root, "lines", "M", "p.png"))
    log = io.StringIO()
    scores = dict(score_submission(str(root), Log(log))[0])
    assert scores["line_iu"] == 0.5 and scores["dr"] == 0.5  # standard: two lines, one found
    assert scores["fest2025_line_iu"] == 1.0 and scores["fest2025_dr"] == 1.0  # official: one line
    assert "10 line pixels that OpenCV's 8-bit grey conversion" in log.getvalue()


def test_fest2025_warns_about_thresholds_the_official_script_ignores(tmp_path):
    root = sample_phase(tmp_path / "phase", "lines", "track: lines\nprotocol: fest2025\nthreshold: 0.6\n")
    log = io.StringIO()
    score_submission(str(root), Log(log))
    assert "threshold is 0.6: fest2025 applies it, whereas the official script hard-codes 0.75" in log.getvalue()
    root = sample_phase(tmp_path / "b", "lines", "track: lines\nprotocol: standard\nthreshold: 0.6\n")
    log = io.StringIO()
    score_submission(str(root), Log(log))
    assert "hard-codes" not in log.getvalue()


# ------------------------------------------------------------ compare.py's zip extraction


def _extract(tmp_path, build, **bounds):
    """The sentence refusing the zip that build(path) writes, as compare.py unpacks it."""
    path = str(tmp_path / "s.zip")
    build(path)
    target = tmp_path / "out"
    target.mkdir()
    with pytest.raises(SubmissionError) as raised:
        unpack.extract(path, str(target), path, SubmissionError, **bounds)
    return raised.value.sentence


def _patched_zip(path, members, patch):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    with open(path, "rb") as stream:
        data = bytearray(stream.read())
    patch(data)
    with open(path, "wb") as stream:
        stream.write(bytes(data))


def _set_flag_and_method(flag=None, method=None):
    def patch(data):
        for signature, flag_at, method_at in ((b"PK\x03\x04", 6, 8), (b"PK\x01\x02", 8, 10)):
            start = data.find(signature)
            if flag is not None:
                data[start + flag_at:start + flag_at + 2] = struct.pack("<H", flag)
            if method is not None:
                data[start + method_at:start + method_at + 2] = struct.pack("<H", method)
    return patch


def test_zip_encrypted_member(tmp_path):
    sentence = _extract(tmp_path, lambda p: _patched_zip(p, [("a.txt", b"x" * 100)], _set_flag_and_method(flag=1)))
    assert "a.txt, an encrypted member" in sentence


def test_zip_unsupported_compression(tmp_path):
    sentence = _extract(tmp_path, lambda p: _patched_zip(p, [("a.txt", b"x" * 100)], _set_flag_and_method(method=99)))
    assert "a.txt compressed with method 99" in sentence


def test_zip_bad_crc(tmp_path):
    def corrupt(data):
        start = data.find(b"PK\x03\x04")
        name_length, extra = struct.unpack("<HH", bytes(data[start + 26:start + 30]))
        body = start + 30 + name_length + extra
        data[body + 2] ^= 0x55

    sentence = _extract(tmp_path, lambda p: _patched_zip(p, [("a.txt", b"hello world " * 50)], corrupt))
    assert "s.zip: the member a.txt is corrupt" in sentence


def test_zip_file_and_folder_of_one_name(tmp_path):
    for order, name in (([("a", b"x"), ("a/b.txt", b"y")], "one"), ([("a/b.txt", b"y"), ("a", b"x")], "two")):
        (tmp_path / name).mkdir()
        sentence = _extract(tmp_path / name, lambda p, members=order: _patched_zip(p, members, lambda d: None))
        assert "as both a file and a folder" in sentence


def test_zip_member_resolving_to_the_root(tmp_path):
    sentence = _extract(tmp_path, lambda p: _patched_zip(p, [("a/..", b"x")], lambda d: None))
    assert "a/.., a file whose path is the extraction folder itself" in sentence


def test_zip_larger_than_the_free_disk(tmp_path, monkeypatch):
    monkeypatch.setattr(unpack.shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(10, 10, 5))
    sentence = _extract(tmp_path, lambda p: _patched_zip(p, [("a.txt", b"x" * 100)], lambda d: None))
    assert "unpacks into" in sentence and "refused" in sentence


def test_zip_disk_full_while_writing(tmp_path, monkeypatch):
    def full(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(unpack, "open", full, raising=False)
    sentence = _extract(tmp_path, lambda p: _patched_zip(p, [("a.txt", b"x")], lambda d: None))
    assert "cannot be unpacked (No space left on device)" in sentence



def _lying_sizes(path, members, declared):
    """A zip of members [(name, bytes)] whose directory (central and local headers) says
    each holds `declared` bytes: a bomb's sizes without its gigabytes."""
    _patched_zip(path, members, lambda data: None)
    with open(path, "rb") as stream:
        data = bytearray(stream.read())
    for signature, at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = data.find(signature)
        while start >= 0:
            data[start + at:start + at + 4] = struct.pack("<I", declared)
            start = data.find(signature, start + 4)
    with open(path, "wb") as stream:
        stream.write(bytes(data))


def test_zip_declaring_more_than_the_limit_is_refused_before_writing(tmp_path):
    members = [("bomb_%d.csv" % i, b"0,0\n" * 100) for i in range(10)]
    sentence = _extract(tmp_path, lambda p: _lying_sizes(p, members, 2 ** 31))
    assert sentence.endswith("s.zip declares 21.5 GB unpacked (bomb_0.csv alone 2.1 GB), more than the 4.0 GB a "
                             "zip may unpack into; refused.")
    assert os.listdir(str(tmp_path / "out")) == []


def test_zip_member_holding_more_than_it_declares_stops_at_its_size(tmp_path):
    """Python's zipfile reads a member up to its declared size, and the CRC then fails:
    what is written never exceeds what the directory declared."""
    sentence = _extract(tmp_path, lambda p: _lying_sizes(p, [("a.csv", b"0,1\n" * 5000)], 10))
    assert "s.zip: the member a.csv is corrupt" in sentence
    assert os.path.getsize(str(tmp_path / "out" / "a.csv")) <= 10


def test_zip_with_more_members_than_the_limit(tmp_path):
    members = [("f%d.txt" % i, b"") for i in range(31)]
    sentence = _extract(tmp_path, lambda p: _patched_zip(p, members, lambda d: None), max_members=30)
    assert "s.zip holds 31 members (the first f0.txt); at most 30 are unpacked, refused" in sentence


def test_zip_member_nested_deeper_than_the_index_reads(tmp_path):
    """os.makedirs recurses once a folder: 1500 levels would end in a RecursionError."""
    sentence = _extract(tmp_path, lambda p: _patched_zip(p, [("a/" * 1500 + "x.txt", b"1")], lambda d: None))
    assert sentence.startswith("%s holds a/a/" % (tmp_path / "s.zip"))
    assert sentence.endswith("/x.txt, nested more than 64 folders deep; zip the result files at the top level or "
                             "in the folders the phase expects.")
    assert os.listdir(str(tmp_path / "out")) == []


def _evalai_run(tmp_path, submission, annotation=None):
    """The EvalAI evaluation script's run.py, as packed beside program/ in evaluation_script.zip,
    on an uploaded zip: (exit status, last stderr line, the unzipped res/)."""
    script = tmp_path / "script"
    script.mkdir(parents=True)
    shutil.copy(os.path.join(os.path.dirname(PROGRAM), "tools", "platforms", "evalai_script", "run.py"),
                str(script / "run.py"))
    os.symlink(PROGRAM, str(script / "program"))
    if annotation is None:
        annotation = str(tmp_path / "annotation.zip")
        with zipfile.ZipFile(annotation, "w") as archive:
            for folder, _, names in os.walk(os.path.join(SAMPLE, "ref", "events")):
                for name in names:
                    path = os.path.join(folder, name)
                    archive.write(path, os.path.relpath(path, os.path.join(SAMPLE, "ref")))
    work = tmp_path / "work"
    work.mkdir()
    completed = subprocess.run([sys.executable, str(script / "run.py"), annotation, submission, str(work)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
    lines = [line for line in completed.stderr.splitlines() if line.strip()]
    return completed.returncode, lines[-1] if lines else "", work / "input" / "res"


def test_evalai_script_refuses_a_zip_bomb_and_too_many_members(tmp_path):
    bomb = str(tmp_path / "bomb.zip")
    _lying_sizes(bomb, [("Holi_Festival_%d.txt" % i, b"x 0.5\n" * 100) for i in range(10)], 2 ** 31)
    status, line, res_dir = _evalai_run(tmp_path / "a", bomb)
    assert (status, line) == (1, "Submission error: The file you uploaded declares 21.5 GB unpacked "
                                 "(Holi_Festival_0.txt alone 2.1 GB), more than the 4.0 GB a zip may unpack into; "
                                 "refused.")
    assert os.listdir(str(res_dir)) == []
    many = str(tmp_path / "many.zip")
    with zipfile.ZipFile(many, "w") as archive:
        for i in range(unpack.MAX_MEMBERS + 1):
            archive.writestr("f%d.txt" % i, b"")
    status, line, _ = _evalai_run(tmp_path / "b", many)
    assert (status, line) == (1, "Submission error: The file you uploaded holds 20001 members (the first f0.txt); at "
                                 "most 20000 are unpacked, refused: zip the result files alone.")


def test_evalai_script_names_members_as_the_platforms_workers_do(tmp_path):
    """Names are made safe as ZipFile.extractall makes them (Codabench's and Codalab's
    workers): '../' and a leading '/' are dropped, not refused; the run is then scored."""
    upload = str(tmp_path / "upload.zip")
    with zipfile.ZipFile(upload, "w") as archive:
        for name in sorted(os.listdir(os.path.join(SAMPLE, "res", "events"))):
            with open(os.path.join(SAMPLE, "res", "events", name), "rb") as stream:
                archive.writestr(("../" if name < "M" else "/") + "events/" + name, stream.read())
    status, line, res_dir = _evalai_run(tmp_path, upload)
    assert status == 0, line
    assert sorted(os.listdir(str(res_dir / "events"))) == sorted(os.listdir(os.path.join(SAMPLE, "res", "events")))

def test_compare_out_of_memory_is_one_sentence(monkeypatch, capsys, tmp_path):
    from scoring.metaeval import cli

    def exhausted(args, names):
        raise MemoryError()

    monkeypatch.setattr(cli, "compare", exhausted)
    status = cli.main(["--ref", str(tmp_path), str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 1 and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("compare.py ran out of memory")


# ------------------------------------------------------------ every read bounded (issue 31)


def test_a_distance_header_longer_than_the_row_limit_is_refused_at_once(tmp_path):
    root = sample_phase(tmp_path / "phase", "authentication")
    with open(res(root, "authentication", "Pizan_distances.csv"), "wb") as stream:
        stream.write(b"," + b"a," * (reader.ROW_LIMIT // 2 + 1))  # no line end at all
    run = run_limited(root, timeout=60, address_space=ADDRESS_SPACE)
    assert_clean_failure(run, 1, "authentication/Pizan_distances.csv line 1 is longer than 67108864 bytes")


def test_a_distance_row_without_a_line_end_is_refused_naming_its_line(tmp_path):
    from scoring.readers import text
    root = sample_phase(tmp_path / "phase", "authentication")
    path = res(root, "authentication", "Pizan_distances.csv")
    with open(path, "rb") as stream:
        header = stream.readline()
    with open(path, "wb") as stream:
        stream.write(header + b"0.25," * (reader.ROW_LIMIT // 5 + 1))
    refused(root, SubmissionError, "authentication/Pizan_distances.csv line 2 is longer than 67108864 bytes")
    with open(path, "wb") as stream:  # the general path (names of two widths), a line end after the limit
        stream.write(header + b"a,0\nbb,0\n" + b" " * (reader.ROW_LIMIT + 1) + b"\n")
    refused(root, SubmissionError, "authentication/Pizan_distances.csv line 4 is longer than 67108864 bytes")
    assert text.LINE_LIMIT < reader.ROW_LIMIT


@pytest.mark.parametrize("where", ["labels", "events", "reference"])
def test_a_line_longer_than_the_line_limit_is_refused_in_every_text_reader(tmp_path, where):
    from scoring.readers.text import LINE_LIMIT
    kind = "events" if where == "events" else "authentication"
    root = sample_phase(tmp_path / "phase", kind)
    path = {"labels": res(root, kind, "Pizan_labels.csv"), "events": res(root, kind, "La_Tomatina.txt"),
            "reference": ref(root, kind, "Tasso.csv")}[where]
    with open(path, "rb") as stream:
        lines = stream.read().splitlines(True)
    with open(path, "wb") as stream:
        stream.write(b"".join(lines[:3]) + b"x" * LINE_LIMIT + b"\r\n" + b"".join(lines[3:]))  # exactly the limit
    if where == "events":  # read, then refused as a line that is not '<id> <confidence>'
        assert "longer than" not in refused(root, SubmissionError, "events/La_Tomatina.txt line 4")
    with open(path, "wb") as stream:
        stream.write(b"".join(lines[:3]) + b"x" * (LINE_LIMIT + 1) + b"\r\n" + b"".join(lines[3:]))
    error = ReferenceDataError if where == "reference" else SubmissionError
    sentence = refused(root, error, "line 4 is longer than 1048576 bytes")
    assert os.path.basename(path) in sentence


# ------------------------------------------------------------ YAML of settings read inert (issue 31)

_LAUGHS = "\n".join(["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"] + [
    "a%d: &a%d [%s]" % (i, i, ", ".join(["*a%d" % (i - 1)] * 10)) for i in range(1, 9)]) + "\n"


@pytest.mark.parametrize("text, fragment", [
    ("track: events\nmissing: error\nmissing: last\n",
     "ref/events/track.yaml line 3 repeats the key missing (first on line 2); keep one."),
    ("track: events\nmissing: &unused last\n", "ref/events/track.yaml defines a YAML anchor (&unused) at line 2"),
    ("track: events\nx: " + "[" * 30000 + "]" * 30000 + "\n",
     "ref/events/track.yaml nests its values more than 32 levels deep at line 2"),
    ("track: events\n" + "x: " + "[" * 100000 + "]" * 100000 + "\n",
     "ref/events/track.yaml is larger than the 65536 bytes a YAML file of settings may hold"),
    ("track: events\nmissing: &big last\nfiller: '" + "x" * 1000000 + "'\n",
     "ref/events/track.yaml is larger than the 65536 bytes"),
], ids=["repeated-key", "anchor", "deep", "100000-deep", "1MB-anchor"])
def test_track_yaml_bombs_and_repeated_keys_are_refused_in_a_sentence(tmp_path, text, fragment):
    root = sample_phase(tmp_path / "phase", "events", text)
    run = run_limited(root, timeout=30, address_space=ADDRESS_SPACE)
    assert_clean_failure(run, 2, fragment)


@pytest.mark.parametrize("text, fragment", [
    ("title: *a8\n" + _LAUGHS, "uses a YAML alias (*a8) at line 1"),
    (_LAUGHS + "title: *a8\n", "defines a YAML anchor (&a0) at line 1"),
    ("title: x\n" + "description: " + "[" * 40 + "]" * 40 + "\n",
     "nests its values more than 32 levels deep at line 2"),
    ("title: " + "[" * 100000 + "]" * 100000 + "\n", "is larger than the 65536 bytes"),
    ("tracks:\n  myevents:\n    title: A\n    title: B\n", "line 4 repeats the key title (first on line 3); keep one."),
], ids=["laughs-alias", "laughs-anchor", "deep", "100000-deep", "repeated-key"])
def test_source_yaml_bombs_and_repeated_keys_stop_the_build(tmp_path, text, fragment):
    sys.path.insert(0, os.path.join(os.path.dirname(PROGRAM), "tools"))
    import make_bundle
    from test_organizer_bundle import make_events
    folder = str(tmp_path / "competition")
    make_events(os.path.join(folder, "development", "myevents"), "d")
    make_events(os.path.join(folder, "final", "myevents"), "f")
    with open(os.path.join(folder, "source.yaml"), "w") as stream:
        stream.write(text)
    with pytest.raises(make_bundle.BuildError) as raised:
        make_bundle.build(str(tmp_path / "dist"), folder)
    assert str(raised.value).startswith(os.path.join(folder, "source.yaml") + " ")
    assert fragment in str(raised.value)


# ------------------------------------------------------------ what people open is inert (issue 31)


def test_csv_cells_people_open_are_inert_and_numbers_stay_numbers():
    from scoring.csvtext import csv_data, csv_text
    rows = [["=1+cmd|' /C calc'!A0", "-0.25", -0.5], ["@SUM(1+9)", "+1", "1e-3"], ["-x", "\tTab", "a\nb"],
            ["Cat_\u202eA", "+", "-inf"], ["plain", "'q", "\r=x"]]
    assert csv_text(["team", "score", "d"], rows) == (
        "team,score,d\n'=1+cmd|' /C calc'!A0,-0.25,-0.5\n'@SUM(1+9),+1,1e-3\n'-x,\\tTab,a\\nb\n"
        "Cat_\\u202eA,'+,-inf\nplain,'q,\\r=x\n")
    assert csv_text(["a"], [["image-01.jpg"], ["0.5"]]) == "a\nimage-01.jpg\n0.5\n"
    assert csv_data(["a"], [["=x"]]) == "a\n=x\n"  # data the program reads back: as written


def test_private_csv_of_image_names_that_are_formulas(tmp_path):
    root = sample_phase(tmp_path / "phase", "authentication")
    for path in (ref(root, "authentication", "Pizan.csv"), res(root, "authentication", "Pizan_labels.csv"),
                 res(root, "authentication", "Pizan_distances.csv")):
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
        with open(path, "w", encoding="utf-8") as stream:
            stream.write(text.replace("PIZAN_000353.jpg", "=HYPERLINK(1).jpg").replace(
                "PIZAN_000453.jpg", "-2+3.jpg").replace("PIZAN_000607.jpg", "@x\u202e.jpg"))
    run = run_limited(root, timeout=120)
    assert run.status == 0, run.stderr
    with open(os.path.join(run.output, "private", "authentication", "Pizan_images.csv"), encoding="utf-8") as stream:
        names = [line.split(",")[0] for line in stream.read().splitlines()]
    assert {"'=HYPERLINK(1).jpg", "'-2+3.jpg", "'@x\\u202e.jpg"} <= set(names)
    assert not [name for name in names if name[:1] in "=+-@\t\r"]


@pytest.mark.parametrize("hidden", ["\u200b", "\u202e", "\u2066", "\ufeff", "\U000e0041"])
def test_names_that_differ_by_an_invisible_character_do_not_look_alike(tmp_path, hidden):
    root = sample_phase(tmp_path / "phase", "events")
    os.rename(res(root, "events", "La_Tomatina.txt"), res(root, "events", "La_" + hidden + "Tomatina.txt"))
    run = run_limited(root, timeout=60)
    escaped = hidden.encode("unicode_escape").decode("ascii")
    assert_clean_failure(run, 1, "found events/La_%sTomatina.txt, a name close to it: rename it La_Tomatina.txt"
                                 % escaped)
    assert hidden not in run.stderr
    with open(os.path.join(run.output, "detailed_results.html"), encoding="utf-8") as stream:
        assert hidden not in stream.read()


def test_joiners_stay_inside_words_of_scripts_that_write_them():
    from scoring.errors import printable, visible
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # a zero-width non-joiner between two letters
    assert printable(persian) == visible(persian) == persian
    assert printable("Cat_\u200dA") == "Cat_\\u200dA" and printable("ab\u200c") == "ab\\u200c"
    assert visible("two\nlines\u202e") == "two\nlines\\u202e"


def test_a_source_yaml_that_is_a_named_pipe_stops_the_build_unread(tmp_path):
    sys.path.insert(0, os.path.join(os.path.dirname(PROGRAM), "tools"))
    import make_bundle
    from test_organizer_bundle import make_events
    folder = str(tmp_path / "competition")
    make_events(os.path.join(folder, "development", "myevents"), "d")
    make_events(os.path.join(folder, "final", "myevents"), "f")
    os.mkfifo(os.path.join(folder, "source.yaml"))
    import confined
    with pytest.raises((make_bundle.BuildError, confined.Refused)) as raised:  # the build's walk refuses it first
        make_bundle.build(str(tmp_path / "dist"), folder)
    assert str(raised.value).endswith("source.yaml is a named pipe (FIFO); expected a regular file.")
