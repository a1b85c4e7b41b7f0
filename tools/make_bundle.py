"""Build competitions from an organizer's folder: python3 tools/make_bundle.py [options] (`make bundle`).

    python3 tools/make_bundle.py --competition DIR --out DIST [--together]
    python3 tools/make_bundle.py                  # the demo competition, from input/
    python3 tools/make_bundle.py --check          # the committed demo yaml files are current

DIR, the organizer's competition folder, holds:

  development/<track dir>/   the development phase's reference data: track.yaml and the
                             ground truth, laid out as INPUT/ref/<track dir>/
  final/<track dir>/         the final phase's reference data, same layout, required
  starting_kit/<track dir>/  optional: a sample submission of the development phase
                             (otherwise a valid dummy one is written from the test items)
  source.yaml                optional: title, description, dates, phases, pages, each
                             track's title and column labels, codabench_final_reference;
                             every field has a default
  kinds/<kind>.py            optional: the competition's own track kinds (docs/maintainers.md,
                             "Adding a kind"), carried in the scoring program and the kits

By default every track is its own competition, in DIST/<track dir>/: competition.zip
(Codalab v1.5), codabench_competition.zip (Codabench), and beside them the zips they
hold and the starting kits. With codabench_final_reference: withheld, the Codabench zip's
final phase holds a stand-in reference (names and sizes, no ground truth) and the real one
is DIST/<track dir>/codabench_final_reference_<track dir>.zip, to attach after the deadline.
With --together, all tracks form one competition in DIST/.
The organizer's files go into the reference zips byte for byte, each track.yaml with the
competition's and the track's titles added (what the scoring program shows); nothing else
is read (the demo competition alone generates its final phase, in a temporary folder).
"""

import argparse
import copy
import datetime
import functools
import io
import json
import os
import shutil
import sys
import tempfile

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "program"))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import confined  # noqa: E402
import manual as kit_manual  # noqa: E402
import pages as page_texts  # noqa: E402
from platforms import WRITERS, codabench, codalab, model  # noqa: E402
from platforms.model import (PAGE_NAMES, STAGES, BundleError, as_datetime, column_label,  # noqa: E402
                             leaderboard_title, tracks_of, tree_entries, zip_entries)
from scoring import layout, public, yamltext  # noqa: E402
from scoring import options as schema  # noqa: E402
from scoring import tracks as kinds  # noqa: E402
from scoring.bidi import terminal  # noqa: E402
from scoring.errors import ScoringError  # noqa: E402
from scoring.runner import phase_tracks, refuse_key_collisions  # noqa: E402
from scoring.tracks import TRACKS, require  # noqa: E402

DEMO_SOURCE = os.path.join(ROOT, "competition", "source.yaml")
COMMITTED_YAML = os.path.join(ROOT, "competition")  # <platform>/<track>.yaml: the demo's competitions
FINAL_SEED = 4051  # the demo's final phase: its sample generator under another seed
REQUIREMENTS = os.path.join(ROOT, "requirements.txt")  # the kit's: the runtime packages, Python 3.7 to 3.13

def _whole(expected, low=1):
    return schema.Check(expected, lambda v: v if isinstance(v, int) and not isinstance(v, bool) and v >= low
                         else None)


def _paragraph():
    return schema.Check("a text", lambda v: v if isinstance(v, str) and v.strip() else None)


def _date():
    def convert(value):
        try:
            return as_datetime(value, "")
        except BundleError:
            return None

    return schema.Check("a date such as 2026-04-01 or '2026-04-01 12:00:00' (UTC)", convert)


def _phase(label, max_submissions, per_day, description, final=False):
    spec = {"label": (label, schema.text()), "max_submissions": (max_submissions, _whole("a whole number above 0")),
            "max_submissions_per_day": (per_day, _whole("a whole number above 0")),
            "description": (description, _paragraph())}
    if final:  # the final phase's reference data may publish their details (model.check_public_details)
        spec["public_details"] = (False, schema.boolean())
    return schema.Section(spec)


_INTERVAL = schema.Check("true (the participants' pages show the 95% interval of the ranking score) or false",
                          schema.boolean().convert)
#: source.yaml, declared (scoring/schema.py): every field, its default (None: derived
#: from the data by complete_source) and what it accepts.
SOURCE_SCHEMA = {
    "title": (None, schema.text()),
    "description": (None, _paragraph()),
    "dates": (None, schema.Section(
        dict((name, (None, _date())) for name in ("development", "final", "end")),
        "a mapping of development, final and end (UTC), e.g. 'final: 2026-04-01 00:00:00'",
        "%(file)s: dates must be a mapping of development, final and end (UTC), e.g. 'final: 2026-04-01 00:00:00'.")),
    "tracks": (None, schema.Each({
        "title": (None, schema.text()),
        "labels": (None, schema.Check("a mapping of keys to their labels",
                                      lambda v: v if isinstance(v, dict) else None)),
        "description": (None, _paragraph()),
        "participant_interval": (None, _INTERVAL)}, "a mapping of the track folders' settings")),
    "pages": (None, schema.Section(dict((name, (None, schema.text())) for name in PAGE_NAMES),
                                    "a mapping of page names to html files",
                                    "%(file)s has the page %(key)s; the pages are %(names)s.")),
    "codabench_queue": (None, schema.text()),
    "docker_image": ("codalab/codalab-legacy:py312", schema.text()),
    "logo": ("logo.png", schema.text()),
    "phases": (None, schema.Section({
        "development": (None, _phase("Development", 100, 5, "Development phase: the reference data are the "
                                     "development set; submit as often as you like to check your file formats "
                                     "and your method.")),
        "final": (None, _phase("Final", 3, 1, "Final phase: the reference data are the hidden test set.",
                               final=True))})),
    "execution_time_limit": (1800, _whole("a whole number of seconds per scoring run")),
    "codabench_final_reference": ("included", schema.Check(
        "withheld (Codabench's final phase gets a stand-in reference and the real one is attached after the "
        "deadline) or included (the default)", schema.choice(*codabench.FINAL_REFERENCE_CHOICES).convert)),
    "numeric_format": (4, _whole("a whole number of decimals", low=0)),
    "participant_interval": (True, _INTERVAL),  # the 95% interval of the ranking score on the participants' pages
    "ascending": (None, schema.removed(
        "%(file)s lists ascending, which is no longer read: the order of every key comes from its track's kind, "
        "which declares whether lower is better (an error rate); remove it.")),
}
SOURCE_WORDS = schema.Words("%(file)s: %(name)s is %(value)s; expected %(expected)s.",
                             "%(file)s has the unknown field %(name)s; the fields are %(names)s.")


class BuildError(Exception):
    """The organizer's folder or source cannot be built; one sentence saying what to fix."""


class Phase(object):
    """One phase of one track: where its reference data and its sample submission are, and
    its leaderboard's columns."""

    def __init__(self, name, kind, stage, ref_dir, res_dir, columns, note="", source_dir=None):
        self.name = name  # the track's directory name in the organizer's folder
        self.kind = kind  # the track kind of its track.yaml
        self.stage = stage  # 'development' | 'final'
        self.ref_dir = ref_dir  # the reference data as bundled (titles in its track.yaml)
        self.source_dir = source_dir or ref_dir  # the organizer's folder of it
        self.res_dir = res_dir
        self.columns = columns  # columns.Column of each key, primary first
        self.keys = [column.key for column in columns]
        self.lower_is_better = frozenset(column.key for column in columns if column.lower_is_better)
        self.note = note

    @property
    def shown(self):
        """How sentences name its reference data: the organizer's folder, <stage>/<track dir>."""
        return shown_root(self.stage, self.name)

    @property
    def reference_zip(self):
        return "%s_%s_reference.zip" % (self.name, self.stage)

    @property
    def stand_in_zip(self):
        """The Codabench competition's reference data of a withheld final phase."""
        return "%s_%s_stand_in_reference.zip" % (self.name, self.stage)

    @property
    def codabench_final_zip(self):
        """The real reference data of a withheld final phase, written beside the competition."""
        return "codabench_final_reference_%s.zip" % self.name

    @property
    def submission_zip(self):
        suffix = "" if self.stage == "development" else "_" + self.stage
        return "sample_submission_%s%s.zip" % (self.name, suffix)

    @property
    def kit_zip(self):
        suffix = "" if self.stage == "development" else "_" + self.stage
        return "starting_kit_%s%s.zip" % (self.name, suffix)


# ---------------------------------------------------------------------------- the source


def read_yaml(path):
    return yamltext.read(path, path, BuildError, "%(file)s cannot be read as YAML%(where)s (%(problem)s).") or {}


def default_dates(today=None):
    """Development from today (UTC), final in 8 weeks, end 2 weeks later."""
    if today is None:
        now = datetime.datetime.now(datetime.timezone.utc)
        today = now.replace(tzinfo=None, hour=0, minute=0, second=0, microsecond=0)
    return {"development": today, "final": today + datetime.timedelta(weeks=8),
            "end": today + datetime.timedelta(weeks=10)}


def complete_source(raw, path, tracks):
    """The source with every field present: the organizer's values checked against
    SOURCE_SCHEMA, else defaults, the schema's or derived from the data. tracks is [(dir,
    kind, [the mapping of each of its track.yaml files])]: a title or competition given
    there is the default of the source's."""
    if not isinstance(raw, dict):
        raise BuildError("%s must be a mapping (title: ..., dates: ...)." % path)
    source = schema.parse_options(raw, SOURCE_SCHEMA, path, BuildError, SOURCE_WORDS, ignored=())
    given = source["tracks"] or {}
    unknown = sorted(set(given) - set(d for d, _, _ in tracks), key=str)
    if unknown:
        raise BuildError("%s names the track %r under tracks, which is not a folder of development/ (%s)."
                         % (path, unknown[0], ", ".join(d for d, _, _ in tracks)))
    source["tracks"] = {}
    for directory, kind, configs in tracks:
        mine = given.get(directory) or {}
        written = [str(c["title"]) for c in configs if c.get("title") is not None]
        interval = mine.get("participant_interval")
        source["tracks"][directory] = {"title": mine.get("title") or (written + [directory])[0],
                                       "labels": dict(mine.get("labels") or {}),
                                       "description": mine.get("description") or page_texts.task(kind),
                                       "participant_interval": source["participant_interval"] if interval is None
                                       else interval}
    titles = [source["tracks"][d]["title"] for d, _, _ in tracks]
    written = [str(c["competition"]) for _, _, configs in tracks for c in configs if c.get("competition") is not None]
    if source["title"] is None:
        source["title"] = (written + [", ".join(titles)])[0]
    source["title"] = str(source["title"])
    if source["description"] is None:
        source["description"] = default_description(source)
    dates = default_dates()
    dates.update((name, value) for name, value in source["dates"].items() if value is not None)
    if not dates["development"] < dates["final"] < dates["end"]:
        raise BuildError("%s: the dates must come in the order development < final < end (found %s, %s, %s)."
                         % (path, dates["development"], dates["final"], dates["end"]))
    source["dates"] = dates
    source["pages"] = dict((name, os.path.join(os.path.dirname(path), file))
                           for name, file in source["pages"].items() if file is not None)
    for name, file in source["pages"].items():
        if not os.path.isfile(file):
            raise BuildError("%s: the %s page %s does not exist." % (path, name, file))
    return source


def track_source(source, directory):
    """The source of a one-track competition. The title is "<competition>: <track>", or the
    track's title alone where that is longer than Codalab v1.5 stores (CODALAB_MAX_TITLE).
    The description is the competition's when the organizer wrote one (the overview adds the
    track's below it), else the track's."""
    one = copy.deepcopy(source)
    one["tracks"] = {directory: source["tracks"][directory]}
    if len(source["tracks"]) > 1:
        track_title = source["tracks"][directory]["title"]
        one["title"] = "%s: %s" % (source["title"], track_title)
        if len(one["title"]) > codalab.MAX_TITLE:
            one["title"] = track_title
        if source["description"] == default_description(source):
            one["description"] = source["tracks"][directory]["description"]
    return one


def default_description(source):
    """The competition's description when source.yaml gives none: its tracks' descriptions."""
    return " ".join(settings["description"] for _, settings in sorted(source["tracks"].items()))


# ---------------------------------------------------------------------------- the organizer's folder


def shown_root(stage, directory):
    """How sentences name a track's reference data: its path in the organizer's folder."""
    return "%s/%s" % (stage, directory)


def phase_columns(ref_dir, shown="ref"):
    """The columns (scores.txt keys, primary first) of a phase whose reference data are
    ref_dir (named shown in sentences), as its tracks' kinds declare them, every key
    distinct."""
    prepared = phase_tracks(ref_dir, shown)
    refuse_key_collisions(prepared)
    found = []
    for track, _, options, prefix in prepared:
        columns = require(track.kind, "columns", "the leaderboard")(track, options)
        found += [column.prefixed(prefix, track.rel) if prefix else column for column in columns]
    return found


def phase_keys(ref_dir, shown="ref"):
    """The scores.txt keys of a phase whose reference data are ref_dir, primary first."""
    return [column.key for column in phase_columns(ref_dir, shown)]


def changed_keys(directory, development, final):
    """The sentence for a final phase whose columns are not its development phase's: the
    subsets or manuscripts one phase has and the other lacks, by their names."""
    def names_of(columns, others):
        """'the subset A' or 'the subsets A, B' of the named columns whose keys are not among others."""
        left = set(column.key for column in others)
        found = {}
        for column in columns:
            if column.key not in left and column.stratum is not None:
                listed = found.setdefault(column.what or "stratum", [])
                if column.stratum not in listed:
                    listed.append(column.stratum)
        return " and ".join("the %s%s %s" % (what, "s" if len(listed) > 1 else "", ", ".join(listed))
                            for what, listed in sorted(found.items()))

    missing, added = names_of(development, final), names_of(final, development)
    if missing or added:
        final_dir, development_dir = "final/%s/" % directory, "development/%s/" % directory
        parts = (["%s lacks %s of %s" % (final_dir, missing, development_dir)] if missing else []) + (
            ["%s has %s, which %s lacks" % (final_dir, added, development_dir)] if added else [])
        return ("The two phases of track %s differ: %s; one leaderboard needs the same columns in both: give both "
                "phases the same subsets, manuscripts and options." % (directory, "; ".join(parts)))
    development, final = [c.key for c in development], [c.key for c in final]
    only = [k for k in development if k not in final] or [k for k in final if k not in development]
    return ("The final phase of track %s writes other keys than its development phase (e.g. %s); one leaderboard "
            "needs the same columns in both: give both phases the same options in track.yaml."
            % (directory, only[0] if only else "their order"))


def check_kinds(folder):
    """The competition's own kinds (kinds/<name>.py): none may take a built-in kind's name."""
    for name in sorted(os.listdir(folder)):
        stem, extension = os.path.splitext(name)
        if extension != ".py":
            continue
        if not kinds.NAME.match(stem):
            raise BuildError("%s: a kind's name is lower-case letters, digits and '_' (what track: says in "
                             "track.yaml); rename it." % os.path.join(folder, name))
        if stem in TRACKS.built_in:
            raise BuildError("%s has the name of a built-in kind; rename it (and the track: of its track.yaml "
                             "files)." % os.path.join(folder, name))


def kind_files(competition):
    """(name in a zip, bytes) of the competition's own kinds: kinds/<name>.py."""
    folder = os.path.join(competition, "kinds") if competition else None
    if not folder or not os.path.isdir(folder):
        return []
    return [("kinds/" + name, data) for name, data in tree_entries(folder)
            if name.endswith(".py") and "/" not in name]


TITLE_FIELDS = ("competition", "title")


def bundled_reference(walked, target, titles):
    """A copy of a phase's reference data (walked: confined.regular_files of its folder; hard
    links where the system allows) whose track.yaml says the competition's and the track's
    titles, and interval: false where the source turns off the participants' interval
    (titles: {field: value}), added after the organizer's own lines, which stay as they are."""
    confined.copy(walked, target, link=True)
    path = os.path.join(target, "track.yaml")
    with open(path, "rb") as stream:
        text = stream.read().decode("utf-8")
    config = yamltext.load(text.encode("utf-8"), path, BuildError, "%(file)s is not valid YAML%(where)s.") or {}
    added = dict((field, value) for field, value in titles.items() if config.get(field) != value)
    os.remove(path)  # a link to the organizer's file: never written through
    if added:
        text = text + ("" if text.endswith("\n") or not text else "\n") + \
            "# What the scoring program shows (tools/make_bundle.py, from source.yaml):\n" + \
            yaml.safe_dump(added, allow_unicode=True, default_flow_style=False, sort_keys=True, width=1000)
    with open(path, "wb") as stream:
        stream.write(text.encode("utf-8"))


def check_titles(source, directory, stage, config):
    """A title written in the organizer's track.yaml is the one the build gives the track;
    so is interval, the participants' interval (source.yaml's participant_interval)."""
    wanted = source["tracks"][directory]["participant_interval"]
    if config.get("interval") is not None and config["interval"] != wanted:
        raise BuildError("%s/%s/track.yaml says interval: %s but source.yaml says participant_interval: %s; keep "
                         "one: remove it from track.yaml or give the same in source.yaml."
                         % (stage, directory, str(config["interval"]).lower(), str(wanted).lower()))
    resolved = {"title": source["tracks"][directory]["title"], "competition": source["title"]}
    for field in TITLE_FIELDS:
        if config.get(field) is not None and str(config[field]) != resolved[field]:
            raise BuildError("%s/%s/track.yaml says %s: %s but the build gives the %s the title %s (source.yaml); "
                             "keep one: remove it from track.yaml or give the same in source.yaml."
                             % (stage, directory, field, config[field], "track" if field == "title" else
                                "competition", resolved[field]))


def stage_folders(competition, stage):
    """{dir: confined.regular_files of it} of the track folders of competition/<stage>/
    (those with a track.yaml), walked before anything of them is read."""
    folder = os.path.join(competition, stage)
    if not os.path.isdir(folder):
        raise BuildError("%s does not exist; a competition folder holds development/<track dir>/ and "
                         "final/<track dir>/, each with its track.yaml and reference data." % folder)
    found = {}
    for name in layout.visible_entries(folder):
        path = os.path.join(folder, name)
        if os.path.isdir(path) and os.path.lexists(os.path.join(path, "track.yaml")):
            found[name] = confined.regular_files(path, competition, shown_root(stage, name))
        else:
            raise BuildError("%s/%s%s is not read: %s/ holds one folder per track, each with its track.yaml naming "
                             "its kind; move it out of %s/ or remove it." % (
                                 stage, name, "/ has no track.yaml and" if os.path.isdir(path) else "", stage, stage))
    return found


#: What the build reads at the top of a competition folder (the pages source.yaml names too).
COMPETITION_ENTRIES = ("development", "final", "starting_kit", "source.yaml", "kinds")


def unread_entries(competition, source, phases):
    """The warnings for what the build does not read in the organizer's folder: an entry at
    its top that is none of COMPETITION_ENTRIES or the pages, a folder of starting_kit/ that
    is no track's, a file of kinds/ that is no kind."""
    pages = set(os.path.realpath(path) for path in source["pages"].values())
    found = []
    for name in layout.visible_entries(competition):
        path = os.path.join(competition, name)
        if name not in COMPETITION_ENTRIES and os.path.realpath(path) not in pages and \
                not any(page.startswith(os.path.realpath(path) + os.sep) for page in pages):
            found.append("%s is not read by the build (it reads %s and the pages source.yaml names); it goes into no "
                         "zip." % (path, ", ".join(COMPETITION_ENTRIES)))
    tracks = set(phase.name for phase in phases)
    kit = os.path.join(competition, "starting_kit")
    if os.path.isdir(kit):
        found += ["%s is no track's sample submission (the tracks are %s); it goes into no zip."
                  % (os.path.join(kit, name), ", ".join(sorted(tracks)))
                  for name in layout.visible_entries(kit) if name not in tracks]
    folder = os.path.join(competition, "kinds")
    if os.path.isdir(folder):
        found += ["%s is not read: kinds/ holds one <kind>.py per kind of track; it goes into no zip."
                  % os.path.join(folder, name) for name in layout.visible_entries(folder)
                  if not (name.endswith(".py") and os.path.isfile(os.path.join(folder, name)))
                  and name != "__pycache__"]
    return found


def stage_tracks(competition, stage, folders):
    """{dir: track (layout.TrackDir)} of the track folders of competition/<stage>/."""
    return dict((name, layout.find_tracks(os.path.join(competition, stage, name), TRACKS, shown_root(stage, name))[0])
                for name in folders)


def load_competition(competition, work):
    """(source, phases): the organizer's folder read, sample submissions found or written
    into work. Raises BuildError or the scoring program's ReferenceDataError."""
    walked = dict((stage, stage_folders(competition, stage)) for stage in STAGES)
    secret = confined.Secret([os.path.join(competition, stage) for stage in STAGES],
                             set(key for stage in STAGES for _, files in walked[stage].values()
                                 for key in confined.file_ids(files)))
    kinds_folder = os.path.join(competition, "kinds")
    if os.path.lexists(kinds_folder):  # public: the kits carry load_competition's copy
        confined.copy(confined.regular_files(kinds_folder, competition, "kinds", secret), os.path.join(work, "kinds"))
        check_kinds(kinds_folder)
        kinds.add_folder(kinds_folder)
    development = stage_tracks(competition, "development", walked["development"])
    if not development:
        raise BuildError("%s/development/ holds no track folder with a track.yaml (e.g. "
                         "development/mytrack/track.yaml saying 'track: <kind>', the kind one of %s)."
                         % (competition, ", ".join(TRACKS)))
    final = stage_tracks(competition, "final", walked["final"])
    for directory, track in sorted(development.items()):
        kind = track.kind
        if directory not in final:
            raise BuildError("%s has no final-phase data for track %s: put its reference data in %s (same layout "
                             "as development/%s/); the development data are never reused for the final phase."
                             % (competition, directory, os.path.join(competition, "final", directory), directory))
        if final[directory].kind != kind:
            raise BuildError("final/%s/track.yaml says track: %s but development/%s/track.yaml says %s; a track "
                             "keeps its kind in both phases." % (directory, final[directory].kind, directory, kind))
    extra = sorted(set(final) - set(development))
    if extra:
        raise BuildError("%s/final/%s/ has no development phase: add development/%s/ or remove it."
                         % (competition, extra[0], extra[0]))
    source_path = os.path.join(competition, "source.yaml")
    raw = {}
    if os.path.lexists(source_path):
        raw = read_yaml(confined.public_file(source_path, competition, "source.yaml", secret))
    order = sorted(development)
    source = complete_source(raw, source_path, [(d, development[d].kind, [development[d].config, final[d].config])
                                                for d in order])
    for name, path in source["pages"].items():
        source["pages"][name] = confined.public_file(path, competition, "the %s page %s" % (name, os.path.relpath(
            path, competition)), secret)
    phases = []
    for directory in order:
        stage_phases = []
        for stage in STAGES:
            check_titles(source, directory, stage, (development if stage == "development" else final)[directory].config)
            source_dir = os.path.join(competition, stage, directory)
            ref_dir = os.path.join(work, "reference", stage, directory)
            settings = {"title": source["tracks"][directory]["title"], "competition": source["title"]}
            if not source["tracks"][directory]["participant_interval"]:
                settings["interval"] = False
            bundled_reference(walked[stage][directory], ref_dir, settings)
            res_dir = os.path.join(competition, "starting_kit", directory)
            note = "the organizer's sample submission"
            if stage == "development" and os.path.lexists(res_dir):  # public: no link to the reference data
                kit = os.path.join(work, "starting_kit", directory)
                confined.copy(confined.regular_files(res_dir, competition, "starting_kit/" + directory, secret), kit)
                res_dir = kit
            if stage != "development" or not os.path.isdir(res_dir):
                res_dir = os.path.join(work, "samples", stage, directory)
                public.dummy_submission(public.public_items(ref_dir, shown_root(stage, directory)), res_dir)
                note = "a dummy submission written from the public test items"
            stage_phases.append(Phase(directory, development[directory].kind, stage, ref_dir, res_dir,
                                      phase_columns(ref_dir, shown_root(stage, directory)), note, source_dir))
        dev, fin = stage_phases
        if dev.keys != fin.keys:
            raise BuildError(changed_keys(directory, dev.columns, fin.columns))
        labels = dict((column.name, column.metric.title) for column in dev.columns)
        labels.update(source["tracks"][directory]["labels"])  # the organizer's own titles first
        source["tracks"][directory]["labels"] = labels
        phases.extend(stage_phases)
    return source, phases


def demo_competition(input_dir, work):
    """The demo as an organizer's folder in work: development = input/ref, final = each
    track's sample generator (chosen by its kind) under another seed, starting kit = input/res."""
    from make_sample import SAMPLES

    generators = dict(SAMPLES)
    folder = os.path.join(work, "demo")
    for track in layout.find_tracks(os.path.join(input_dir, "ref"), TRACKS):
        name = track.rel or track.kind
        shutil.copytree(track.path, os.path.join(folder, "development", name))
        res = os.path.join(input_dir, "res", track.rel)
        if os.path.isdir(res):
            shutil.copytree(res, os.path.join(folder, "starting_kit", name))
        # public_details=False: a final phase never draws its hidden ground truth (platforms.check_public_details)
        generators[track.kind].make(os.path.join(folder, "final", name), os.path.join(work, "demo-final-res", name),
                                    seed=FINAL_SEED, public_details=False)
    shutil.copy(DEMO_SOURCE, os.path.join(folder, "source.yaml"))
    return folder


def sample_tracks(input_dir):
    """(name, kind, ref_dir, res_dir) of each track of the sample phase, in input/ref order."""
    tracks = layout.find_tracks(os.path.join(input_dir, "ref"), TRACKS)
    found = []
    for track in tracks:
        name = track.rel or track.kind
        res_dir = os.path.join(input_dir, "res", track.rel) if track.rel else os.path.join(input_dir, "res")
        found.append((name, track.kind, track.path, res_dir))
    return found


# ---------------------------------------------------------------------------- pages, kits, program


def columns_table(source, phases):
    tables = []
    for phase in [p for i, p in enumerate(phases) if p.name not in [q.name for q in phases[:i]]]:
        rows = "".join(
            "<tr><td><code>%s</code></td><td>%s</td><td>%s</td></tr>\n"
            % (column.key, page_texts.esc(column_label(source, phase.name, column, codabench.MAX_TITLE)),
               "lower is better" if column.lower_is_better else "higher is better")
            for column in phase.columns
        )
        tables.append("<h4>%s</h4>\n<table>\n<tr><th>key</th><th>column</th><th>order</th></tr>\n%s</table>\n"
                      % (page_texts.esc(leaderboard_title(source, phase.name)), rows))
    return "".join(tables)


def pages(source, phases, platform=None):
    """The four html pages: the organizer's own where the source names them, else generated
    from each track's kind, options and development items, for a platform (its writer's
    texts(), see tools/platforms/) or none."""
    tracks = []
    for phase in tracks_of(phases):
        items = public.public_items(phase.ref_dir, phase.shown)["tracks"][0]
        settings = source["tracks"][phase.name]
        tracks.append((settings["title"], settings["description"], items))
    html = page_texts.generate(source, tracks, columns_table(source, phases), platform)
    for name, path in source["pages"].items():
        with open(path, encoding="utf-8") as stream:
            html[name] = stream.read().replace("<!-- columns -->", columns_table(source, phases))
    if platform and platform.get("data_in_overview"):  # a platform without a data page (EvalAI)
        html = page_texts.fold_data(html)
    return html


def logo_png(title):
    """A plain logo (both platforms want an image): the title's first words on a dark square."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (240, 240), (32, 48, 80))
    draw = ImageDraw.Draw(image)
    draw.rectangle([16, 16, 223, 223], outline=(230, 230, 230), width=4)
    words = title.split()
    for row in range(0, min(len(words), 12), 2):
        draw.text((32, 40 + row * 12), " ".join(words[row:row + 2])[:30], fill=(240, 240, 240))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def scoring_program_zip(competition=None):
    """metadata and evaluate.py at the root, the scoring package beside them, and the
    competition's own kinds in kinds/ (tracks.KINDS_FOLDER)."""
    with open(os.path.join(ROOT, "metadata"), "rb") as stream:
        entries = [("metadata", stream.read())]
    return zip_entries(entries + tree_entries(os.path.join(ROOT, "program")) + kind_files(competition))


def starting_kit_zip(source, phase, competition=None):
    """The starting kit of a phase: the participant manual, the evaluation page, a sample
    submission, the checker with the scoring program and its requirements."""
    items = public.public_items(phase.ref_dir, phase.shown)
    track = items["tracks"][0]
    settings = source["tracks"][phase.name]
    count = page_texts.count_items(track)
    options = page_texts.track_options(track)
    entries = [
        ("README.md", kit_manual.readme(source, settings["title"], phase.stage, count)),
        ("MANUAL.md", kit_manual.manual(source, settings["title"], settings["description"], phase.stage, track,
                                        options, phase.columns)),
        ("public_items.json", public.dumps(items)),
    ]
    evaluation = page_texts.generate(source, [(settings["title"], settings["description"], track)],
                                     columns_table(source, [phase]), footer=False)["evaluation"]
    heading = "<h1>%s</h1>\n<p>%s, %s phase.</p>\n" % (
        page_texts.esc(settings["title"]), page_texts.esc(source["title"]), phase.stage)
    entries.append(("evaluation.html", page_texts.document("%s: evaluation" % settings["title"], heading + evaluation)))
    entries = [(name, text.encode("utf-8")) for name, text in entries]
    for name, path in (("check_submission.py", os.path.join(ROOT, "program", "check_submission.py")),
                       ("requirements.txt", REQUIREMENTS)):
        with open(path, "rb") as stream:
            entries.append((name, stream.read()))
    entries += tree_entries(os.path.join(ROOT, "program", "scoring"), "scoring/")
    entries += kind_files(competition)
    entries += tree_entries(phase.res_dir, "sample_submission/")
    return zip_entries(sorted(entries))


def write(path, data):
    with open(path, "wb") as stream:
        stream.write(data)


# ---------------------------------------------------------------------------- the build


def competition_model(source, phases, program, folder=None):
    """The competition every platform's writer reads (platforms.model.Competition); folder:
    the organizer's competition folder (its own kinds go into the kits), None for the demo."""
    kits = dict((phase.kit_zip, starting_kit_zip(source, phase, folder)) for phase in phases)
    return model.Competition(source, phases, program, kits, (source["logo"], logo_png(source["title"])),
                             lambda platform: pages(source, phases, platform))


def write_competition(dist, competition):
    """One competition (its tracks' phases) into dist: each platform's zip and what goes
    beside it (a platform may refuse: its writer's refusal() says why), the zips they hold,
    and each phase's starting kit. Returns the manifest's entry of each platform."""
    os.makedirs(dist, exist_ok=True)
    write(os.path.join(dist, "scoring_program.zip"), competition.program)
    for phase in competition.phases:
        write(os.path.join(dist, phase.reference_zip), competition.reference(phase))
        write(os.path.join(dist, phase.submission_zip), competition.submission(phase))
        write(os.path.join(dist, phase.kit_zip), competition.kits[phase.kit_zip])
    entries = {}
    for writer in WRITERS:
        for name, data in writer.files(competition):
            write(os.path.join(dist, name), data)
        entries[writer.FOLDER] = writer.manifest(competition)
    return entries


def warnings(competition):
    """What the organizer should know before uploading: each platform's, and the pages'."""
    found = []
    if "data" not in competition.source["pages"]:
        found.append("the data page is still the placeholder (how participants get the data, its licence, how to cite "
                     "it, and on EvalAI where the starting kits are): write your own and name it in the competition's "
                     "source.yaml (pages: data: data.html).")
    for writer in WRITERS:
        found += writer.warnings(competition)
    return found


def build(dist, competition=None, together=False):
    """Write the bundle into dist (emptied first); returns the manifest. Without
    competition, the demo from input/."""
    if os.path.isdir(dist):
        shutil.rmtree(dist)
    os.makedirs(dist)
    work = tempfile.mkdtemp(prefix="bundle-")
    try:
        folder = competition or demo_competition(os.path.join(ROOT, "input"), work)
        source, phases = load_competition(folder, work)
        program = scoring_program_zip(work)  # the competition's own kinds: load_competition's copy
        if together:
            competitions = [("", competition_model(source, phases, program, work))]
        else:
            competitions = [(track.name, competition_model(track_source(source, track.name),
                                                           [p for p in phases if p.name == track.name], program,
                                                           work))
                            for track in tracks_of(phases)]
        manifest = {"competitions": [], "warnings": []}
        for folder_name, one in competitions:
            platforms = write_competition(os.path.join(dist, folder_name), one)
            manifest["competitions"].append({
                "folder": folder_name, "platforms": platforms,
                "phases": [{"track": p.name, "kind": p.kind, "stage": p.stage, "reference": p.reference_zip,
                            "reference_data": os.path.relpath(p.source_dir, folder) if competition else p.ref_dir,
                            "sample_submission": p.submission_zip, "sample": p.note, "starting_kit": p.kit_zip,
                            "keys": p.keys} for p in one.phases]})
            manifest["warnings"] += [w for w in warnings(one) if w not in manifest["warnings"]]
        manifest["warnings"] += reference_warnings(phases)
        if competition is not None:
            manifest["warnings"] += unread_entries(competition, source, phases)
        if competition is None:
            for entry in manifest["competitions"]:
                for phase in entry["phases"]:
                    phase["reference_data"] = ("input/ref/%s" % phase["track"] if phase["stage"] == "development"
                                               else "generated by the demo's sample generator, seed %d" % FINAL_SEED)
        write(os.path.join(dist, "manifest.json"), json.dumps(manifest, indent=1).encode("utf-8"))
        return manifest
    finally:
        shutil.rmtree(work, ignore_errors=True)


def reference_warnings(phases):
    """What each track's kind says of the organizer's reference data (its reference_warnings,
    e.g. a lines mask annotated one value a line), naming files by the organizer's paths."""
    found = []
    for phase in phases:
        for track, module, options, _ in phase_tracks(phase.ref_dir):
            check = getattr(module, "reference_warnings", None)
            if check is not None:
                found += check(track, options, functools.partial(os.path.join, phase.source_dir))
    return found


def committed_path(platform, track):
    return os.path.join(COMMITTED_YAML, platform, track + ".yaml")


def generate():
    """{committed path: yaml text}: the demo's competition of each track, on each platform."""
    work = tempfile.mkdtemp(prefix="bundle-")
    try:
        source, phases = load_competition(demo_competition(os.path.join(ROOT, "input"), work), work)
        texts = {}
        for track in tracks_of(phases):
            one = model.Competition(track_source(source, track.name), [p for p in phases if p.name == track.name],
                                    program=None, kits={}, logo=None, pages=None)
            for writer in WRITERS:
                texts[committed_path(writer.FOLDER, track.name)] = model.dump_yaml(writer.document(one))
        return texts
    finally:
        shutil.rmtree(work, ignore_errors=True)


def committed_files():
    found = []
    for writer in WRITERS:
        folder = os.path.join(COMMITTED_YAML, writer.FOLDER)
        if os.path.isdir(folder):
            found += [os.path.join(folder, name) for name in sorted(os.listdir(folder))]
    return found


def check():
    """True if the committed yaml files are exactly what the demo's sources give now."""
    texts = generate()
    same = True
    for path, text in sorted(texts.items()):
        current = None
        if os.path.isfile(path):
            with open(path) as stream:
                current = stream.read()
        if current != text:
            say("%s differs from what tools/make_bundle.py generates; run `make bundle`." % path)
            same = False
    for path in committed_files():
        if path not in texts:
            say("%s is no competition of the demo any more; run `make bundle`." % path)
            same = False
    return same


def write_committed():
    texts = generate()
    for path in committed_files():
        if path not in texts:
            os.remove(path)
    for path, text in texts.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write(path, text.encode("utf-8"))


def say(line):
    """One line to the organizer's terminal, names in it escaped and isolated (bidi.terminal)."""
    print(terminal(line))


def main(argv):
    parser = argparse.ArgumentParser(prog="make_bundle.py", description=__doc__.splitlines()[0])
    parser.add_argument("--competition", help="the organizer's competition folder (default: the demo, from input/)")
    parser.add_argument("--out", default=os.path.join(ROOT, "dist"), help="where to write (emptied first)")
    parser.add_argument("--together", action="store_true", help="all tracks in one competition")
    parser.add_argument("--check", action="store_true", help="only check the committed demo yaml files")
    parser.add_argument("dist", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args(argv[1:])
    if args.check:
        return 0 if check() else 1
    dist = args.dist or args.out
    try:
        manifest = build(dist, args.competition, args.together)
        if args.competition is None:  # the committed yaml files: the demo's competitions
            write_committed()
    except (BuildError, ScoringError, confined.Refused) as error:
        sys.stderr.write("%s\n" % terminal(getattr(error, "sentence", error)))
        return 2
    for entry in manifest["competitions"]:
        where = os.path.normpath(os.path.join(dist, entry["folder"]))
        for phase in entry["phases"]:
            say("%-16s %-12s %d keys, sample: %s"
                  % (phase["track"], phase["stage"], len(phase["keys"]), phase["sample"]))
        say("competition written to %s:" % where)
        for writer in WRITERS:
            platform = entry["platforms"][writer.FOLDER]
            if platform["zip"]:
                say("  %-26s %s" % (platform["zip"], writer.NAME))
            else:
                say("  %-26s %s: none, %s" % ("", writer.NAME, platform["refusal"]))
            for note in platform.get("notes", []):
                say("  %-26s   %s" % ("", note))
    for warning in manifest["warnings"]:
        say("warning: " + warning)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
