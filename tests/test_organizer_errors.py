"""Organizer mistakes: exit status 2 and a sentence addressed to the organizer."""

import os

import pytest
from conftest import assert_clean_failure, run_scorer
from phases import sample_phase


@pytest.mark.parametrize("text, fragment", [
    ("track: [authentication\n", "not valid YAML"),
    ("- track\n- authentication\n", "must be a mapping"),
    ("track: dances\n", "dances"),
    ("track: authentication\ncolour: blue\n", "unknown option 'colour'"),
    ("track: authentication\ndistances: maybe\n", "distances"),
    ("track: authentication\npublic_details: 1\n", "public_details"),
])
def test_broken_track_yaml(tmp_path, text, fragment):
    phase = sample_phase(tmp_path / "input", "authentication")
    (phase / "ref" / "authentication" / "track.yaml").write_text(text)
    run = run_scorer(phase, tmp_path / "out")
    assert_clean_failure(run, 2, "ref/authentication/track.yaml", fragment)
    assert run.last_line.startswith("Reference data error (for the organizers): ")


def test_no_track_yaml_anywhere(tmp_path):
    phase = sample_phase(tmp_path / "input", "authentication")
    os.remove(str(phase / "ref" / "authentication" / "track.yaml"))
    assert_clean_failure(run_scorer(phase, tmp_path / "out"), 2, "track.yaml")


def test_ground_truth_label_does_not_parse(tmp_path):
    phase = sample_phase(tmp_path / "input", "authentication")
    path = phase / "ref" / "authentication" / "Pizan.csv"
    lines = path.read_text().splitlines()
    lines[3] = lines[3].split(",")[0] + ",forged?"
    path.write_text("\n".join(lines) + "\n")
    assert_clean_failure(run_scorer(phase, tmp_path / "out"), 2, "ref/authentication/Pizan.csv line 4", "forged?")


def test_ground_truth_duplicate(tmp_path):
    phase = sample_phase(tmp_path / "input", "authentication")
    path = phase / "ref" / "authentication" / "Yaqut.csv"
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines + [lines[2]]) + "\n")
    assert_clean_failure(run_scorer(phase, tmp_path / "out"), 2, "ref/authentication/Yaqut.csv", "repeats")


def test_ground_truth_without_subsets(tmp_path):
    phase = sample_phase(tmp_path / "input", "authentication")
    for name in ("Pizan.csv", "Tasso.csv", "Yaqut.csv"):
        os.remove(str(phase / "ref" / "authentication" / name))
    assert_clean_failure(run_scorer(phase, tmp_path / "out"), 2, "ref/authentication/", "Subset")


def test_ground_truth_not_utf8(tmp_path):
    phase = sample_phase(tmp_path / "input", "authentication")
    path = phase / "ref" / "authentication" / "Tasso.csv"
    path.write_bytes(path.read_bytes() + b"caf\xe9.jpg,0\n")
    assert_clean_failure(run_scorer(phase, tmp_path / "out"), 2, "ref/authentication/Tasso.csv", "UTF-8")
