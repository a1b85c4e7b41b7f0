"""An organizer's folder named as people name things: subsets, manuscripts and categories
with accents, spaces and other scripts, some names decomposed (NFD, as macOS writes
them), and the litter of macOS and Windows (._*, .DS_Store, __MACOSX/, Thumbs.db) beside
the reference files. It builds, every phase's sample scores from the zips the build
writes (unpacked by Python's zipfile, as the platforms do), keys are ASCII and readable,
and the organizer's own errors name the organizer's own paths."""

import io
import os
import re
import sys
import unicodedata
import zipfile

import numpy as np
import pytest
from conftest import ROOT, organizer_s_machine, run_scorer
from phases import build_bundle
from PIL import Image

sys.path.insert(0, os.path.join(ROOT, "tools"))
import make_bundle  # noqa: E402

SUBSETS = ("Victor Hugo", "S\u00e9vign\u00e9", "\u064a\u0627\u0642\u0648\u062a")  # ياقوت
MANUSCRIPTS = ("CSG 863", "Syriaque \u0710\u072a\u0721\u071d\u0710")
CATEGORIES = ("Carnaval_de_R\u00edo", "F\u00eate des Lumi\u00e8res", "\u6771\u4eac\u796d")  # 東京祭


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as stream:
        stream.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def litter(folder):
    """What a Finder zip and a Windows explorer leave in a folder."""
    write(os.path.join(folder, ".DS_Store"), b"Bud1\x00\x00")
    write(os.path.join(folder, "Thumbs.db"), b"\xd0\xcf\x11\xe0")
    write(os.path.join(folder, "__MACOSX", "._x"), b"\x00\x05\x16\x07")
    for name in os.listdir(folder):
        if os.path.isfile(os.path.join(folder, name)) and not name.startswith(".") and name != "Thumbs.db":
            write(os.path.join(folder, "._" + name), b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ")


def authentication(folder, prefix):
    write(os.path.join(folder, "track.yaml"), "track: authentication\nk: [1]\n")
    for s, subset in enumerate(SUBSETS):
        rows = "".join("%s_%d_%02d.png,%d\n" % (prefix, s, i, i % 2) for i in range(6))
        name = unicodedata.normalize("NFD", subset) if s == 1 else subset  # Sévigné written decomposed
        write(os.path.join(folder, name + ".csv"), "filename,label\n" + rows)
    litter(folder)


def lines(folder):
    write(os.path.join(folder, "track.yaml"), "track: lines\nprotocol: standard\n")
    for manuscript in MANUSCRIPTS:
        mask = np.zeros((30, 40), dtype=np.uint8)
        mask[5:9, 3:37] = 255
        mask[18:22, 3:37] = 255
        buffer = io.BytesIO()
        Image.fromarray(mask).save(buffer, format="PNG")
        write(os.path.join(folder, manuscript, "page 1.png"), buffer.getvalue())
        litter(os.path.join(folder, manuscript))
    litter(folder)


def events(folder, prefix):
    write(os.path.join(folder, "track.yaml"), "track: events\n")
    for c, category in enumerate(CATEGORIES):
        write(os.path.join(folder, category + ".txt"),
              "".join("%s%02d.jpg %d\n" % (prefix, i, 1 if (i + c) % 3 == 0 else 0) for i in range(9)))
    litter(folder)


def competition(folder):
    for stage, prefix in (("development", "dev"), ("final", "fin")):
        authentication(os.path.join(folder, stage, "falsid"), prefix)
        lines(os.path.join(folder, stage, "lignes"))
        events(os.path.join(folder, stage, "fetes"), prefix)
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    organizer_s_machine()
    root = str(tmp_path_factory.mktemp("organizer_names"))
    folder = competition(os.path.join(root, "competition"))
    dist = os.path.join(root, "dist")
    completed = build_bundle(folder, dist)
    assert completed.returncode == 0, completed.stderr
    return root, dist


def phase_keys(dist, track):
    import json

    with open(os.path.join(dist, "manifest.json"), encoding="utf-8") as stream:
        competitions = json.load(stream)["competitions"]
    return [c for c in competitions if c["folder"] == track][0]["phases"][0]["keys"]


def test_keys_are_ascii_and_readable(built):
    _, dist = built
    keys = phase_keys(dist, "falsid")
    assert keys[:3] == ["uar", "balanced_accuracy", "top1"]
    assert "victor_hugo_accuracy" in keys and "sevigne_top1" in keys
    arabic = [k for k in keys if k.endswith("_accuracy") and k.startswith("u")]
    assert len(arabic) == 1 and len(arabic[0]) == len("u123456_accuracy")
    assert not [k for k in keys if k.startswith("_")]  # no litter became a subset
    keys = phase_keys(dist, "lignes")
    assert "csg_863_line_iu" in keys and any(k.startswith("syriaque_u") for k in keys)


@pytest.mark.parametrize("track", ["falsid", "lignes", "fetes"])
def test_each_phase_scores_its_sample_from_the_zips(built, track, tmp_path):
    _, dist = built
    for stage, suffix in (("development", ""), ("final", "_final")):
        work = str(tmp_path / stage)
        for side, name in (("ref", "%s_%s_reference.zip" % (track, stage)),
                           ("res", "sample_submission_%s%s.zip" % (track, suffix))):
            with zipfile.ZipFile(os.path.join(dist, track, name)) as archive:
                archive.extractall(os.path.join(work, side))
        run = run_scorer(work, os.path.join(work, "out"))
        assert run.status == 0, run.stderr
        scores = run.scores()
        assert all(np.isfinite(list(scores.values())))
        if track == "fetes":
            assert list(scores) == ["map"]
        page = open(os.path.join(work, "out", "detailed_results.html"), encoding="utf-8").read()
        shown = {"falsid": SUBSETS, "lignes": MANUSCRIPTS, "fetes": CATEGORIES}[track]
        text = re.sub("</?bdi>", "", page)  # the names written right to left are isolated
        for name in shown:  # the page shows the names as written (NFC or NFD alike)
            assert unicodedata.normalize("NFC", name) in unicodedata.normalize("NFC", text), name
        if track == "lignes":
            assert "Syriaque <bdi>\u0710\u072a\u0721\u071d\u0710</bdi>" in page


def test_organizer_errors_name_the_organizer_s_own_paths(tmp_path):
    folder = competition(str(tmp_path / "competition"))
    write(os.path.join(folder, "development", "falsid", "Victor Hugo.csv"), "filename,label\na.png,maybe\n")
    with pytest.raises(make_bundle.ScoringError) as raised:
        make_bundle.build(str(tmp_path / "dist"), folder)
    assert raised.value.sentence.startswith("development/falsid/Victor Hugo.csv line 2 has the label 'maybe'")


def test_a_final_phase_without_a_subset_is_told_by_its_name(tmp_path):
    folder = competition(str(tmp_path / "competition"))
    os.remove(os.path.join(folder, "final", "falsid", unicodedata.normalize("NFD", SUBSETS[1]) + ".csv"))
    with pytest.raises(make_bundle.BuildError) as raised:
        make_bundle.build(str(tmp_path / "dist"), folder)
    assert str(raised.value).startswith(
        "The two phases of track falsid differ: final/falsid/ lacks the subset %s of development/falsid/;"
        % unicodedata.normalize("NFD", SUBSETS[1]))


def test_two_names_of_one_key_are_both_named(tmp_path):
    folder = competition(str(tmp_path / "competition"))
    for stage in ("development", "final"):
        write(os.path.join(folder, stage, "lignes", "CSG-863", "page 1.png"),
              open(os.path.join(folder, stage, "lignes", "CSG 863", "page 1.png"), "rb").read())
    with pytest.raises(make_bundle.ScoringError) as raised:
        make_bundle.build(str(tmp_path / "dist"), folder)
    assert raised.value.sentence.startswith(
        "The manuscripts CSG 863 and CSG-863 both give the key csg_863 ")
    assert "rename one of development/lignes/CSG 863/ and development/lignes/CSG-863/" in raised.value.sentence


def test_litter_beside_the_reference_is_ignored_by_every_track(tmp_path):
    """The reference data as a worker unpacks a Finder zip of them: ._ files beside each
    file (authentication and events refused their own data for them before)."""
    folder = competition(str(tmp_path / "competition"))
    for track in ("falsid", "lignes", "fetes"):
        phase = str(tmp_path / track)
        os.symlink(os.path.join(folder, "development", track), phase + "-ref")
        os.makedirs(phase)
        os.symlink(phase + "-ref", os.path.join(phase, "ref"))
        from scoring import public

        public.dummy_submission(public.public_items(os.path.join(phase, "ref")), os.path.join(phase, "res"))
        run = run_scorer(phase, os.path.join(phase, "out"))
        assert run.status == 0, run.stderr
