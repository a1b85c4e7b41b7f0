"""Nothing of the organizer's is lost in silence: every file of a track's folder is one its
kind reads, or the phase is refused naming it (evaluate.py and the build alike); a name
holding '/' (or a character Windows refuses) is written with its look-alike (U+2215, the
full-width forms) and scores and shows as written, in every kind; what the build does not
read at the top of the organizer's folder is warned about by name.

The checks are functions of a kind and a phase (its ref/ track folder), so that a per-kind
harness can run them on any kind."""

import os
import shutil
import sys

import pytest
from conftest import ROOT, organizer_s_machine, run_scorer
from test_organizer_names import competition, write

from scoring import public
from scoring import tracks as kinds

sys.path.insert(0, os.path.join(ROOT, "tools"))
import make_bundle  # noqa: E402

TEST_KINDS = os.path.join(ROOT, "tests", "kinds")

#: A category of the issue's competition, in a sub-folder as an organizer first wrote it.
NESTED = "Diwali/\u0926\u0940\u092a\u093e\u0935\u0932\u0940.txt"  # Diwali/दीपावली.txt
#: The look-alikes of the characters a file name cannot hold (docs/organizers.md): '/' on
#: every system, the others on Windows.
LOOK_ALIKES = "\u2215\uff3c\uff1a\uff0a\uff1f\uff02\uff1c\uff1e\uff5c"  # ∕＼：＊？＂＜＞｜

OCR_REFERENCE = {"Ms_A.tsv": "a1\tIn the beginning\na2\twas the word\n", "Ms_B.tsv": "b1\tand the word\n"}


def kind_phase(kind, root):
    """root/ref/ (a track of the kind at its root) and root/res/ (its dummy submission): the
    demo's phase for a built-in kind, tests/kinds' own reference for the guide_example kind."""
    ref = os.path.join(root, "ref")
    if kind == "guide_example":
        kinds.add_folder(TEST_KINDS)
        for name, text in dict(OCR_REFERENCE, **{"track.yaml": "track: guide_example\n"}).items():
            write(os.path.join(ref, name), text)
    else:
        shutil.copytree(os.path.join(ROOT, "input", "ref", kind), ref)
    public.dummy_submission(public.public_items(ref), os.path.join(root, "res"))
    return root


def first_stratum(items):
    """The first named part of a phase's public items (a subset, manuscript, category...):
    the first dict with a name in the first list of them."""
    for value in items["tracks"][0]["items"].values():
        if isinstance(value, list) and value and isinstance(value[0], dict) and "name" in value[0]:
            return value[0]["name"]
    raise AssertionError("no named part in %r" % items)


def check_unread_file_refused(root):
    """A file of the track's folder that its kind does not read stops evaluate.py (exit 2) with
    a sentence naming it and the look-alike spelling of its name."""
    write(os.path.join(root, "ref", *NESTED.split("/")), "x 1\n")
    run = run_scorer(root, os.path.join(root, "out"))
    assert run.status == 2, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert "ref/%s is not read: the reference data of a track of kind " % NESTED in last, last
    assert "Diwali\u2215\u0926\u0940\u092a\u093e\u0935\u0932\u0940.txt" in last, last
    assert not os.path.exists(os.path.join(root, "out", "scores.txt"))


def check_look_alike_names(root):
    """A part of the phase named with every look-alike scores, and the page shows the name as
    written."""
    ref = os.path.join(root, "ref")
    old = first_stratum(public.public_items(ref))
    new = "Diwali" + LOOK_ALIKES + "\u0926\u0940\u092a\u093e\u0935\u0932\u0940"
    entry = next(name for name in os.listdir(ref) if os.path.splitext(name)[0] == old or name == old)
    os.rename(os.path.join(ref, entry), os.path.join(ref, new + entry[len(old):]))
    shutil.rmtree(os.path.join(root, "res"))
    items = public.public_items(ref)
    public.dummy_submission(items, os.path.join(root, "res"))
    run = run_scorer(root, os.path.join(root, "out"))
    assert run.status == 0, run.stderr
    with open(os.path.join(root, "out", "detailed_results.html"), encoding="utf-8") as stream:
        assert new in stream.read()


KINDS = ["authentication", "lines", "events", "guide_example"]


@pytest.mark.parametrize("kind", KINDS)
def test_a_file_the_kind_does_not_read_is_refused_by_name(kind, tmp_path):
    check_unread_file_refused(kind_phase(kind, str(tmp_path)))


@pytest.mark.parametrize("kind", KINDS)
def test_a_name_holding_what_a_file_name_cannot_is_written_with_look_alikes(kind, tmp_path):
    check_look_alike_names(kind_phase(kind, str(tmp_path)))


def test_the_build_refuses_an_unread_file_and_warns_about_what_it_does_not_read(tmp_path):
    organizer_s_machine()
    folder = competition(str(tmp_path / "competition"))
    write(os.path.join(folder, "development", "fetes", *NESTED.split("/")), "dev00.jpg 1\n")
    with pytest.raises(make_bundle.ScoringError) as raised:
        make_bundle.build(str(tmp_path / "dist"), folder)
    assert raised.value.sentence.startswith("development/fetes/%s is not read: the reference data of a track of "
                                            "kind events are one <Category>.txt" % NESTED)
    os.remove(os.path.join(folder, "development", "fetes", *NESTED.split("/")))
    os.rmdir(os.path.join(folder, "development", "fetes", "Diwali"))
    write(os.path.join(folder, "final", "notes.txt"), "to do\n")
    with pytest.raises(make_bundle.BuildError) as raised:
        make_bundle.build(str(tmp_path / "dist"), folder)
    assert str(raised.value).startswith("final/notes.txt is not read: final/ holds one folder per track")
    os.remove(os.path.join(folder, "final", "notes.txt"))
    write(os.path.join(folder, "notes.md"), "to do\n")
    write(os.path.join(folder, "starting_kit", "old", "x.txt"), "x\n")
    warnings = make_bundle.build(str(tmp_path / "dist"), folder)["warnings"]
    assert "%s is not read by the build" % os.path.join(folder, "notes.md") in " ".join(warnings)
    assert "%s is no track's sample submission" % os.path.join(folder, "starting_kit", "old") in " ".join(warnings)


# ---------------------------------------------------------------- what participants and organizers read

TITLED = "track: events\ntitle: F\u00eates du monde\ncompetition: \u0645\u0633\u0627\u0628\u0642\u0629 2027\n"


def titled_events(root):
    """The demo's events track at the root of ref/, titled by its organizer."""
    shutil.copytree(os.path.join(ROOT, "input", "ref", "events"), os.path.join(root, "ref"))
    write(os.path.join(root, "ref", "track.yaml"), TITLED)
    shutil.copytree(os.path.join(ROOT, "input", "res", "events"), os.path.join(root, "res"))
    return root


def test_a_refused_page_is_titled_like_the_others(tmp_path):
    root = titled_events(str(tmp_path))
    os.remove(os.path.join(root, "res", "La_Tomatina.txt"))
    run = run_scorer(root, os.path.join(root, "out"))
    assert run.status == 1
    with open(os.path.join(root, "out", "detailed_results.html"), encoding="utf-8") as stream:
        page = stream.read()
    # the title's right-to-left run isolated (FSI ... PDI: scoring/bidi.py)
    assert "<title>Detailed results: \u2068\u0645\u0633\u0627\u0628\u0642\u0629 2027\u2069: " in page
    assert '<p class="competition"><bdi>\u0645\u0633\u0627\u0628\u0642\u0629 2027</bdi></p>' in page
    assert "<h2>F\u00eates du monde</h2>" in page


def test_no_internal_name_on_a_participant_s_page(tmp_path):
    """The log and the tables speak of the track by its title and of metrics by their titles."""
    for kind in ("lines", "events"):
        root = str(tmp_path / kind)
        shutil.copytree(os.path.join(ROOT, "input", "ref", kind), os.path.join(root, "ref"))
        shutil.copytree(os.path.join(ROOT, "input", "res", kind), os.path.join(root, "res"))
        run = run_scorer(root, os.path.join(root, "out"))
        assert run.status == 0, run.stderr
        with open(os.path.join(root, "out", "detailed_results.html"), encoding="utf-8") as stream:
            page = stream.read()
        for jargon in ("ref/", "track.yaml", "public_details", "T_a", "standard line_iu", ">line_iu</th>"):
            assert jargon not in page, (kind, jargon)
        if kind == "lines":  # the demo's lines track shows both protocols side by side
            assert ">Line IU (standard)<" in page and ">Line IU (fest2025)<" in page


def test_the_checker_counts_in_words():
    from conftest import PROGRAM

    sys.path.insert(0, PROGRAM)
    import check_submission

    assert [check_submission.counted(n, "score") for n in (0, 1, 2)] == ["0 scores", "1 score", "2 scores"]


def test_compare_names_a_track_by_its_organizer_s_title(tmp_path):
    from scoring.metaeval import cli

    root = titled_events(str(tmp_path / "phase"))
    out = str(tmp_path / "compared")
    assert cli.main(["--ref", os.path.join(root, "ref"), "--out", out, "--names", "a,b", "--resamples", "50",
                     "--permutations", "100", os.path.join(root, "res"), os.path.join(root, "res")]) == 0
    with open(os.path.join(out, "ranking.csv"), encoding="utf-8") as stream:
        assert "F\u00eates du monde" in stream.read()
    with open(os.path.join(out, "report.html"), encoding="utf-8") as stream:
        report = stream.read()
    assert "Track F\u00eates du monde" in report and "Track events" not in report


# ---------------------------------------------------------------- every page and field on every platform

ORGANIZER_SOURCE = """title: Manuscripts of the Silk Road
description: Three tracks of the Silk Road's manuscripts, scored by one program.
codabench_final_reference: withheld
pages:
  data: data.html
  overview: overview.html
tracks:
  lignes:
    labels:
      line_iu: Line intersection over union of the whole set
"""


def zip_text(path, name):
    import zipfile

    with zipfile.ZipFile(path) as archive:
        return archive.read(name).decode("utf-8")


@pytest.fixture(scope="module")
def organizer_build(tmp_path_factory):
    organizer_s_machine()
    root = str(tmp_path_factory.mktemp("organizer_pages"))
    folder = competition(os.path.join(root, "competition"))
    write(os.path.join(folder, "source.yaml"), ORGANIZER_SOURCE)
    write(os.path.join(folder, "data.html"), "<h2>Data</h2><p>Download the Silk Road set from our archive.</p>")
    write(os.path.join(folder, "overview.html"), "<h2>Overview</h2><p>Welcome.</p>")
    manifests = {}
    for together in (False, True):
        dist = os.path.join(root, "dist-together" if together else "dist")
        manifests[together] = make_bundle.build(dist, folder, together)
    return root, manifests


def test_evalai_carries_the_organizer_s_data_page(organizer_build):
    root, manifests = organizer_build
    for dist in ("dist/fetes", "dist-together"):
        overview = zip_text(os.path.join(root, dist, "evalai_challenge.zip"), "templates/overview.html")
        assert "<p>Welcome.</p>" in overview and "Download the Silk Road set from our archive." in overview
    notes = manifests[False]["competitions"][0]["platforms"]["evalai"]["notes"]
    assert "EvalAI has no data page: the data page (yours) is shown at the end of the overview." in notes


def test_the_competition_s_description_reaches_every_zip_of_a_track(organizer_build):
    import yaml

    root, _ = organizer_build
    for track in ("falsid", "lignes", "fetes"):
        folder = os.path.join(root, "dist", track)
        codabench = yaml.safe_load(zip_text(os.path.join(folder, "codabench_competition.zip"), "competition.yaml"))
        v15 = yaml.safe_load(zip_text(os.path.join(folder, "competition.zip"), "competition.yaml"))
        evalai = yaml.safe_load(zip_text(os.path.join(folder, "evalai_challenge.zip"), "challenge_config.yaml"))
        for description in (codabench["description"], v15["description"], evalai["short_description"]):
            assert description == "Three tracks of the Silk Road's manuscripts, scored by one program.", track


def test_a_withheld_final_is_told_to_participants_and_warned_about(organizer_build):
    import yaml

    root, manifests = organizer_build
    codabench = yaml.safe_load(zip_text(os.path.join(root, "dist", "fetes", "codabench_competition.zip"),
                                        "competition.yaml"))
    final = codabench["phases"][1]["description"]
    assert "shows 0 in every column" in final and "scored against the test set once the phase has closed" in final
    assert "shows 0" not in codabench["phases"][0]["description"]
    assert any(w.startswith("your own overview page replaces the generated one, which tells participants that "
                            "final-phase submissions read 0") for w in manifests[False]["warnings"])


def test_shortened_column_titles_are_said(organizer_build):
    _, manifests = organizer_build
    lignes = [c for c in manifests[False]["competitions"] if c["folder"] == "lignes"][0]["platforms"]
    said = "shows the column 'Line intersection over union of the whole set' as 'LINE IU' (its column titles hold " \
           "at most 36 characters"
    assert any(note.startswith("Codabench " + said) for note in lignes["codabench"]["notes"])
    assert any(note.startswith("EvalAI " + said) for note in lignes["evalai"]["notes"])
    # 50 characters on v1.5: the overall column keeps its title there, a manuscript's is shortened
    assert not any("'Line intersection over union of the whole set' as" in n for n in lignes["codalab"]["notes"])
    assert any(note.startswith("Codalab v1.5 shows the column 'CSG 863 Line intersection over union of the whole set' "
                               "as 'CSG 863 LINE IU'") for note in lignes["codalab"]["notes"])


def test_the_v1_5_note_never_points_to_a_codabench_zip_that_is_not_there(organizer_build):
    root, manifests = organizer_build
    platforms = manifests[True]["competitions"][0]["platforms"]
    assert platforms["codabench"]["zip"] is None
    assert not os.path.exists(os.path.join(root, "dist-together", "codabench_competition.zip"))
    note = platforms["codalab"]["notes"][0]
    assert "codabench_competition.zip" not in note and note.endswith(
        "for Codabench, build each track's own competition (without --together).")
    per_track = manifests[False]["competitions"][0]["platforms"]["codalab"]["notes"][0]
    assert per_track.endswith("upload codabench_competition.zip to Codabench.")


def test_the_competition_s_description_is_in_every_starting_kit(organizer_build):
    root, _ = organizer_build
    for track in ("falsid", "lignes", "fetes"):
        manual = zip_text(os.path.join(root, "dist", track, "starting_kit_%s.zip" % track), "MANUAL.md")
        assert "\n\nThree tracks of the Silk Road's manuscripts, scored by one program.\n\n" in manual, track


def test_column_titles_and_phase_names_isolate_right_to_left_names_on_every_platform(organizer_build):
    """The platforms show column titles and phase names in HTML, in a left-to-right page: a
    right-to-left subset's title ('ياقوت Top-1') is isolated by FSI ... PDI inside the
    platform's own length limit, and EvalAI's results are keyed by the same titles."""
    import json

    import yaml

    root, _ = organizer_build
    arabic = "\u064a\u0627\u0642\u0648\u062a"
    isolated = "\u2068%s\u2069 " % arabic
    folder = os.path.join(root, "dist", "falsid")
    codabench = yaml.safe_load(zip_text(os.path.join(folder, "codabench_competition.zip"), "competition.yaml"))
    titles = [c["title"] for c in codabench["leaderboards"][0]["columns"]]
    assert any(t.startswith(isolated) for t in titles) and all(len(t) <= 36 for t in titles), titles
    assert not any(arabic in t and isolated not in t for t in titles), titles
    v15 = yaml.safe_load(zip_text(os.path.join(folder, "competition.zip"), "competition.yaml"))
    labels = [c["label"] for c in v15["leaderboard"]["columns"].values()]
    assert any(t.startswith(isolated) for t in labels) and all(len(t) <= 50 for t in labels), labels
    evalai = yaml.safe_load(zip_text(os.path.join(folder, "evalai_challenge.zip"), "challenge_config.yaml"))
    schema = evalai["leaderboard"][0]["schema"]["labels"]
    assert any(t.startswith(isolated) for t in schema), schema
    import io
    import zipfile

    with zipfile.ZipFile(os.path.join(folder, "evalai_challenge.zip")) as archive:
        script = archive.read("evaluation_script.zip")
    with zipfile.ZipFile(io.BytesIO(script)) as archive:
        phases = json.loads(archive.read("phases.json").decode("utf-8"))
    keyed = [label for phase in phases["phases"].values() for _, label in phase["labels"]]
    assert set(schema) <= set(keyed)
    together = yaml.safe_load(zip_text(os.path.join(root, "dist-together", "evalai_challenge.zip"),
                                       "challenge_config.yaml"))
    names = [phase["name"] for phase in together["challenge_phases"]]
    assert all(arabic not in name or "\u2068" in name for name in names), names


def test_the_kits_markdown_isolates_right_to_left_names(organizer_build):
    """MANUAL.md and README.md are read as plain text and rendered: outside code blocks every
    right-to-left letter (the subset ياقوت, the Syriac manuscript) lies between FSI and PDI,
    paired within each table cell; code blocks hold none (what people copy and run), and a
    name in a code span is the name as written, the marks outside its backticks."""
    import re
    import unicodedata

    root, _ = organizer_build
    fsi, pdi, arabic = "\u2068", "\u2069", "\u064a\u0627\u0642\u0648\u062a"
    seen = 0
    for track in ("falsid", "lignes"):
        for page in ("MANUAL.md", "README.md"):
            text = zip_text(os.path.join(root, "dist", track, "starting_kit_%s.zip" % track), page)
            fenced = False
            for line in text.split("\n"):
                if line.startswith("```"):
                    fenced = not fenced
                    continue
                if fenced:
                    assert fsi not in line and pdi not in line, (track, page, line)
                    continue
                for cell in re.split(r"(?<!\\)\|", line) if line.startswith("|") else [line]:
                    depth = 0
                    for char in cell:
                        depth += {fsi: 1, pdi: -1}.get(char, 0)
                        assert depth >= 0, (track, page, cell)
                        if unicodedata.bidirectional(char) in ("R", "AL"):
                            seen += 1
                            assert depth > 0, (track, page, cell)
                    assert depth == 0, (track, page, cell)
            if track == "falsid" and page == "MANUAL.md":
                assert "\n- %s%s%s: `u" % (fsi, arabic, pdi) in text  # the list of its columns
                # a refusal as the program prints it (bidi.terminal), the marks inside the span too
                assert " Victor Hugo_labels.csv, %s%s%s_labels.csv) or one labels.csv.`%s |" % (
                    fsi, arabic, pdi, pdi) in text
    assert seen > 20
    import markup

    line = "Put `%s.png` (a page of `%s`) in **%s**: | a | `b` |" % (arabic, arabic, arabic)
    assert markup.isolated(line) == "Put %s`%s.png`%s (a page of %s`%s`%s) in **%s%s%s**: | a | `b` |" % (
        fsi, arabic, pdi, fsi, arabic, pdi, fsi, arabic, pdi)
    block = "```\n%s/1.png\n```" % arabic
    assert markup.isolated(block) == block
