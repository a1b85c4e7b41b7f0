"""The competition bundle played as the platforms play it (README, "The competition bundle").

Codalab v1.5 (codalab-competitions: CompetitionDefBundle.unpack in apps/web/models.py,
the compute worker's get_bundle, the score parsing of apps/web/tasks.py) and Codabench
(compute_worker/compute_worker.py, competitions/unpackers/v2.py, the API's
upload_submission_scores). Each rule below is written from those sources; the platforms'
code itself is not used.
"""

import datetime
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml
from conftest import ROOT

import make_bundle

# Fields of the v1.5 models that a competition.yaml may set: the top level is passed to
# Competition(**spec), each phase to CompetitionPhase(**spec), so any other key fails.
V15_COMPETITION_KEYS = {"title", "description", "image", "has_registration", "end_date",
                        "force_submission_to_leaderboard", "competition_docker_image",
                        "html", "phases", "leaderboard"}
V15_PHASE_KEYS = {"phasenumber", "label", "description", "color", "start_date", "max_submissions",
                  "max_submissions_per_day", "execution_time_limit", "is_scoring_only",
                  "scoring_program", "reference_data", "starting_kit", "phase_never_ends",
                  "auto_migration"}
V15_HTML_PAGES = {"overview", "evaluation", "terms", "data"}  # 'data' is required
FIXED_POINT = re.compile(r"^-?\d+(\.\d{1,10})?$")  # v1.5 stores 10 decimals


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    target = str(tmp_path_factory.mktemp("dist"))
    make_bundle.build(target, together=True)
    return target


def read_zip(path):
    with zipfile.ZipFile(path) as archive:
        return dict((name, archive.read(name)) for name in archive.namelist())


def extract(data, destination):
    path = destination + ".zip"
    with open(path, "wb") as stream:
        stream.write(data)
    with zipfile.ZipFile(path) as archive:
        archive.extractall(destination)
    os.remove(path)


def v15_flatten(bundle_path):
    """The v1.5 worker's rule after unzipping a bundle: unless the folder already holds
    metadata among more than two entries, the first sub-folder holding a metadata file
    replaces the bundle folder."""
    entries = os.listdir(bundle_path)
    if len(entries) > 2 and "metadata" in entries:
        return
    for name in entries:
        folder = os.path.join(bundle_path, name)
        if os.path.isdir(folder) and "metadata" in os.listdir(folder):
            moved = bundle_path + "_tmp"
            shutil.copytree(folder, moved)
            shutil.rmtree(bundle_path)
            shutil.move(moved, bundle_path)
            return


def platform_env():
    """The image's python3 is this interpreter: its directory first on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def run_command(argv, cwd):
    completed = subprocess.run(argv, cwd=cwd, env=platform_env(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
    assert completed.returncode == 0, (argv, completed.stderr[-2000:])
    return completed


def v15_parse_scores(text):
    """apps/web/tasks.py: split on newlines, skip empty lines, `label, value = line.split(":")`
    (exactly one colon), float(value), the label stripped."""
    scores = []
    for line in text.split("\n"):
        if len(line) > 0:
            label, value = line.split(":")
            assert FIXED_POINT.match(value.strip()), line
            scores.append((label.strip(), float(value)))
    return scores


def play_v15(files, phase, workdir):
    """Unzip program, ref and the phase's starting kit as the v1.5 worker does, run the
    metadata command split on spaces with no shell, and parse scores.txt."""
    run_dir = os.path.join(workdir, "run")
    program = os.path.join(run_dir, "program")
    input_dir = os.path.join(run_dir, "input")
    output = os.path.join(run_dir, "output")
    temp = os.path.join(run_dir, "temp")
    os.makedirs(input_dir)
    for data, target in ((files[phase["scoring_program"]], program),
                         (files[phase["reference_data"]], os.path.join(input_dir, "ref")),
                         (files[phase["starting_kit"]], os.path.join(input_dir, "res"))):
        extract(data, target)
        v15_flatten(target)
    os.makedirs(output)
    os.makedirs(temp)
    with open(os.path.join(program, "metadata")) as stream:
        metadata = yaml.safe_load(stream)
    command = metadata["command"].strip()
    for placeholder, value in (("$program", program), ("$input", input_dir), ("$output", output),
                               ("$tmp", temp), ("$shared", os.path.join(workdir, "shared"))):
        command = command.replace(placeholder, value)
    run_command(command.split(" "), run_dir)
    with open(os.path.join(output, "scores.txt")) as stream:
        return v15_parse_scores(stream.read())


def v15_is_active(phase, phases, now, competition_end):
    """CompetitionPhase.is_active: never-ending phases always; otherwise from start_date
    until the next phase number starts, the last phase until the competition ends."""
    if phase.get("phase_never_ends"):
        return True
    following = [p for p in phases.values() if p["phasenumber"] == phase["phasenumber"] + 1]
    if following:
        return phase["start_date"] <= now < following[0]["start_date"]
    return phase["start_date"] <= now < competition_end


def v15_leaderboards(competition):
    boards = {}
    for key, column in competition["leaderboard"]["columns"].items():
        boards.setdefault(column["leaderboard"]["label"], []).append((column["rank"], key))
    return dict((label, [key for _, key in sorted(columns)]) for label, columns in boards.items())


@pytest.fixture(scope="module")
def codalab(dist):
    files = read_zip(os.path.join(dist, "competition.zip"))
    yaml_names = [name for name in files if ".yaml" in name]
    # v1.5 reads the first name containing ".yaml": it must be the only one.
    assert yaml_names == ["competition.yaml"]
    return files, yaml.safe_load(files["competition.yaml"])


def test_codalab_yaml_is_what_the_worker_accepts(codalab):
    files, competition = codalab
    assert set(competition) <= V15_COMPETITION_KEYS
    assert competition["competition_docker_image"] == "codalab/codalab-legacy:py312"
    assert set(competition["html"]) == V15_HTML_PAGES
    for page in list(competition["html"].values()) + [competition["image"]]:
        assert files[page], page
    for number, phase in competition["phases"].items():
        assert set(phase) <= V15_PHASE_KEYS, set(phase) - V15_PHASE_KEYS
        assert phase["phasenumber"] == number
        assert len(phase["label"]) <= 50
        for name in ("scoring_program", "reference_data", "starting_kit"):
            assert phase[name] in files, phase[name]
    labels = [board["label"] for board in competition["leaderboard"]["leaderboards"].values()]
    for key, column in competition["leaderboard"]["columns"].items():
        assert len(key) <= 50 and len(column["label"]) <= 50
        assert column["sort"] in ("asc", "desc")
        assert column["leaderboard"]["label"] in labels


def test_codalab_phases_of_every_track_run_side_by_side(codalab):
    _, competition = codalab
    phases = competition["phases"]
    end = competition["end_date"]
    development = [p for p in phases.values() if p["label"].endswith("Development")]
    final = [p for p in phases.values() if p["label"].endswith("Final")]
    assert len(development) == len(final) == len(v15_leaderboards(competition))
    dev_start = min(p["start_date"] for p in development)
    final_start = min(p["start_date"] for p in final)
    for now in (dev_start, final_start - datetime.timedelta(seconds=1)):
        assert all(v15_is_active(p, phases, now, end) for p in development)
        assert not any(v15_is_active(p, phases, now, end) for p in final)
    for now in (final_start, end - datetime.timedelta(seconds=1)):
        assert all(v15_is_active(p, phases, now, end) for p in final + development)
    assert not any(v15_is_active(p, phases, end, end) for p in final)


def test_codalab_every_phase_scores_its_starting_kit_into_one_leaderboard(codalab, tmp_path):
    files, competition = codalab
    boards = v15_leaderboards(competition)
    filled = set()
    for number, phase in sorted(competition["phases"].items()):
        scores = play_v15(files, phase, str(tmp_path / str(number)))
        keys = [key for key, _ in scores]
        assert all(math.isfinite(value) for _, value in scores)
        # One leaderboard takes every key of this phase, and every column of it gets a number.
        matching = [label for label, columns in boards.items() if set(columns) == set(keys)]
        assert len(matching) == 1, (phase["label"], keys)
        assert len(keys) == len(set(keys))
        assert keys[0] == boards[matching[0]][0]  # the primary score is ranked first
        filled.add(matching[0])
    assert filled == set(boards)


def test_codalab_program_zip_survives_flattening_rules(dist, tmp_path):
    """metadata sits at the root of the program zip, so neither platform moves anything;
    a zip of the folder would work on v1.5 only (it flattens, Codabench does not)."""
    files = read_zip(os.path.join(dist, "scoring_program.zip"))
    assert "metadata" in files and "evaluate.py" in files
    assert not any(name.endswith(".pyc") or "__pycache__" in name for name in files)
    wrapped = make_bundle.zip_entries([("scoring_program/" + n, d) for n, d in sorted(files.items())])
    flattened = str(tmp_path / "flattened")
    extract(wrapped, flattened)
    v15_flatten(flattened)
    assert sorted(os.listdir(flattened)) == sorted(set(n.split("/")[0] for n in files))
    as_is = str(tmp_path / "as_is")
    extract(make_bundle.zip_entries(sorted(files.items())), as_is)
    before = sorted(os.listdir(as_is))
    v15_flatten(as_is)
    assert sorted(os.listdir(as_is)) == before


# ---------------------------------------------------------------------------- Codabench


@pytest.fixture(scope="module")
def codabench(dist):
    files = read_zip(os.path.join(dist, "codabench_competition.zip"))
    return files, yaml.safe_load(files["competition.yaml"])


def codabench_parse_scores(output):
    """push_scores: scores.json if present (json), else scores.txt read as YAML."""
    with open(os.path.join(output, "scores.txt")) as stream:
        from_txt = yaml.load(stream, yaml.Loader)
    with open(os.path.join(output, "scores.json")) as stream:
        from_json = json.load(stream)
    assert from_txt == from_json  # the fallback would read the same numbers
    for key, value in from_json.items():
        assert isinstance(value, (int, float)) and not isinstance(value, bool), (key, value)
        assert math.isfinite(value)
    return from_json


def play_codabench(files, task, solution, workdir):
    """Unzip with no flattening, run the metadata command with Codabench's placeholders
    (as a docker command string, split like a shell would without running one)."""
    program = os.path.join(workdir, "program")
    input_dir = os.path.join(workdir, "input")
    output = os.path.join(workdir, "output")
    shared = os.path.join(workdir, "shared")
    os.makedirs(input_dir)
    extract(files[task["scoring_program"]], program)
    extract(files[task["reference_data"]], os.path.join(input_dir, "ref"))
    extract(files[solution["path"]], os.path.join(input_dir, "res"))
    os.makedirs(output)
    name = "metadata.yaml" if os.path.exists(os.path.join(program, "metadata.yaml")) else "metadata"
    with open(os.path.join(program, name)) as stream:
        command = yaml.load(stream.read(), Loader=yaml.FullLoader)["command"]
    for placeholder, value in (("$input", input_dir), ("$output", output), ("$program", program),
                               ("$ingestion_program", program), ("$hidden", os.path.join(input_dir, "ref")),
                               ("$shared", shared), ("$submission_program", program), ("$tmp", output),
                               ("$predictions", os.path.join(input_dir, "res"))):
        command = command.replace(placeholder, value)
    run_command(shlex.split(command), workdir)
    # Codabench writes OUTPUT/metadata itself and fails the run if it already exists.
    assert not os.path.exists(os.path.join(output, "metadata"))
    return codabench_parse_scores(output)


def test_codabench_yaml_is_what_the_unpacker_accepts(codabench):
    files, competition = codabench
    assert competition["version"] == 2
    assert competition["docker_image"] == "codalab/codalab-legacy:py312"
    assert files[competition["image"]] and files[competition["terms"]]
    for page in competition["pages"]:
        assert files[page["file"]].strip(), page
    task_indexes = [task["index"] for task in competition["tasks"]]
    assert len(task_indexes) == len(set(task_indexes))
    for task in competition["tasks"]:
        assert task["scoring_program"] in files and task["reference_data"] in files
    phases = sorted(competition["phases"], key=lambda p: p["index"])
    for before, after in zip(phases, phases[1:]):
        assert before["end"] is not None and after["start"] >= before["end"]  # sequential
    for phase in phases:
        assert phase["tasks"] and set(phase["tasks"]) <= set(task_indexes)
    for solution in competition["solutions"]:
        assert solution["path"] in files and set(solution["tasks"]) <= set(task_indexes)
    board = competition["leaderboards"][0]
    keys = [column["key"] for column in board["columns"]]
    assert len(keys) == len(set(keys))
    for column in board["columns"]:
        assert len(column["key"]) <= 36 and len(column["title"]) <= 36
        assert column["sorting"] in ("asc", "desc")


def test_codabench_every_phase_fills_every_column(codabench, tmp_path):
    files, competition = codabench
    # Every phase uses the first leaderboard; keys that are not its columns are dropped.
    columns = [column["key"] for column in competition["leaderboards"][0]["columns"]]
    tasks = dict((task["index"], task) for task in competition["tasks"])
    for phase in competition["phases"]:
        filled = {}
        for index in phase["tasks"]:
            solution = [s for s in competition["solutions"] if index in s["tasks"]][0]
            scores = play_codabench(files, tasks[index], solution, str(tmp_path / ("%s-%d" % (phase["index"], index))))
            assert set(scores) <= set(columns), set(scores) - set(columns)
            assert not set(scores) & set(filled)
            filled.update(scores)
        assert set(filled) == set(columns), (phase["name"], set(columns) - set(filled))


# ---------------------------------------------------------------------------- both


def test_both_platforms_list_the_same_keys(codalab, codabench):
    columns_v15 = list(codalab[1]["leaderboard"]["columns"])
    columns_v2 = [column["key"] for column in codabench[1]["leaderboards"][0]["columns"]]
    assert columns_v15 == columns_v2


def test_leaderboard_keys_are_the_tracks_keys(codalab):
    """Each track's columns are what its module's keys() announces on the sample reference."""
    boards = v15_leaderboards(codalab[1])
    sample = make_bundle.sample_tracks(os.path.join(ROOT, "input"))
    assert len(sample) == len(boards)
    for name, _, ref_dir, _ in sample:
        assert make_bundle.phase_keys(ref_dir) in boards.values(), name


def test_starting_kit_per_track(dist, codalab):
    """dist/sample_submission_<track>.zip is the development phase's starting kit, which
    the v1.5 play above scores, and it holds the track's sample submission."""
    files, competition = codalab
    kits = [p["starting_kit"] for p in competition["phases"].values() if p["label"].endswith("Development")]
    for name, _, _, res_dir in make_bundle.sample_tracks(os.path.join(ROOT, "input")):
        kit = "sample_submission_%s.zip" % name
        assert kit in kits
        with open(os.path.join(dist, kit), "rb") as stream:
            assert stream.read() == files[kit]
        names = set(read_zip(os.path.join(dist, kit)))
        on_disk = set(os.path.relpath(os.path.join(folder, f), res_dir).replace(os.sep, "/")
                      for folder, _, filenames in os.walk(res_dir) for f in filenames)
        assert names == on_disk


def test_evaluation_page_lists_every_column(codalab):
    files, competition = codalab
    page = files[competition["html"]["evaluation"]].decode("utf-8")
    for key in competition["leaderboard"]["columns"]:
        assert "<code>%s</code>" % key in page, key


def test_committed_competition_files_are_current():
    assert make_bundle.check(), "run `make bundle` and commit competition.yaml and competition/codabench.yaml"
