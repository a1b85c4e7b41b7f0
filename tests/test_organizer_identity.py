"""The competition is the organizer's (issue 21): an organizer's folder with titles of its
own, names with accents and spaces, builds; every page, heading and manual carries the
organizer's titles and the phase's own names, and nothing of the demo's competitions.

The folder: a "Détection des faux" authentication track whose subsets are "Victor Hugo"
and "Sévigné", a lines track of manuscripts "CSG 863" and "Cod. Sang. 562" whose ground
truth is saved as instance maps (one grey value per line, two of them touching:
`ground_truth: instances`), an events track with categories "Carnaval_de_Río", "Fête des
Lumières" and "祇園祭"; the Finder's litter (`._` AppleDouble files, `.DS_Store`) beside
the reference files. What is checked:

- no file of the competitions and kits (yaml, pages, manuals, item lists, samples,
  reference data) nor any scored page mentions the demo (its competitions and names); the
  scoring program's own code (.py) is left out of the search: it cites the seeds it
  implements in its docstrings and names the protocol fest2025;
- each kit's MANUAL.md names its phase's own subsets, manuscripts or categories, as written,
  and every link of its manual, README and evaluation page resolves inside the kit;
- the kit's evaluation.html is a whole, styled document with the version in its footer, its
  requirements.txt the program's, its README the virtual environment and exit status 3;
- the detailed results page of each track shows the organizer's track and competition
  titles.
"""

import io
import os
import re

import numpy as np
import pytest
import test_bundle as platform
from conftest import ROOT
from phases import build_bundle, read_zip
from PIL import Image

from scoring import __version__

#: What belongs to the demo alone: its competitions and the names of its data.
DEMO = ("FalsID", "FEST", "ChaLearn", "ICDAR", "Pizan", "Tasso", "Yaqut", "Latin2", "Latin14396", "Syriaque341",
        "La_Tomatina", "Ati_Atihan", "Carnival_Rio", "Holi_Festival", "Oktoberfest")
TRACKS = {"forgery": ("authentication", "Détection des faux", ["Victor Hugo", "Sévigné"]),
          "scribes": ("lines", "Lignes de Saint-Gall", ["CSG 863", "Cod. Sang. 562"]),
          "fetes": ("events", "Fêtes du monde", ["Carnaval_de_Río", "Fête des Lumières", "祇園祭"])}
COMPETITION = "Écritures d'Europe 2031"
SOURCE = """title: "Écritures d'Europe 2031"
dates:
  development: 2031-02-01
  final: 2031-05-01
  end: 2031-05-20
tracks:
""" + "".join("  %s:\n    title: %s\n" % (folder, title) for folder, (_, title, _) in sorted(TRACKS.items()))


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as stream:
        stream.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def png(mask):
    buffer = io.BytesIO()
    Image.fromarray(mask).save(buffer, format="PNG")
    return buffer.getvalue()


def litter(path):
    """What the Finder leaves beside a file it zipped: its AppleDouble twin, and .DS_Store."""
    folder, name = os.path.split(path)
    write(os.path.join(folder, "._" + name), b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X        ")
    write(os.path.join(folder, ".DS_Store"), b"\x00\x00\x00\x01Bud1\x00\x00\x10\x00")


def make_track(folder, kind, names, prefix):
    if kind == "authentication":
        write(os.path.join(folder, "track.yaml"), "track: authentication\nk: [1, 2]\n")
        for s, subset in enumerate(names):
            rows = "".join("%s%d_%02d.png,%d\n" % (prefix, s, i, i % 2) for i in range(6))
            write(os.path.join(folder, subset + ".csv"), "filename,label\n" + rows)
            litter(os.path.join(folder, subset + ".csv"))
    elif kind == "lines":
        write(os.path.join(folder, "track.yaml"), "track: lines\nprotocol: standard\nground_truth: instances\n")
        lines = np.zeros((40, 60), dtype=np.uint8)  # three lines, the first two touching
        lines[5:9, 3:57], lines[9:13, 3:57], lines[20:24, 3:57] = 1, 2, 3
        for manuscript in names:
            write(os.path.join(folder, manuscript, "%s_folio_1r.png" % prefix), png(lines))
            litter(os.path.join(folder, manuscript, "%s_folio_1r.png" % prefix))
    else:
        write(os.path.join(folder, "track.yaml"), "track: events\n")
        for c, category in enumerate(names):
            write(os.path.join(folder, category + ".txt"),
                  "".join("%simg%02d.jpg %d\n" % (prefix, i, 1 if (i + c) % 3 == 0 else 0) for i in range(9)))
            litter(os.path.join(folder, category + ".txt"))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("identity"))
    folder = os.path.join(root, "competition")
    for directory, (kind, _, names) in TRACKS.items():
        make_track(os.path.join(folder, "development", directory), kind, names, "dev")
        make_track(os.path.join(folder, "final", directory), kind, names, "fin")
    write(os.path.join(folder, "source.yaml"), SOURCE)
    dist = os.path.join(root, "dist")
    completed = build_bundle(folder, dist)
    assert completed.returncode == 0, completed.stderr
    return folder, dist


def texts(files, where):
    """(path, text) of every file of a zip's entries, zips inside followed; the program's
    code (.py) and binary files left out."""
    for name, data in sorted(files.items()):
        if name.endswith(".zip"):
            for inner in texts(read_zip(data), where + "/" + name):
                yield inner
        elif not name.endswith((".py", ".png", ".npz")):
            yield where + "/" + name, data.decode("utf-8")


def kits(dist, track):
    for stage_suffix in ("", "_final"):
        with open(os.path.join(dist, track, "starting_kit_%s%s.zip" % (track, stage_suffix)), "rb") as stream:
            yield stage_suffix or "_development", read_zip(stream.read())


def test_nothing_of_the_demo_in_the_competitions_and_kits(built):
    _, dist = built
    checked = 0
    for track in TRACKS:
        for name in ("competition.zip", "codabench_competition.zip"):
            with open(os.path.join(dist, track, name), "rb") as stream:
                for path, text in texts(read_zip(stream.read()), track + "/" + name):
                    checked += 1
                    for word in DEMO:
                        assert word not in text, (path, word)
    assert checked > 50


def test_the_finders_litter_stays_out_of_the_bundle(built):
    """Every reference file of the organizer's folders has its ._ twin and a .DS_Store beside
    it; no zip of the bundle (competitions, reference data, kits) holds one."""
    _, dist = built

    def names(files, where):
        for name, data in files.items():
            yield where + "/" + name
            if name.endswith(".zip"):
                for inner in names(read_zip(data), where + "/" + name):
                    yield inner
    found = []
    for track in TRACKS:
        for name in ("competition.zip", "codabench_competition.zip"):
            with open(os.path.join(dist, track, name), "rb") as stream:
                found.extend(names(read_zip(stream.read()), track + "/" + name))
    assert any(path.endswith("_folio_1r.png") for path in found)
    assert [path for path in found if "/._" in path or path.endswith(".DS_Store")] == []


@pytest.mark.parametrize("track", sorted(TRACKS))
def test_each_kit_manual_names_its_own_items_and_links_inside_the_kit(built, track):
    _, dist = built
    kind, title, names = TRACKS[track]
    for stage, kit in kits(dist, track):
        manual = kit["MANUAL.md"].decode("utf-8")
        assert manual.startswith("# %s: participant manual" % title)
        assert COMPETITION in manual and __version__ in manual
        for name in names:
            assert name in manual, (stage, name)
        for page in ("MANUAL.md", "README.md"):
            text = kit[page].decode("utf-8")
            links = re.findall(r"\]\(([^)]+)\)", text)
            assert links, page
            for link in links:
                assert "://" not in link and not link.startswith(("/", "..", "#")), (page, link)
                assert link in kit or any(entry.startswith(link) for entry in kit if link.endswith("/")), (page, link)
        evaluation = kit["evaluation.html"].decode("utf-8")
        for link in re.findall(r'(?:href|src)="([^"]+)"', evaluation):
            assert link.startswith(("#", "data:")) or link in kit, link


def test_the_kit_is_for_any_system(built):
    _, dist = built
    with open(os.path.join(ROOT, "requirements.txt"), "rb") as stream:
        requirements = stream.read()
    for _, kit in kits(dist, "fetes"):
        evaluation = kit["evaluation.html"].decode("utf-8")
        assert evaluation.startswith("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in evaluation
        assert "<style>" in evaluation and evaluation.rstrip().endswith("</html>")
        assert "Scoring program %s" % __version__ in evaluation
        assert kit["requirements.txt"] == requirements
        readme = kit["README.md"].decode("utf-8")
        assert "python3 -m venv venv" in readme and "venv/bin/python -m pip install -r requirements.txt" in readme
        assert "| 3 |" in readme and "venv\\Scripts\\python" in readme


@pytest.mark.parametrize("track", sorted(TRACKS))
def test_the_scored_page_carries_the_organizers_titles(built, track, tmp_path):
    _, dist = built
    _, title, _ = TRACKS[track]
    files, competition = platform.codalab_zip(dist, track)
    for number, phase in sorted(competition["phases"].items()):
        _, output = platform.play_v15(files, phase, str(tmp_path / str(number)))
        with open(os.path.join(output, "detailed_results.html"), encoding="utf-8") as stream:
            page = stream.read()
        assert title in page and "Écritures d&#x27;Europe 2031" in page
        for word in DEMO:
            assert word not in page, word
    overview = files["overview.html"].decode("utf-8")
    assert "Écritures d'Europe 2031: %s" % title in overview or title in overview
    assert "Scoring program %s" % __version__ in overview


def test_keys_readable_from_accented_and_non_latin_names(tmp_path):
    folder = str(tmp_path / "competition")
    for stage in ("development", "final"):
        make_track(os.path.join(folder, stage, "forgery"), "authentication", ["Sévigné", "東京"], stage)
    import make_bundle

    manifest = make_bundle.build(str(tmp_path / "dist"), folder)
    keys = manifest["competitions"][0]["phases"][0]["keys"]
    assert "sevigne_accuracy" in keys
    files, competition = platform.codalab_zip(str(tmp_path / "dist"), "forgery")
    labels = [column["label"] for column in competition["leaderboard"]["columns"].values()]
    assert "Sévigné accuracy" in labels and any("東京" in label for label in labels)


def test_instance_ground_truth_keeps_touching_lines_apart(built, tmp_path):
    """The organizer's instance maps, submitted as predictions (the same files where the
    kit's sample puts its pages), score Line IU 1 on every manuscript: the two touching
    lines stay two lines. Read as a mask (fest2025's reading, or without
    ground_truth: instances) the three lines are two, and Line IU falls to 1/3."""
    _, dist = built
    files, competition = platform.codalab_zip(dist, "scribes")
    reference = read_zip(files[competition["phases"][1]["reference_data"]])
    pages = [content for name, content in reference.items() if name.endswith(".png")]
    assert pages
    sample = read_zip(platform.kit_sample(files[competition["phases"][1]["starting_kit"]]))
    submission = platform.model.zip_entries(sorted(
        (name, pages[0] if name.endswith(".png") else content) for name, content in sample.items()))
    scores, _ = platform.play_v15(files, competition["phases"][1], str(tmp_path), submission=submission)
    line_iu = [value for key, value in scores if key.endswith("line_iu")]
    assert len(line_iu) == 3 and all(value == 1.0 for value in line_iu), scores
