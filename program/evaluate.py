#!/usr/bin/env python3
"""Codalab / Codabench scoring program: python3 evaluate.py INPUT OUTPUT."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scoring.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
