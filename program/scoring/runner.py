"""run(input, output): find the tracks, score each one, write the outputs."""

import os
from collections import OrderedDict

from . import bootstrap, files, layout, matching, memory, report, views
from .errors import ReferenceDataError
from . import tracks as kinds
from .options import boolean, parse_options, text
from .result import TrackResult
from .tracks import TRACKS

#: What a participant reads when the phase's reference data are a stand-in.
PENDING = ("Your submission is valid: it was checked against the final phase's test items (their names and "
           "sizes) exactly as the hidden test set will check it, and it will be scored against the hidden "
           "test set after the final phase closes. Until then every score of this submission is 0, also on the "
           "leaderboard: the reference data on the platform hold no ground truth.")


#: Options of every track.yaml, whatever its kind, handled here rather than by the track:
#: stand_in (stand_in_result: validate the submission, score nothing); title and
#: competition, the organizer's titles of the track and of its competition, which the
#: page shows (the build writes them from the competition's source.yaml); interval (the
#: detailed results show the 95% interval of the ranking score, add_interval).
COMMON_OPTIONS = {"stand_in": (False, boolean()), "title": (None, text()), "competition": (None, text()),
                  "interval": (True, boolean())}


def track_options(config, module, where):
    """The options of one track.yaml (config), its kind's and the common ones, validated."""
    declared = dict(module.OPTIONS)
    declared.update(COMMON_OPTIONS)
    return parse_options(config, declared, where)


def phase_tracks(ref_dir, shown_root="ref"):
    """(track, its module, its parsed options, its key prefix) of each track of ref_dir,
    every file of each track's folder one its kind reads (layout.refuse_unread).
    shown_root: how messages name ref_dir (the build names the organizer's folder)."""
    tracks = layout.find_tracks(ref_dir, TRACKS, shown_root)
    prepared = []
    for track, prefix in zip(tracks, layout.key_prefixes(tracks)):
        module = TRACKS[track.kind]
        layout.refuse_unread(track, kinds.require(track.kind, "reference_files", "the check that every reference "
                                                  "file is read")(track),
                             kinds.require(track.kind, "REFERENCE", "the sentence naming a reference file not read"))
        prepared.append((track, module, track_options(track.config, module, track.ref_name("track.yaml")), prefix))
    return prepared


def prepare(input_dir, log):
    """Tracks of the phase with their parsed options and key prefixes, every key distinct."""
    prepared = phase_tracks(os.path.join(input_dir, "ref"))
    refuse_key_collisions(prepared)
    return prepared


def refuse_key_collisions(prepared):
    """Before scoring: every score key of the phase is written once. Names of subsets,
    manuscripts and track folders become keys (names.key_name), so a subset 'balanced'
    (balanced_accuracy), a manuscript 'fest2025' under protocol both, or track folders
    ev-1 and ev_1 would otherwise overwrite another score. (Two names of one track giving
    one key, Tasso-1 and Tasso_1, are refused by the kind, names.name_keys.) The sentence
    names both sources, the subsets, manuscripts or folders to rename, from the columns."""
    owner = {}
    for track, _, options, prefix in prepared:
        for column in kinds.require(track.kind, "columns", "the leaderboard")(track, options):
            full = prefix + column.key
            if full in owner:
                first_track, first = owner[full]
                if first_track is track:
                    where = "twice by %s: for %s and for %s" % (track.label, first.source(), column.source())
                else:
                    where = "by both %s and %s" % (first_track.label, track.label)
                    if first.stratum is not None or column.stratum is not None:
                        where += " (for %s and for %s)" % (first.source(), column.source())
                named = [c for c in (first, column) if c.stratum is not None]
                rename = " or ".join(c.source() for c in named) if named else \
                    "one of the track folders %s and %s" % (first_track.label, track.label)
                raise ReferenceDataError(
                    "The score key %s would be written %s; rename %s so that every key is distinct (names of "
                    "subsets, manuscripts and track folders become keys in ASCII lower case, accents dropped and "
                    "other characters as '_')." % (full, where, rename))
            owner[full] = (track, column)


def score_submission(input_dir, log):
    """Score res/ against ref/: (scores in key order, results). Writes nothing."""
    memory.keep_freed_memory()  # for evaluate.py, check_submission.py and compare.py alike
    prepared = prepare(input_dir, log)
    index = files.index_submission(os.path.join(input_dir, "res"), os.path.join(input_dir, "ref"))
    index.log_repairs(log)
    all_tracks = [p[0] for p in prepared]
    scores = []
    results = []
    for track, module, options, prefix in prepared:
        submission = matching.submission_for(track, index, all_tracks, log, TRACKS)
        title = track_title(track, options)
        log.info("Scoring %s." % (title if not track.rel or title == track.rel else "%s (%s/)" % (title, track.rel)))
        result = module.score(track, submission, options, log)
        result.title = shown_title(track, options, prefix)
        result.competition = options["competition"] or ""
        for key, value in result.scores.items():
            scores.append((prefix + key, value))
        result.key_prefix = prefix
        result.stand_in = options["stand_in"]
        result.wants_interval = options["interval"]
        result.private.extend(views.private_files(track, prefix, result))
        results.append(result)
    return scores, results


def track_title(track, options):
    """The track's title on the page: the organizer's (track.yaml's title), else its folder's
    name, else the neutral name of its kind."""
    return options["title"] or track.rel or kinds.require(track.kind, "LABEL", "the detailed results page")


def shown_title(track, options, prefix):
    """The track's title on its page and in compare.py's report: track_title, and its folder
    when two tracks of its kind share the phase (their keys are prefixed)."""
    title = track_title(track, options)
    return "%s (%s)" % (title, track.rel) if prefix and title != track.rel else title


def stand_in_result(result):
    """The result of a track scored against a stand-in reference (track.yaml: stand_in: true,
    the organizer keeps the real ground truth off the platform until the phase closes): the
    submission was read and validated as on the real data, but its numbers mean nothing. Every
    key is 0 (the platforms need every column, as a finite number), the page says why, and
    nothing goes to private/ (its per-item tables and views would describe the stand-in)."""
    pending = TrackResult(result.kind, result.title)
    pending.competition = result.competition
    for key in result.scores:
        pending.set_score(key, 0.0)
    pending.key_prefix = result.key_prefix
    pending.stand_in = True
    pending.pending = PENDING
    pending.meaning = "Not scored yet: the final phase is scored against the hidden test set after it closes."
    return pending


def add_interval(result):
    """The 95% interval of the result's ranking score, as compare.py computes it for this
    submission (bootstrap.participant_intervals: the same code, stratified draws, seed and
    resamples), and the prediction interval from the same draws, unless the track's
    track.yaml says interval: false."""
    if getattr(result, "wants_interval", False) and result.view is not None and result.view.primary in result.scores:
        result.interval, result.prediction = bootstrap.participant_intervals(result.view)


def run(input_dir, output_dir, log):
    os.makedirs(output_dir, exist_ok=True)  # a second run may make it at the same time
    with report.output_lock(output_dir):
        report.remove_stale_scores(output_dir)
    _, results = score_submission(input_dir, log)
    results = [stand_in_result(r) if r.stand_in else r for r in results]
    for result in results:
        add_interval(result)
    scores = [(r.key_prefix + key, value) for r in results for key, value in r.scores.items()]
    report.write_outputs(output_dir, OrderedDict(scores), results, log.lines)
    return scores
