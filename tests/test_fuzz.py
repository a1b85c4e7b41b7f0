"""Property-based fuzzing of the readers: whatever a submission holds, the only
outcomes are a score (every value finite) or a clean SubmissionError."""

import io
import math
import os
import shutil
import tempfile

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from malformed import SAMPLE

from scoring.errors import SubmissionError
from scoring.log import Log
from scoring.runner import score_submission

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Track(object):
    """A one-track phase copied from the sample, rebuilt fresh for every example."""

    def __init__(self, track):
        self.track = track
        self.root = tempfile.mkdtemp(prefix="fuzz-")
        for side in ("ref", "res"):
            shutil.copytree(os.path.join(SAMPLE, side, track), os.path.join(self.root, side, track))

    def write(self, name, data):
        with open(os.path.join(self.root, "res", self.track, name), "wb") as stream:
            stream.write(data)

    def outcome(self):
        try:
            scores, _ = score_submission(self.root, Log(io.StringIO()))
        except SubmissionError as error:
            assert error.sentence and "\n" not in error.sentence
            return "refused"
        finally:
            shutil.rmtree(self.root)
        for key, value in scores:
            assert math.isfinite(value), key
        return "scored"


cell = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["0", "1", "authentic", "imitation", "Pizan", "not-Pizan", "nan", "", '"', ",", ";"]),
)


@FUZZ
@given(st.binary(max_size=300))
def test_labels_random_bytes(data):
    phase = Track("authentication")
    phase.write("Pizan_labels.csv", data)
    assert phase.outcome() == "refused"


@FUZZ
@given(st.lists(st.lists(cell, min_size=0, max_size=4), max_size=8), st.sampled_from([",", ";", "\t"]))
def test_labels_random_csv_shapes(rows, separator):
    phase = Track("authentication")
    phase.write("Yaqut_labels.csv", "\n".join(separator.join(row) for row in rows).encode("utf-8"))
    phase.outcome()


@FUZZ
@given(st.data())
def test_labels_random_rows_over_real_names(data):
    """Real names with random labels, duplicates and drops: a score or a clean refusal."""
    phase = Track("authentication")
    with open(os.path.join(phase.root, "ref", "authentication", "Yaqut.csv")) as stream:
        names = [line.split(",")[0] for line in stream.read().splitlines()[1:]]
    chosen = data.draw(st.lists(st.sampled_from(names), min_size=len(names) - 2, max_size=len(names) + 2))
    labels = data.draw(st.lists(cell, min_size=len(chosen), max_size=len(chosen)))
    body = "\n".join("%s,%s" % pair for pair in zip(chosen, labels))
    phase.write("Yaqut_labels.csv", ("filename,label\n" + body).encode("utf-8"))
    phase.outcome()


@FUZZ
@given(st.binary(max_size=400))
def test_distances_random_bytes(data):
    phase = Track("authentication")
    phase.write("Yaqut_distances.csv", data)
    assert phase.outcome() == "refused"


@FUZZ
@given(st.binary(max_size=400))
def test_npz_random_bytes(data):
    phase = Track("authentication")
    phase.write("Tasso_distances.npz", data)
    assert phase.outcome() == "refused"


@FUZZ
@given(st.data())
def test_distances_random_matrices(data):
    """The real names with matrices of random shape and values (NaN, inf, huge)."""
    phase = Track("authentication")
    with open(os.path.join(phase.root, "ref", "authentication", "Yaqut.csv")) as stream:
        names = [line.split(",")[0] for line in stream.read().splitlines()[1:]]
    n = len(names)
    rows = data.draw(st.integers(n - 1, n + 1))
    columns = data.draw(st.integers(n - 1, n + 1))
    values = data.draw(st.sampled_from([0.0, 1.0, -1.0, 1e308, float("nan"), float("inf")]))
    matrix = np.abs(np.random.RandomState(rows * 7 + columns).randn(rows, columns))
    if data.draw(st.booleans()):
        matrix[data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, columns - 1))] = values
    header = "," + ",".join((names * 2)[:columns])
    lines = [header] + ["%s,%s" % ((names * 2)[i], ",".join(repr(float(v)) for v in matrix[i])) for i in range(rows)]
    phase.write("Yaqut_distances.csv", "\n".join(lines).encode("utf-8"))
    outcome = phase.outcome()
    if rows != n or columns != n:
        assert outcome == "refused"


# ------------------------------------------------------------------ events

ID_OR_NUMBER = st.one_of(st.text(max_size=10), st.sampled_from(["nan", "inf", "-1", "1e309", "0x10", "1,5", ""]))


@FUZZ
@given(st.binary(max_size=300))
def test_events_random_bytes(data):
    phase = Track("events")
    phase.write("La_Tomatina.txt", data)
    assert phase.outcome() == "refused"


@FUZZ
@given(st.data())
def test_events_random_lines_over_real_ids(data):
    """Real ids with random confidences, drops, duplicates and extra fields."""
    phase = Track("events")
    with open(os.path.join(phase.root, "ref", "events", "La_Tomatina.txt")) as stream:
        ids = [line.split()[0] for line in stream.read().splitlines() if line.strip()]
    chosen = data.draw(st.lists(st.sampled_from(ids), min_size=len(ids) - 1, max_size=len(ids) + 1))
    cells = data.draw(st.lists(st.lists(ID_OR_NUMBER, max_size=2), min_size=len(chosen), max_size=len(chosen)))
    separator = data.draw(st.sampled_from([" ", "\t", "  ", ","]))
    body = "\n".join(separator.join([i] + c) for i, c in zip(chosen, cells))
    phase.write("La_Tomatina.txt", body.encode("utf-8"))
    phase.outcome()


# ------------------------------------------------------------------- lines


@FUZZ
@given(st.binary(max_size=600))
def test_lines_random_bytes(data):
    phase = Track("lines")
    phase.write("Latin2/latin2_001.png", data)
    assert phase.outcome() == "refused"


@FUZZ
@given(st.data())
def test_lines_random_images(data):
    """Random pixels in every mode Pillow writes to PNG, TIFF or BMP, at the page size or not."""
    from PIL import Image

    phase = Track("lines")
    with Image.open(os.path.join(phase.root, "ref", "lines", "Latin2", "latin2_001.png")) as truth:
        width, height = truth.size
    if data.draw(st.booleans()):
        width, height = data.draw(st.integers(1, width + 2)), data.draw(st.integers(1, height + 2))
    mode = data.draw(st.sampled_from(["1", "L", "LA", "P", "RGB", "RGBA", "I;16", "I", "F", "CMYK"]))
    extension = data.draw(st.sampled_from([".png", ".tif", ".bmp"]))
    levels = data.draw(st.sampled_from([2, 5, 256]))
    rng = np.random.RandomState(data.draw(st.integers(0, 2 ** 16)))
    pixels = rng.randint(0, levels, size=(height, width, 4)).astype(np.uint8)
    image = Image.fromarray(pixels, "RGBA").convert("RGB" if mode in ("P", "CMYK", "1", "L") else "RGBA")
    try:
        image = image.convert(mode)
        target = os.path.join(phase.root, "res", "lines", "Latin2", "latin2_001" + extension)
        os.remove(os.path.join(phase.root, "res", "lines", "Latin2", "latin2_001.png"))
        image.save(target)
    except (OSError, ValueError, KeyError):
        shutil.rmtree(phase.root)
        return  # Pillow cannot write this mode in this format: nothing to score
    phase.outcome()
