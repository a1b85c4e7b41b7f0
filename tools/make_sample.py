"""Regenerate the demo phase in input/: python3 tools/make_sample.py [INPUT_DIR] (`make sample`).

Every track of the demo sits in its own sub-directory of input/ref, mirrored in
input/res. The data are synthetic, deterministic (fixed seeds) and small.

Only files this tool wrote are ever replaced or deleted: INPUT_DIR/sample-manifest.json
lists them with their SHA-256. A file of ref/ or res/ that is neither listed (unchanged)
nor identical to what the generators write now is someone's data, and the tool refuses
to touch anything; your own ground truth belongs in a competition folder (see
docs/organizers.md), not in input/.
"""

import hashlib
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "program"))

import sample_authentication  # noqa: E402
import sample_events  # noqa: E402
import sample_lines  # noqa: E402
from scoring.errors import printable  # noqa: E402

# The demo's generator of each track kind, and the folder of the demo track.
SAMPLES = [
    ("authentication", sample_authentication),
    ("events", sample_events),
    ("lines", sample_lines),
]
MANIFEST = "sample-manifest.json"


def digests(root):
    """{path relative to root: sha256} of every file under root/ref and root/res."""
    found = {}
    for side in ("ref", "res"):
        for directory, _, filenames in os.walk(os.path.join(root, side)):
            for filename in filenames:
                path = os.path.join(directory, filename)
                with open(path, "rb") as stream:
                    digest = hashlib.sha256(stream.read()).hexdigest()
                found[os.path.relpath(path, root).replace(os.sep, "/")] = digest
    return found


def foreign_files(root, fresh):
    """Files under root that make_sample did not write (or that changed since): neither
    listed unchanged in the manifest nor identical to the fresh generation."""
    listed = {}
    manifest = os.path.join(root, MANIFEST)
    if os.path.isfile(manifest):
        with open(manifest) as stream:
            listed = json.load(stream)
    return sorted(path for path, digest in digests(root).items()
                  if listed.get(path) != digest and fresh.get(path) != digest)


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "input")
    root = os.path.normpath(root)
    work = tempfile.mkdtemp(prefix="sample-")
    try:
        for name, module in SAMPLES:
            module.make(os.path.join(work, "ref", name), os.path.join(work, "res", name))
        fresh = digests(work)
        foreign = foreign_files(root, fresh)
        if foreign:
            sys.stderr.write(printable(
                "%s holds %d files that make_sample did not write, e.g. %s; nothing was changed. Move them away "
                "(your own data belong in a competition folder: docs/organizers.md) and run it again."
                % (root, len(foreign), os.path.join(root, foreign[0]))) + "\n")
            return 2
        for path in digests(root):
            os.remove(os.path.join(root, path))
        for side in ("ref", "res"):
            for directory, _, _ in sorted(os.walk(os.path.join(root, side)), reverse=True):
                if not os.listdir(directory):
                    os.rmdir(directory)
        for path in fresh:
            target = os.path.join(root, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(os.path.join(work, path), target)
        with open(os.path.join(root, MANIFEST), "w") as stream:
            json.dump(fresh, stream, indent=1, sort_keys=True)
            stream.write("\n")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(printable("sample phase written to %s" % root))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
