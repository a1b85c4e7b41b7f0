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

from scoring.errors import ReferenceDataError, SubmissionError
from scoring.log import Log
from scoring.runner import score_submission

FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Track(object):
    """A one-track phase copied from the sample, rebuilt fresh for every example; with
    `only`, of its folders (a lines track's manuscripts) only that one."""

    def __init__(self, track, only=None):
        self.track = track
        self.root = tempfile.mkdtemp(prefix="fuzz-")
        for side in ("ref", "res"):
            shutil.copytree(os.path.join(SAMPLE, side, track), os.path.join(self.root, side, track))
            for name in os.listdir(os.path.join(self.root, side, track)):
                if only is not None and name != only and os.path.isdir(os.path.join(self.root, side, track, name)):
                    shutil.rmtree(os.path.join(self.root, side, track, name))

    def write(self, name, data):
        with open(os.path.join(self.root, "res", self.track, name), "wb") as stream:
            stream.write(data)

    def outcome(self):
        try:
            scores, _ = score_submission(self.root, Log(io.StringIO()))
        except SubmissionError as error:
            assert error.sentence and "\n" not in error.sentence
            return "refused"
        except ReferenceDataError as error:
            assert error.sentence and "\n" not in error.sentence
            return "organizer"
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
# The manuscript whose page the examples change, alone: its four pages are still scored on
# a pool of processes, as a phase of four pages or more is (tracks/lines.py, map_pages).
LINES = "Latin2"


@FUZZ
@given(st.binary(max_size=600))
def test_lines_random_bytes(data):
    phase = Track("lines", only=LINES)
    phase.write("Latin2/latin2_001.png", data)
    assert phase.outcome() == "refused"


@FUZZ
@given(st.data())
def test_lines_random_images(data):
    """Random pixels in every mode Pillow writes to PNG, TIFF or BMP, at the page size or not."""
    from PIL import Image

    phase = Track("lines", only=LINES)
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


# ------------------------------------------------------------ hostile input (issue 12)

SAMPLE_FILES = [("authentication", "Pizan_labels.csv"), ("authentication", "Yaqut_distances.csv"),
                ("authentication", "Tasso_distances.npz"), ("events", "Oktoberfest.txt"),
                ("lines", "Latin2/latin2_001.png")]


@FUZZ
@given(st.sampled_from(SAMPLE_FILES), st.sampled_from(["folder", "socket", "link to ref", "nested folder"]))
def test_non_regular_files_where_files_are_expected(where, kind):
    """A folder, a socket or a hard link to the ground truth in place of any file of the
    submission (FIFOs, which would block a read, run in test_hostile.py's subprocesses)."""
    import socket

    track, name = where
    phase = Track(track)
    path = os.path.join(phase.root, "res", track, name)
    os.remove(path)
    server = None
    if kind == "folder":
        os.mkdir(path)
    elif kind == "nested folder":
        os.makedirs(os.path.join(path, "inner", "deeper"))
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        here = os.getcwd()
        os.chdir(os.path.dirname(path))  # a socket's path is limited to 107 bytes: bind by its name
        try:
            server.bind(os.path.basename(path))
        finally:
            os.chdir(here)
    else:
        any_ref = next(os.path.join(d, f) for d, _, files in sorted(os.walk(os.path.join(phase.root, "ref", track)))
                       for f in sorted(files) if f != "track.yaml")
        os.link(any_ref, path)
    try:
        assert phase.outcome() == "refused"
    finally:
        if server is not None:
            server.close()


@FUZZ
@given(st.integers(1, 300000), st.sampled_from(["name", "label", "quote", "header"]))
def test_long_fields_in_labels(length, where):
    phase = Track("authentication")
    path = os.path.join(phase.root, "res", "authentication", "Pizan_labels.csv")
    with open(path) as stream:
        lines = stream.read().splitlines()
    long_text = "n" * length
    if where == "name":
        lines.append("%s,0" % long_text)
    elif where == "label":
        lines[1] = lines[1].split(",")[0] + "," + long_text
    elif where == "quote":
        lines[1] = '"' + lines[1]
        lines.append(long_text + ",0")
    else:
        lines[0] = lines[0] + "," + long_text
    phase.write("Pizan_labels.csv", ("\n".join(lines) + "\n").encode("utf-8"))
    # An extra name of any length up to the csv module's limit is ignored with a warning.
    assert phase.outcome() == ("scored" if where == "name" and length <= 131072 else "refused")


MAGIC = [b"\x89PNG\r\n\x1a\n", b"II*\x00", b"MM\x00*", b"BM", b"\xff\xd8\xff\xe0", b"\x00\x00\x01\x00",
         b"GIF89a", b"P6\n", b"RIFF", b"\x00\x00\x00\x0cjP  ", b"8BPS", b"icns", b"%PDF-1.4", b""]


@FUZZ
@given(st.sampled_from(MAGIC), st.binary(max_size=400), st.sampled_from([".png", ".tif", ".bmp"]))
def test_lines_formats_by_content(magic, data, extension):
    """Any format's first bytes with any content, under any accepted extension: refused
    (a real PNG, TIFF or BMP of the page's size cannot come out of 400 random bytes)."""
    phase = Track("lines", only=LINES)
    os.remove(os.path.join(phase.root, "res", "lines", "Latin2", "latin2_001.png"))
    phase.write("Latin2/latin2_001" + extension, magic + data)
    assert phase.outcome() == "refused"


def _flow_list(items):
    return "[" + ", ".join(items) + "]"


def _nested(inner):
    return st.lists(inner, max_size=4).map(_flow_list)


# Named functions, not lambdas: hypothesis reads a lambda's source for its reports, and
# fails on one that spans lines on some Python versions.
YAML_NODE = st.recursive(st.sampled_from(["x", "1", "0.5", "true", "[]", "{}", "*a", "&a x", "&a [*a]"]), _nested,
                         max_leaves=20)


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(["missing", "public_details", "extra", "track", "&k missing", "*k"]),
                          YAML_NODE), max_size=5))
def test_random_track_yaml_with_aliases(entries):
    """Random track.yaml mappings with anchors and aliases: scored, or an organizer error."""
    phase = Track("events")
    text = "track: events\n" + "".join("%s: %s\n" % pair for pair in entries)
    with open(os.path.join(phase.root, "ref", "events", "track.yaml"), "w") as stream:
        stream.write(text)
    outcome = phase.outcome()
    if "*" in text:
        assert outcome == "organizer"


_PLAIN_SCORES = {}


@FUZZ
@given(st.data())
def test_sixteen_bit_and_transparent_maps_score_as_their_8_bit_meaning(data):
    """A prediction re-encoded as 16 bits a channel (v * 257, the same colours) or with the
    background in a tRNS colour scores exactly as the plain 8-bit map."""
    import struct
    import zlib

    from PIL import Image

    phase = Track("lines", only=LINES)
    page = os.path.join(phase.root, "res", "lines", "Latin2", "latin2_001.png")
    with Image.open(page) as image:
        rgb = np.asarray(image.convert("RGB")).copy()
    if "lines" not in _PLAIN_SCORES:  # the untouched sample: the same for every example
        try:
            _PLAIN_SCORES["lines"] = dict(score_submission(phase.root, Log(io.StringIO()))[0])
        except Exception:
            shutil.rmtree(phase.root)
            raise
    plain = _PLAIN_SCORES["lines"]
    background = (rgb == 0).all(axis=2)
    how = data.draw(st.sampled_from(["16-bit", "16-bit transparent", "8-bit transparent"]))
    key = tuple(data.draw(st.tuples(*[st.integers(0, 255)] * 3)))
    if (rgb.reshape(-1, 3) == key).all(axis=1).any():
        key = (0, 0, 0)  # the colour of a line cannot be the transparent one
    transparent = key if "transparent" in how else None
    if transparent is not None:
        rgb[background] = key
    if how.startswith("16-bit"):
        wide = rgb.astype(">u2") * 257

        def chunk(kind, body):
            return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff)

        rows = b"".join(b"\x00" + row.tobytes() for row in wide)
        height, width, _ = rgb.shape
        chunks = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 16, 2, 0, 0, 0))
        if transparent is not None:
            chunks += chunk(b"tRNS", struct.pack(">HHH", *[v * 257 for v in transparent]))
        with open(page, "wb") as stream:
            stream.write(b"\x89PNG\r\n\x1a\n" + chunks + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
    else:
        Image.fromarray(rgb).save(page, transparency=transparent)
    try:
        changed = dict(score_submission(phase.root, Log(io.StringIO()))[0])
    finally:
        shutil.rmtree(phase.root)
    assert changed == plain
