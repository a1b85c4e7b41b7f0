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
