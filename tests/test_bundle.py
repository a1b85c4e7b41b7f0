"""The competition bundle played as the platforms play it (docs/organizers.md, "The platforms").

Every rule modelled here is written from the platforms' public code; the file and the
function are named beside each model. Sources read (none of their code is used here):
Codalab v1.5 = codalab/codalab-competitions (codalab/apps/web/models.py, apps/web/tasks.py)
and codalab/competitions-v1-compute-worker (worker.py, detailed_result_put.sh); Codabench =
codalab/codabench (src/apps/competitions/unpackers/, src/apps/leaderboards/,
src/apps/api/serializers/, src/apps/api/views/, compute_worker/compute_worker.py).
"""

import datetime
import glob
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
from platforms import codabench, codalab, model
from scoring import layout
from scoring.files import Submission, index_submission
from scoring import platform as program_platform
from scoring.columns import Column, Metric

DEMO = make_bundle.sample_tracks(os.path.join(ROOT, "input"))
TRACKS = [name for name, _, _, _ in DEMO]
SOURCE = make_bundle.complete_source(make_bundle.read_yaml(make_bundle.DEMO_SOURCE), make_bundle.DEMO_SOURCE,
                                     [(name, kind, []) for name, kind, _, _ in DEMO])

def columns_of(keys, lower_is_better=()):
    """Leaderboard columns (columns.Column) of these keys, higher is better unless listed."""
    return [Column(key, key, Metric(key, "", key in lower_is_better)) for key in keys]


# apps/web/models.py, CompetitionDefBundle.unpack: the top level (html, phases and leaderboard
# removed) is passed to Competition(**comp_base), each phase to CompetitionPhase.objects.
# get_or_create(**phase_spec): a key that is no field of those models fails the upload.


def described(source):
    """The competition of a source alone, for what a writer reads of its source only."""
    return model.Competition(source, [], program=None, kits={}, logo=None, pages=None)


V15_COMPETITION_KEYS = {"title", "description", "image", "has_registration", "end_date",
                        "force_submission_to_leaderboard", "enable_detailed_results",
                        "competition_docker_image", "html", "phases", "leaderboard"}
V15_PHASE_KEYS = {"phasenumber", "label", "description", "color", "start_date", "max_submissions",
                  "max_submissions_per_day", "execution_time_limit", "is_scoring_only",
                  "scoring_program", "reference_data", "starting_kit", "phase_never_ends",
                  "auto_migration"}
V15_MAX_TITLE = 100  # apps/web/models.py, Competition.title
V15_HTML_PAGES = {"overview", "evaluation", "terms", "data"}  # unpack: 'data' is required
FIXED_POINT = re.compile(r"^-?\d+(\.\d{1,10})?$")  # SubmissionScore: 10 decimals

# src/apps/competitions/unpackers/v2.py, V2Unpacker.__init__ and _unpack_*: the keys it reads.
V2_COMPETITION_KEYS = {"version", "title", "image", "registration_auto_approve", "docker_image",
                       "enable_detailed_results", "show_detailed_results_in_submission_panel",
                       "show_detailed_results_in_leaderboard", "auto_run_submissions",
                       "can_participants_make_submissions_public", "make_programs_available",
                       "make_input_data_available", "description", "competition_type", "fact_sheet",
                       "reward", "contact_email", "forum_enabled", "pages", "phases", "tasks",
                       "solutions", "terms", "queue", "leaderboards"}
V2_PHASE_KEYS = {"index", "name", "description", "start", "end", "max_submissions_per_day",
                 "max_submissions", "auto_migrate_to_this_phase", "hide_output", "hide_prediction_output",
                 "hide_score_output", "tasks", "execution_time_limit", "public_data", "starting_kit"}
V2_TASK_KEYS = {"index", "key", "name", "description", "ingestion_only_during_scoring",
                "ingestion_program", "input_data", "scoring_program", "reference_data"}
V2_SOLUTION_KEYS = {"index", "tasks", "key", "path", "name", "description"}
# src/apps/api/serializers/leaderboards.py, LeaderboardSerializer.Meta.fields and ColumnSerializer.
V2_LEADERBOARD_KEYS = {"primary_index", "title", "key", "columns", "hidden", "submission_rule"}
V2_COLUMN_KEYS = {"computation", "computation_indexes", "title", "key", "sorting", "index", "hidden",
                  "precision"}
# src/apps/leaderboards/models.py, Leaderboard.AUTO_SUBMISSION_RULES (every other rule waits
# for the participant to put a submission on the leaderboard: strategies.ManualModeStrategy).
V2_AUTO_SUBMISSION_RULES = {"Force_Last", "Force_Best", "Force_Latest_Multiple"}


def read_zip(path_or_bytes):
    source = path_or_bytes
    if isinstance(path_or_bytes, bytes):
        import io
        source = io.BytesIO(path_or_bytes)
    with zipfile.ZipFile(source) as archive:
        return dict((name, archive.read(name)) for name in archive.namelist())


def extract(data, destination):
    path = destination + ".zip"
    with open(path, "wb") as stream:
        stream.write(data)
    with zipfile.ZipFile(path) as archive:
        archive.extractall(destination)
    os.remove(path)


def wrapped(data, folder):
    """The same zip with every entry inside one top folder (a participant zipping a folder)."""
    return model.zip_entries([(folder + "/" + name, content) for name, content in sorted(read_zip(data).items())])


def kit_sample(kit):
    """What a participant submits from a starting kit: the files of its sample_submission/
    folder, zipped at the root."""
    prefix = "sample_submission/"
    entries = [(name[len(prefix):], content) for name, content in sorted(read_zip(kit).items())
               if name.startswith(prefix) and not name.endswith("/")]
    assert entries, "the starting kit holds no sample_submission/"
    return model.zip_entries(entries)


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


# ---------------------------------------------------------------------------- Codalab v1.5


def v15_flatten(bundle_path):
    """worker.py, _find_only_folder_with_metadata and get_bundle: unless the folder holds
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


def v15_parse_scores(text):
    """apps/web/tasks.py, update_submission: split on newlines, skip empty lines,
    `label, value = line.split(":")` (exactly one colon), float(value), label stripped."""
    scores = []
    for line in text.split("\n"):
        if len(line) > 0:
            label, value = line.split(":")
            assert FIXED_POINT.match(value.strip()), line
            scores.append((label.strip(), float(value)))
    return scores


def v15_final_upload(output):
    """worker.py, run(), after the program: private/ is zipped for the organizers and removed;
    then, only if OUTPUT/detailed_results.html is empty, every .html file of OUTPUT is
    uploaded in os.walk order (top-down). Returns the uploads in order (the last one stays)."""
    shutil.rmtree(os.path.join(output, "private"), ignore_errors=True)
    with open(os.path.join(output, "detailed_results.html")) as stream:  # raises if removed
        if stream.read():
            return []
    uploads = []
    for root, _, files in os.walk(output):
        for name in files:
            if os.path.splitext(name)[1].lower() == ".html":
                with open(os.path.join(root, name)) as stream:
                    uploads.append(stream.read())
    return uploads


def play_v15(files, phase, workdir, submission=None, worker_page=False):
    """worker.py, run() for a scoring-only phase: program, ref and the submission unzipped
    (get_bundle), OUTPUT/detailed_results.html created empty (with worker_page: it always is,
    and then the program waits program/scoring/platform.py's V15_QUIET_SECONDS), the metadata
    command with its placeholders split on spaces (no shell). Returns (scores, output)."""
    run_dir = os.path.join(workdir, "run")
    program = os.path.join(run_dir, "program")
    input_dir = os.path.join(run_dir, "input")
    output = os.path.join(run_dir, "output")
    temp = os.path.join(run_dir, "temp")
    os.makedirs(input_dir)
    submission = kit_sample(files[phase["starting_kit"]]) if submission is None else submission
    for data, target in ((files[phase["scoring_program"]], program),
                         (files[phase["reference_data"]], os.path.join(input_dir, "ref")),
                         (submission, os.path.join(input_dir, "res"))):
        extract(data, target)
        v15_flatten(target)
    os.makedirs(output)
    os.makedirs(temp)
    if worker_page:
        open(os.path.join(output, "detailed_results.html"), "a").close()
    with open(os.path.join(program, "metadata")) as stream:
        metadata = yaml.safe_load(stream)
    command = metadata["command"].strip()
    for placeholder, value in (("$program", program), ("$predictions", os.path.join(input_dir, "res")),
                               ("$input", input_dir), ("$output", output), ("$tmp", temp),
                               ("$shared", os.path.join(workdir, "shared"))):
        command = command.replace(placeholder, value)
    run_command(command.split(" "), run_dir)
    with open(os.path.join(output, "scores.txt")) as stream:
        return v15_parse_scores(stream.read()), output


def v15_is_active(phase, phases, now, competition_end):
    """apps/web/models.py, CompetitionPhase.is_active: never-ending phases always; otherwise
    from start_date until the next phase number starts, the last one until the end."""
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


def codalab_zip(dist, track):
    files = read_zip(os.path.join(dist, track, "competition.zip"))
    # apps/web/models.py, CompetitionDefBundle.unpack reads the first name holding ".yaml".
    assert [name for name in files if ".yaml" in name] == ["competition.yaml"]
    return files, yaml.safe_load(files["competition.yaml"])


def check_codalab_yaml(v15):
    """(files, competition) of one track's v1.5 zip: what CompetitionDefBundle.unpack reads."""
    files, competition = v15
    assert set(competition) <= V15_COMPETITION_KEYS, set(competition) - V15_COMPETITION_KEYS
    # apps/web/models.py, Competition.title: CharField(max_length=100); PostgreSQL refuses a
    # longer one and the upload fails (seen running CompetitionDefBundle.unpack on it).
    assert 0 < len(competition["title"]) <= V15_MAX_TITLE
    assert competition["enable_detailed_results"] is True
    assert competition["force_submission_to_leaderboard"] is True
    assert competition["competition_docker_image"]
    assert set(competition["html"]) == V15_HTML_PAGES
    for page in list(competition["html"].values()) + [competition["image"]]:
        assert files[page], page
    for number, phase in competition["phases"].items():
        assert set(phase) <= V15_PHASE_KEYS, set(phase) - V15_PHASE_KEYS
        assert phase["phasenumber"] == number and len(phase["label"]) <= 50
        # CompetitionPhase.execution_time_limit: a whole number of seconds.
        assert isinstance(phase["execution_time_limit"], int) and phase["execution_time_limit"] > 0
        assert phase["auto_migration"] is False
        for name in ("scoring_program", "reference_data", "starting_kit"):
            assert phase[name] in files, phase[name]
        assert "check_submission.py" in read_zip(files[phase["starting_kit"]])  # the kit, not a bare sample
    assert len(v15_leaderboards(competition)) == 1
    for key, column in competition["leaderboard"]["columns"].items():
        assert len(key) <= 50 and len(column["label"]) <= 50
        assert column["sort"] in ("asc", "desc")


@pytest.mark.parametrize("track", TRACKS)
def test_codalab_yaml_is_what_the_unpacker_reads(dist, track):
    files, competition = codalab_zip(dist, track)
    check_codalab_yaml((files, competition))
    assert competition["competition_docker_image"] == SOURCE["docker_image"]
    assert all(p["execution_time_limit"] == SOURCE["execution_time_limit"] for p in competition["phases"].values())
    development = make_bundle.sample_tracks(os.path.join(ROOT, "input"))
    keys = [make_bundle.phase_keys(ref) for name, _, ref, _ in development if name == track][0]
    # One leaderboard, the track's keys in order (the primary key ranked first).
    assert v15_leaderboards(competition) == {model.leaderboard_title(SOURCE, track): keys}


# Codabench's unpacker of v1.5 zips (src/apps/competitions/unpackers/v1.py, V15Unpacker at
# c7dbc75): the hiding options it reads from each v1.5 phase, and its column title limit.
V15_TO_CODABENCH_HIDING = ("hide_output", "hide_prediction_output", "hide_score_output")


@pytest.mark.parametrize("track", TRACKS)
def test_codalab_zip_is_not_for_codabench(dist, track):
    """Run on Codabench's site: the converted v1.5 zips of authentication and events scored
    every submission right but put none on the leaderboard (no submission rule) and gave each
    participant the scoring output with private/ (hide_score_output False); the lines zip failed
    ("columns: title: Ensure this field has no more than 36 characters"). v1.5 itself refuses a
    phase key that is no CompetitionPhase field, so the zip cannot carry the hiding options:
    the build says to upload codabench_competition.zip to Codabench."""
    _, competition = codalab_zip(dist, track)
    for phase in competition["phases"].values():
        assert not any(phase.get(key, False) for key in V15_TO_CODABENCH_HIDING)
        assert not set(V15_TO_CODABENCH_HIDING) & V15_PHASE_KEYS
    titles = [c["label"] for c in competition["leaderboard"]["columns"].values()]
    assert (max(len(t) for t in titles) > codabench.MAX_TITLE) == (track == "lines")
    (note,) = codalab.manifest(described(SOURCE))["notes"]
    assert "not for Codabench" in note and "private/" in note and "codabench_competition.zip" in note


@pytest.mark.parametrize("track", TRACKS)
def test_codalab_phases_follow_each_other(dist, track):
    _, competition = codalab_zip(dist, track)
    phases = competition["phases"]
    end = competition["end_date"]
    development, final = phases[1], phases[2]
    second = datetime.timedelta(seconds=1)
    for now, open_phase in ((development["start_date"], 1), (final["start_date"] - second, 1),
                            (final["start_date"], 2), (end - second, 2)):
        assert [n for n, p in phases.items() if v15_is_active(p, phases, now, end)] == [open_phase], now
    assert not any(v15_is_active(p, phases, end, end) for p in phases.values())


def check_codalab_phases_score(v15, workdir):
    """Every phase scores its starting kit, flat and zipped in a folder, into every column
    of the leaderboard, the primary key first."""
    files, competition = v15
    columns = list(v15_leaderboards(competition).values())[0]
    for number, phase in sorted(competition["phases"].items()):
        kit = kit_sample(files[phase["starting_kit"]])
        results = []
        for form, submission in (("flat", kit), ("wrapped", wrapped(kit, "my_results"))):
            scores, _ = play_v15(files, phase, os.path.join(str(workdir), "%d-%s" % (number, form)), submission)
            assert [key for key, _ in scores] == columns
            assert all(math.isfinite(value) for _, value in scores)
            results.append(scores)
        assert results[0] == results[1]


@pytest.mark.parametrize("track", TRACKS)
def test_codalab_every_phase_scores_flat_and_wrapped_submissions(dist, track, tmp_path):
    check_codalab_phases_score(codalab_zip(dist, track), tmp_path)


def test_codalab_detailed_results_arrive_after_a_fast_run(dist, tmp_path):
    """On v1.5 the page replaces the worker's empty detailed_results.html: the watcher sends
    it and the worker's final upload, for an empty file only, sends nothing to overwrite it
    (program/scoring/platform.py says why)."""
    files, competition = codalab_zip(dist, "events")
    _, output = play_v15(files, competition["phases"][1], str(tmp_path / "run"), worker_page=True)
    assert os.listdir(os.path.join(output, "private"))  # written, then removed by the worker
    with open(os.path.join(output, "detailed_results.html")) as stream:
        page = stream.read()
    assert "</html>" in page and "map" in page
    assert v15_final_upload(output) == []


def v15_watcher_restarts_before_the_kill(last_change, program_exit):
    """detailed_result_put.sh: `while sleep 1; do echo FILE | entr -d python
    detailed_result_put.py URL FILE; done`. entr (3.9, the worker image's) uploads the file
    when it starts and when it changes, and with -d uploads and exits when the number of
    files in the file's folder changes; the loop starts it again one second later. worker.py,
    run(): `while exit_code == None: time.sleep(1); poll()`, then the shell alone is killed.
    True if the loop is still alive to start entr again after the program's last change to
    OUTPUT (that entr uploads the page, and so does every later upload)."""
    killed = math.floor(program_exit) + 1.0
    return last_change + 1.0 < killed


def test_v15_watcher_uploads_the_page_after_the_last_change():
    """Without a wait, a program whose last file appears in the second before it exits can be
    killed with entr not running: the page written just before is never uploaded (the issue's
    empty page). With V15_QUIET_SECONDS after the last file, it always is."""
    for last_change in (0.3, 0.97, 4.0, 4.5, 41.99):
        assert v15_watcher_restarts_before_the_kill(
            last_change, last_change + program_platform.V15_QUIET_SECONDS), last_change
    assert not v15_watcher_restarts_before_the_kill(4.5, 4.55)
    assert not v15_watcher_restarts_before_the_kill(0.3, 0.35)
    slept = []
    program_platform.settle(sleep=slept.append)
    assert slept == [program_platform.V15_QUIET_SECONDS]


def test_page_location_is_the_same_on_every_platform(tmp_path):
    """OUTPUT/detailed_results.html, the file Codabench (Run.get_detailed_results_file_path)
    and v1.5's watcher send; only v1.5's worker creates it empty beforehand."""
    output = str(tmp_path)
    assert not program_platform.is_v15_worker(output)
    assert program_platform.page_path(output) == os.path.join(output, "detailed_results.html")
    open(os.path.join(output, "detailed_results.html"), "w").close()
    assert program_platform.is_v15_worker(output)
    assert program_platform.page_path(output) == os.path.join(output, "detailed_results.html")


def test_codalab_program_zip_survives_flattening_rules(dist, tmp_path):
    """metadata sits at the root of the program zip, so neither platform moves anything."""
    files = read_zip(os.path.join(dist, TRACKS[0], "scoring_program.zip"))
    assert "metadata" in files and "evaluate.py" in files
    assert not any(name.endswith(".pyc") or "__pycache__" in name for name in files)
    as_is = str(tmp_path / "as_is")
    extract(model.zip_entries(sorted(files.items())), as_is)
    before = sorted(os.listdir(as_is))
    v15_flatten(as_is)
    assert sorted(os.listdir(as_is)) == before


def test_codalab_together_ranks_each_track_in_its_own_phases(together, tmp_path):
    """make_bundle.py --together: v1.5 links every leaderboard to every phase
    (CompetitionDefBundle.unpack, SubmissionResultGroupPhase) and a phase ranks its own
    submissions, so each track's phases fill exactly its own leaderboard. Codabench gets no
    such competition (platforms/codabench.py, refusal)."""
    assert not os.path.exists(os.path.join(together, "codabench_competition.zip"))
    files = read_zip(os.path.join(together, "competition.zip"))
    competition = yaml.safe_load(files["competition.yaml"])
    assert set(competition) <= V15_COMPETITION_KEYS
    boards = v15_leaderboards(competition)
    assert len(boards) == len(TRACKS)
    phases = competition["phases"]
    end = competition["end_date"]
    final_start = min(p["start_date"] for p in phases.values() if p["color"] == "purple")
    for now in (final_start, end - datetime.timedelta(seconds=1)):
        assert all(v15_is_active(p, phases, now, end) for p in phases.values())
    filled = []
    for number, phase in sorted(phases.items()):
        scores, _ = play_v15(files, phase, str(tmp_path / str(number)))
        keys = [key for key, _ in scores]
        filled.extend(label for label, columns in boards.items() if columns == keys)
    assert sorted(filled) == sorted(list(boards) * 2)  # each board: its track's two phases


# ---------------------------------------------------------------------------- Codabench


def codabench_zip(dist, track):
    files = read_zip(os.path.join(dist, track, "codabench_competition.zip"))
    return files, yaml.safe_load(files["competition.yaml"])


def get_datetime(field):
    """src/apps/competitions/unpackers/utils.py, get_datetime: a date (and a datetime, which
    is a date) becomes midnight of its day; a string is parsed with its time."""
    if not field:
        return None
    if isinstance(field, datetime.date):
        return datetime.datetime.combine(field, datetime.time())
    return datetime.datetime.strptime(field, model.DATE_FORMAT)  # dateutil's parse, on our format


def validate_phase_ordering(phases):
    """src/apps/competitions/unpackers/base_unpacker.py, _validate_phase_ordering: a phase
    after another needs the first to end, and must start strictly after that end."""
    for before, after in zip(phases, phases[1:]):
        if before["end"] is None:
            return "Phase %s must have an end time" % before["name"]
        if after["start"] < before["end"]:
            return "Phases must be sequential"
        if after["start"] == before["end"]:
            return "Phases dates conflict"
    return None


def test_codabench_date_rules_as_modelled():
    """The two rules that refused the earlier bundle, on hand-made phases."""
    midnight = datetime.datetime(2026, 4, 1)
    assert get_datetime(datetime.datetime(2026, 3, 31, 23, 59)) == datetime.datetime(2026, 3, 31)
    assert get_datetime("2026-03-31 23:59:00") == datetime.datetime(2026, 3, 31, 23, 59)
    touching = [{"name": "D", "start": midnight - datetime.timedelta(days=9), "end": midnight},
                {"name": "F", "start": midnight, "end": midnight + datetime.timedelta(days=9)}]
    assert validate_phase_ordering(touching) == "Phases dates conflict"
    touching[0]["end"] = midnight - codabench.PHASE_GAP
    assert validate_phase_ordering(touching) is None


def check_codabench_yaml(v2):
    """(files, competition) of one track's Codabench zip: what V2Unpacker reads and accepts."""
    files, competition = v2
    assert set(competition) <= V2_COMPETITION_KEYS, set(competition) - V2_COMPETITION_KEYS
    assert competition["version"] == 2
    assert competition["docker_image"]
    assert competition["enable_detailed_results"] is True  # models.Competition: False by default
    assert files[competition["image"]] and files[competition["terms"]].strip()
    for page in competition["pages"]:
        assert files[page["file"]].strip(), page  # _unpack_pages: an empty page is refused
    tasks = dict((task["index"], task) for task in competition["tasks"])
    assert len(tasks) == len(competition["tasks"])
    for task in competition["tasks"]:
        assert set(task) <= V2_TASK_KEYS
        assert task["scoring_program"] in files and task["reference_data"] in files
    for solution in competition["solutions"]:
        assert set(solution) <= V2_SOLUTION_KEYS
        assert solution["path"] in files and set(solution["tasks"]) <= set(tasks)
    # _unpack_phases sorts by index and parses the dates; then _validate_phase_ordering.
    phases = sorted(competition["phases"], key=lambda p: p["index"])
    parsed = []
    for phase in phases:
        assert set(phase) <= V2_PHASE_KEYS, set(phase) - V2_PHASE_KEYS
        assert isinstance(phase["start"], str) and isinstance(phase["end"], str)  # quoted: time kept
        parsed.append({"name": phase["name"], "start": get_datetime(phase["start"]),
                       "end": get_datetime(phase["end"])})
        # competitions/models.py, Phase.execution_time_limit: seconds (the unpacker reads no other name).
        assert isinstance(phase["execution_time_limit"], int) and phase["execution_time_limit"] > 0
        assert phase["hide_score_output"] is True and phase["hide_output"] is False
        assert phase["hide_prediction_output"] is True
        assert phase["auto_migrate_to_this_phase"] is False
        assert len(phase["tasks"]) == 1 and set(phase["tasks"]) <= set(tasks)
        assert phase["starting_kit"] in files
        assert "check_submission.py" in read_zip(files[phase["starting_kit"]])  # the kit, not a bare sample
    assert validate_phase_ordering(parsed) is None
    # base_unpacker._save_competition gives every phase leaderboards[0].
    assert len(competition["leaderboards"]) == 1
    board = competition["leaderboards"][0]
    assert set(board) <= V2_LEADERBOARD_KEYS
    assert board["submission_rule"] in V2_AUTO_SUBMISSION_RULES
    assert board["submission_rule"] == "Force_Last"  # as v1.5's force_submission_to_leaderboard
    assert len(board["key"]) <= 36 and len(board["title"]) <= 64
    keys = [column["key"] for column in board["columns"]]
    indexes = [column["index"] for column in board["columns"]]
    assert len(set(keys)) == len(keys) and len(set(indexes)) == len(indexes)  # validate_columns
    assert board["primary_index"] == 0 and board["columns"][0]["index"] == 0
    for column in board["columns"]:
        assert set(column) <= V2_COLUMN_KEYS
        assert len(column["key"]) <= 36 and len(column["title"]) <= 36  # Column: max_length=36
        assert column["sorting"] in ("asc", "desc")
    return parsed


@pytest.mark.parametrize("track", TRACKS)
def test_codabench_yaml_is_what_the_unpacker_reads(dist, track):
    files, competition = codabench_zip(dist, track)
    parsed = check_codabench_yaml((files, competition))
    assert competition["docker_image"] == SOURCE["docker_image"]
    assert all(p["execution_time_limit"] == SOURCE["execution_time_limit"] for p in competition["phases"])
    development_start, final_start, end = model.schedule(SOURCE)
    assert [(p["start"], p["end"]) for p in parsed] == [(development_start, final_start - codabench.PHASE_GAP),
                                                         (final_start, end)]


def codabench_prediction_step(submission, workdir):
    """compute_worker/compute_worker.py for a results submission (no ingestion program):
    _run_program_directory finds no metadata in the submission and copies it into OUTPUT;
    push_output then writes OUTPUT/metadata (the run's status, keys sorted by yaml.dump)
    and zips OUTPUT as the prediction result, which the scoring step unzips as input/res."""
    program = os.path.join(workdir, "prediction_program")
    output = os.path.join(workdir, "prediction_output")
    os.makedirs(workdir)
    extract(submission, program)
    assert not os.path.exists(os.path.join(program, "metadata"))
    shutil.copytree(program, output)
    status = {"exitCode": None, "elapsedTime": None, "ingestionExitCode": None, "ingestionElapsedTime": None}
    with open(os.path.join(output, "metadata"), "w") as stream:
        stream.write(yaml.dump(status, default_flow_style=False))
    return model.zip_entries(model.tree_entries(output))


def codabench_scoring_step(files, task, prediction, workdir):
    """compute_worker/compute_worker.py, Run.prepare (program, input/ref and input/res
    unzipped, no flattening), the metadata command with replace_legacy_metadata_command's
    placeholders, then push_scores: scores.json if present, else scores.txt read as YAML."""
    program = os.path.join(workdir, "program")
    input_dir = os.path.join(workdir, "input")
    output = os.path.join(workdir, "output")
    os.makedirs(input_dir)
    extract(files[task["scoring_program"]], program)
    extract(files[task["reference_data"]], os.path.join(input_dir, "ref"))
    extract(prediction, os.path.join(input_dir, "res"))
    os.makedirs(output)
    with open(os.path.join(program, "metadata")) as stream:
        command = yaml.load(stream.read(), Loader=yaml.FullLoader)["command"]
    for placeholder, value in (("$input", input_dir), ("$output", output), ("$program", program),
                               ("$shared", os.path.join(workdir, "shared")), ("$tmp", output)):
        command = command.replace(placeholder, value)
    run_command(shlex.split(command), workdir)
    # push_output refuses a run whose OUTPUT already holds metadata.
    assert not os.path.exists(os.path.join(output, "metadata"))
    with open(os.path.join(output, "scores.txt")) as stream:
        from_txt = yaml.load(stream, yaml.Loader)
    with open(os.path.join(output, "scores.json")) as stream:
        from_json = json.load(stream)
    assert from_txt == from_json
    return from_json, output


def watched_page(output):
    """compute_worker.py, Run.get_detailed_results_file_path: OUTPUT/detailed_results.html,
    else the first *.html at the top of OUTPUT."""
    default = os.path.join(output, "detailed_results.html")
    if os.path.exists(default):
        return default
    pages = glob.glob(os.path.join(output, "*.html"))
    return pages[0] if pages else None


def scoring_result_for_participant(phase):
    """api/serializers/submissions.py, SubmissionFilesSerializer.get_scoring_result: None for
    a participant when the phase hides its output or its score output."""
    return None if (phase["hide_output"] or phase["hide_score_output"]) else "scoring_result.zip"


def prediction_result_for_non_admin(phase):
    """SubmissionFilesSerializer.get_prediction_result: None for anyone but the competition's
    admins when the phase hides its output or its prediction output. Run at c7dbc75: the
    anonymous get_details of a leaderboard submission, and the participant's own, gave
    prediction_result null, the organizer's a URL."""
    return None if (phase["hide_output"] or phase["hide_prediction_output"]) else "prediction_result.zip"


def check_codabench_phases_score(v2, workdir):
    """Every phase: its solution (the phase's sample), flat and zipped in a folder, through
    the prediction and the scoring step, fills every column; the page is where the worker
    looks; private/ only in the output that the phase hides."""
    files, competition = v2
    tasks = dict((task["index"], task) for task in competition["tasks"])
    columns = [column["key"] for column in competition["leaderboards"][0]["columns"]]
    for phase in competition["phases"]:
        task = tasks[phase["tasks"][0]]
        solution = [s for s in competition["solutions"] if s["tasks"] == phase["tasks"]][0]
        results = []
        for form, submission in (("flat", files[solution["path"]]),
                                 ("wrapped", wrapped(files[solution["path"]], "submission"))):
            where = os.path.join(str(workdir), "%d-%s" % (phase["index"], form))
            prediction = codabench_prediction_step(submission, where)
            scores, output = codabench_scoring_step(files, task, prediction, where)
            # api/views/submissions.py, upload_submission_scores skips keys that are no column.
            assert list(scores) == columns, (phase["name"], form)
            assert all(math.isfinite(value) for value in scores.values())
            page = watched_page(output)
            assert page == os.path.join(output, "detailed_results.html")
            with open(page) as stream:
                assert "</html>" in stream.read()
            if os.path.isdir(os.path.join(output, "private")):
                assert scoring_result_for_participant(phase) is None  # private/ is in that zip
            assert prediction_result_for_non_admin(phase) is None  # a copy of the participant's files
            results.append(scores)
        assert results[0] == results[1]


@pytest.mark.parametrize("track", TRACKS)
def test_codabench_every_phase_scores_flat_and_wrapped_submissions(dist, track, tmp_path):
    check_codabench_phases_score(codabench_zip(dist, track), tmp_path)


def test_platform_metadata_is_told_from_the_participants_file(tmp_path):
    res = str(tmp_path / "res")
    os.makedirs(os.path.join(res, "lines"))
    open(os.path.join(res, "lines", "p.png"), "w").close()
    with open(os.path.join(res, "metadata"), "w") as stream:
        stream.write(yaml.dump({"exitCode": None, "elapsedTime": None, "ingestionExitCode": None,
                                "ingestionElapsedTime": None}, default_flow_style=False))
    assert layout.is_platform_metadata(res, "metadata")
    assert Submission(index_submission(res, str(tmp_path / "ref"))).entries() == ["lines"]
    for content in ("command: python run.py\n", "my notes\n", "exitCode: 0\nmethod: cnn\n", ""):
        with open(os.path.join(res, "metadata"), "w") as stream:
            stream.write(content)
        assert not layout.is_platform_metadata(res, "metadata"), content
        assert Submission(index_submission(res, str(tmp_path / "ref"))).entries() == ["lines", "metadata"]
    os.remove(os.path.join(res, "metadata"))
    shutil.rmtree(os.path.join(res, "lines"))
    with open(os.path.join(res, "metadata"), "w") as stream:
        stream.write("- exitCode: 0\n  elapsedTime: 1.5\n")  # v1.5, several commands
    with pytest.raises(Exception) as refused:
        index_submission(res, str(tmp_path / "ref"))
    assert "empty" in str(refused.value.sentence)


# ---------------------------------------------------------------------------- leaderboards


def postgresql_order(rows, columns, primary_index):
    """api/serializers/leaderboards.py, LeaderboardPhaseSerializer.get_submissions: order by
    the primary column (desc = '-primary_col'), then the other columns by index, then
    created_when. PostgreSQL sorts NULL as larger than any value: first in a descending
    order, last in an ascending one (checked on a real server: docs/organizers.md)."""
    def key(row):
        parts = []
        ordered = [c for c in columns if c["index"] == primary_index]
        ordered += sorted((c for c in columns if c["index"] != primary_index), key=lambda c: c["index"])
        for column in ordered:
            value = row["scores"].get(column["key"])
            missing = value is None
            if column["sorting"] == "desc":
                parts.append((0, 0) if missing else (1, -value))
            else:
                parts.append((1, 0) if missing else (0, value))
        parts.append((0, row["created"]))
        return parts
    return sorted(rows, key=key)


def leaderboard_rows(ordered):
    """api/views/competitions.py, PhaseViewSet.get_leaderboard: one row per owner and parent
    submission, placed where its first child comes in the order."""
    seen = []
    for row in ordered:
        name = (row["owner"], row.get("parent") or row["id"])
        if name not in seen:
            seen.append(name)
    return [owner for owner, _ in seen]


def test_postgresql_order_ranks_a_child_without_the_primary_first():
    """The earlier bundle's layout (one phase, one task per track): a participant's events
    child has no uar, so it comes first and ranks its owner by another track."""
    columns = [{"key": "uar", "index": 0, "sorting": "desc"}, {"key": "map", "index": 1, "sorting": "desc"}]
    rows = [
        {"id": 1, "owner": "ana", "parent": 10, "created": 1, "scores": {"uar": 0.9}},
        {"id": 2, "owner": "ana", "parent": 10, "created": 1, "scores": {"map": 0.1}},
        {"id": 3, "owner": "bo", "parent": 20, "created": 2, "scores": {"uar": 0.5}},
        {"id": 4, "owner": "bo", "parent": 20, "created": 2, "scores": {"map": 0.8}},
    ]
    # NULL uar first (desc), the tie broken by map desc: bo's events child, then ana's.
    assert leaderboard_rows(postgresql_order(rows, columns, 0)) == ["bo", "ana"]
    by_own_track = [r for r in rows if "uar" in r["scores"]]
    assert leaderboard_rows(postgresql_order(by_own_track, columns, 0)) == ["ana", "bo"]


@pytest.mark.parametrize("track", TRACKS)
def test_codabench_leaderboard_ranks_by_the_tracks_primary_key(dist, track):
    """A competition of one track: one task per phase, so no child submissions, and every
    scoring run fills every column (test above); the primary column is the track's first
    key. With Force_Last one submission per participant stays on the leaderboard."""
    _, competition = codabench_zip(dist, track)
    board = competition["leaderboards"][0]
    primary = [c for c in board["columns"] if c["index"] == board["primary_index"]][0]
    development = [p for p in make_bundle.sample_tracks(os.path.join(ROOT, "input")) if p[0] == track][0]
    assert primary["key"] == make_bundle.phase_keys(development[2])[0]
    assert all(len(phase["tasks"]) == 1 for phase in competition["phases"])
    rows = [{"id": n, "owner": "p%d" % n, "created": n,
             "scores": dict((c["key"], (n * 37 % 11) / 10.0) for c in board["columns"])} for n in range(1, 8)]
    ranked = leaderboard_rows(postgresql_order(rows, board["columns"], board["primary_index"]))
    reverse = primary["sorting"] == "desc"
    expected = [r["owner"] for r in sorted(rows, key=lambda r: (-r["scores"][primary["key"]] if reverse
                                                               else r["scores"][primary["key"]], r["id"]))]
    assert ranked == expected


def phase_status(start, end, now):
    """src/apps/api/serializers/competitions.py, PhaseSerializer.get_status (naive datetimes,
    recomputed at each request): started when start <= now, ended when an end exists and
    end < now; Previous when both, Current when started only, Next otherwise. The submission
    page uploads only to a Current phase (src/static/riot/competitions/detail/
    submission_upload.tag, check_can_upload)."""
    started = not start > now
    ended = started and end is not None and end < now
    if started and ended:
        return "Previous"
    return "Current" if started else "Next"


@pytest.mark.parametrize("track", TRACKS)
def test_codabench_phase_statuses_and_the_warning_of_a_closed_schedule(dist, track):
    """At every moment around the schedule at most one phase is Current, and the build warns
    exactly when Codabench would show both phases as Previous (the demo's dates are in the past
    on 2026-11-23: its site then offered no upload form, the API still took submissions)."""
    _, competition = codabench_zip(dist, track)
    phases = [(get_datetime(p["start"]), get_datetime(p["end"])) for p in competition["phases"]]
    first, last = phases[0][0], phases[-1][1]
    second = datetime.timedelta(seconds=1)
    moments = [first - second, first, phases[0][1], phases[0][1] + 30 * second, phases[1][0], last, last + second,
               datetime.datetime(2026, 11, 23)]
    for now in moments:
        statuses = [phase_status(start, end, now) for start, end in phases]
        assert statuses.count("Current") <= 1, (now, statuses)
        assert statuses == [codabench.phase_status(start, end, now) for start, end in phases]
        closed = [w for w in codabench.warnings(described(SOURCE), now) if "every phase" in w]
        assert bool(closed) == (statuses == ["Previous", "Previous"]), (now, statuses, closed)
    assert [phase_status(s, e, phases[0][0] + datetime.timedelta(days=1)) for s, e in phases] == ["Current", "Next"]


# ---------------------------------------------------------------------------- Codabench: the final reference withheld


@pytest.fixture(scope="module")
def withheld(tmp_path_factory):
    """The demo built with codabench_final_reference: withheld in its source.yaml:
    (organizer's folder, dist)."""
    root = str(tmp_path_factory.mktemp("withheld"))
    folder = make_bundle.demo_competition(os.path.join(ROOT, "input"), root)
    with open(os.path.join(folder, "source.yaml"), "a") as stream:
        stream.write("codabench_final_reference: withheld\n")
    target = os.path.join(root, "dist")
    make_bundle.build(target, folder)
    return folder, target


def final_task(competition):
    """The task of the Codabench competition's final phase (index 1)."""
    (phase,) = [p for p in competition["phases"] if p["index"] == 1]
    (task,) = [t for t in competition["tasks"] if t["index"] in phase["tasks"]]
    return phase, task


def perturbed_labels(ref_dir, target):
    """A copy of a reference whose every label differs: authentication and events labels all
    1, every lines page one white rectangle. Names, sizes and track.yaml are kept."""
    from PIL import Image

    shutil.copytree(ref_dir, target)
    for folder, _, names in os.walk(target):
        for name in names:
            path = os.path.join(folder, name)
            if name.endswith(".csv"):
                with open(path) as stream:
                    rows = stream.read().splitlines()
                rows = rows[:1] + [row.rsplit(",", 1)[0] + ",1" for row in rows[1:] if row]
                with open(path, "w") as stream:
                    stream.write("\n".join(rows) + "\n")
            elif name.endswith(".txt"):
                with open(path) as stream:
                    rows = [row.split()[0] + " 1" for row in stream.read().splitlines() if row.strip()]
                with open(path, "w") as stream:
                    stream.write("\n".join(rows) + "\n")
            elif name.endswith(".png"):
                with Image.open(path) as image:
                    size = image.size
                Image.new("L", size, 255).save(path)
    return target


@pytest.mark.parametrize("track", TRACKS)
def test_withheld_final_reference_holds_no_ground_truth(withheld, track, tmp_path):
    """The Codabench competition's final task carries the stand-in: no file of the real final
    reference, a track.yaml that says stand_in: true and is otherwise the real one, and the
    very same bytes when every label of the real reference is changed (it is built from
    names and sizes only: public.public_items). The v1.5 zip keeps the real reference."""
    folder, dist = withheld
    files, competition = codabench_zip(dist, track)
    check_codabench_yaml((files, competition))
    _, task = final_task(competition)
    assert task["reference_data"] == "%s_final_stand_in_reference.zip" % track
    assert "%s_final_reference.zip" % track not in files
    stand_in = read_zip(files[task["reference_data"]])
    with open(os.path.join(dist, track, "codabench_final_reference_%s.zip" % track), "rb") as stream:
        real_zip = stream.read()  # the organizer's final/<track>/, its track.yaml with the titles
    real = read_zip(real_zip)
    for name, data in real.items():
        assert data not in stand_in.values(), name
    config = yaml.safe_load(stand_in["track.yaml"])
    assert config.pop("stand_in") is True
    assert config == yaml.safe_load(real["track.yaml"])
    assert set(stand_in) == set(real)  # the same names: a submission is read as on the real data
    real_dir = str(tmp_path / "real")
    extract(real_zip, real_dir)
    phase = make_bundle.Phase(track, config["track"], "final", perturbed_labels(real_dir, str(tmp_path / "p")),
                              None, [])
    assert described({}).stand_in(phase) == files[task["reference_data"]]
    v15_files, v15 = codalab_zip(dist, track)
    assert read_zip(v15_files[v15["phases"][2]["reference_data"]]) == real
    # the overview tells participants what Codabench's final phase shows until it closes; v1.5's does not
    assert codabench.WITHHELD in files["overview.html"].decode("utf-8")
    assert codabench.WITHHELD not in v15_files["overview.html"].decode("utf-8")


@pytest.mark.parametrize("track", TRACKS)
def test_withheld_final_phase_validates_and_scores_nothing(withheld, track, tmp_path):
    """Through the modelled Codabench flow, every phase takes its sample flat and wrapped and
    fills every column; the final phase's scores are all 0 and its page says the submission is
    valid and will be scored after the phase closes."""
    from scoring import runner

    _, dist = withheld
    v2 = codabench_zip(dist, track)
    check_codabench_phases_score(v2, tmp_path / "phases")
    files, competition = v2
    phase, task = final_task(competition)
    (solution,) = [s for s in competition["solutions"] if s["tasks"] == phase["tasks"]]
    for form, submission in (("flat", files[solution["path"]]),
                             ("wrapped", wrapped(files[solution["path"]], "submission"))):
        where = str(tmp_path / form)
        scores, output = codabench_scoring_step(files, task, codabench_prediction_step(submission, where), where)
        assert list(scores) == [c["key"] for c in competition["leaderboards"][0]["columns"]]
        assert set(scores.values()) == {0.0}
        with open(watched_page(output), encoding="utf-8") as stream:
            assert html_text(stream.read()).count(runner.PENDING) == 1
        assert not os.path.exists(os.path.join(output, "private"))


def html_text(page):
    import html
    return html.unescape(page)


def without_first_data_file(submission):
    """The submission without its first file (README.md kept): a file the phase requires."""
    entries = sorted(read_zip(submission).items())
    dropped = [name for name, _ in entries if name != "README.md"][0]
    return model.zip_entries([(n, d) for n, d in entries if n != dropped]), dropped


@pytest.mark.parametrize("track", TRACKS)
def test_withheld_final_phase_refuses_a_bad_submission_as_the_real_data_do(withheld, track, tmp_path):
    from conftest import run_scorer

    _, dist = withheld
    files, competition = codabench_zip(dist, track)
    v15_files, v15 = codalab_zip(dist, track)
    phase, task = final_task(competition)
    (solution,) = [s for s in competition["solutions"] if s["tasks"] == phase["tasks"]]
    bad, dropped = without_first_data_file(files[solution["path"]])
    assert dropped
    runs = []
    for label, reference in (("stand-in", files[task["reference_data"]]),
                             ("real", v15_files[v15["phases"][2]["reference_data"]])):
        os.makedirs(str(tmp_path / label))
        extract(reference, str(tmp_path / label / "ref"))
        extract(bad, str(tmp_path / label / "res"))
        runs.append(run_scorer(tmp_path / label, tmp_path / label / "out"))
    assert [run.status for run in runs] == [1, 1], [run.stderr for run in runs]
    assert runs[0].last_line == runs[1].last_line and runs[0].last_line.startswith("Submission error: ")


@pytest.mark.parametrize("track", TRACKS)
def test_withheld_real_reference_scores_as_the_real_phase(withheld, track, tmp_path):
    """After the deadline the organizer uploads codabench_final_reference_<track>.zip as a
    dataset of type reference_data and sets it as the final task's reference_data (api/views/
    tasks.py, TaskViewSet.update; api/serializers/tasks.py, TaskSerializer: a SlugRelatedField
    by the dataset's key); rerun_submissions (api/views/competitions.py) calls Submission.re_run
    (competitions/models.py) with the same task and data, and _send_to_compute_worker
    (competitions/tasks.py) sends the task's reference_data as it is then. The sample then
    scores exactly as the v1.5 final phase scores it, flat and wrapped."""
    _, dist = withheld
    files, competition = codabench_zip(dist, track)
    v15_files, v15 = codalab_zip(dist, track)
    phase, task = final_task(competition)
    with open(os.path.join(dist, track, "codabench_final_reference_%s.zip" % track), "rb") as stream:
        real = stream.read()
    assert real == v15_files[v15["phases"][2]["reference_data"]]
    files = dict(files, real_reference=real)
    task = dict(task, reference_data="real_reference")
    (solution,) = [s for s in competition["solutions"] if s["tasks"] == phase["tasks"]]
    expected, _ = play_v15(v15_files, v15["phases"][2], str(tmp_path / "v15"), submission=files[solution["path"]])
    for form, submission in (("flat", files[solution["path"]]),
                             ("wrapped", wrapped(files[solution["path"]], "submission"))):
        where = str(tmp_path / form)
        scores, _ = codabench_scoring_step(files, task, codabench_prediction_step(submission, where), where)
        assert list(scores.items()) == expected, form


def test_the_build_warns_unless_the_final_reference_is_withheld():
    warned = [w for w in codabench.warnings(described(SOURCE)) if "codabench_final_reference: withheld" in w]
    assert len(warned) == 1 and warned[0].count(". ") == 0  # one sentence
    source = dict(SOURCE, codabench_final_reference="withheld")
    assert not [w for w in codabench.warnings(described(source)) if "codabench_final_reference" in w]


# ---------------------------------------------------------------------------- both


@pytest.mark.parametrize("track", TRACKS)
def test_terms_say_what_each_platform_shows_to_anyone(dist, track):
    """Each platform's terms say what it shows beyond the participant. v1.5: apps/web/views.py,
    MyCompetitionSubmissionOutput.get serves detailed_results.html of a submission that has a
    PhaseLeaderBoardEntry to any visitor (force_submission_to_leaderboard puts every finished
    submission there). Codabench (run at c7dbc75): an anonymous get_details of a leaderboard
    submission gave its data_file, the zip the participant uploaded, whatever the phase's
    options short of hide_output, and whether the competition was published or not; the
    reference data of every task are downloadable. EvalAI (run at 0f04039): the leaderboard
    ranks each team's best public submission."""
    files, _ = codalab_zip(dist, track)
    terms = " ".join(files["terms.html"].decode("utf-8").split())
    assert "detailed results page of the submission on the leaderboard (your latest) can be opened by anyone" in terms
    assert "Codabench" not in terms and "EvalAI" not in terms
    files, _ = codabench_zip(dist, track)
    terms = " ".join(files["terms.html"].decode("utf-8").split())
    assert "the zip you uploaded, whose address Codabench gives to every visitor" in terms
    assert "whether or not the competition is published" in terms
    assert "the final phase's test set included" in terms  # the demo includes its final reference
    files = read_zip(os.path.join(dist, track, "evalai_challenge.zip"))
    terms = " ".join(files["templates/terms.html"].decode("utf-8").split())
    assert "each team's best public submission" in terms and "never listed to participants" in terms


def test_final_reference_data_hide_the_ground_truth(dist):
    """No final phase ships public_details: true (the lines page would draw the hidden
    ground truth): check_public_details refuses it unless source.yaml marks the phase."""
    for track in TRACKS:
        reference = read_zip(os.path.join(dist, track, "%s_final_reference.zip" % track))
        config = yaml.safe_load(reference["track.yaml"])
        assert config.get("public_details") is not True, track


def test_build_refuses_a_public_final_phase_unless_marked(tmp_path):
    ref = str(tmp_path / "ref")
    os.makedirs(ref)
    with open(os.path.join(ref, "track.yaml"), "w") as stream:
        stream.write("track: lines\npublic_details: true\n")
    phase = make_bundle.Phase("lines", "lines", "final", ref, ref, columns_of(["line_iu"]))
    source = {"phases": {"final": {}}}
    with pytest.raises(SystemExit) as refused:
        model.check_public_details(source, [phase])
    assert "public_details: true" in str(refused.value) and "lines" in str(refused.value)
    source["phases"]["final"]["public_details"] = True
    model.check_public_details(source, [phase])
    phase.stage = "development"
    model.check_public_details({"phases": {"final": {}}}, [phase])


def test_titles_fit_without_cutting_words():
    # A column's title: the organizer's label of the key, else [qualifier] [stratum as
    # written] [the metric's label]; too long, the metric's name in capitals; then the key.
    ra, line_iu = Metric("Recognition accuracy", ""), Metric("Line IU", "")
    source = {"tracks": {"lines": {"labels": {"line_iu": "Line IU (mean)"}}}}
    assert model.column_label(source, "lines", Column("ra", "ra", ra), 36) == "Recognition accuracy"
    assert model.column_label(source, "lines", Column("line_iu", "line_iu", line_iu), 36) == "Line IU (mean)"
    latin2 = Column("latin2_ra", "ra", ra, "Latin2", what="manuscript")
    assert model.column_label(source, "lines", latin2, 36) == "Latin2 Recognition accuracy"
    long = Column("fest2025_latin14396_ra", "ra", ra, "Latin14396", "fest2025", "manuscript")
    assert model.column_label(source, "lines", long, 36) == "fest2025 Latin14396 RA"
    assert model.column_label(source, "lines", long, 50) == "fest2025 Latin14396 Recognition accuracy"
    syriac = Column("fest2025_syriaque341_line_iu", "line_iu", line_iu, "Syriaque341", "fest2025", "manuscript")
    assert model.column_label(source, "lines", syriac, 36) == "fest2025 Syriaque341 Line IU (mean)"
    accented = Column("sevigne_accuracy", "accuracy", Metric("accuracy", ""), "Sévigné", what="subset")
    assert model.column_label(source, "auth", accented, 36) == "Sévigné accuracy"
    cut = Column("x_" + "y" * 30, "line_iu", line_iu, "A manuscript named at length", "fest2025")
    assert model.column_label(source, "lines", cut, 36) == cut.key.replace("_", " ")  # nothing else fits
    for track in TRACKS:
        columns = make_bundle.phase_columns(os.path.join(ROOT, "input", "ref", track))
        for column in columns:
            for limit in (codabench.MAX_TITLE, codalab.MAX_LABEL):
                title = model.column_label(SOURCE, track, column, limit)
                assert len(title) <= limit
                labels = " ".join(list(SOURCE["tracks"][track].get("labels", {}).values())
                                  + [column.key.replace("_", " "), column.metric.title, column.stratum or "",
                                     column.qualifier or ""])
                words = set(labels.split()) | set(labels.upper().split())
                assert set(title.split()) <= words, title


def test_track_competition_title_fits_codalab():
    """apps/web/models.py, Competition.title is CharField(max_length=100): a track's own
    competition is titled "<competition>: <track>" when that fits, else by the track's title;
    a title the organizer wrote too long stops the build."""
    source = {"title": "x" * 80, "description": " ", "tracks": {"short": {"title": "Lines", "description": ""},
                                            "long": {"title": "Cultural events (ChaLearn)", "description": ""}}}
    assert make_bundle.track_source(source, "short")["title"] == "x" * 80 + ": Lines"  # 87 characters
    assert make_bundle.track_source(source, "long")["title"] == "Cultural events (ChaLearn)"  # 108 otherwise
    base = {"description": "", "logo": "logo.png", "docker_image": "image"}
    assert codalab.base(base, "y" * V15_MAX_TITLE, None)["title"] == "y" * V15_MAX_TITLE
    with pytest.raises(SystemExit) as refused:
        codalab.base(base, "y" * (V15_MAX_TITLE + 1), None)
    assert "101 characters" in str(refused.value) and "100" in str(refused.value)


def test_build_refuses_a_key_too_long_for_codabench():
    phase = make_bundle.Phase("lines", "lines", "development", "", "",
                              columns_of(["a_manuscript_with_a_long_name_line_iu"]))
    with pytest.raises(SystemExit) as refused:
        model.check_keys([phase], [codabench.KEY_LIMIT, codalab.KEY_LIMIT])
    assert "36" in str(refused.value) and "a_manuscript_with_a_long_name_line_iu" in str(refused.value)


def test_schedule_refuses_dates_out_of_order():
    source = {"dates": {"development": "2026-04-01", "final": "2026-04-01 00:00:30", "end": "2026-05-01"}}
    with pytest.raises(SystemExit):
        model.schedule(source, codabench.PHASE_GAP)
    source["dates"]["final"] = datetime.date(2026, 4, 2)
    assert model.schedule(source, codabench.PHASE_GAP)[1] == datetime.datetime(2026, 4, 2)


def check_same_keys(v15, v2):
    assert list(v15[1]["leaderboard"]["columns"]) == [c["key"] for c in v2[1]["leaderboards"][0]["columns"]]


def check_evaluation_page(v15):
    files, competition = v15
    page = files[competition["html"]["evaluation"]].decode("utf-8")
    for key in competition["leaderboard"]["columns"]:
        assert "<code>%s</code>" % key in page, key


@pytest.mark.parametrize("track", TRACKS)
def test_both_platforms_list_the_same_keys_and_the_page_explains_them(dist, track):
    check_same_keys(codalab_zip(dist, track), codabench_zip(dist, track))
    check_evaluation_page(codalab_zip(dist, track))


def test_committed_competition_files_are_current():
    assert make_bundle.check(), "run `make bundle` and commit competition/codalab/ and competition/codabench/"


def test_the_build_warns_of_a_time_limit_over_codabenchs_default_queue():
    """competitions/tasks.py, _send_to_compute_worker: a phase on the default queue runs at most
    MAX_EXECUTION_TIME_LIMIT (600 s; the run at c7dbc75 handed the worker 600 for the phases'
    1800) unless the competition names its own queue."""
    def warned(**fields):
        return [w for w in codabench.warnings(described(dict(SOURCE, **fields))) if "default queue" in w]

    assert len(warned(execution_time_limit=601)) == 1 and "601 s" in warned(execution_time_limit=601)[0]
    assert not warned(execution_time_limit=600)
    assert not warned(execution_time_limit=1800, codabench_queue="my-vhost")


def test_the_build_warns_while_the_data_page_is_the_placeholder(tmp_path):
    page = tmp_path / "data.html"
    page.write_text("<h2>Data</h2><p>Download it from our server.</p>")
    placeholder = [w for w in make_bundle.warnings(described(dict(SOURCE, pages={}))) if "data page" in w]
    assert len(placeholder) == 1 and "pages: data:" in placeholder[0]
    assert not [w for w in make_bundle.warnings(described(dict(SOURCE, pages={"data": str(page)})))
                if "data page" in w]
