"""Regenerate the sample phase in input/: python3 tools/make_sample.py [INPUT_DIR].

Every track of the sample phase sits in its own sub-directory of input/ref, mirrored
in input/res. The data are synthetic, deterministic (fixed seeds) and small.
"""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sample_authentication  # noqa: E402
import sample_events  # noqa: E402
import sample_lines  # noqa: E402

SAMPLES = [
    ("authentication", sample_authentication),
    ("events", sample_events),
    ("lines", sample_lines),
]


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "input")
    for folder in ("ref", "res"):
        shutil.rmtree(os.path.join(root, folder), ignore_errors=True)
    for name, module in SAMPLES:
        module.make(os.path.join(root, "ref", name), os.path.join(root, "res", name))
    print("sample phase written to %s" % os.path.normpath(root))


if __name__ == "__main__":
    main(sys.argv)
