"""Codabench (codalab/codabench): codabench_competition.zip, one competition per track.

Codabench gives every phase of a competition its first leaderboard, ranks a phase by one
primary column, and in a phase with one task per track each task is a child submission
whose other tracks' columns are empty; PostgreSQL sorts those empty values first in a
descending order, so a participant would be ranked by another track's score. A competition
of one track has one task per phase and every column filled by every scoring run
(docs/organizers.md, "The platforms").

What Codabench shows to whom, and what the bundle sets (api/serializers/submissions.py,
SubmissionFilesSerializer; api/views/submissions.py, SubmissionViewSet.get_details, which
any visitor may call for a submission on the leaderboard, published competition or not:
SubmissionViewSet.get_queryset):
  scoring_result     the scoring output zip, private/ included: hidden from participants by
                     hide_score_output
  prediction_result  the prediction step's output (a copy of the participant's files and
                     the worker's metadata): hidden from everyone but the organizers by
                     hide_prediction_output, since the visitors of a leaderboard need none of it
  detailed_result    the detailed results page: shown (its address to any visitor)
  logs               the scoring run's stdout and stderr: shown (the participant's error sentence)
  data_file          the zip the participant uploaded: shown to anyone who may read the
                     submission, whatever the phase's options (only hide_output hides it, and it
                     also hides the participant's own logs and error sentence): the terms say so
The reference data of every task are listed by the competition's API and downloadable by
anyone (api/serializers/tasks.py, PhaseTaskInstanceSerializer.get_public_datasets;
datasets/views.py, download): the real final reference can be withheld until the deadline.
"""

import datetime

from . import model

NAME = "Codabench"
ZIP = "codabench_competition.zip"
FOLDER = "codabench"  # competition/codabench/<track>.yaml: the demo's, committed

# leaderboards/models.py: Column.key and Column.title are CharField(max_length=36),
# Leaderboard.key max_length=36, Leaderboard.title max_length=64.
MAX_KEY = 36
MAX_TITLE = 36
MAX_BOARD_TITLE = 64
KEY_LIMIT = (NAME, MAX_KEY, "Column.key")
# competitions/unpackers/base_unpacker.py, _validate_phase_ordering refuses a phase that
# starts before or exactly when the previous one ends; the development phase ends this long
# before the final phase starts.
PHASE_GAP = datetime.timedelta(minutes=1)
# competitions/tasks.py, _send_to_compute_worker caps a phase's limit at
# MAX_EXECUTION_TIME_LIMIT (600 s by default) unless the competition names its own queue.
DEFAULT_QUEUE_LIMIT = 600
# leaderboards/models.py, Leaderboard.FORCE_LAST ("Force only the last submission"):
# leaderboards/strategies.py, LastestModeStrategy puts every finished submission on the
# leaderboard in place of the participant's previous one, as v1.5's
# force_submission_to_leaderboard does (apps/web/models.py, add_submission_to_leaderboard).
SUBMISSION_RULE = "Force_Last"
RULE = "Your latest submission of this phase is your entry on the leaderboard."
# With codabench_final_reference: withheld in source.yaml, the final task carries a stand-in
# (public.stand_in_reference: names and sizes, no ground truth, track.yaml stand_in: true)
# and the real reference is a separate zip, attached by the organizer after the deadline.
FINAL_REFERENCE_CHOICES = ("included", "withheld")

# The overview's final phase in a competition whose final task holds a stand-in reference.
WITHHELD = (" The test set's ground truth is not on this platform until the final phase closes: a final-phase "
            "submission is checked exactly as the test set will check it, shows 0 in every column and says so "
            "on its detailed results page, and is scored against the test set once the phase has closed.")
UPLOADS = (
    "<p>On Codabench, anyone, signed in or not and whether or not the competition is published, can open the "
    "details of a submission on the leaderboard (your latest): its detailed results page, its logs and the zip you "
    "uploaded, whose address Codabench gives to every visitor of that submission. The scoring output and the copy "
    "of your files made by the platform's prediction step are shown to the organizers only.</p>\n")
REFERENCE = {
    "withheld": (
        "<p>Codabench lets anyone download the reference data of every phase through the competition's "
        "programming interface: the development phase's are public in this way, and the test set's ground truth "
        "is attached only after the final phase has closed.</p>\n"),
    "included": (
        "<p>Codabench lets anyone download the reference data of every phase through the competition's "
        "programming interface, the final phase's test set included: using its ground truth to make a "
        "submission breaks these terms.</p>\n"),
}


def final_reference_withheld(source):
    """True if the Codabench competition's final task carries a stand-in reference."""
    return source.get("codabench_final_reference") == "withheld"


def texts(competition):
    """What the pages tell participants on Codabench (pages.generate)."""
    choice = "withheld" if final_reference_withheld(competition.source) else "included"
    return {"platform": NAME, "counts": "your last submission counts",
            "overview": WITHHELD if choice == "withheld" else "", "seen": "",
            "terms": UPLOADS + REFERENCE[choice]}


def reference_of(competition, phase):
    """The zip name of the phase's reference data in the Codabench competition: the stand-in's
    for a withheld final phase, else the phase's own."""
    if phase.stage == "final" and final_reference_withheld(competition.source):
        return phase.stand_in_zip
    return phase.reference_zip


def date(moment):
    """A quoted 'YYYY-MM-DD HH:MM:SS' string: competitions/unpackers/utils.py, get_datetime
    turns any YAML date or datetime into midnight of its day (a datetime is a date there),
    and parses a string with dateutil, keeping the time."""
    return moment.strftime(model.DATE_FORMAT)


def phase_spec(competition, phase, index, start, end):
    """One Codabench phase: the keys competitions/unpackers/v2.py, V2Unpacker._unpack_phases
    reads. execution_time_limit is in seconds (competitions/models.py, Phase); hide_score_output
    and hide_prediction_output keep the scoring output zip (which holds private/) and the
    prediction step's copy of the submission to the organizers (SubmissionFilesSerializer,
    get_scoring_result and get_prediction_result) while logs and the detailed results stay
    visible (hide_output would hide those too)."""
    settings = competition.stage_settings(phase)
    withheld = WITHHELD if phase.stage == "final" and final_reference_withheld(competition.source) else ""
    return {
        "index": index,
        "name": settings["label"],
        "description": "%s %s%s" % (settings["description"], RULE, withheld),
        "start": date(start),
        "end": date(end),
        "max_submissions": settings["max_submissions"],
        "max_submissions_per_day": settings["max_submissions_per_day"],
        "execution_time_limit": competition.time_limit(),
        "auto_migrate_to_this_phase": False,
        "hide_output": False,
        "hide_prediction_output": True,
        "hide_score_output": True,
        "starting_kit": phase.kit_zip,
        "tasks": [index],
    }


def refusal(competition):
    """Why these phases cannot be one Codabench competition, or None.

    Codabench gives every phase the competition's first leaderboard
    (competitions/unpackers/base_unpacker.py, _save_competition), ranks it by one primary
    column (api/serializers/leaderboards.py, LeaderboardPhaseSerializer.get_submissions)
    and refuses phases that overlap (_validate_phase_ordering): tracks running side by side
    would be ranked by the first track's primary column, whose empty values PostgreSQL
    puts first.
    """
    tracks = competition.tracks
    if len(tracks) > 1:
        return ("Codabench ranks every phase of a competition on one leaderboard by one primary column, and "
                "its phases cannot overlap, so %d tracks side by side would be ranked by one track's score; "
                "upload each track's own competition (make_bundle.py without --together) to Codabench."
                % len(tracks))
    return None


def document(competition):
    """The Codabench competition.yaml (version 2) of one track: a development phase that ends
    PHASE_GAP before the final phase starts, one task per phase (the track at the root of its
    reference data, as on v1.5), one leaderboard ranked by the track's primary key."""
    competition.check([KEY_LIMIT])
    sentence = refusal(competition)
    if sentence:
        raise model.BundleError(sentence)
    source = competition.source
    track_name = competition.tracks[0].name
    development_start, final_start, end = competition.schedule(PHASE_GAP)
    development, final = competition.phases_of(track_name)
    title = competition.track_title(development)
    tasks = []
    solutions = []
    for index, phase in enumerate((development, final)):
        label = competition.stage_settings(phase)["label"]
        reference = reference_of(competition, phase)
        description = "Track %s, %s data." % (phase.name, phase.stage)
        if reference != phase.reference_zip:
            description = ("Track %s, %s data: a stand-in (names and sizes, no ground truth); after the phase "
                           "closes, replace it by %s and rerun the submissions." % (phase.name, phase.stage,
                                                                                   phase.codabench_final_zip))
        tasks.append({
            "index": index,
            "name": "%s: %s" % (model.in_sentence(title), label),
            "description": description,
            "scoring_program": "scoring_program.zip",
            "reference_data": reference,
        })
        solutions.append({
            "index": index,
            "name": "Sample submission (%s)" % phase.stage,
            "tasks": [index],
            "path": phase.submission_zip,
        })
    columns = [{
        "title": column_title,
        "key": key,
        "index": index,
        "sorting": order,
        "precision": source["numeric_format"],
        "hidden": False,
    } for index, (key, column_title, order) in enumerate(competition.columns(development, MAX_TITLE))]
    spec = {
        "version": 2,
        "title": source["title"],
        "description": source["description"],
        "image": source["logo"],
        "docker_image": source["docker_image"],
        "enable_detailed_results": True,
        "registration_auto_approve": False,
        "terms": "terms.html",
        "pages": [{"title": name.capitalize(), "file": name + ".html"} for name in model.PAGE_NAMES],
        "phases": [
            phase_spec(competition, development, 0, development_start, final_start - PHASE_GAP),
            phase_spec(competition, final, 1, final_start, end),
        ],
        "tasks": tasks,
        "solutions": solutions,
        "leaderboards": [{
            "title": model.fit(title, MAX_BOARD_TITLE, "The leaderboard title"),
            "key": "results",
            "primary_index": 0,
            "submission_rule": SUBMISSION_RULE,
            "hidden": False,
            "columns": columns,
        }],
    }
    queue = source.get("codabench_queue")
    if queue:
        spec["queue"] = queue
    return spec


def files(competition):
    """[(name, bytes)]: codabench_competition.zip and, with a withheld final reference, the
    real one beside it (codabench_final_reference_<track>.zip). None if refused."""
    if refusal(competition):
        return []
    text = model.dump_yaml(document(competition))
    references = {}
    beside = []
    if final_reference_withheld(competition.source):
        for phase in competition.phases:
            if phase.stage == "final":
                references[phase.reference_zip] = (phase.stand_in_zip, competition.stand_in(phase))
                beside.append((phase.codabench_final_zip, competition.reference(phase)))
    common = model.common_files(competition, texts(competition))
    return [(ZIP, model.zip_entries(model.competition_files(text, common, competition, references)))] + beside


def phase_status(start, end, now):
    """The status Codabench's API gives a phase at the moment `now` (naive UTC), computed from
    its dates at each request (api/serializers/competitions.py, PhaseSerializer.get_status):
    Next before its start, Previous after its end, else Current. The submission page uploads
    only to a Current phase (static/riot/competitions/detail/submission_upload.tag,
    check_can_upload: "This phase has ended and no longer accepts submissions!")."""
    if start > now:
        return "Next"
    return "Previous" if end is not None and end < now else "Current"


def warnings(competition, now=None):
    """What the organizer should know before uploading to Codabench (now: naive UTC, by
    default the present moment)."""
    source = competition.source
    if now is None:
        now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    found = []
    development_start, final_start, end = competition.schedule(PHASE_GAP)
    if phase_status(final_start, end, now) == "Previous":
        found.append(
            "every phase of the schedule has ended (end %s UTC): Codabench shows both phases as Previous "
            "(api/serializers/competitions.py, PhaseSerializer.get_status) and its submission page accepts "
            "no upload; set dates in the competition's source.yaml to open the development phase."
            % end.strftime(model.DATE_FORMAT))
    limit = competition.time_limit()
    if limit > DEFAULT_QUEUE_LIMIT and not source.get("codabench_queue"):
        found.append(
            "execution_time_limit is %d s but Codabench's default queue caps a run at %d s "
            "(competitions/tasks.py, MAX_EXECUTION_TIME_LIMIT); name your own queue's vhost as "
            "codabench_queue in the competition's source.yaml to keep the whole limit."
            % (limit, DEFAULT_QUEUE_LIMIT))
    if final_reference_withheld(source) and "overview" in source["pages"]:
        found.append(
            "your own overview page replaces the generated one, which tells participants that final-phase "
            "submissions read 0 in every column until you attach the real reference and rerun them; Codabench's final "
            "phase description and each submission's detailed results page say so; say it in your overview too.")
    if not final_reference_withheld(source):
        found.append(
            "Codabench lists the final phase's reference data in its competition API and serves them to anyone "
            "who asks (api/serializers/tasks.py, PhaseTaskInstanceSerializer.get_public_datasets; datasets/views.py, "
            "download), so its hidden ground truth can be downloaded; set codabench_final_reference: withheld in the "
            "competition's source.yaml to upload a stand-in and attach the real reference after the deadline.")
    return found


def manifest(competition):
    sentence = refusal(competition)
    withheld = final_reference_withheld(competition.source) and not sentence
    held = [p.codabench_final_zip for p in competition.phases if p.stage == "final" and withheld]
    notes = ["its final phase holds a stand-in reference; after it closes, attach %s as its reference data and "
             "rerun its submissions (docs/organizers.md)." % name for name in held]
    return {"zip": None if sentence else ZIP, "refusal": sentence, "final_reference": held,
            "notes": notes + ([] if sentence else model.shortened(competition, MAX_TITLE, NAME))}
