"""Hints of a phase with several tracks (the corpus of tests/malformed.py holds one track
per phase and covers the other hints of scoring/hints.py)."""

import os

from conftest import assert_clean_failure, run_scorer
from phases import sample_phase


def two_tracks(root):
    """A phase of the sample's authentication and events tracks, one folder each."""
    for track in ("authentication", "events"):
        sample_phase(root, track)
    return root


def test_track_folder_with_another_case(tmp_path):
    two_tracks(tmp_path)
    os.rename(str(tmp_path / "res" / "events"), str(tmp_path / "res" / "Events"))
    run = run_scorer(tmp_path, tmp_path / "out")
    assert_clean_failure(run, 1)
    assert run.last_line == (
        "Submission error: The submission has no folder events/; this phase expects one folder per track "
        "(authentication/, events/) (found Events/: folder names are case-sensitive, rename it events/).")


def test_no_hint_when_nothing_points_to_a_fix(tmp_path):
    sample_phase(tmp_path, "events")
    os.remove(str(tmp_path / "res" / "events" / "Ati_Atihan.txt"))
    run = run_scorer(tmp_path, tmp_path / "out")
    assert_clean_failure(run, 1)
    assert run.last_line == (
        "Submission error: The submission has no events/Ati_Atihan.txt; expected one <Category>.txt per category, "
        "e.g. Ati_Atihan.txt, with lines '<image id> <confidence>'.")


def test_a_track_folder_missing_says_what_the_top_holds(tmp_path):
    two_tracks(tmp_path)
    events = tmp_path / "res" / "events"
    for name in os.listdir(str(events)):  # the events files at the top of the zip
        os.rename(str(events / name), str(tmp_path / "res" / name))
    os.rmdir(str(events))
    run = run_scorer(tmp_path, tmp_path / "out")
    assert_clean_failure(run, 1)
    assert run.last_line == (
        "Submission error: The submission has no folder events/; this phase expects one folder per track "
        "(authentication/, events/) (the submission holds Ati_Atihan.txt, Carnival_Rio.txt, Chinese_New_Year.txt, "
        "Dia_de_los_Muertos.txt, Diwali_Festival.txt and 7 more at its top).")


def test_a_track_folder_named_almost_so(tmp_path):
    two_tracks(tmp_path)
    os.rename(str(tmp_path / "res" / "events"), str(tmp_path / "res" / "event"))
    run = run_scorer(tmp_path, tmp_path / "out")
    assert_clean_failure(run, 1)
    assert run.last_line.endswith("(authentication/, events/) (found event/: rename it events/).")


def test_a_name_differing_in_its_accents_is_named_with_what_to_rename_it(tmp_path):
    """The issue's case: the participant's own wrong name is what was found, not the answer."""
    from phases import write_phase

    ref = {"D\u00eda de Muertos.txt": "a.jpg 1\nb.jpg 0\n"}
    res = {"Dia de Muertos.txt": "a.jpg 0.9\nb.jpg 0.1\n"}
    run = run_scorer(write_phase(tmp_path, ref, res, "track: events\n"), tmp_path / "out")
    assert_clean_failure(run, 1)
    assert run.last_line == ("Submission error: The submission has no D\u00eda de Muertos.txt; found Dia de "
                             "Muertos.txt, which differs only in its accents: rename it D\u00eda de Muertos.txt.")


def test_a_missing_manuscript_folder_never_asks_to_rename_another_manuscript(tmp_path):
    """Page names repeat across manuscripts (page01.png in each): the missing folder's page
    found in another manuscript's folder is that manuscript's own page, not a misplaced copy."""
    import numpy as np

    from phases import write_phase

    mask = np.zeros((8, 8), dtype=np.uint8)
    mask[2:4, 1:7] = 255
    ref = {"A/page01.png": mask, "B/page01.png": mask}
    run = run_scorer(write_phase(tmp_path, ref, {"B/page01.png": mask}, "track: lines\n"), tmp_path / "out")
    assert_clean_failure(run, 1)
    assert run.last_line == ("Submission error: The submission has no A/page01.png; expected a folder A/ with one "
                             "prediction per page of manuscript A.")
