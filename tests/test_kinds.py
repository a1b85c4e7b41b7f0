"""A kind is one module: the registry finds it, it provides every piece, its columns and its
view agree on keys and directions, and nothing else in program/ or tools/ names a kind."""

import ast
import io
import os
import re
import shutil
import sys

import pytest
from conftest import PROGRAM, ROOT
from phases import sample_phase, write_phase
from test_manual import string_of

from scoring import tracks
from scoring.errors import ReferenceDataError
from scoring.log import Log
from scoring.runner import phase_tracks, score_submission

BUILT_IN = ["authentication", "events", "lines"]
TEST_KINDS = os.path.join(ROOT, "tests", "kinds")

#: Where a kind may be named: its own modules, and the demo's sample generators.
KIND_FILES = [os.path.join("program", "scoring", "tracks", kind + ".py") for kind in BUILT_IN]
KIND_FILES += [os.path.join("program", "scoring", "readers", kind + ".py") for kind in BUILT_IN]
DEMO_FILES = [os.path.join("tools", name) for name in ("make_sample.py", "compare_scenario.py")]
DEMO_FILES += [os.path.join("tools", "sample_%s.py" % kind) for kind in BUILT_IN]


def naming_strings(path, kinds):
    """(line, text) of the strings of a module that name a kind, docstrings left out: a
    kind's name alone, `track: <kind>`, `<kind> track`, or the word `authentication`
    (the other two names are also English words)."""
    with open(path, encoding="utf-8") as stream:
        tree = ast.parse(stream.read())
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and string_of(first.value) is not None:
                docstrings.add(id(first.value))
    names = "|".join(kinds)
    pattern = re.compile(r"^(%s)$|track:\s*(%s)\b|\b(%s) track\b|\bauthentication\b" % (names, names, names))
    return [(node.lineno, string_of(node)) for node in ast.walk(tree)
            if string_of(node) is not None and id(node) not in docstrings and pattern.search(string_of(node))]


def test_no_string_names_a_kind_outside_its_own_modules():
    found = []
    for top in ("program", "tools"):
        for folder, _, filenames in os.walk(os.path.join(ROOT, top)):
            for filename in filenames:
                path = os.path.join(folder, filename)
                rel = os.path.relpath(path, ROOT)
                if filename.endswith(".py") and rel not in KIND_FILES + DEMO_FILES:
                    found += [(rel, line, text[:80]) for line, text in naming_strings(path, BUILT_IN)]
    assert not found, found


def test_the_check_finds_what_names_a_kind(tmp_path):
    path = tmp_path / "module.py"
    path.write_text('"""A docstring about the lines track is fine."""\n'
                    'A = {"lines": 1}\nB = "e.g. track: events"\nC = "the authentication files"\nD = "blank lines"\n')
    assert sorted(line for line, _ in naming_strings(str(path), BUILT_IN)) == [2, 3, 4]


def test_the_built_in_kinds_are_the_modules_of_the_package():
    folder = os.path.join(PROGRAM, "scoring", "tracks")
    assert sorted(tracks.TRACKS.built_in) == BUILT_IN
    assert sorted(name[:-3] for name in os.listdir(folder) if name.endswith(".py") and name != "__init__.py") == \
        BUILT_IN
    assert list(tracks.TRACKS) == BUILT_IN
    for kind in BUILT_IN:
        assert tracks.TRACKS[kind].__name__ == "scoring.tracks." + kind


@pytest.mark.parametrize("kind", BUILT_IN)
def test_every_kind_provides_every_piece(kind):
    module = tracks.TRACKS[kind]
    missing = [piece for piece in tracks.PIECES if getattr(module, piece, None) is None]
    assert not missing


@pytest.fixture
def test_kinds():
    """The kinds of tests/kinds/ found as a competition's kinds/ folder is."""
    tracks.add_folder(TEST_KINDS)
    yield
    tracks.TRACKS.folders.remove(TEST_KINDS)
    sys.modules.pop("scoring.tracks.guide_example", None)


def test_a_kind_in_a_folder_is_found_and_imported_as_one_of_the_package(test_kinds):
    assert "guide_example" in tracks.TRACKS and "guide_example" in list(tracks.TRACKS)
    module = tracks.TRACKS["guide_example"]
    assert module.__name__ == "scoring.tracks.guide_example" and sys.modules["scoring.tracks.guide_example"] is module
    assert tracks.TRACKS.origin("guide_example") == "the kind guide_example (%s)" % os.path.join(
        TEST_KINDS, "guide_example.py")
    assert not [piece for piece in tracks.PIECES if getattr(module, piece, None) is None]


def test_a_kind_missing_a_piece_is_named_with_what_needs_it():
    module = type(sys)("scoring.tracks.half")
    module.OPTIONS = {}
    tracks.register("half", module)
    try:
        with pytest.raises(ReferenceDataError) as refused:
            tracks.require("half", "metrics_text", "the evaluation page")
        assert refused.value.sentence == ("The kind half (registered) provides no metrics_text, which the evaluation "
                                          "page needs; add it to the kind's module (docs/maintainers.md, \"Adding a "
                                          "kind\").")
    finally:
        tracks.unregister("half")
    assert "half" not in tracks.TRACKS


@pytest.mark.parametrize("name", ["dances", "../../etc/passwd", "Lines", "lines.py", 7])
def test_an_unknown_kind_is_refused_naming_the_known_ones(tmp_path, name):
    root = write_phase(tmp_path / "phase", ref={"track.yaml": "track: %s\n" % name})
    with pytest.raises(ReferenceDataError) as refused:
        phase_tracks(os.path.join(root, "ref"))
    assert "expected one of authentication, events, lines." in refused.value.sentence


def test_the_titles_come_from_track_yaml_else_the_folder_else_the_kind(tmp_path):
    root = sample_phase(tmp_path / "named", "events", yaml="track: events\ntitle: Fêtes de Lyon\n"
                                                          "competition: Les fêtes, 2031\n")
    _, (result,) = score_submission(root, Log(io.StringIO()))
    assert (result.title, result.competition) == ("Fêtes de Lyon", "Les fêtes, 2031")
    root = sample_phase(tmp_path / "folder", "events")
    _, (result,) = score_submission(root, Log(io.StringIO()))
    assert (result.title, result.competition) == ("events", "")
    root = str(tmp_path / "root")
    shutil.copytree(os.path.join(ROOT, "input", "ref", "events"), os.path.join(root, "ref"))
    shutil.copytree(os.path.join(ROOT, "input", "res", "events"), os.path.join(root, "res"))
    _, (result,) = score_submission(root, Log(io.StringIO()))
    assert result.title == "Event recognition"  # the kind's neutral name: a root track has no folder name


@pytest.mark.parametrize("value", ["[a, b]", "''", "{a: 1}", "true"])
def test_a_title_that_is_no_line_of_text_is_refused(tmp_path, value):
    root = sample_phase(tmp_path / "phase", "events", yaml="track: events\ntitle: %s\n" % value)
    with pytest.raises(ReferenceDataError) as refused:
        score_submission(root, Log(io.StringIO()))
    assert "sets title to" in refused.value.sentence and "a title on one line" in refused.value.sentence
