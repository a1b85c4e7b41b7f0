"""The lines track end to end: sample phase, file formats, options and the participant's errors."""

import io
import os

import numpy as np
import pytest
from conftest import ROOT, assert_clean_failure, run_scorer
import phases
from PIL import Image

from scoring.log import Log
from scoring.runner import score_submission

SAMPLE = os.path.join(ROOT, "input")

GT = np.zeros((12, 16), dtype=np.uint8)
GT[1:3, 2:14] = 255   # line 1: 24 pixels
GT[5:7, 2:14] = 255   # line 2: 24 pixels
GT[9:11, 2:8] = 255   # line 3: 12 pixels


def write_phase(root, predictions, config="", gt=GT, manuscripts=("Latin2",)):
    """A one-track phase at the root of ref/ (tests/phases.py): page p1 of each manuscript,
    predictions as {manuscript: (filename, PIL image or bytes)}."""
    ref = dict((manuscript + "/p1.png", Image.fromarray(gt).convert("1")) for manuscript in manuscripts)
    res = dict((manuscript + "/" + filename, content) for manuscript, (filename, content) in predictions.items()
               if manuscript in manuscripts)
    return str(phases.write_phase(root, ref, res, "track: lines\n" + config))


def colour_map(ids, colours):
    return Image.fromarray(np.asarray(colours, dtype=np.uint8)[ids], "RGB")


def gt_ids():
    ids = np.zeros(GT.shape, dtype=np.int32)
    ids[1:3, 2:14], ids[5:7, 2:14], ids[9:11, 2:8] = 1, 2, 3
    return ids


COLOURS = [(0, 0, 0), (200, 10, 10), (10, 200, 10), (10, 10, 200)]


def scores_of(phase):
    scores, results = score_submission(phase, Log(io.StringIO()))
    return dict(scores), results[0]


def test_exact_prediction_in_every_format(tmp_path):
    ids = gt_ids()
    formats = {
        "rgb.png": colour_map(ids, COLOURS),
        "rgba.png": Image.fromarray(np.dstack([np.asarray(COLOURS, np.uint8)[ids],
                                               np.where(ids > 0, 255, 0).astype(np.uint8)]), "RGBA"),
        "grey8.png": Image.fromarray((ids * 40).astype(np.uint8)),
        "grey16.png": Image.fromarray((ids * 1000).astype(np.uint16)),
        "binary.png": Image.fromarray(np.where(ids > 0, 255, 0).astype(np.uint8)).convert("1"),
        "palette.png": colour_map(ids, COLOURS).convert("P", palette=Image.ADAPTIVE, colors=4),
        "tiff.tif": colour_map(ids, COLOURS),
        "bmp.bmp": colour_map(ids, COLOURS),
    }
    for number, (name, image) in enumerate(sorted(formats.items())):
        phase = write_phase(tmp_path / str(number), {"Latin2": ("p1." + name.split(".")[1], image)},
                            "protocol: both\n")
        scores, _ = scores_of(phase)
        # The official script reads a binary mask as one line (one colour): fest2025 keys then differ.
        checked = [k for k in scores if name != "binary.png" or not k.startswith("fest2025_")]
        assert all(scores[k] == 1.0 for k in checked), (name, scores)


def test_merge_split_extra_and_keys(tmp_path):
    ids = gt_ids()
    ids[3:5, 2:14] = 1          # lines 1 and 2 merged into one region of 72 pixels
    ids[5:7, 2:14] = 1
    ids[9:11, 2:5] = 2          # line 3 split in two touching colours (6 + 6 pixels)
    ids[9:11, 5:8] = 3
    ids[0, 15] = 4              # one extra pixel
    colours = COLOURS + [(90, 90, 90)]
    phase = write_phase(tmp_path, {"Latin2": ("p1.png", colour_map(ids, colours))},
                        "protocol: both\n")
    scores, result = scores_of(phase)
    # standard: merge IoU 24/72 each (g1 takes it: P 1/3 -> extra, R 1), g2 missed;
    # split: g3 with 6/12 (P 1, R 1/2 -> missed), the other half extra; the pixel extra.
    # TP 0, FP 3, FN 2: Line IU 0. S = 24 + 6 = 30, |G| 60, |P| 72 + 12 + 1 = 85: 30 / 115.
    assert scores["line_iu"] == pytest.approx(0.0)
    assert scores["pixel_iu"] == pytest.approx(30.0 / 115)
    assert scores["latin2_pixel_iu"] == scores["pixel_iu"]
    assert list(scores)[:5] == ["line_iu", "pixel_iu", "dr", "ra", "fm"]
    assert "fest2025_line_iu" in scores and "fest2025_latin2_fm" in scores
    # fest2025: labels by sorted colour: black 0, (10,10,200) 1, (10,200,10) 2, (200,10,10) 3, grey 4.
    # g1, g2 -> label 3 (IoU 1/3, extra each); g3 -> label 1 (first of the two 1/2 IoUs, missed).
    # TP 24 + 24 + 6, unions 72 + 72 + 12: Pixel IU 54 / 156; Line IU 0.
    assert scores["fest2025_pixel_iu"] == pytest.approx(54.0 / 156)
    view = result.view  # the per-item view: one page, both protocols' per-page values
    assert view.strata == ["Latin2"] and view.items == ["Latin2/p1"]
    assert view.columns["pixel_iu"].tolist() == pytest.approx([30.0 / 115])
    assert view.columns["fest2025_pixel_iu"].tolist() == pytest.approx([54.0 / 156])


def test_sample_phase_agrees_with_the_official_script(tmp_path):
    run = run_scorer(SAMPLE, tmp_path)
    assert run.status == 0, run.stderr
    scores = run.scores()
    # udiads_textline_evaluate run (outside this repository) on input/res/lines/<m> and
    # input/ref/lines/<m>: (pixel_IU, line_IU, DR, RA, FM).
    official = {
        "latin2": (0.8205002596993943, 0.8392857142857143, 0.8392857142857143, 0.8160714285714286,
                   0.824125874125874),
        "latin14396": (0.5562731827764759, 0.3333333333333333, 0.19999999999999998, 0.25, 0.22222222222222218),
    }
    for manuscript, values in official.items():
        got = [scores["lines_fest2025_%s_%s" % (manuscript, m)] if "lines_fest2025_latin2_line_iu" in scores
               else scores["fest2025_%s_%s" % (manuscript, m)] for m in ("pixel_iu", "line_iu", "dr", "ra", "fm")]
        assert got == pytest.approx(values, abs=1e-9)
    private = os.path.join(run.output, "private", "lines")
    assert os.path.isfile(os.path.join(private, "pages.csv"))
    assert os.path.isfile(os.path.join(private, "Latin2", "latin2_001_errors.png"))


def test_public_details(tmp_path):
    prediction = {"Latin2": ("p1.png", colour_map(gt_ids(), COLOURS))}
    hidden = run_scorer(write_phase(tmp_path / "a", prediction), tmp_path / "out_a")
    shown = run_scorer(write_phase(tmp_path / "b", prediction, "public_details: true\n"), tmp_path / "out_b")
    page_a = open(os.path.join(hidden.output, "detailed_results.html")).read()
    page_b = open(os.path.join(shown.output, "detailed_results.html")).read()
    assert "p1" not in page_a and "data:image/png" not in page_a
    assert "p1" in page_b and "data:image/png" in page_b


def test_predicted_foregrounds_are_kept_packed(tmp_path):
    """The scorer keeps each page's predicted foreground for compare.py, 1 bit a pixel."""
    ids = gt_ids()
    phase = write_phase(tmp_path, {"Latin2": ("p1.png", colour_map(ids, COLOURS))})
    _, results = score_submission(phase, Log(io.StringIO()))
    shape, bits = results[0].foregrounds[("Latin2", "p1")]
    assert shape == ids.shape
    assert (np.unpackbits(bits)[:ids.size].reshape(shape) == (ids > 0)).all()


@pytest.mark.parametrize("case,fragments", [
    ("missing", ["Latin2/p1.png"]),
    ("size", ["Latin2/p1.png", "8x6", "16x12"]),
    ("unreadable", ["Latin2/p1.png", "cannot be read"]),
    ("jpeg", ["Latin2/p1.jpg", "JPEG"]),
    ("case", ["Latin2/P1.png", "case-sensitive"]),
    ("two", ["Latin2/p1.bmp", "Latin2/p1.png", "keep one"]),
])
def test_participant_errors(tmp_path, case, fragments):
    good = colour_map(gt_ids(), COLOURS)
    predictions = {
        "missing": {"Latin2": ("other.png", good)},
        "size": {"Latin2": ("p1.png", Image.new("RGB", (8, 6)))},
        "unreadable": {"Latin2": ("p1.png", b"not an image at all")},
        "jpeg": {"Latin2": ("p1.jpg", good.convert("RGB"))},
        "case": {"Latin2": ("P1.png", good)},
        "two": {"Latin2": ("p1.png", good)},
    }[case]
    phase = write_phase(tmp_path / "in", predictions)
    if case == "two":
        good.save(os.path.join(phase, "res", "Latin2", "p1.bmp"))
    run = run_scorer(phase, tmp_path / "out")
    assert_clean_failure(run, 1, *fragments)


def test_missing_manuscript_folder(tmp_path):
    phase = write_phase(tmp_path / "in", {"Latin2": ("p1.png", colour_map(gt_ids(), COLOURS))},
                        manuscripts=("Latin2", "Syriaque341"))
    run = run_scorer(phase, tmp_path / "out")
    assert_clean_failure(run, 1, "Syriaque341/p1.png")


@pytest.mark.parametrize("config,fragment", [
    ("match_threshold: 0.5\n", "match_threshold"),
    ("protocol: official\n", "protocol"),
    ("connectivity: 6\n", "connectivity"),
])
def test_organizer_errors(tmp_path, config, fragment):
    phase = write_phase(tmp_path / "in", {"Latin2": ("p1.png", colour_map(gt_ids(), COLOURS))}, config)
    assert_clean_failure(run_scorer(phase, tmp_path / "out"), 2, fragment)


def test_fest2025_without_prediction_warns(tmp_path):
    empty = Image.new("RGB", (16, 12))
    phase = write_phase(tmp_path / "in", {"Latin2": ("p1.png", empty)}, "protocol: fest2025\n")
    run = run_scorer(phase, tmp_path / "out")
    assert run.status == 0, run.stderr
    assert "divides by zero" in run.stderr
    assert run.scores()["ra"] == 0.0


def test_transparent_pixels_are_background(tmp_path):
    ids = gt_ids()
    rgba = np.dstack([np.asarray(COLOURS, np.uint8)[ids], np.where(ids > 0, 255, 0).astype(np.uint8)])
    rgba[0, 0] = (90, 90, 90, 0)  # a coloured but fully transparent pixel: background
    phase = write_phase(tmp_path / "in", {"Latin2": ("p1.png", Image.fromarray(rgba, "RGBA"))},
                        "protocol: both\n")
    run = run_scorer(phase, tmp_path / "out")
    assert run.status == 0, run.stderr
    assert run.scores()["line_iu"] == 1.0
    assert "transparent pixels that are not black" in run.stderr


def test_processes_change_nothing(monkeypatch):
    from scoring.tracks import lines as track
    parallel, _ = scores_of(SAMPLE)
    monkeypatch.setattr(track, "map_pages", lambda function, jobs: [function(job) for job in jobs])
    serial, _ = scores_of(SAMPLE)
    assert list(parallel.items()) == list(serial.items())


POOL_SCRIPT = """
import sys, time
sys.path.insert(0, %r)
from scoring.errors import SubmissionError
from scoring.tracks.lines import map_pages

def page(job):
    if job == 0:
        raise SubmissionError("page 0 is broken")
    time.sleep(0.002 * (job %% 3))
    return b"x" * 300000  # larger than a pipe's buffer, like a page's error map

for attempt in range(40):
    try:
        map_pages(page, list(range(8)))
    except SubmissionError:
        pass
    else:
        sys.exit("map_pages did not raise the first page's error")
print("finished")
"""


def test_an_early_error_with_large_results_in_flight_ends_the_pool():
    # multiprocessing.Pool deadlocks when it is terminated while a worker writes a
    # result larger than the pipe's buffer; on CI that hung make test. map_pages reads
    # every result before the pool ends: 40 pools in a row must finish (not hang).
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", POOL_SCRIPT % os.path.join(ROOT, "program")],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().strip() == "finished"


def test_a_bug_in_a_worker_keeps_its_traceback():
    from scoring.tracks.lines import map_pages
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one core: pages are scored in this process")
    with pytest.raises(RuntimeError) as caught:
        map_pages(_divide_by_job, [1, 2, 0, 4])
    assert "ZeroDivisionError" in str(caught.value) and "_divide_by_job" in str(caught.value)


def _divide_by_job(job):
    return 1 / job


SHORT_ADDRESS_SPACE = """
import resource, sys
sys.path.insert(0, %r)
from scoring.tracks import lines
lines.os.sched_getaffinity = lambda pid: set([0, 1])
with open("/proc/self/status") as status:
    size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (size + (%d << 20), resource.RLIM_INFINITY))
def page(job):
    return [job] * job
print(lines.map_pages(page, list(range(8))) == [[job] * job for job in range(8)])
"""


@pytest.mark.parametrize("margin_mb", [4, 16])
def test_pages_are_scored_with_little_address_space_left(margin_mb):
    # With a few MB of address space left (ulimit -v), no thread can start (each reserves
    # its stack): concurrent.futures' pool then failed as a bug (4 MB: its manager thread)
    # or waited forever (16 MB: its queue's feeder thread died). The forked pool needs no thread.
    resource = pytest.importorskip("resource")
    if not hasattr(resource, "RLIMIT_AS") or not os.path.exists("/proc/self/status"):
        pytest.skip("no address-space limit here")
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", SHORT_ADDRESS_SPACE % (os.path.join(ROOT, "program"), margin_mb)],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=20)
    assert (done.returncode, done.stdout) == (0, "True\n"), done.stderr


NO_ADDRESS_SPACE_LEFT = """
import resource, sys
sys.path.insert(0, %r)
from scoring import cli
assert "PIL.Image" not in sys.modules  # loaded with the lines track, under the limit below
with open("/proc/self/status") as status:
    size = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
resource.setrlimit(resource.RLIMIT_AS, (size, resource.RLIM_INFINITY))
sys.exit(cli.main(sys.argv[1:]))
"""


def test_a_library_without_address_space_to_load_in_is_the_memory_sentence(tmp_path):
    # No address space left when the lines track loads Pillow: its library cannot be mapped
    # (an ImportError, once told "Internal error"), then the failure page's titles ran out
    # of memory too (a traceback). It is the memory sentence, and the page is written.
    resource = pytest.importorskip("resource")
    if not hasattr(resource, "RLIMIT_AS") or not os.path.exists("/proc/self/status"):
        pytest.skip("no address-space limit here")
    import subprocess
    import sys
    phase = phases.sample_phase(tmp_path / "phase", "lines")
    done = subprocess.run([sys.executable, "-c", NO_ADDRESS_SPACE_LEFT % os.path.join(ROOT, "program"), str(phase),
                           str(tmp_path / "out")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=20)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.splitlines()[-1] == ("Submission error: the submission needs more memory than the scoring "
                                            "machine has.")
    assert os.path.isfile(str(tmp_path / "out" / "detailed_results.html"))
    assert not os.path.exists(str(tmp_path / "out" / "scores.txt"))


def test_pages_no_worker_could_be_forked_for_are_scored_here(monkeypatch):
    # fork refused (ENOMEM: no memory for the child's page tables, or EAGAIN: the process
    # limit) for every worker (all pages scored here), then for all but the first (all
    # scored by it): the results are the same.
    from scoring.tracks import lines
    monkeypatch.setattr(lines.os, "sched_getaffinity", lambda pid: set([0, 1, 2, 3]))
    fork = os.fork
    for allowed in (0, 1):
        forks = []

        def refused(allowed=allowed, forks=forks):
            if len(forks) >= allowed:
                raise OSError(12, "Cannot allocate memory")
            forks.append(fork())
            return forks[-1]

        monkeypatch.setattr(lines.os, "fork", refused)
        squares, pids = zip(*lines.map_pages(_square_and_pid, list(range(8))))
        assert squares == tuple(job * job for job in range(8))
        assert set(pids) == (set(forks) if allowed else set([os.getpid()])), (allowed, forks, pids)


def _square_and_pid(job):
    return job * job, os.getpid()


def test_error_in_a_worker_is_a_clean_failure(tmp_path):
    import shutil
    phase = tmp_path / "in"
    shutil.copytree(os.path.join(SAMPLE, "ref", "lines"), str(phase / "ref"))
    shutil.copytree(os.path.join(SAMPLE, "res", "lines"), str(phase / "res"))
    with open(str(phase / "res" / "Latin2" / "latin2_003.png"), "wb") as stream:
        stream.write(b"broken")
    run = run_scorer(str(phase), tmp_path / "out")
    assert_clean_failure(run, 1, "Latin2/latin2_003.png", "cannot be read")


FREED_SCRIPT = """
import resource, sys
sys.path.insert(0, %r)
import numpy as np
from scoring import memory

def faults_of_a_page():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    arrays = [np.ones(10 << 20, dtype=np.uint8) for _ in range(3)]  # a page's arrays, 3 x 10 MB
    del arrays
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

faults_of_a_page()
memory.keep_freed_memory()
faults_of_a_page()  # the first arrays after the setting are mapped once more
print(faults_of_a_page())
"""


def test_page_sized_arrays_are_reused_after_the_first_page():
    # glibc gives freed page-sized blocks back to the system (unmapped, or trimmed from the
    # heap's top), so each page's arrays were mapped anew, one fault per page of memory
    # touched (about 1,000 for these three here, 7,680 pages of 4 KB); after
    # keep_freed_memory the next page's arrays reuse the same memory.
    import subprocess
    import sys
    if not hasattr(os, "confstr") or not os.confstr("CS_GNU_LIBC_VERSION"):
        pytest.skip("the setting is glibc's")
    done = subprocess.run([sys.executable, "-c", FREED_SCRIPT % os.path.join(ROOT, "program")],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert int(done.stdout) < 100


# ------------------------------------------------------------ ground truth as instance maps


def touching_lines_page():
    """20 lines of 2 rows each, grey values 1 to 20, one blank row between lines except
    lines 5 and 6, which touch (rows 16-17 and 18-19): what an annotation tool exports."""
    page = np.zeros((64, 40), dtype=np.uint8)
    row = 1
    for value in range(1, 21):
        page[row:row + 2, 2:38] = value
        row += 2 if value == 5 else 3
    return Image.fromarray(page, "L")


def instance_phase(root, config):
    """The ground truth itself submitted as the prediction, on one page."""
    page = {"Latin2/p1.png": touching_lines_page()}
    return str(phases.write_phase(root, page, page, "track: lines\n" + config))


def test_ground_truth_as_instances_keeps_touching_lines_apart(tmp_path):
    """By the definitions (docs/participants/lines.md). ground_truth: instances: 20 lines in
    both, each matched to itself with precision = recall = 1: line_iu = 20 / 20 = 1.
    ground_truth: mask: lines 5 and 6 are one ground-truth line M of 144 pixels; the 18
    others match their prediction (TP); M matches prediction 5 (IoU 72 / 144 = 0.5, tied
    with 6, the lower label first) with recall 0.5 < 0.75: missed (FN); prediction 6 is
    left over: extra (FP). line_iu = 18 / (18 + 1 + 1) = 0.9. fest2025 keeps the official
    script's mask reading under ground_truth: instances: M is matched to the first label of
    highest IoU, missed; the label left over counts nowhere: 18 / (18 + 1) = 18/19."""
    scores, _ = scores_of(instance_phase(tmp_path / "instances", "ground_truth: instances\nprotocol: both\n"))
    assert scores["line_iu"] == 1.0 and scores["pixel_iu"] == 1.0 and scores["fm"] == 1.0
    assert scores["fest2025_line_iu"] == pytest.approx(18 / 19.0, abs=1e-12)
    scores, _ = scores_of(instance_phase(tmp_path / "mask", "protocol: both\n"))
    assert scores["line_iu"] == pytest.approx(18 / 20.0, abs=1e-12)
    assert scores["fest2025_line_iu"] == pytest.approx(18 / 19.0, abs=1e-12)


def test_ground_truth_option_is_checked(tmp_path):
    run = run_scorer(instance_phase(tmp_path / "phase", "ground_truth: colours\n"), tmp_path / "out")
    assert_clean_failure(run, 2, "ground_truth", "mask", "instances")


def test_the_build_warns_of_a_mask_annotated_one_value_a_line(tmp_path):
    """make_bundle asks each kind about its reference data: a mask with 20 grey values is
    named, by the organizer's path; with ground_truth: instances, or a binary mask, nothing."""
    import make_bundle

    class Phase(object):
        def __init__(self, ref_dir):
            self.ref_dir = self.source_dir = ref_dir

    touching = instance_phase(tmp_path / "touching", "")
    warnings = make_bundle.reference_warnings([Phase(os.path.join(touching, "ref"))])
    assert warnings == ["%s holds 20 different nonzero values but track.yaml reads the ground truth as a mask "
                        "(ground_truth: mask, the default), so touching lines of different values become one line; "
                        "if each value is a line, set ground_truth: instances."
                        % os.path.join(touching, "ref", "Latin2", "p1.png")]
    declared = instance_phase(tmp_path / "declared", "ground_truth: instances\n")
    binary = write_phase(tmp_path / "binary", {})
    assert make_bundle.reference_warnings([Phase(os.path.join(declared, "ref")),
                                           Phase(os.path.join(binary, "ref"))]) == []


def test_line_iu_counts_a_line_from_the_default_threshold_0_75():
    """Line IU's threshold (FEST 2025, the ICDAR 2017 line IU: a line is correct when the
    matched pixels are at least 0.75 of its pixels and of the prediction's): line 2 found on
    17 of its 24 pixels (recall 0.708) is correct at threshold 0.7, where every line is
    (Line IU 1), and not at the default, which is 0.75."""
    import tempfile

    ids = gt_ids()
    ids[5:7, 2:14] = 0
    ids[5, 2:14] = 2  # 12 + 5 of line 2's 24 pixels
    ids[6, 2:7] = 2
    prediction = {"Latin2": ("p1.png", colour_map(ids, COLOURS))}
    line_iu = {}
    for config in ("", "threshold: 0.75\n", "threshold: 0.7\n"):
        with tempfile.TemporaryDirectory() as root:
            line_iu[config] = scores_of(write_phase(root, prediction, config))[0]["line_iu"]
    assert line_iu["threshold: 0.7\n"] == 1.0
    assert line_iu[""] == line_iu["threshold: 0.75\n"] < 1.0
