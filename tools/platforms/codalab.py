"""Codalab v1.5 (codalab/codalab-competitions): competition.zip, for self-hosted v1.5
servers (the public server took its last submissions at the end of 2025).

Its competition.yaml is read by apps/web/models.py, CompetitionDefBundle.unpack: the top
level goes to Competition(**), each phase to CompetitionPhase.objects.get_or_create(**), so
a key that is no field of those models fails the upload (Codabench's hide_* options
cannot be written here).

Not for Codabench (run at c7dbc75: docs/organizers.md): its unpacker converts a v1.5 zip
(competitions/unpackers/v1.py, V15Unpacker), but the phases it makes show participants the
scoring output, private/ included (hide_score_output and hide_prediction_output are read
from the v1.5 phase, which cannot carry them), its leaderboard takes no submission until
the participant adds one (no submission rule is read), and a column label over Codabench's
36 characters (v1.5 allows 50) fails the upload; codabench.py writes Codabench's zip.
"""

from . import model

NAME = "Codalab v1.5"
ZIP = "competition.zip"
FOLDER = "codalab"  # competition/codalab/<track>.yaml: the demo's, committed

# apps/web/models.py: SubmissionScoreDef.key/label, SubmissionResultGroup.label and
# CompetitionPhase.label are CharField(max_length=50).
MAX_KEY = 50
MAX_LABEL = 50
# apps/web/models.py, Competition.title is CharField(max_length=100): on PostgreSQL a longer
# title fails the upload ("value too long for type character varying(100)", seen when
# running the site's CompetitionDefBundle.unpack).
MAX_TITLE = 100
KEY_LIMIT = (NAME, MAX_KEY, "SubmissionScoreDef.key")

# The leaderboard's rule, told in each phase's description: force_submission_to_leaderboard.
RULE = "Your latest submission of this phase is your entry on the leaderboard."
# What the pages tell participants on this platform (pages.generate).
TEXTS = {
    "platform": NAME,
    "counts": "your last submission counts",
    "overview": "",
    "seen": "",
    "terms": (
        "<p>On this Codalab server the detailed results page of the submission on the leaderboard (your "
        "latest) can be opened by anyone; the zip you uploaded, your logs and your scoring output only by "
        "you and the organizers. The reference data stay with the organizers.</p>\n"),
}


def texts(competition):
    return TEXTS


def refusal(competition):
    return None


def columns(competition, phase, leaderboard):
    """The v1.5 columns of one track's leaderboard: primary key first (rank 1)."""
    return dict((key, {
        "leaderboard": leaderboard,
        "label": title,
        "rank": index,
        "sort": order,
        "numeric_format": competition.source["numeric_format"],
    }) for index, (key, title, order) in enumerate(competition.columns(phase, MAX_LABEL), 1))


def phase_spec(competition, phase, number, start, label):
    """One v1.5 phase: the keys are CompetitionPhase fields (CompetitionDefBundle.unpack
    passes the mapping to CompetitionPhase.objects.get_or_create); execution_time_limit is in
    seconds (CompetitionPhase.execution_time_limit)."""
    settings = competition.stage_settings(phase)
    return {
        "phasenumber": number,
        "label": model.fit(label, MAX_LABEL, "The v1.5 phase label"),
        "description": "%s %s" % (settings["description"], RULE),
        "color": "green" if phase.stage == "development" else "purple",
        "start_date": start,
        "max_submissions": settings["max_submissions"],
        "max_submissions_per_day": settings["max_submissions_per_day"],
        "execution_time_limit": competition.time_limit(),
        "is_scoring_only": True,
        "auto_migration": False,
        "scoring_program": "scoring_program.zip",
        "reference_data": phase.reference_zip,
        "starting_kit": phase.kit_zip,
    }


def base(source, title, end):
    """The top level: the keys are Competition fields (CompetitionDefBundle.unpack passes
    them to Competition(**comp_base)). enable_detailed_results makes the site hand the worker
    a detailed_results_url (apps/web/tasks.py) and show the page; force_submission_to_leaderboard
    puts every finished submission on the leaderboard in place of the previous one."""
    return {
        "title": model.fit(title, MAX_TITLE, "The competition title"),
        "description": source["description"],
        "image": source["logo"],
        "has_registration": True,
        "force_submission_to_leaderboard": True,
        "enable_detailed_results": True,
        "end_date": end,
        "competition_docker_image": source["docker_image"],
        "html": dict((name, name + ".html") for name in model.PAGE_NAMES),
    }


def document(competition):
    """The v1.5 competition.yaml as a mapping: one track's (phase 1 development, phase 2
    final) or, for several tracks, every track side by side.

    CompetitionPhase.is_active: a phase is open from its start_date until the next phase
    number starts, the last one until the competition's end_date.
    """
    competition.check([KEY_LIMIT])
    if len(competition.tracks) > 1:
        return multi_track_document(competition)
    source = competition.source
    development_start, final_start, end = competition.schedule()
    development, final = competition.phases_of(competition.tracks[0].name)
    title = competition.track_title(development)
    spec = base(source, source["title"], end)
    spec["phases"] = {
        1: phase_spec(competition, development, 1, development_start, source["phases"]["development"]["label"]),
        2: phase_spec(competition, final, 2, final_start, source["phases"]["final"]["label"]),
    }
    leaderboard = {"label": model.fit(title, MAX_LABEL, "The leaderboard title"), "rank": 1}
    spec["leaderboard"] = {
        "leaderboards": {"results": leaderboard},
        "columns": columns(competition, development, leaderboard),
    }
    return spec


def multi_track_document(competition):
    """One v1.5 competition for every track (make_bundle.py --together).

    v1.5 links every leaderboard to every phase (CompetitionDefBundle.unpack creates a
    SubmissionResultGroupPhase per phase and leaderboard) and ranks a phase's own
    submissions only, so a phase per track and stage ranks each track by its own columns.
    Tracks run side by side: each development phase never ends (phase_never_ends), and a
    final phase is numbered just before the next track's development phase, whose start
    date (the competition's end) closes it.
    """
    source = competition.source
    development_start, final_start, end = competition.schedule()
    spec = base(source, source["title"], end)
    numbered = {}
    leaderboards = {}
    all_columns = {}
    for number, phase in enumerate(competition.phases, 1):
        title = competition.track_title(phase)
        if phase.stage == "final":
            start = final_start
        else:
            start = development_start if number == 1 else end
        one = phase_spec(competition, phase, number, start,
                         "%s: %s" % (model.in_sentence(title), competition.stage_settings(phase)["label"]))
        if phase.stage == "development":
            one["phase_never_ends"] = True
        numbered[number] = one
        if phase.name not in leaderboards:
            leaderboards[phase.name] = {"label": model.fit(title, MAX_LABEL, "The leaderboard title"),
                                      "rank": len(leaderboards) + 1}
            all_columns.update(columns(competition, phase, leaderboards[phase.name]))
    spec["phases"] = numbered
    spec["leaderboard"] = {"leaderboards": leaderboards, "columns": all_columns}
    return spec


def files(competition):
    """[(name, bytes)]: competition.zip."""
    text = model.dump_yaml(document(competition))
    common = model.common_files(competition, TEXTS)
    return [(ZIP, model.zip_entries(model.competition_files(text, common, competition)))]


def warnings(competition, now=None):
    return []


def manifest(competition):
    from . import codabench

    where = ("upload codabench_competition.zip to Codabench" if codabench.refusal(competition) is None else
             "for Codabench, build each track's own competition (without --together)")
    return {"zip": ZIP, "refusal": None, "notes": [
        "for self-hosted Codalab v1.5 servers, not for Codabench: converted there, its phases show participants "
        "the scoring output (private/ included), no submission reaches the leaderboard until its participant "
        "adds it, and a column title over 36 characters fails the upload; %s." % where] + model.shortened(
            competition, MAX_LABEL, NAME)}
