"""An organizer's own competition folder, built with one command, as a newcomer would.

The folder has renamed tracks and subsets (authentication subset Alpha in myauth, lines
manuscript MsA in mylines, events categories in myevents), distinct development and
final data, a source giving one title and one column label, and a sample submission for
one track only. The build must put every reference file of each phase, byte for byte,
in that phase's zips and nothing of input/; pages must come from the source and the
data; each starting kit's checker must accept its sample submission without any
ground-truth file; each page's tiny example must really score.
"""

import io
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
import test_bundle as platform
import yaml
from conftest import ROOT, run_scorer
from phases import build_bundle, read_zip
from PIL import Image

sys.path.insert(0, os.path.join(ROOT, "tools"))
import make_bundle  # noqa: E402
import pages as page_texts  # noqa: E402

from scoring import public  # noqa: E402

TRACK_DIRS = ("myauth", "myevents", "mylines")


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as stream:
        stream.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def make_authentication(folder, prefix, res=None):
    write(os.path.join(folder, "track.yaml"), "track: authentication\nk: [1, 3]\n# %s data\n" % prefix)
    names = ["%s_%03d.png" % (prefix, i) for i in range(8)]
    write(os.path.join(folder, "Alpha.csv"),
          "filename,label\n" + "".join("%s,%d\n" % (n, i % 2) for i, n in enumerate(names)))
    if res is not None:
        write(os.path.join(res, "Alpha_labels.csv"),
              "filename,label\n" + "".join("%s,%d\n" % (n, (i // 2) % 2) for i, n in enumerate(names)))
        rows = [("," + ",".join(names))] + ["%s,%s" % (a, ",".join("%d" % abs(i - j) for j in range(8)))
                                            for i, a in enumerate(names)]
        write(os.path.join(res, "Alpha_distances.csv"), "\n".join(rows) + "\n")


def make_lines(folder, prefix, size):
    write(os.path.join(folder, "track.yaml"), "track: lines\nprotocol: standard\n# %s data\n" % prefix)
    width, height = size
    for page in range(2):
        mask = np.zeros((height, width), dtype=np.uint8)
        for line in range(3):
            top = 5 + line * (height // 4) + page
            mask[top:top + 4, 3:width - 3] = 255
        buffer = io.BytesIO()
        Image.fromarray(mask).save(buffer, format="PNG")
        write(os.path.join(folder, "MsA", "%s_p%d.png" % (prefix, page)), buffer.getvalue())


def make_events(folder, prefix):
    write(os.path.join(folder, "track.yaml"), "track: events\n# %s data\n" % prefix)
    ids = ["%s%04d.jpg" % (prefix, i) for i in range(10)]
    for c, category in enumerate(("Harvest_Feast", "River_Parade")):
        write(os.path.join(folder, category + ".txt"),
              "".join("%s %d\n" % (image, 1 if (i + c) % 3 == 0 else -1) for i, image in enumerate(ids)))


SOURCE = """title: My own document competition
dates:
  development: 2031-02-01 00:00:00
  final: 2031-05-01 00:00:00
  end: 2031-05-20 00:00:00
tracks:
  myauth:
    title: Scribe authentication
    labels:
      uar: Mean subset accuracy
"""


@pytest.fixture(scope="module")
def competition(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("organizer"))
    folder = os.path.join(root, "competition")
    make_authentication(os.path.join(folder, "development", "myauth"), "dev",
                        res=os.path.join(folder, "starting_kit", "myauth"))
    make_authentication(os.path.join(folder, "final", "myauth"), "fin")
    make_lines(os.path.join(folder, "development", "mylines"), "dev", (60, 40))
    make_lines(os.path.join(folder, "final", "mylines"), "fin", (64, 48))
    make_events(os.path.join(folder, "development", "myevents"), "d")
    make_events(os.path.join(folder, "final", "myevents"), "f")
    write(os.path.join(folder, "source.yaml"), SOURCE)
    dist = os.path.join(root, "dist")
    completed = build_bundle(folder, dist)
    assert completed.returncode == 0, completed.stderr
    return folder, dist


def files_of(folder):
    found = {}
    for directory, _, filenames in os.walk(folder):
        for filename in filenames:
            path = os.path.join(directory, filename)
            with open(path, "rb") as stream:
                found[os.path.relpath(path, folder).replace(os.sep, "/")] = stream.read()
    return found


def competitions(dist, track):
    with open(os.path.join(dist, track, "competition.zip"), "rb") as stream:
        codalab = read_zip(stream.read())
    with open(os.path.join(dist, track, "codabench_competition.zip"), "rb") as stream:
        codabench = read_zip(stream.read())
    return codalab, codabench


TITLES = {"myauth": "Scribe authentication", "myevents": "myevents", "mylines": "mylines"}


def check_bundled(zipped, organizer, titles):
    """The reference files of a phase as the build zips them: the organizer's, byte for
    byte, but track.yaml, which gains the titles after the organizer's own lines."""
    assert set(zipped) == set(organizer)
    for name, data in organizer.items():
        if name != "track.yaml":
            assert zipped[name] == data, name
    assert zipped["track.yaml"].startswith(organizer["track.yaml"])
    assert yaml.safe_load(zipped["track.yaml"]) == dict(yaml.safe_load(organizer["track.yaml"]), **titles)


@pytest.mark.parametrize("track", TRACK_DIRS)
def test_every_reference_file_is_in_its_phase_zips_byte_for_byte(competition, track):
    folder, dist = competition
    codalab, codabench = competitions(dist, track)
    v15 = yaml.safe_load(codalab["competition.yaml"])
    v2 = yaml.safe_load(codabench["competition.yaml"])
    titles = {"competition": "My own document competition", "title": TITLES[track]}
    for stage in ("development", "final"):
        expected = files_of(os.path.join(folder, stage, track))
        v15_refs = [p["reference_data"] for p in v15["phases"].values() if stage in p["reference_data"]]
        assert len(v15_refs) == 1
        check_bundled(read_zip(codalab[v15_refs[0]]), expected, titles)
        stage_index = ("development", "final").index(stage)
        phase = [p for p in v2["phases"] if p["index"] == stage_index][0]
        (task,) = [t for t in v2["tasks"] if t["index"] in phase["tasks"]]
        members = read_zip(codabench[task["reference_data"]])
        stripped = dict((name.split("/", 1)[1] if name.startswith(track + "/") else name, data)
                        for name, data in members.items())
        check_bundled(stripped, expected, titles)


def test_nothing_of_input_is_in_any_zip(competition):
    folder, dist = competition
    from_input = set(files_of(os.path.join(ROOT, "input")).values())
    for track in TRACK_DIRS:
        for bundle in competitions(dist, track):
            for name, data in bundle.items():
                if name.endswith(".zip") and name != "scoring_program.zip":
                    for inner_name, inner in read_zip(data).items():
                        assert inner not in from_input, (track, name, inner_name)
                        assert not inner_name.startswith(("Pizan", "Latin2", "La_Tomatina")), inner_name


@pytest.mark.parametrize("track", TRACK_DIRS)
def test_both_platforms_accept_and_play_each_competition(competition, track, tmp_path):
    _, dist = competition
    codalab, codabench = competitions(dist, track)
    v15 = (codalab, yaml.safe_load(codalab["competition.yaml"]))
    v2 = (codabench, yaml.safe_load(codabench["competition.yaml"]))
    platform.check_codalab_yaml(v15)
    platform.check_codalab_phases_score(v15, tmp_path / "v15")
    platform.check_codabench_yaml(v2)
    platform.check_codabench_phases_score(v2, tmp_path / "v2")
    platform.check_same_keys(v15, v2)
    platform.check_evaluation_page(v15)


def test_titles_come_from_the_source_or_the_data(competition):
    _, dist = competition
    codalab, _ = competitions(dist, "myauth")
    v15 = yaml.safe_load(codalab["competition.yaml"])
    assert v15["title"] == "My own document competition: Scribe authentication"
    assert v15["leaderboard"]["columns"]["uar"]["label"] == "Mean subset accuracy"
    assert v15["leaderboard"]["columns"]["balanced_accuracy"]["label"] == "Balanced accuracy"
    assert v15["phases"][1]["start_date"].year == 2031
    codalab, _ = competitions(dist, "mylines")
    v15 = yaml.safe_load(codalab["competition.yaml"])
    assert v15["title"] == "My own document competition: mylines"
    assert "msa_line_iu" in v15["leaderboard"]["columns"]
    for track in TRACK_DIRS:
        codalab, _ = competitions(dist, track)
        for name in ("overview.html", "evaluation.html", "data.html", "terms.html"):
            page = codalab[name].decode("utf-8")
            for foreign in ("FalsID", "FEST", "ChaLearn", "Pizan", "Latin2", "Tomatina"):
                assert foreign not in page, (track, name, foreign)


@pytest.mark.parametrize("track", TRACK_DIRS)
@pytest.mark.parametrize("stage", ["development", "final"])
def test_starting_kit_checks_its_sample_without_ground_truth(competition, track, stage, tmp_path):
    folder, dist = competition
    suffix = "" if stage == "development" else "_final"
    with open(os.path.join(dist, track, "starting_kit_%s%s.zip" % (track, suffix)), "rb") as stream:
        kit = read_zip(stream.read())
    for name, data in kit.items():
        write(str(tmp_path / "kit" / name), data)
    assert {"README.md", "evaluation.html", "MANUAL.md", "check_submission.py", "public_items.json"} <= set(kit)
    # no file of the ground truth travels in the kit
    truth = files_of(os.path.join(folder, stage, track))
    for name, data in truth.items():
        if name != "track.yaml":
            assert data not in kit.values(), name
    completed = subprocess.run([sys.executable, str(tmp_path / "kit" / "check_submission.py"),
                                str(tmp_path / "kit" / "sample_submission")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                               timeout=600, cwd=str(tmp_path))
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.startswith("The submission is valid")
    if track == "myauth" and stage == "development":  # the organizer's own sample, byte for byte
        sample = dict((name[len("sample_submission/"):], data) for name, data in kit.items()
                      if name.startswith("sample_submission/"))
        assert sample == files_of(os.path.join(folder, "starting_kit", "myauth"))


@pytest.mark.parametrize("track", TRACK_DIRS)
def test_the_pages_example_really_scores(competition, track, tmp_path):
    folder, _ = competition
    items = public.public_items(os.path.join(folder, "development", track))["tracks"][0]
    options = page_texts.track_options(items)
    res, ref, code = page_texts.example(items, options)
    phase = tmp_path / "phase"
    for name, text in res.items():
        write(str(phase / "res" / name), text)
    if code is None:
        for name, text in ref.items():
            write(str(phase / "ref" / name), text)
        write(str(phase / "ref" / "track.yaml"), items["track_yaml"])
    else:  # the lines example: a script that writes a page's prediction
        os.makedirs(str(phase / "res"))
        subprocess.run([sys.executable, "-c", code], cwd=str(phase / "res"), check=True, timeout=60)
        single = dict(items, items={"manuscripts": [dict(items["items"]["manuscripts"][0],
                                                         pages=items["items"]["manuscripts"][0]["pages"][:1])]})
        public.stand_in_reference({"format": public.FORMAT, "tracks": [dict(single, dir="")]}, str(phase / "ref"))
    run = run_scorer(phase, tmp_path / "out")
    assert run.status == 0, run.stderr
    if code is not None:  # the script's two lines are read as two predicted lines
        with open(str(tmp_path / "out" / "private" / "lines" / "pages.csv")) as stream:
            header, row = stream.read().splitlines()
        assert dict(zip(header.split(","), row.split(",")))["standard_predicted"] == "2"


def test_missing_final_data_is_an_error_never_a_reuse(tmp_path):
    folder = str(tmp_path / "competition")
    make_events(os.path.join(folder, "development", "myevents"), "d")
    completed = build_bundle(folder, tmp_path / "dist")
    assert completed.returncode == 2
    assert completed.stderr.strip() == (
        "%s does not exist; a competition folder holds development/<track dir>/ and final/<track dir>/, each with "
        "its track.yaml and reference data." % os.path.join(folder, "final"))
    make_events(os.path.join(folder, "final", "other"), "f")
    with pytest.raises(make_bundle.BuildError) as raised:
        make_bundle.build(str(tmp_path / "dist"), folder)
    assert str(raised.value) == (
        "%s has no final-phase data for track myevents: put its reference data in %s (same layout as "
        "development/myevents/); the development data are never reused for the final phase."
        % (folder, os.path.join(folder, "final", "myevents")))


def test_final_phase_with_other_subsets_is_refused_with_the_fix(tmp_path):
    folder = str(tmp_path / "competition")
    make_authentication(os.path.join(folder, "development", "myauth"), "dev")
    make_authentication(os.path.join(folder, "final", "myauth"), "fin")
    final = os.path.join(folder, "final", "myauth")
    shutil.move(os.path.join(final, "Alpha.csv"), os.path.join(final, "Beta.csv"))
    with pytest.raises(make_bundle.BuildError) as raised:
        make_bundle.build(str(tmp_path / "dist"), folder)
    assert str(raised.value) == (
        "The two phases of track myauth differ: final/myauth/ lacks the subset Alpha of development/myauth/; "
        "final/myauth/ has the subset Beta, which development/myauth/ lacks; one leaderboard needs the same columns "
        "in both: give both phases the same subsets, manuscripts and options.")


def test_source_with_an_unknown_field_is_refused(tmp_path):
    folder = str(tmp_path / "competition")
    make_events(os.path.join(folder, "development", "myevents"), "d")
    make_events(os.path.join(folder, "final", "myevents"), "f")
    write(os.path.join(folder, "source.yaml"), "titel: typo\n")
    with pytest.raises(make_bundle.BuildError, match="has the unknown field 'titel'"):
        make_bundle.build(str(tmp_path / "dist"), folder)


@pytest.mark.parametrize("dates,error", [
    ("dates:\n  final: 2031-05-01\n  end: 2031-05-20 12:00:00\n  development: '2031-02-01'\n", None),
    ("dates:\n  final: 2031-05-01\n  end: 2031-04-20\n  development: 2031-02-01\n", "in the order"),
    ("dates:\n  final: soon\n", "dates: final is 'soon'; expected a date such as 2026-04-01"),
    ("dates:\n  start: 2031-05-01\n", "dates must be a mapping of development, final and end"),
])
def test_source_dates_in_any_yaml_form(tmp_path, dates, error):
    """A date, a datetime or a quoted string, mixed with the defaults: compared as datetimes."""
    folder = str(tmp_path / "competition")
    make_events(os.path.join(folder, "development", "myevents"), "d")
    make_events(os.path.join(folder, "final", "myevents"), "f")
    write(os.path.join(folder, "source.yaml"), dates)
    if error is None:
        make_bundle.build(str(tmp_path / "dist"), folder)
        return
    with pytest.raises(make_bundle.BuildError) as raised:
        make_bundle.build(str(tmp_path / "dist"), folder)
    assert str(raised.value).startswith(os.path.join(folder, "source.yaml") + ": ")
    assert error in str(raised.value)


def test_source_with_a_bad_final_reference_choice_is_refused(tmp_path):
    """codabench_final_reference is withheld or included; anything else stops the build
    with one sentence and exit status 2."""
    folder = str(tmp_path / "competition")
    make_events(os.path.join(folder, "development", "myevents"), "d")
    make_events(os.path.join(folder, "final", "myevents"), "f")
    write(os.path.join(folder, "source.yaml"), "codabench_final_reference: hidden\n")
    completed = build_bundle(folder, tmp_path / "dist")
    assert completed.returncode == 2
    assert completed.stderr.strip() == (
        "%s: codabench_final_reference is 'hidden'; expected withheld (Codabench's final phase gets a stand-in "
        "reference and the real one is attached after the deadline) or included (the default)."
        % os.path.join(folder, "source.yaml"))
    assert not os.path.exists(str(tmp_path / "dist" / "myevents"))


def test_a_withheld_final_reference_is_written_beside_the_codabench_zip(tmp_path):
    """With codabench_final_reference: withheld, the real final reference is
    codabench_final_reference_<track>.zip, the organizer's files byte for byte, and the
    manifest names it; the v1.5 zip is unchanged."""
    folder = str(tmp_path / "competition")
    make_events(os.path.join(folder, "development", "myevents"), "d")
    make_events(os.path.join(folder, "final", "myevents"), "f")
    dist = str(tmp_path / "dist")
    make_bundle.build(dist, folder)
    with open(os.path.join(dist, "myevents", "competition.zip"), "rb") as stream:
        included = stream.read()
    write(os.path.join(folder, "source.yaml"), "codabench_final_reference: withheld\n")
    manifest = make_bundle.build(dist, folder)
    (entry,) = manifest["competitions"]
    assert entry["platforms"]["codabench"]["final_reference"] == ["codabench_final_reference_myevents.zip"]
    with open(os.path.join(dist, "myevents", "codabench_final_reference_myevents.zip"), "rb") as stream:
        check_bundled(read_zip(stream.read()), files_of(os.path.join(folder, "final", "myevents")),
                      {"competition": "myevents", "title": "myevents"})
    with open(os.path.join(dist, "myevents", "competition.zip"), "rb") as stream:
        assert stream.read() == included


def test_reference_data_marked_stand_in_are_refused(tmp_path):
    """stand_in: true is the mark of the build's own stand-in (every score 0): an organizer's
    reference data carrying it would score nobody, in either phase."""
    folder = str(tmp_path / "competition")
    make_events(os.path.join(folder, "development", "myevents"), "d")
    make_events(os.path.join(folder, "final", "myevents"), "f")
    with open(os.path.join(folder, "final", "myevents", "track.yaml"), "a") as stream:
        stream.write("stand_in: true\n")
    with pytest.raises(SystemExit) as refused:
        make_bundle.build(str(tmp_path / "dist"), folder)
    message = str(refused.value)
    assert "final phase of track myevents says stand_in: true" in message
    assert "scores every submission 0" in message
    assert not os.path.exists(str(tmp_path / "dist" / "myevents" / "competition.zip"))


def test_a_source_listing_ascending_is_refused(tmp_path):
    """The order of a column is its kind's (lower is better for an error rate); a list of
    ascending keys could only contradict it."""
    folder = str(tmp_path / "competition")
    make_events(os.path.join(folder, "development", "myevents"), "d")
    make_events(os.path.join(folder, "final", "myevents"), "f")
    write(os.path.join(folder, "source.yaml"), "ascending: [map]\n")
    with pytest.raises(make_bundle.BuildError) as raised:
        make_bundle.build(str(tmp_path / "dist"), folder)
    assert str(raised.value) == (
        "%s lists ascending, which is no longer read: the order of every key comes from its track's kind, which "
        "declares whether lower is better (an error rate); remove it." % os.path.join(folder, "source.yaml"))


def test_titles_written_in_track_yaml_are_the_defaults_and_may_not_differ(tmp_path):
    """A title in the organizer's track.yaml is the source's default; given both, they agree
    or the build says which to keep."""
    folder = str(tmp_path / "competition")
    for stage in ("development", "final"):
        make_events(os.path.join(folder, stage, "myevents"), stage[0])
        with open(os.path.join(folder, stage, "myevents", "track.yaml"), "a") as stream:
            stream.write("title: Harvest festivals\ncompetition: Feasts 2031\n")
    manifest = make_bundle.build(str(tmp_path / "dist"), folder)
    codalab, _ = competitions(str(tmp_path / "dist"), "myevents")
    assert yaml.safe_load(codalab["competition.yaml"])["title"] == "Feasts 2031"
    reference = read_zip(codalab[manifest["competitions"][0]["phases"][0]["reference"]])
    assert reference["track.yaml"] == files_of(os.path.join(folder, "development", "myevents"))["track.yaml"]
    write(os.path.join(folder, "source.yaml"), "tracks:\n  myevents:\n    title: Feasts of the harvest\n")
    with pytest.raises(make_bundle.BuildError) as raised:
        make_bundle.build(str(tmp_path / "dist"), folder)
    assert str(raised.value) == (
        "development/myevents/track.yaml says title: Harvest festivals but the build gives the track the title Feasts "
        "of the harvest (source.yaml); keep one: remove it from track.yaml or give the same in source.yaml.")


@pytest.mark.parametrize("track", TRACK_DIRS)
def test_the_kit_manual_holds_nothing_only_an_organizer_needs(competition, track):
    _, dist = competition
    with open(os.path.join(dist, track, "starting_kit_%s.zip" % track), "rb") as stream:
        kit = read_zip(stream.read())
    manual = kit["MANUAL.md"].decode("utf-8")
    for organizer_only in ("track.yaml", "public_details", "organizers.md", "ref/", "source.yaml", "stand_in"):
        assert organizer_only not in manual, organizer_only


def test_source_turns_the_participants_interval_off(tmp_path):
    """participant_interval: false in source.yaml (for the competition, or one track) writes
    interval: false into the bundled track.yaml; the page then shows no interval; a
    track.yaml saying otherwise is refused."""
    folder = str(tmp_path / "competition")
    for stage in ("development", "final"):
        make_events(os.path.join(folder, stage, "myevents"), stage[0])
    write(os.path.join(folder, "source.yaml"), "tracks:\n  myevents:\n    participant_interval: false\n")
    manifest = make_bundle.build(str(tmp_path / "dist"), folder)
    codalab, _ = competitions(str(tmp_path / "dist"), "myevents")
    reference = read_zip(codalab[manifest["competitions"][0]["phases"][0]["reference"]])
    assert yaml.safe_load(reference["track.yaml"].decode("utf-8"))["interval"] is False
    phase = tmp_path / "phase"
    for name, data in reference.items():
        write(str(phase / "ref" / name), data)
    for category in ("Harvest_Feast", "River_Parade"):
        write(str(phase / "res" / (category + ".txt")),
              "".join("d%04d.jpg %d\n" % (i, i % 4) for i in range(10)))
    run = run_scorer(str(phase), str(tmp_path / "out"))
    assert run.status == 0, run.stderr
    with open(os.path.join(run.output, "detailed_results.html"), encoding="utf-8") as stream:
        assert "95% interval" not in stream.read()
    write(os.path.join(folder, "source.yaml"), "participant_interval: true\n")
    with open(os.path.join(folder, "final", "myevents", "track.yaml"), "a") as stream:
        stream.write("interval: false\n")
    with pytest.raises(make_bundle.BuildError) as raised:
        make_bundle.build(str(tmp_path / "dist2"), folder)
    assert "final/myevents/track.yaml says interval: false but source.yaml says participant_interval: true" \
        in str(raised.value)


@pytest.mark.parametrize("text, sentence", [
    ("tracks:\n  myevents:\n    participant_interval: maybe\n",
     ": tracks: myevents: participant_interval is 'maybe'; expected true (the participants' pages show the 95% "
     "interval of the ranking score) or false."),
    ("phases:\n  final:\n    max_submissions: 0\n", ": phases: final: max_submissions is 0; expected a whole number "
     "above 0."),
    ("phases:\n  final:\n    maximum: 3\n", " has the unknown field phases: final: 'maximum'; the fields are "
     "description, label, max_submissions, max_submissions_per_day, public_details."),
    ("execution_time_limit: soon\n", ": execution_time_limit is 'soon'; expected a whole number of seconds per "
     "scoring run."),
    ("dates: tomorrow\n", ": dates is 'tomorrow'; expected a mapping of development, final and end (UTC), e.g. "
     "'final: 2026-04-01 00:00:00'."),
    ("pages:\n  rules: rules.html\n", " has the page 'rules'; the pages are data, evaluation, overview, "
     "terms."),
    ("tracks: [myevents]\n", ": tracks is ['myevents']; expected a mapping of the track folders' settings."),
])
def test_source_yaml_is_checked_against_its_declared_schema(tmp_path, text, sentence):
    """source.yaml and track.yaml share one declarative schema (scoring/options.py): a value
    or a name it refuses is one sentence naming its place in the file."""
    folder = str(tmp_path / "competition")
    make_events(os.path.join(folder, "development", "myevents"), "d")
    make_events(os.path.join(folder, "final", "myevents"), "f")
    write(os.path.join(folder, "source.yaml"), text)
    with pytest.raises(make_bundle.BuildError) as raised:
        make_bundle.build(str(tmp_path / "dist"), folder)
    assert str(raised.value) == os.path.join(folder, "source.yaml") + sentence


# ------------------------------------------------------------ nothing leaves the competition folder


def _linked_competition(tmp_path, case):
    """An events competition with one hostile or odd entry: (folder, what the build must say
    on stderr, or None for a build that succeeds)."""
    folder = str(tmp_path / "competition")
    make_events(os.path.join(folder, "development", "myevents"), "d")
    make_events(os.path.join(folder, "final", "myevents"), "f")
    kit = os.path.join(folder, "starting_kit", "myevents")
    make_events(os.path.join(tmp_path, "kit"), "d")
    shutil.copytree(os.path.join(tmp_path, "kit"), kit)
    os.remove(os.path.join(kit, "track.yaml"))
    truth = os.path.join(folder, "final", "myevents", "Harvest_Feast.txt")
    secret = str(tmp_path / "netrc")
    write(secret, "machine example.org login organizer password hunter2\n")
    if case == "kit link to the final truth":
        os.remove(os.path.join(kit, "Harvest_Feast.txt"))
        os.symlink(os.path.relpath(truth, kit), os.path.join(kit, "Harvest_Feast.txt"))
        return folder, ("starting_kit/myevents/Harvest_Feast.txt leads into the reference data (development/ or "
                        "final/); what the participants get is public: put a file of its own there.")
    if case == "kit hard link to the final truth":
        os.remove(os.path.join(kit, "Harvest_Feast.txt"))
        os.link(truth, os.path.join(kit, "Harvest_Feast.txt"))
        return folder, ("starting_kit/myevents/Harvest_Feast.txt is the same file as one of the reference data (a "
                        "hard link); what the participants get is public: put a file of its own there.")
    if case == "kit link out of the folder":
        os.symlink(secret, os.path.join(kit, "notes.txt"))
        return folder, ("starting_kit/myevents/notes.txt leads outside the competition folder; the build reads "
                        "nothing outside it (no symbolic link out of it is followed): put the file itself there.")
    if case == "reference link out of the folder":
        os.symlink(secret, os.path.join(folder, "final", "myevents", "notes.txt"))
        return folder, ("final/myevents/notes.txt leads outside the competition folder; the build reads nothing "
                        "outside it (no symbolic link out of it is followed): put the file itself there.")
    if case == "loop in the reference data":
        os.symlink(".", os.path.join(folder, "development", "myevents", "loop"))
        return folder, ("development/myevents/loop is a folder that holds itself through a symbolic link (a loop); "
                        "remove the link.")
    if case == "named pipe in the kit":
        os.mkfifo(os.path.join(kit, "pipe"))
        return folder, ("starting_kit/myevents/pipe is a named pipe (FIFO); the build reads regular files and "
                        "folders only: remove it.")
    if case == "page outside the folder":
        write(os.path.join(folder, "source.yaml"), "pages:\n  data: ../netrc\n")
        return folder, ("the data page ../netrc leads outside the competition folder; the build reads nothing outside "
                        "it (no symbolic link out of it is followed): put the file itself there.")
    if case == "page linked to the truth":
        os.symlink(os.path.join("final", "myevents", "Harvest_Feast.txt"), os.path.join(folder, "data.html"))
        write(os.path.join(folder, "source.yaml"), "pages:\n  data: data.html\n")
        return folder, ("the data page data.html leads into the reference data (development/ or final/); what the "
                        "participants get is public: put a file of its own there.")
    assert case == "reference files in a store of the folder"
    store = os.path.join(folder, "store")
    shutil.move(os.path.join(folder, "final", "myevents"), store)
    os.mkdir(os.path.join(folder, "final", "myevents"))
    for name in os.listdir(store):
        os.symlink(os.path.join("..", "..", "store", name), os.path.join(folder, "final", "myevents", name))
    return folder, None


@pytest.mark.parametrize("case", [
    "kit link to the final truth", "kit hard link to the final truth", "kit link out of the folder",
    "reference link out of the folder", "loop in the reference data", "named pipe in the kit",
    "page outside the folder", "page linked to the truth", "reference files in a store of the folder"])
def test_the_build_reads_nothing_outside_the_folder_and_publishes_no_reference_file(tmp_path, case):
    """One sentence naming the file (exit 2, nothing written), on every Python: the build
    walks the folder itself, bounded, where shutil.copytree followed every link (and on
    Python 3.7 zipped 624 nested copies of a loop). A store of the reference data inside
    the folder is followed: its files are the phase's, byte for byte."""
    folder, sentence = _linked_competition(tmp_path, case)
    dist = tmp_path / "dist"
    completed = build_bundle(folder, dist)
    if sentence is not None:
        assert (completed.returncode, completed.stderr.strip()) == (2, sentence)
        assert not os.path.exists(str(dist / "myevents"))
        return
    assert completed.returncode == 0, completed.stderr
    with open(str(dist / "myevents" / "myevents_final_reference.zip"), "rb") as stream:
        zipped = read_zip(stream.read())
    stored = files_of(os.path.join(folder, "store"))
    assert sorted(zipped) == sorted(stored)
    assert all(zipped[name] == stored[name] for name in stored if name != "track.yaml")
