"""make_sample rewrites only the files it wrote: an organizer's data in input/ are never deleted."""

import os

import make_sample


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as stream:
        stream.write(text)


def test_sample_refuses_to_touch_files_it_did_not_write(tmp_path, capsys):
    root = str(tmp_path / "input")
    assert make_sample.main(["make_sample.py", root]) == 0
    written = make_sample.digests(root)
    assert any(path.startswith("ref/lines/") for path in written)
    assert make_sample.main(["make_sample.py", root]) == 0  # its own files: rewritten
    assert make_sample.digests(root) == written

    mine = os.path.join(root, "ref", "myauth", "Alpha.csv")
    write(mine, "filename,label\na.png,0\n")
    capsys.readouterr()
    assert make_sample.main(["make_sample.py", root]) == 2
    assert capsys.readouterr().err == (
        "%s holds 1 files that make_sample did not write, e.g. %s; nothing was changed. Move them away (your own "
        "data belong in a competition folder: docs/organizers.md) and run it again.\n" % (root, mine))
    assert open(mine).read() == "filename,label\na.png,0\n"
    now = make_sample.digests(root)
    assert set(now) == set(written) | {"ref/myauth/Alpha.csv"}  # nothing deleted
    assert all(now[path] == digest for path, digest in written.items())  # nothing rewritten

    os.remove(mine)
    changed = os.path.join(root, "ref", "events", "La_Tomatina.txt")
    write(changed, "000001.jpg 1\n")  # an organizer replaced the ground truth in place
    assert make_sample.main(["make_sample.py", root]) == 2
    assert open(changed).read() == "000001.jpg 1\n"


def test_sample_without_manifest_accepts_what_it_would_write(tmp_path):
    """A checkout of input/ (identical to the generation) needs no manifest to be rewritten."""
    root = str(tmp_path / "input")
    assert make_sample.main(["make_sample.py", root]) == 0
    os.remove(os.path.join(root, make_sample.MANIFEST))
    assert make_sample.main(["make_sample.py", root]) == 0
