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
        "Submission error: The submission has no folder events/; this phase expects one folder per track: "
        "authentication/, events/ (found Events/: folder names are case-sensitive, rename it events/).")


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
        "Submission error: The submission has no folder events/; this phase expects one folder per track: "
        "authentication/, events/ (the submission holds Ati_Atihan.txt, Carnival_Rio.txt, Chinese_New_Year.txt, "
        "Dia_de_los_Muertos.txt, Diwali_Festival.txt and 7 more at its top).")


def test_a_track_folder_named_almost_so(tmp_path):
    two_tracks(tmp_path)
    os.rename(str(tmp_path / "res" / "events"), str(tmp_path / "res" / "event"))
    run = run_scorer(tmp_path, tmp_path / "out")
    assert_clean_failure(run, 1)
    assert run.last_line.endswith("track: authentication/, events/ (found event/: rename it events/).")


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


def test_a_folder_named_as_a_result_file_is_told_what_it_is_and_what_to_do(tmp_path):
    """A file unzipped 'to a folder' of its own name (or zipped inside one) is a folder where
    a file is expected: the sentence says so, what it holds, and to put the file itself there
    (not 'no Día de Muertos.txt')."""
    import numpy as np

    from phases import write_phase

    ref = {"D\u00eda de Muertos.txt": "a.jpg 1\nb.jpg 0\n", "Nowruz.txt": "a.jpg 0\nb.jpg 1\n"}
    res = {"D\u00eda de Muertos.txt/D\u00eda de Muertos.txt": "a.jpg 0.9\nb.jpg 0.1\n",
           "Nowruz.txt": "a.jpg 0.9\nb.jpg 0.1\n"}
    run = run_scorer(write_phase(tmp_path / "events", ref, res, "track: events\n"), tmp_path / "out")
    assert_clean_failure(run, 1)
    assert run.last_line == ("Submission error: D\u00eda de Muertos.txt is a folder, not a regular file (it holds "
                             "D\u00eda de Muertos.txt); put the file itself in its place.")

    labels = "filename,label\na.jpg,0\nb.jpg,1\n"
    ref = {"Pizan.csv": labels, "Tasso.csv": labels}
    res = {"Pizan_labels.csv": None, "Tasso_labels.csv": labels}
    run = run_scorer(write_phase(tmp_path / "authentication", ref, res, "track: authentication\n"), tmp_path / "o2")
    assert_clean_failure(run, 1)
    assert run.last_line == ("Submission error: Pizan_labels.csv is a folder, not a regular file (an empty one); put "
                             "the file itself in its place.")

    mask = np.zeros((8, 8), dtype=np.uint8)
    mask[2:4, 1:7] = 255
    ref = {"A/page01.png": mask, "A/page02.png": mask}
    res = {"A/page01.png": mask, "A/page02.tif/page02.tif": mask}
    run = run_scorer(write_phase(tmp_path / "lines", ref, res, "track: lines\n"), tmp_path / "o3")
    assert_clean_failure(run, 1)
    assert run.last_line == ("Submission error: A/page02.tif is a folder, not a regular file (it holds page02.tif); "
                             "put the file itself in its place.")


def test_no_sentence_holds_two_bracketed_remarks_in_a_row(tmp_path):
    """'... or one labels.csv (all 3 are missing) (the submission holds ...)' read as two
    remarks; every hint's mistake, made to each demo phase, gets one readable sentence."""
    import mistakes
    from conftest import ROOT

    from scoring import public

    for kind in ("authentication", "events", "lines"):
        track_items = public.public_items(os.path.join(ROOT, "input", "ref", kind))["tracks"][0]
        for problem, mistake in sorted(mistakes.HINT_MISTAKES.items()) + [
                ("several files missing", mistakes.several_missing), ("an empty zip", mistakes.empty)]:
            sentence = mistakes.program_sentence(track_items, mistake)
            assert sentence is None or ") (" not in sentence, (kind, problem, sentence)


def test_a_missing_page_is_not_taken_for_another_manuscript_s_page_of_that_name(tmp_path):
    """Page names repeat across manuscripts ('ورقة 2.png' in each): a page missing from its
    manuscript's folder is not 'found' in another manuscript's folder, whose page is its own."""
    import numpy as np

    from phases import write_phase

    mask = np.zeros((8, 8), dtype=np.uint8)
    mask[2:4, 1:7] = 255
    pages = ["A/page01.png", "A/page02.png", "B/page01.png", "B/page02.png"]
    ref = dict((page, mask) for page in pages)
    res = dict((page, mask) for page in pages if page != "A/page02.png")
    run = run_scorer(write_phase(tmp_path, ref, res, "track: lines\n"), tmp_path / "out")
    assert_clean_failure(run, 1)
    assert run.last_line == ("Submission error: The submission has no A/page02.png; expected one prediction per "
                             "ground-truth page, as A/page02.png, .tif, .tiff or .bmp.")
