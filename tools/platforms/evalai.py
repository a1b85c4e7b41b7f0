"""EvalAI (Cloud-CV/EvalAI): evalai_challenge.zip, a challenge configuration zip for the host's
"create a challenge using a zip file" (apps/challenges/views.py,
create_challenge_using_zip_file), one challenge per track or every track side by side.

What that view reads: exactly one YAML file in the zip (any other `.yaml` name would be a
second one); `evaluation_script` names a zip that the submission worker unzips into a
Python package and imports (scripts/workers/submission_worker.py, extract_challenge_data),
installing a requirements.txt at its root under the worker's pins (PIP_CONSTRAINT);
`description`, `evaluation_details`, `terms_and_conditions`, `submission_guidelines` and
each phase's `description` name .html files (any other name gives no page); every phase
names its `test_annotation_file` inside the zip; `leaderboard[0].schema` needs `labels` and
`default_order_by`; `dataset_splits` and `challenge_phase_splits` are required. The
challenge itself goes through ZipChallengeSerializer, each phase through
ChallengePhaseCreateSerializer, each split through ZipChallengePhaseSplitSerializer (whose
show_leaderboard_by_latest_submission and show_execution_time the view never passes on).

The worker calls the package's evaluate() in its own process, with no time limit and no
sandbox (run_submission): evalai_script/ is that package. A result names a dataset split
and every label of the split's leaderboard; errors ("error_<label>") are shown as a
symmetric +- beside each score, and every label needs one once any is given
(apps/jobs/utils.py, calculate_distinct_sorted_leaderboard_data).

The leaderboard (calculate_distinct_sorted_leaderboard_data) ranks each team by its best
public submission of the phase (a submission is public when the phase's
is_submission_public says so, until the team changes it), by the default_order_by label in
the split's direction, equal scores by the smaller error first.

EvalAI hosts no starting kit: the zip carries each phase's kit for the organizer, who
publishes it (and says where on the data page, which EvalAI shows after the overview).
"""

import json
import os
import re

from scoring import names

from . import model

NAME = "EvalAI"
ZIP = "evalai_challenge.zip"
FOLDER = "evalai"  # competition/evalai/<track>.yaml: the demo's, committed
CONFIG = "challenge_config.yaml"
SCRIPT = "evaluation_script.zip"
SCRIPT_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "evalai_script")

# apps/challenges/models.py: Challenge.title CharField(max_length=100); ChallengePhase.name
# and codename, DatasetSplit.name and codename CharField(max_length=100).
MAX_TITLE = 100
MAX_NAME = 100
# Leaderboard.schema is a JSON field: labels have no limit there; they are the column titles
# the pages list (Codabench's: leaderboards/models.py, Column.title max_length=36).
MAX_LABEL = 36
# ChallengePhaseSplit.visibility: 1 host, 2 owner and host, 3 public.
PUBLIC = 3
# apps/challenges/constants.py, SUPPORTED_WORKER_PYTHON_VERSIONS; 3.9 is the default
# (DEFAULT_WORKER_PYTHON_VERSION) and the stack the suite's py39 floor runs on.
WORKER_PYTHON = "3.9"
# What the evaluation script declares (its requirements.txt): the scoring program's runtime,
# at the floor versions it is tested on. The worker installs it under its own pins, which
# hold all four, so nothing is downloaded.
REQUIREMENTS = "numpy>=1.17\nscipy>=1.3\nPillow>=6.1\nPyYAML>=5.1\n"

PLUS_MINUS = ("± is half the width of the score's 95% interval, where the expected score lies (its mean over test "
              "sets drawn like this one): the test items are resampled 1000 times (within each subset, manuscript, "
              "or category and class; fixed seed), the score is recomputed on each resample, and the interval holds "
              "the central 95% of those scores about the score (wider when a stratum has few items). Near 0 or 1 the "
              "interval is lopsided; ± is the mean of its two sides. A second test set's score varies more.")
HOW_TO_READ = ("This file is JSON: the scores of your submission, their ± and, last, the detailed results page; "
               "save that page as an .html file and open it in a browser, e.g. python3 -c \"import json, sys; "
               "open('details.html', 'w', encoding='utf-8').write(json.load(open(sys.argv[1], encoding='utf-8'))"
               "['detailed_results.html'])\" THIS_FILE.json")
SEEN = (
    "<p>On EvalAI, each submission's line in <em>My Submissions</em> gives its <em>Stdout file</em> (the log, "
    "every score and its ±), its <em>Result file</em> (a JSON file whose last field is the detailed results "
    "page: save that text as an .html file and open it) and, when the submission is refused, its <em>Stderr "
    "file</em>, whose last line is the sentence saying why.</p>\n<p>%s</p>\n" % PLUS_MINUS)
TERMS = (
    "<p>On EvalAI, the leaderboard shows each team's best public submission of each phase (a submission is "
    "public unless your team unticks <em>Show on leaderboard</em>). The file you uploaded, its logs and its result "
    "file are listed to your team and to the organizers only; EvalAI stores them without access control, at "
    "addresses it gives to no one else. The test annotations (reference data) are never listed to "
    "participants.</p>\n")
RULE = {
    "development": "The leaderboard shows your team's best public submission of this phase.",
    "final": "The leaderboard shows your team's best public submission of this phase: hide the others from it "
             "(Show on leaderboard) if you prefer one of them.",
}
SUBMISSION = (
    "<h2>Submitting</h2>\n<p>Upload one <code>.zip</code> holding your result files, laid out as the Evaluation "
    "page describes (the starting kit's <code>sample_submission/</code> is one); the organizers say on the "
    "Overview page where each phase's starting kit is. Check the zip on your machine first with the kit's "
    "<code>check_submission.py</code>: it prints the sentence the scoring program would print.</p>\n"
    "<p>A submission that cannot be scored is marked <em>Failed</em>; the last line of its <em>Stderr file</em> "
    "says which file is wrong and what was expected. A scored submission's <em>Stdout file</em> lists every "
    "score; its <em>Result file</em> holds the detailed results page. Each phase stops a scoring run after "
    "%d seconds.</p>\n")


def texts(competition):
    """What the pages tell participants on EvalAI (pages.generate)."""
    return {"platform": NAME, "counts": "your team's best public submission counts", "overview": "",
            "seen": SEEN, "terms": TERMS, "data_in_overview": True}


def refusal(competition):
    return None


def codenames(competition):
    """{id(phase): (phase codename, split codename)}: 'development' and 'final' with the
    split 'test' for one track; with several, each track's number before them."""
    names = {}
    tracks = competition.tracks
    for number, track in enumerate(tracks, 1):
        for phase in competition.phases_of(track.name):
            if len(tracks) == 1:
                names[id(phase)] = (phase.stage, "test")
            else:
                names[id(phase)] = ("track%d-%s" % (number, phase.stage), "track%d" % number)
    return names


def labels(competition, phase):
    """[(key, label)] of the phase's leaderboard, the primary key first: its column titles,
    which EvalAI shows as the leaderboard's headers and keys the results by."""
    found = [(key, title) for key, title, _ in competition.columns(phase, MAX_LABEL)]
    seen = {}
    for key, label in found:
        if seen.setdefault(label, key) != key:
            raise model.BundleError(
                "Track %s gives the keys %r and %r the same column title %r; EvalAI keys a leaderboard's scores by "
                "their titles: give one of them another label in competition/source.yaml (tracks: %s: labels:)."
                % (phase.name, seen[label], key, label, phase.name))
    return found


def phase_template(phase_codename):
    return "templates/%s.html" % phase_codename


def document(competition):
    """The challenge_config.yaml as a mapping."""
    competition.check([])
    source = competition.source
    development_start, final_start, end = competition.schedule()
    names = codenames(competition)
    tracks = competition.tracks
    spec = {
        "title": model.fit(slug_safe_title(source["title"]), MAX_TITLE, "The challenge title"),
        "short_description": source["description"],
        "description": "templates/overview.html",
        "evaluation_details": "templates/evaluation.html",
        "terms_and_conditions": "templates/terms.html",
        "submission_guidelines": "templates/submission.html",
        "image": source["logo"],
        "evaluation_script": SCRIPT,
        "remote_evaluation": False,
        "is_docker_based": False,
        "worker_python_version": WORKER_PYTHON,
        "start_date": development_start,
        "end_date": end,
        "leaderboard": [],
        "challenge_phases": [],
        "dataset_splits": [],
        "challenge_phase_splits": [],
    }
    for number, track in enumerate(tracks, 1):
        found = labels(competition, track)
        orders = dict((key, order) for key, _, order in competition.columns(track, MAX_LABEL))
        spec["leaderboard"].append({"id": number, "schema": {
            "labels": [label for _, label in found],
            "default_order_by": found[0][1],
            "metadata": dict((label, {"sort_ascending": orders[key] == "asc", "description": "key %s" % key})
                             for key, label in found),
        }})
        split = names[id(track)][1]
        spec["dataset_splits"].append({"id": number, "name": model.fit(competition.track_title(track), MAX_NAME,
                                                                       "The dataset split name"),
                                       "codename": split})
    for number, phase in enumerate(competition.phases, 1):
        settings = competition.stage_settings(phase)
        codename, _ = names[id(phase)]
        label = settings["label"] if len(tracks) == 1 else "%s: %s" % (
            model.in_sentence(competition.track_title(phase)), settings["label"])
        spec["challenge_phases"].append({
            "id": number,
            "name": model.fit(label, MAX_NAME, "The EvalAI phase name"),
            "description": phase_template(codename),
            "leaderboard_public": True,
            "is_public": True,
            "is_submission_public": True,
            "start_date": development_start if phase.stage == "development" else final_start,
            "end_date": final_start if phase.stage == "development" else end,
            "test_annotation_file": "annotations/" + phase.reference_zip,
            "codename": codename,
            "max_submissions_per_day": settings["max_submissions_per_day"],
            "max_submissions_per_month": settings["max_submissions"],
            "max_submissions": settings["max_submissions"],
            "allowed_submission_file_types": ".zip",
            "is_restricted_to_select_one_submission": False,
            "is_partial_submission_evaluation_enabled": False,
            "disable_logs": False,
        })
        track_number = [t.name for t in tracks].index(phase.name) + 1
        spec["challenge_phase_splits"].append({
            "challenge_phase_id": number,
            "leaderboard_id": track_number,
            "dataset_split_id": track_number,
            "visibility": PUBLIC,
            "leaderboard_decimal_precision": source["numeric_format"],
            "is_leaderboard_order_descending": orders_of(competition, phase)[0] != "asc",
        })
    return spec


def orders_of(competition, phase):
    return [order for _, _, order in competition.columns(phase, MAX_LABEL)]


def phases_json(competition):
    """What evaluate() knows of each phase (evalai_script/phases.json): its split, its time
    limit and its [key, label] pairs; and how the ± is computed and explained."""
    from scoring import bootstrap

    names = codenames(competition)
    phases = {}
    for phase in competition.phases:
        codename, split = names[id(phase)]
        phases[codename] = {"split": split, "time_limit": competition.time_limit(),
                            "labels": [list(pair) for pair in labels(competition, phase)]}
    return {"phases": phases, "resamples": bootstrap.DEFAULT_RESAMPLES, "seed": bootstrap.DEFAULT_SEED,
            "plus_minus": PLUS_MINUS, "how_to_read": HOW_TO_READ}


def script_zip(competition):
    """evaluation_script.zip: the package at the root (EvalAI imports the folder it unzips it
    into), the scoring program in program/."""
    entries = model.tree_entries(SCRIPT_SOURCE)
    entries += [("phases.json", (json.dumps(phases_json(competition), indent=1, ensure_ascii=False) + "\n")
                 .encode("utf-8")),
                ("requirements.txt", REQUIREMENTS.encode("ascii"))]
    entries += [("program/" + name, data) for name, data in model.read_zip(competition.program)]
    return model.zip_entries(sorted(entries))


def files(competition):
    """[(name, bytes)]: evalai_challenge.zip."""
    text = model.dump_yaml(document(competition))
    html = competition.pages(texts(competition))
    names = codenames(competition)
    entries = [(CONFIG, text.encode("utf-8")), competition.logo, (SCRIPT, script_zip(competition)),
               ("templates/overview.html", html["overview"].encode("utf-8")),
               ("templates/evaluation.html", html["evaluation"].encode("utf-8")),
               ("templates/terms.html", html["terms"].encode("utf-8")),
               ("templates/submission.html", (SUBMISSION % competition.time_limit()).encode("utf-8"))]
    for phase in competition.phases:
        description = "<p>%s %s</p>\n" % (model.escape(competition.stage_settings(phase)["description"]),
                                         RULE[phase.stage])
        entries.append((phase_template(names[id(phase)][0]), description.encode("utf-8")))
        entries.append(("annotations/" + phase.reference_zip, competition.reference(phase)))
        entries.append(("starting_kits/" + phase.kit_zip, competition.kits[phase.kit_zip]))
    return [(ZIP, model.zip_entries(entries))]


#: EvalAI makes each phase's slug from the challenge title's first word (up to the first
#: space) and the phase's codename (apps/challenges/views.py, create_challenge_using_zip_file:
#: "{}-{}-{}".format(challenge.title.split(" ")[0].lower(), codename, pk)), and ChallengePhase.slug
#: is a SlugField: a first word of other characters than these fails the upload (406).
SLUG_WORD = re.compile(r"[-a-zA-Z0-9_]+\Z")


def slug_safe_title(title):
    """The challenge title EvalAI takes: the organizer's, or, where its first word holds other
    characters than ASCII letters, digits, '-' and '_', that word's ASCII key (names.key_name:
    Fêtes -> fetes) in its place."""
    first, space, rest = str(title).partition(" ")
    if SLUG_WORD.match(first):
        return str(title)
    return names.key_name(first) + space + rest


def warnings(competition, now=None):
    return []


def manifest(competition):
    data = "yours" if "data" in competition.source["pages"] else "the placeholder"
    return {"zip": ZIP, "refusal": None, "notes": [
        "EvalAI hosts no starting kit: publish %s yourself and say where on the data page."
        % ", ".join(p.kit_zip for p in competition.phases),
        "EvalAI has no data page: the data page (%s) is shown at the end of the overview." % data]
        + model.shortened(competition, MAX_LABEL, NAME) + retitled(competition)}


def retitled(competition):
    """The note saying what EvalAI's title had to become, if anything."""
    title = str(competition.source["title"])
    safe = slug_safe_title(title)
    if safe == title:
        return []
    return ["EvalAI makes its phases' addresses from the title's first word, which may hold only ASCII letters, "
            "digits, '-' and '_' (its upload refuses the challenge otherwise): the EvalAI challenge is titled %r "
            "(the other platforms keep %r)." % (safe, title)]
