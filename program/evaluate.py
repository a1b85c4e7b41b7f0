#!/usr/bin/env python3
"""Codalab / Codabench scoring program: python3 evaluate.py INPUT OUTPUT."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import scoring  # noqa: E402

with scoring.loading("run `make score` (it installs them in .venv), then `.venv/bin/python program/evaluate.py "
                     "INPUT OUTPUT`"):
    from scoring.cli import main

if __name__ == "__main__":
    sys.exit(main())
