"""The tracks: each module glues a reader, metric kernels and aggregation.

A track module provides:
  TITLE                       a human title
  OPTIONS                     name -> (default, options.Check) for its track.yaml
  keys(track, options)        its scores.txt keys, primary first (for leaderboards)
  score(track, submission, options, log) -> result.TrackResult
"""

from . import authentication, events, lines

TRACKS = {
    "authentication": authentication,
    "events": events,
    "lines": lines,
}
