"""A fourth kind, defined only in tests/kinds/guide_example.py (line transcription, character error
rate: lower is better, a rate can exceed 1), through the whole pipeline without a change to
program/ or tools/: an organizer's competition folder carries it as kinds/guide_example.py, and

- the build (tools/make_bundle.py, run as the organizer runs it) makes both platforms'
  competitions, whose leaderboards sort every column ascending and rank the best
  submission first, pages that describe the kind and none other, and a starting kit whose
  checker accepts the sample and refuses a broken submission with the kind's sentence;
- the scoring program of the bundle (evaluate.py as the platforms run it) scores three
  submissions as the definition of CER and WER gives by hand, on its page the organizer's
  titles;
- compare.py of the bundle ranks the best submission first, and its intervals of a rate
  above 1 reach above 1;
- a kind missing a piece of what the build needs stops the build with a sentence naming it.
"""

import csv
import io
import os
import shutil
import subprocess
import sys
import zipfile

import pytest
import test_bundle as platform
import yaml
from phases import build_bundle, unzipped

HERE = os.path.dirname(os.path.abspath(__file__))
KIND = os.path.join(HERE, "kinds", "guide_example.py")

# The reference of each phase: {manuscript: [(line id, text)]}; the same manuscripts (one
# leaderboard), other lines in the final phase.
DEVELOPMENT = {"Ms_A": [("a1", "In the beginning"), ("a2", "was the word")],
               "Ms_B": [("b1", "and the word"), ("b2", "was with God")]}
FINAL = {"Ms_A": [("f1", "Many are called"), ("f2", "few are chosen")],
         "Ms_B": [("g1", "Blessed are the meek")]}

# Three submissions of the development phase and their rates, by hand from the definitions
# (Levenshtein distance: insertions, deletions and substitutions cost 1; CER of a
# manuscript = its summed distances / its reference characters; cer = the mean over
# manuscripts). Ms_A has 16 + 12 = 28 characters and 3 + 3 = 6 words; Ms_B 12 + 12 = 24
# characters and 6 words.
SUBMISSIONS = {
    "perfect": ({"Ms_A": {"a1": "In the beginning", "a2": "was the word"},
                 "Ms_B": {"b1": "and the word", "b2": "was with God"}}, 0.0, 0.0),
    # one deleted n (one word wrong) in Ms_A, one substituted letter (one word) in Ms_B
    "good": ({"Ms_A": {"a1": "In the begining", "a2": "was the word"},
              "Ms_B": {"b1": "and the ward", "b2": "was with God"}}, (1 / 28 + 1 / 24) / 2, (1 / 6 + 1 / 6) / 2),
    # Ms_A: a1 empty (16 deletions, 3 words), a2 repeated four times (39 inserted characters,
    # 9 words); Ms_B: b1 "x" (11 deletions and a substitution; 2 word deletions and a
    # substitution): CER 55/28 and 12/24, WER 12/6 and 3/6
    "bad": ({"Ms_A": {"a1": "", "a2": " ".join(["was the word"] * 4)},
             "Ms_B": {"b1": "x", "b2": "was with God"}}, (55 / 28 + 12 / 24) / 2, (12 / 6 + 3 / 6) / 2),
}

# The pooled CER the kind declares beside the mean: all distances over all 28 + 24 = 52
# reference characters (the same edits as above).
POOLED = {"perfect": 0.0, "good": (1 + 1) / 52, "bad": (55 + 12) / 52}

SOURCE = """title: Transcribing the Abbey's Chronicle
tracks:
  transcripts:
    title: Line transcription of the chronicle
"""


def tsv(lines):
    return "".join("%s\t%s\n" % pair for pair in lines)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as stream:
        stream.write(text)


def write_reference(folder, reference):
    write(os.path.join(folder, "track.yaml"), "track: guide_example\n")
    for name, lines in reference.items():
        write(os.path.join(folder, name + ".tsv"), tsv(lines))


def submission_zip(answers):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, lines in sorted(answers.items()):
            archive.writestr(name + ".tsv", tsv(sorted(lines.items())))
    return buffer.getvalue()


def make_competition(root, kind_text=None):
    folder = os.path.join(root, "competition")
    write_reference(os.path.join(folder, "development", "transcripts"), DEVELOPMENT)
    write_reference(os.path.join(folder, "final", "transcripts"), FINAL)
    write(os.path.join(folder, "source.yaml"), SOURCE)
    os.makedirs(os.path.join(folder, "kinds"))
    if kind_text is None:
        shutil.copy(KIND, os.path.join(folder, "kinds", "guide_example.py"))
    else:
        write(os.path.join(folder, "kinds", "guide_example.py"), kind_text)
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("fourth_kind"))
    folder = make_competition(root)
    dist = os.path.join(root, "dist")
    completed = build_bundle(folder, dist, fresh=True)  # the one build started as the organizer starts it
    assert completed.returncode == 0, completed.stderr
    return root, dist


def test_both_platforms_sort_every_column_ascending(built):
    _, dist = built
    v15 = platform.codalab_zip(dist, "transcripts")
    v2 = platform.codabench_zip(dist, "transcripts")
    platform.check_codalab_yaml(v15)
    platform.check_codabench_yaml(v2)
    platform.check_same_keys(v15, v2)
    keys = ["cer", "wer", "cer_pooled", "ms_a_cer", "ms_a_wer", "ms_b_cer", "ms_b_wer"]
    assert platform.v15_leaderboards(v15[1]) == {"Line transcription of the chronicle": keys}
    assert all(column["sort"] == "asc" for column in v15[1]["leaderboard"]["columns"].values())
    board = v2[1]["leaderboards"][0]
    assert [column["key"] for column in board["columns"]] == keys
    assert all(column["sorting"] == "asc" for column in board["columns"])
    assert v15[1]["leaderboard"]["columns"]["ms_a_cer"]["label"] == "Ms_A CER"  # the manuscript as written


def v15_ranks(values, sorting):
    """codalab/apps/web/models.py, CompetitionPhase.rank_values with sort_ascending =
    (SubmissionScoreDef.sorting == 'asc'; the unpacker takes a column's `sort`): sorted by
    value, ascending or not, equal values (within 1e-12) sharing a rank."""
    ordered = sorted(values.items(), key=lambda pair: pair[1], reverse=sorting != "asc")
    ranks, rank, previous = {}, 1, ordered[0][1]
    for name, value in ordered:
        if abs(value - previous) > 1e-12:
            rank, previous = rank + 1, value
        ranks[name] = rank
    return ranks


def test_each_platform_scores_the_submissions_by_hand_and_ranks_the_best_first(built, tmp_path):
    _, dist = built
    v15_files, v15 = platform.codalab_zip(dist, "transcripts")
    v2_files, v2 = platform.codabench_zip(dist, "transcripts")
    development = v15["phases"][1]
    task = [t for t in v2["tasks"] if t["index"] == 0][0]
    v15_scores, v2_scores = {}, {}
    for name, (answers, cer, wer) in sorted(SUBMISSIONS.items()):
        submission = submission_zip(answers)
        scores, _ = platform.play_v15(v15_files, development, str(tmp_path / ("v15-" + name)), submission)
        v15_scores[name] = dict(scores)
        where = str(tmp_path / ("v2-" + name))
        prediction = platform.codabench_prediction_step(submission, where)
        v2_scores[name], _ = platform.codabench_scoring_step(v2_files, task, prediction, where)
        for scores in (v15_scores[name], v2_scores[name]):
            assert scores["cer"] == pytest.approx(cer, abs=1e-9), name
            assert scores["wer"] == pytest.approx(wer, abs=1e-9), name
            assert scores["cer_pooled"] == pytest.approx(POOLED[name], abs=1e-9), name
    assert v15_scores["bad"]["cer"] > 1 and v15_scores["bad"]["ms_a_wer"] == pytest.approx(2.0)
    # Codalab v1.5 ranks by the primary column's sort; Codabench orders its leaderboard (PostgreSQL)
    column = v15["leaderboard"]["columns"]["cer"]
    ranks = v15_ranks(dict((name, scores["cer"]) for name, scores in v15_scores.items()), column["sort"])
    assert ranks == {"perfect": 1, "good": 2, "bad": 3}
    board = v2["leaderboards"][0]
    rows = [{"id": n, "owner": name, "created": n, "scores": v2_scores[name]}
            for n, name in enumerate(("bad", "good", "perfect"))]
    assert platform.leaderboard_rows(platform.postgresql_order(rows, board["columns"], board["primary_index"])) == \
        ["perfect", "good", "bad"]


def test_the_page_carries_the_organizers_titles_and_the_kinds_words(built, tmp_path):
    _, dist = built
    files, v15 = platform.codalab_zip(dist, "transcripts")
    _, output = platform.play_v15(files, v15["phases"][1], str(tmp_path / "run"),
                                  submission_zip(SUBMISSIONS["good"][0]))
    with open(os.path.join(output, "detailed_results.html"), encoding="utf-8") as stream:
        page = stream.read()
    assert "Line transcription of the chronicle" in page and "Transcribing the Abbey&#x27;s Chronicle" in page
    assert "lower is better" in page


def test_the_pages_describe_the_kind_and_no_other(built):
    _, dist = built
    files, _ = platform.codalab_zip(dist, "transcripts")
    evaluation = files["evaluation.html"].decode("utf-8")
    assert "One <code>&lt;Manuscript&gt;.tsv</code> per manuscript" in evaluation
    assert "the character error rate <code>cer</code>" in evaluation
    assert "<code>cer</code></td><td>CER</td><td>lower is better</td>" in evaluation
    assert "Ms_A.tsv" in evaluation  # the example, from the phase's own names
    overview = files["overview.html"].decode("utf-8")
    assert "Line transcription: for every text line" in overview
    for page in (evaluation, overview, files["data.html"].decode("utf-8")):
        for other in ("imitation", "instance map", "average precision", "category", "subset"):
            assert other not in page, other


def test_the_starting_kit_checks_a_submission(built, tmp_path):
    _, dist = built
    with open(os.path.join(dist, "transcripts", "starting_kit_transcripts.zip"), "rb") as stream:
        kit = unzipped(stream.read(), str(tmp_path / "kit"))
    assert os.path.isfile(os.path.join(kit, "kinds", "guide_example.py"))
    manual = open(os.path.join(kit, "MANUAL.md"), encoding="utf-8").read()
    assert "Ms_A" in manual and "Ms_B" in manual and "`cer` | CER | lower is better" in manual
    assert "The submission has no Ms_A.tsv; expected one <Manuscript>.tsv per manuscript, e.g. Ms_A.tsv." in manual

    def check(submission):
        return subprocess.run([sys.executable, os.path.join(kit, "check_submission.py"), submission],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=300)

    completed = check(os.path.join(kit, "sample_submission"))
    assert completed.returncode == 0, completed.stderr
    broken = str(tmp_path / "broken.zip")
    with open(broken, "wb") as stream:
        stream.write(submission_zip({"Ms_B": SUBMISSIONS["good"][0]["Ms_B"]}))
    completed = check(broken)
    assert completed.returncode == 1
    assert completed.stderr.strip().splitlines()[-1] == (
        "Submission error: The submission has no Ms_A.tsv; expected one <Manuscript>.tsv per manuscript, e.g. "
        "Ms_A.tsv.")


def ranking(dist, tmp_path):
    """compare.py of the bundle's scoring program on the three submissions of the
    development phase: ranking.csv's rows, by submission."""
    with open(os.path.join(dist, "transcripts", "scoring_program.zip"), "rb") as stream:
        program = unzipped(stream.read(), str(tmp_path / "program"))
    with open(os.path.join(dist, "transcripts", "transcripts_development_reference.zip"), "rb") as stream:
        ref = unzipped(stream.read(), str(tmp_path / "ref"))
    submissions = []
    for name, (answers, _, _) in sorted(SUBMISSIONS.items()):
        path = str(tmp_path / (name + ".zip"))
        with open(path, "wb") as stream:
            stream.write(submission_zip(answers))
        submissions.append(path)
    out = str(tmp_path / "compare")
    completed = subprocess.run([sys.executable, os.path.join(program, "compare.py"), "--ref", ref, "--out", out,
                                "--names", ",".join(sorted(SUBMISSIONS)), "--resamples", "200",
                                "--permutations", "200"] + submissions,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=600)
    assert completed.returncode == 0, completed.stderr
    with open(os.path.join(out, "ranking.csv")) as stream:
        return dict((row["submission"], row) for row in csv.DictReader(stream) if row["score_key"] == "cer")


def test_compare_ranks_the_lowest_error_rate_first(built, tmp_path):
    _, dist = built
    rows = ranking(dist, tmp_path)
    assert [rows[name]["rank"] for name in ("perfect", "good", "bad")] == ["1", "2", "3"]
    assert float(rows["bad"]["score"]) == pytest.approx(SUBMISSIONS["bad"][1], abs=1e-9)


def test_compare_intervals_of_an_error_rate_reach_beyond_1(built, tmp_path):
    _, dist = built
    rows = ranking(dist, tmp_path)
    assert float(rows["bad"]["ci_high"]) > 1


def test_a_kind_missing_a_piece_stops_the_build_naming_it(tmp_path):
    with open(KIND, encoding="utf-8") as stream:
        text = stream.read()
    start = text.index("def metrics_text(options):")
    end = text.index("def privacy(options):")
    folder = make_competition(str(tmp_path), text[:start] + text[end:])
    completed = build_bundle(folder, str(tmp_path / "dist"))
    assert completed.returncode == 2
    assert completed.stderr.strip() == (
        "The kind guide_example (%s) provides no metrics_text, which the manual needs; add it to the kind's module "
        "(docs/maintainers.md, \"Adding a kind\")." % os.path.join(folder, "kinds", "guide_example.py"))


def test_a_kind_may_not_take_a_built_in_kinds_name(tmp_path):
    folder = make_competition(str(tmp_path))
    os.rename(os.path.join(folder, "kinds", "guide_example.py"), os.path.join(folder, "kinds", "lines.py"))
    completed = build_bundle(folder, str(tmp_path / "dist"))
    assert completed.returncode == 2
    assert "lines.py has the name of a built-in kind" in completed.stderr


def test_the_kit_manual_and_the_yaml_say_nothing_of_other_kinds(built):
    _, dist = built
    with open(os.path.join(dist, "transcripts", "competition.zip"), "rb") as stream:
        files = platform.read_zip(stream.read())
    text = files["competition.yaml"].decode("utf-8")
    assert "guide_example" not in yaml.safe_load(text)["title"]
    kit = platform.read_zip(files["starting_kit_transcripts.zip"])
    for name in ("MANUAL.md", "README.md", "evaluation.html"):
        page = kit[name].decode("utf-8")
        for other in ("imitation", "instance map", "average precision", "<Category>", "<Subset>"):
            assert other not in page, (name, other)


def test_a_pooled_score_beside_the_mean_over_strata(tmp_path):
    """The kind declares cer_pooled (pooled=True): evaluate.py's value, every bootstrap
    resample of compare.py, its exact value and its paired test are the ratio of the sums
    over every line, not the mean of the manuscripts' rates."""
    from fractions import Fraction

    import numpy as np

    from scoring import itemview, tracks
    from scoring.log import Log
    from scoring import bootstrap
    from scoring.metaeval import analysis, exact
    from scoring.runner import score_submission

    tracks.add_folder(os.path.join(HERE, "kinds"))
    try:
        views = []
        for name in ("good", "bad"):
            root = str(tmp_path / name)
            write_reference(os.path.join(root, "ref"), DEVELOPMENT)
            for manuscript, lines in SUBMISSIONS[name][0].items():
                write(os.path.join(root, "res", manuscript + ".tsv"), tsv(sorted(lines.items())))
            scores, (result,) = score_submission(root, Log(io.StringIO()))
            assert dict(scores)["cer_pooled"] == pytest.approx(POOLED[name], abs=1e-12)
            assert dict(scores)["cer"] == pytest.approx(SUBMISSIONS[name][1], abs=1e-12)
            views.append(result.view)
        view = views[1]
        assert exact.score_value(view, view.scores["cer_pooled"]) == Fraction(55 + 12, 52)
        # Each resample: the drawn lines' summed distances over their summed characters.
        weights = bootstrap.draw_weights(view, 50, 7)
        drawn = np.concatenate([np.asarray(w, dtype=float) for w in weights], axis=1)
        expected = drawn.dot(view.columns["char_errors"]) / drawn.dot(view.columns["chars"])
        pooled = itemview.aggregate(view, weights, ["cer_pooled"])["cer_pooled"]
        assert np.allclose(pooled, expected, rtol=0, atol=1e-12)
        low, high = bootstrap.score_intervals(view, ["cer_pooled"], resamples=200)["cer_pooled"]
        assert low <= POOLED["bad"] <= high
        found = analysis.analyse("transcripts", ["good", "bad"], views, analysis.Options(resamples=100,
                                                                                          permutations=200))
        assert found.values["cer_pooled"] == pytest.approx([POOLED["good"], POOLED["bad"]], abs=1e-12)
        tests = found.significance.tests["cer_pooled"]
        assert tests.difference[0] == pytest.approx(POOLED["good"] - POOLED["bad"], abs=1e-12)
    finally:
        tracks.TRACKS.folders.remove(os.path.join(HERE, "kinds"))
        sys.modules.pop("scoring.tracks.guide_example", None)
