#!/usr/bin/env python3
"""Meta-evaluation for organizers: python3 compare.py --ref REF_DIR SUBMISSION ... (see README)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scoring.metaeval.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
