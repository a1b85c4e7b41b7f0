"""run(input, output): find the tracks, score each one, write the outputs."""

import os
from collections import OrderedDict

from . import layout, report, views
from .errors import ReferenceDataError
from .options import parse_options
from .tracks import TRACKS


def prepare(input_dir, log):
    """Tracks of the phase with their parsed options and key prefixes."""
    tracks = layout.find_tracks(os.path.join(input_dir, "ref"), TRACKS)
    prefixes = layout.key_prefixes(tracks)
    prepared = []
    for track, prefix in zip(tracks, prefixes):
        module = TRACKS[track.kind]
        options = parse_options(track.config, module.OPTIONS, track.ref_name("track.yaml"))
        prepared.append((track, module, options, prefix))
    return prepared


def score_submission(input_dir, log):
    """Score res/ against ref/: (scores in key order, results). Writes nothing."""
    prepared = prepare(input_dir, log)
    res_root = os.path.join(input_dir, "res")
    if os.path.isdir(res_root):
        layout.refuse_links(res_root)
    layout.refuse_empty(res_root)
    all_tracks = [p[0] for p in prepared]
    scores = []
    results = []
    for track, module, options, prefix in prepared:
        submission = layout.submission_for(track, res_root, all_tracks, log)
        log.info("Scoring track %s (%s)." % (track.rel or "at the root of ref/", track.kind))
        result = module.score(track, submission, options, log)
        if prefix:
            result.title = "%s (%s)" % (result.title, track.rel)
        for key, value in result.scores.items():
            scores.append((prefix + key, value))
        result.key_prefix = prefix
        result.private.extend(views.private_files(track, prefix, result))
        results.append(result)
    keys = [k for k, _ in scores]
    if len(set(keys)) != len(keys):
        duplicated = sorted(set(k for k in keys if keys.count(k) > 1))
        raise ReferenceDataError(
            "Two tracks of this phase write the same score key %r; rename a track directory." % duplicated[0]
        )
    return scores, results


def run(input_dir, output_dir, log):
    if not os.path.isdir(output_dir):
        os.makedirs(output_dir)
    report.remove_stale_scores(output_dir)
    scores, results = score_submission(input_dir, log)
    report.write_outputs(output_dir, OrderedDict(scores), results, log.lines)
    return scores
