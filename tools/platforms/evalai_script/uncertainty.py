"""python uncertainty.py OUTPUT RESAMPLES SEED: print as JSON {key: +-} for every score of the
per-item views evaluate.py left in OUTPUT/private/views/ (scoring.views.read_scored): half
the width of each score's 95% interval, the participant's page's (scoring.bootstrap,
half_widths), the symmetric error EvalAI's leaderboard shows beside a score."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "program"))

from scoring import views  # noqa: E402
from scoring import bootstrap  # noqa: E402


def main(argv):
    output, resamples, seed = argv[1], int(argv[2]), int(argv[3])
    found = {}
    for meta, view, _ in views.read_scored(output):
        for key, value in bootstrap.half_widths(view, resamples, seed).items():
            found[meta["prefix"] + key] = value
    sys.stdout.write(json.dumps(found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
