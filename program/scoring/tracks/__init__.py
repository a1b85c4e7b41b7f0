"""The tracks: each module glues a reader, metric kernels and aggregation.

A track module provides:
  TITLE                       a human title
  OPTIONS                     name -> (default, options.Check) for its track.yaml
  keys(track, options)        its scores.txt keys, primary first (for leaderboards)
  score(track, submission, options, log) -> result.TrackResult

TRACKS maps each track's name to its module, imported on first use: a phase pays only
for the tracks it has (the lines track alone brings in scipy.sparse, ~0.2 s).
"""

import importlib

from collections.abc import Mapping

NAMES = ("authentication", "events", "lines")


class _Tracks(Mapping):
    def __getitem__(self, name):
        if name not in NAMES:
            raise KeyError(name)
        return importlib.import_module("." + name, __name__)

    def __iter__(self):
        return iter(NAMES)

    def __len__(self):
        return len(NAMES)


TRACKS = _Tracks()
