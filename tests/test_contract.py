"""End to end on the sample phase: the Codalab contract of SPEC section 1."""

import json
import os
import re
import shutil

import pytest
from conftest import ROOT, assert_clean_failure
from conftest import run_scorer_process as run_scorer  # a fresh interpreter, as the platforms run it

SAMPLE = os.path.join(ROOT, "input")


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory):
    return run_scorer(SAMPLE, tmp_path_factory.mktemp("out"))


def test_sample_scores_and_outputs(sample_run):
    assert sample_run.status == 0, sample_run.stderr
    out = sample_run.output
    for name in ("scores.txt", "scores.json", "detailed_results.html"):
        assert os.path.isfile(os.path.join(out, name))
    assert not os.path.exists(os.path.join(out, "metadata"))
    text = open(os.path.join(out, "scores.txt")).read()
    for line in text.splitlines():
        assert line.count(":") == 1
        key, value = line.split(": ")
        assert re.match(r"^-?\d+\.\d{1,10}$", value), line
    scores = sample_run.scores()
    assert json.load(open(os.path.join(out, "scores.json"))) == scores
    assert "uar" in scores


#: The demo's scores, exact (scores.txt and scores.json of `evaluate.py input output`): a
#: change of any digit of any score of the demo fails here. When a change of a score is
#: meant (a metric's definition or the demo's data changed), say why in CHANGELOG.md and
#: regenerate: .venv/bin/python program/evaluate.py input output &&
#: cp output/scores.txt tests/golden/demo_scores.txt && cp output/scores.json tests/golden/demo_scores.json
GOLDEN = os.path.join(ROOT, "tests", "golden")


def test_demo_scores_are_the_golden_ones(sample_run):
    for name in ("scores.txt", "scores.json"):
        with open(os.path.join(GOLDEN, "demo_" + name), "rb") as golden:
            with open(os.path.join(sample_run.output, name), "rb") as scored:
                assert scored.read() == golden.read(), "%s of the demo differs from tests/golden/demo_%s" % (name, name)


def test_html_is_self_contained(sample_run):
    page = open(os.path.join(sample_run.output, "detailed_results.html")).read()
    assert "<script" not in page
    for source in re.findall(r'src="([^"]*)"', page):
        assert source.startswith("data:image/png;base64,")
    assert not re.search(r'href="(?!#)', page)


def test_deterministic(sample_run, tmp_path):
    assert run_scorer(SAMPLE, tmp_path).status == 0
    for name in ("scores.txt", "scores.json"):
        with open(os.path.join(sample_run.output, name), "rb") as a, open(os.path.join(tmp_path, name), "rb") as b:
            assert a.read() == b.read()


def copy_sample(tmp_path):
    target = tmp_path / "input"
    shutil.copytree(SAMPLE, str(target))
    return target


def test_single_top_folder_is_used(tmp_path, sample_run):
    phase = copy_sample(tmp_path)
    res = phase / "res"
    os.rename(str(res), str(tmp_path / "zipped"))
    os.makedirs(str(res))
    os.rename(str(tmp_path / "zipped"), str(res / "my_submission"))
    (res / "__MACOSX").mkdir()
    (res / ".DS_Store").write_bytes(b"junk")
    run = run_scorer(phase, tmp_path / "out")
    assert run.status == 0, run.stderr
    assert "my_submission/" in run.stderr
    assert run.scores() == sample_run.scores()


def test_stale_scores_removed_on_failure(tmp_path):
    phase = copy_sample(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "scores.txt").write_text("uar: 1.0\n")
    (out / "scores.json").write_text("{}")
    shutil.rmtree(str(phase / "res"))
    (phase / "res").mkdir()
    run = run_scorer(phase, out)
    assert_clean_failure(run, 1)
    assert not (out / "scores.json").exists()


def test_symlink_refused_before_reading(tmp_path):
    phase = copy_sample(tmp_path)
    target = phase / "res" / "authentication" / "Pizan_labels.csv"
    target.unlink()
    os.symlink(str(phase / "ref" / "authentication" / "Pizan.csv"), str(target))
    run = run_scorer(phase, tmp_path / "out")
    assert_clean_failure(run, 1, "symbolic link", "Pizan_labels.csv")


def test_unknown_track_is_an_organizer_error(tmp_path):
    phase = copy_sample(tmp_path)
    (phase / "ref" / "authentication" / "track.yaml").write_text("track: dances\n")
    run = run_scorer(phase, tmp_path / "out")
    assert_clean_failure(run, 2, "track.yaml", "dances")


def test_broken_yaml_is_an_organizer_error(tmp_path):
    phase = copy_sample(tmp_path)
    (phase / "ref" / "authentication" / "track.yaml").write_text("track: [authentication\n")
    run = run_scorer(phase, tmp_path / "out")
    assert_clean_failure(run, 2, "track.yaml", "not valid YAML")


def test_bad_option_is_an_organizer_error(tmp_path):
    phase = copy_sample(tmp_path)
    (phase / "ref" / "authentication" / "track.yaml").write_text("track: authentication\nk: [0, 3]\n")
    run = run_scorer(phase, tmp_path / "out")
    assert_clean_failure(run, 2, "track.yaml", "k")


def test_missing_track_folder_in_submission(tmp_path):
    phase = copy_sample(tmp_path)
    shutil.rmtree(str(phase / "res" / "authentication"))
    (phase / "res" / "other").mkdir()
    (phase / "res" / "other" / "Pizan_labels.csv").write_text("filename,label\n")
    (phase / "res" / "other2").mkdir()
    run = run_scorer(phase, tmp_path / "out")
    assert_clean_failure(run, 1, "authentication/")


def test_two_tracks_of_one_kind_get_prefixes(tmp_path):
    phase = copy_sample(tmp_path)
    for side in ("ref", "res"):
        for name in os.listdir(str(phase / side)):
            if name != "authentication":
                shutil.rmtree(str(phase / side / name))
        shutil.copytree(str(phase / side / "authentication"), str(phase / side / "Test"))
        os.rename(str(phase / side / "authentication"), str(phase / side / "dev"))
    run = run_scorer(phase, tmp_path / "out")
    assert run.status == 0, run.stderr
    scores = run.scores()
    assert scores["dev_uar"] == scores["test_uar"]
    assert "uar" not in scores


def test_no_ground_truth_on_the_public_page(sample_run):
    """Per-item results stay under private/ unless a track says public_details: true."""
    page = open(os.path.join(sample_run.output, "detailed_results.html")).read()
    ref = os.path.join(SAMPLE, "ref", "authentication")
    names = [line.split(",")[0] for name in os.listdir(ref) if name.endswith(".csv")
             for line in open(os.path.join(ref, name)).read().splitlines()[1:]]
    shown = [name for name in names if name in page]
    # The log may quote an example name; a per-image table would show them all.
    assert len(shown) <= 3, shown
    private = os.path.join(sample_run.output, "private", "authentication", "Pizan_images.csv")
    assert open(private).read().startswith("filename,true,predicted,correct,top1,top3,top5")


def test_a_path_that_leaves_the_submission_is_refused(tmp_path):
    from scoring.errors import SubmissionError
    from scoring.files import Submission, index_submission

    res = tmp_path / "res"
    (res / "track").mkdir(parents=True)
    (res / "track" / "x.csv").write_text("mine")
    (tmp_path / "ref.csv").write_text("secret")
    submission = Submission(index_submission(str(res), str(tmp_path / "ref")), ("track",), "track/")
    assert submission.path("x.csv") == os.path.realpath(str(res / "track" / "x.csv"))
    with pytest.raises(SubmissionError) as refused:  # only files of the index are ever opened
        submission.path("..", "..", "ref.csv")
    assert refused.value.sentence == "The submission has no track/../../ref.csv."
    # a file turned into a link after the submission was indexed
    os.remove(str(res / "track" / "x.csv"))
    os.symlink(os.path.join("..", "..", "ref.csv"), str(res / "track" / "x.csv"))
    with pytest.raises(SubmissionError) as refused:
        submission.path("x.csv")
    assert "leaves the submission folder" in refused.value.sentence
