"""The same properties for every registered kind, built in or from a competition's kinds/
(here tests/kinds/), as scikit-learn's test_common.py checks every metric: a kind added
outside the demo gets these tests without a line of its own.

The phases are the kind's own (docs/maintainers.md, "Adding a kind", step 9):
sample_reference(folder) writes a small made-up reference, public_items / stand_in_reference
/ dummy_submission make the rest, and reference_as_submission(track, options, folder) the
submission that repeats the reference. On them:

- the public items survive the stand-in reference (public_items of stand_in_reference(items)
  are the items);
- the columns and the view declare the same keys, directions and bounds;
- the reference as submission gets the best value of every score that has one;
- every score of every submission lies within its declared bounds;
- the order of the lines of a file does not change a score, nor the order in which the
  submission's files were written;
- every sentence the kind's modules raise for a participant is in the kind's manual
  (test_manual: tools/manual.py's COMMON_ERRORS, HINTS and fill, the kind's errors() and
  error_values()), and every refusal of a generic malformed corpus (each file missing, each
  file not UTF-8 or not an image, each file empty, nothing submitted) is one of them.
"""

import io
import json
import os
import re
import shutil
import sys

import pytest
from conftest import ROOT
from phases import write_file
from test_manual import COMMON_MODULES, REPEATS, documented, format_pattern, manual_sentences, sentences_of

from scoring import tracks
from scoring.errors import SubmissionError
from scoring.log import Log
from scoring.runner import phase_tracks, score_submission

TEST_KINDS = os.path.join(ROOT, "tests", "kinds")
KINDS = sorted(tracks.TRACKS.built_in) + sorted(
    name[:-3] for name in os.listdir(TEST_KINDS) if name.endswith(".py") and tracks.NAME.match(name[:-3]))
FOLDER = "track"  # the track's folder in ref/ and res/


@pytest.fixture(scope="module", autouse=True)
def test_kinds():
    """The kinds of tests/kinds/ found as a competition's kinds/ folder is."""
    tracks.add_folder(TEST_KINDS)
    yield
    tracks.TRACKS.folders.remove(TEST_KINDS)
    for name in KINDS:
        if name not in tracks.TRACKS.built_in:
            sys.modules.pop("scoring.tracks." + name, None)


def piece(kind, name):
    return tracks.require(kind, name, "the registry-wide tests (tests/test_every_kind.py)")


def reference(kind, root):
    """root/ref/track/: the kind's sample reference. Returns (track, module, options)."""
    folder = os.path.join(str(root), "ref", FOLDER)
    os.makedirs(folder)
    write_file(os.path.join(folder, "track.yaml"), "track: %s\n" % kind)
    piece(kind, "sample_reference")(folder)
    os.makedirs(os.path.join(str(root), "res", FOLDER))
    ((track, module, options, _),) = phase_tracks(os.path.join(str(root), "ref"))
    return track, module, options


def submission(root, files):
    """root/res/track/ holding files {relative path: bytes}, written in the given order."""
    folder = os.path.join(str(root), "res", FOLDER)
    shutil.rmtree(folder)
    os.makedirs(folder)
    for rel, data in files:
        write_file(os.path.join(folder, *rel.split("/")), data)


def read_folder(folder):
    """[(relative path, bytes)] of a folder's files, sorted."""
    out = []
    for top, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(top, name)
            with open(path, "rb") as stream:
                out.append((os.path.relpath(path, folder).replace(os.sep, "/"), stream.read()))
    return sorted(out)


def made(root, writer, *args):
    """The files a kind's writer makes in a scratch folder, as [(relative path, bytes)]."""
    folder = os.path.join(str(root), "made-%d" % len(os.listdir(str(root))))
    os.makedirs(folder)
    writer(*(args + (folder,)))
    return read_folder(folder)


def scores_of(root):
    scores, (result,) = score_submission(str(root), Log(io.StringIO()))
    return dict(scores), result


def check_bounds(kind, columns, scores):
    for column in columns:
        low, high = column.metric.bounds
        value = scores[column.key]
        assert (low is None or value >= low) and (high is None or value <= high), (kind, column.key, value)


def text_lines_reversed(rel, data):
    """The lines of a text file in reverse order (a CSV file's header line first still);
    other files as they are."""
    if not rel.lower().endswith((".csv", ".txt", ".tsv")):
        return data
    lines = data.decode("utf-8").splitlines(True)
    lines[-1:] = [lines[-1] if lines[-1].endswith("\n") else lines[-1] + "\n"] if lines else []
    head, body = (lines[:1], lines[1:]) if rel.lower().endswith(".csv") else ([], lines)
    return "".join(head + body[::-1]).encode("utf-8")


@pytest.fixture(params=KINDS)
def phase(request, tmp_path):
    """(kind, root, track, module, options, items, perfect files, mixed files): the kind's
    sample reference; the reference as submission; and a mixed submission, every other of
    its files that the dummy submission also writes replaced by the dummy's (scores neither
    best nor worst)."""
    kind = request.param
    root = tmp_path / "phase"
    track, module, options = reference(kind, root)
    items = piece(kind, "public_items")(track)
    perfect = made(tmp_path, piece(kind, "reference_as_submission"), track, options)
    dummy = dict(made(tmp_path, piece(kind, "dummy_submission"), items))
    replaced = [rel for rel, _ in perfect if rel in dummy][1::2]
    mixed = [(rel, dummy[rel] if rel in replaced else data) for rel, data in perfect]
    return kind, root, track, module, options, items, perfect, mixed


def test_the_public_items_survive_the_stand_in_reference(phase, tmp_path):
    kind, _, _, _, _, items, _, _ = phase
    stand_in = tmp_path / "stand-in"
    os.makedirs(str(stand_in / "ref" / FOLDER))
    write_file(str(stand_in / "ref" / FOLDER / "track.yaml"), "track: %s\n" % kind)
    piece(kind, "stand_in_reference")(items, str(stand_in / "ref" / FOLDER))
    ((track, _, _, _),) = phase_tracks(str(stand_in / "ref"))
    assert json.dumps(piece(kind, "public_items")(track), sort_keys=True) == json.dumps(items, sort_keys=True)


def test_the_reference_as_submission_gets_the_best_value(phase):
    kind, root, track, module, options, _, perfect, _ = phase
    submission(root, perfect)
    scores, result = scores_of(root)
    columns = module.columns(track, options)
    assert [column.key for column in columns] == list(scores) == list(result.view.scores)
    for column in columns:
        score = result.view.scores[column.key]
        assert (score.lower_is_better, score.bounds) == (column.lower_is_better, column.metric.bounds), column.key
    check_bounds(kind, columns, scores)
    best = [(column.key, column.metric.bounds[0 if column.lower_is_better else 1]) for column in columns]
    best = [(key, bound) for key, bound in best if bound is not None]
    assert best, "%s declares no bound on the side of the best value" % kind
    assert [(key, scores[key]) for key, _ in best] == best


def test_the_dummy_and_a_mixed_submission_score_within_their_bounds(phase, tmp_path):
    kind, root, track, module, options, items, perfect, mixed = phase
    columns = module.columns(track, options)
    submission(root, made(tmp_path, piece(kind, "dummy_submission"), items))
    check_bounds(kind, columns, scores_of(root)[0])
    submission(root, mixed)
    scores = scores_of(root)[0]
    check_bounds(kind, columns, scores)
    submission(root, perfect)
    assert scores != scores_of(root)[0], "the mixed submission of %s scores as the reference does" % kind


def test_the_order_of_lines_and_files_does_not_matter(phase):
    """Each text file's lines reversed in turn, the files written in reverse order: the
    same scores. A file whose lines are positions (a matrix's rows, which must follow its
    columns) may refuse the reversal instead, in a sentence of the manual; not every file."""
    kind, root, _, _, _, _, _, mixed = phase
    submission(root, mixed)
    expected = scores_of(root)[0]
    submission(root, mixed[::-1])
    assert scores_of(root)[0] == expected
    accepted = 0
    for i, (rel, data) in enumerate(mixed):
        reversed_lines = text_lines_reversed(rel, data)
        if reversed_lines == data:
            continue
        submission(root, mixed[:i] + [(rel, reversed_lines)] + mixed[i + 1:])
        try:
            assert scores_of(root)[0] == expected, rel
            accepted += 1
        except SubmissionError as refusal:
            assert documented(kind, refusal.sentence), (rel, refusal.sentence)
    assert accepted or not any(rel.lower().endswith((".csv", ".txt", ".tsv")) for rel, _ in mixed), kind


def refused(root, files):
    """The sentence of the submission's refusal, or None if it is scored (within bounds)."""
    submission(root, files)
    try:
        scores_of(root)
    except SubmissionError as refusal:
        return refusal.sentence
    return None


def test_every_refusal_of_a_malformed_submission_is_in_the_manual(phase):
    """A generic malformed corpus, from the reference as submission: nothing submitted;
    each file missing; each file not UTF-8 (a text file) or not an image (any other);
    each file empty. Each is refused in a sentence of the manual, or scored (a file the
    kind does not need, an optional one)."""
    kind, root, _, _, _, _, perfect, _ = phase
    sentences = [refused(root, [])]
    assert sentences[0] is not None, "%s scores an empty submission" % kind
    for i, (rel, data) in enumerate(perfect):
        others = perfect[:i] + perfect[i + 1:]
        if rel.lower().endswith((".csv", ".txt", ".tsv")):
            broken = data.replace(b"\n", b"\xe9\n", 1)
        else:
            broken = b"not an image\n"
        sentences.append(refused(root, others))
        sentences.append(refused(root, others[:i] + [(rel, broken)] + others[i:]))
        sentences.append(refused(root, others[:i] + [(rel, b"")] + others[i:]))
    sentences = [sentence for sentence in sentences if sentence is not None]
    assert len(sentences) > len(perfect), (kind, sentences)  # most cases are refused
    undocumented = [sentence for sentence in sentences if not documented(kind, sentence)]
    assert not undocumented, (kind, undocumented)


def kind_sources(kind):
    """The kind's modules (test_manual.kind_modules for a built-in kind; its one file for a
    kind from a folder)."""
    from test_manual import kind_modules

    if kind in tracks.TRACKS.built_in:
        return kind_modules(kind)
    return [(tracks.TRACKS.paths()[kind], None)]


def test_every_sentence_the_kind_raises_for_a_participant_is_in_its_manual(phase):
    kind, _, _, _, _, items, _, _ = phase
    rendered = manual_sentences(kind, items)
    missing, read = [], 0
    own = "".join(open(path, encoding="utf-8").read() for path, _ in kind_sources(kind))
    common = [path for path in COMMON_MODULES if path != REPEATS[0] or REPEATS[1] in own]  # a kind listing names
    for path, functions in kind_sources(kind) + [(path, None) for path in common]:
        for text in sentences_of(path, functions):
            read += 1
            if not any(re.search(format_pattern(text), sentence, flags=re.S) for sentence in rendered):
                missing.append((os.path.relpath(path, ROOT), text))
    assert not missing, missing
    assert read >= 25, read  # the kind's and the common modules' sentences were found at all


def test_the_manual_s_examples_are_the_program_s_sentences(phase):
    """The manual made from the kind's own sample phase: every row that a mistake of
    tools/mistakes.py makes is the sentence the program refuses that mistake with; the
    phase's first subset, manuscript or category is named with a look-alike of '/' (U+2215,
    as the organizer's guide spells a name holding '/'), which the sentences show."""
    from test_manual import check_examples_are_the_program_s
    from test_organizer_silence import first_stratum
    from scoring import public
    kind, root, track = phase[:3]
    old = first_stratum(public.public_items(str(root / "ref")))
    entry = next(name for name in os.listdir(track.path) if os.path.splitext(name)[0] == old or name == old)
    os.rename(os.path.join(track.path, entry), os.path.join(track.path, "A\u2215" + entry))  # sorted first
    rows = check_examples_are_the_program_s(kind, track.path)
    assert any("A\u2215" + old in sentence for sentence in rows.values()), rows
