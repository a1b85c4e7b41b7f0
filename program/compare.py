#!/usr/bin/env python3
"""Meta-evaluation for organizers: python3 compare.py --ref REF_DIR SUBMISSION ... (see README)."""

import os
import sys

# One BLAS thread: the Gram products of the pixel statistics are thin (20 x 262144 blocks),
# gain nothing from threads, and spinning BLAS threads make them 30x slower on a busy machine.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scoring.metaeval.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
