#!/usr/bin/env python3
"""Codalab / Codabench scoring program: python3 evaluate.py INPUT OUTPUT."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import scoring  # noqa: E402

try:
    from scoring.cli import main
except ModuleNotFoundError as error:
    sentence = scoring.missing_package(
        error, "run `make score` (it installs them in .venv), then `.venv/bin/python program/evaluate.py "
        "INPUT OUTPUT`")
    if sentence is None:
        raise
    sys.stderr.write(sentence + "\n")
    sys.exit(3)
except (MemoryError, ImportError) as error:  # no room to load a package (ulimit -v)
    sentence = scoring.no_room_to_start(error)
    if sentence is None:
        raise
    sys.stderr.write(sentence + "\n")
    sys.exit(3)

if __name__ == "__main__":
    sys.exit(main())
