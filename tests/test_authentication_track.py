"""The authentication track end to end (evaluate.py in a subprocess) on tiny phases:
scores worked out by hand, and every validation rule of SPEC section 3 with its message."""

import os
import tempfile

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from conftest import assert_clean_failure, run_scorer
from phases import write_file, write_phase

PIZAN = ["PIZAN_000001.jpg", "PIZAN_000002.jpg", "PIZAN_000003.jpg", "PIZAN_000004.jpg"]
PIZAN_TRUTH = [1, 0, 0, 0]
TASSO = ["tasso_000010.JPG", "tasso_000011.JPG", "tasso_000012.JPG", "tasso_000013.JPG"]
TASSO_TRUTH = [1, 1, 0, 0]
# Pizan: one imitation missed -> accuracy 3/4, recall 0, specificity 1.
PIZAN_PRED = [0, 0, 0, 0]
# Tasso: one authentic rejected -> accuracy 3/4, recall 1, specificity 1/2.
TASSO_PRED = [1, 1, 1, 0]
# Distances: Pizan's query 0 has no classmate (left out); the three authentic images
# are each other's nearest except image 3, whose nearest is the imitation 0.
PIZAN_DISTANCES = [
    [0.0, 0.5, 0.5, 0.1],
    [0.5, 0.0, 0.2, 0.6],
    [0.5, 0.2, 0.0, 0.7],
    [0.1, 0.6, 0.7, 0.0],
]
# Tasso (1, 1, 0, 0): query 0 ties at 0.3 between its classmate 1 and authentic 2 (top1 =
# 1/2); the nearest of 1 is 3, of 2 is 0, of 3 is 1: misses at k=1, all hits at k=2.
TASSO_DISTANCES = [
    [0.0, 0.3, 0.3, 0.9],
    [0.3, 0.0, 0.8, 0.2],
    [0.3, 0.8, 0.0, 0.4],
    [0.9, 0.2, 0.4, 0.0],
]


def labels_csv(names, labels, header="filename,label"):
    return header + "\n" + "".join("%s,%s\n" % (name, label) for name, label in zip(names, labels))


def distances_csv(names, matrix, columns=None):
    columns = names if columns is None else columns
    return "," + ",".join(columns) + "\n" + "".join(
        n + "," + ",".join(repr(float(d)) for d in row) + "\n" for n, row in zip(names, matrix))


def make_phase(tmp_path, track_yaml="track: authentication\nk: [1, 2]\n", subsets=("Pizan", "Tasso"),
               labels=True, distances=True, documentation=True):
    """The hand-worked subsets above as a phase (tests/phases.py)."""
    data = {"Pizan": (PIZAN, PIZAN_TRUTH, PIZAN_PRED, PIZAN_DISTANCES),
            "Tasso": (TASSO, TASSO_TRUTH, TASSO_PRED, TASSO_DISTANCES)}
    ref, res = {}, {}
    for name in subsets:
        names, truth, pred, matrix = data[name]
        ref[name + ".csv"] = labels_csv(names, truth)
        if labels:
            res[name + "_labels.csv"] = labels_csv(names, pred)
        if distances:
            res[name + "_distances.csv"] = distances_csv(names, matrix)
    if documentation:
        res["README.md"] = "Features: slant and stroke width.\n"
    return write_phase(tmp_path / "input", ref, res, track_yaml)


def score(tmp_path, phase):
    run = run_scorer(phase, tmp_path / "out")
    assert run.status == 0, run.stderr
    return run


def failure(tmp_path, phase, *fragments):
    run = run_scorer(phase, tmp_path / "out")
    assert_clean_failure(run, 1, *fragments)
    return run


def html(run):
    with open(os.path.join(run.output, "detailed_results.html"), encoding="utf-8") as stream:
        return stream.read()


# ------------------------------------------------------------ scores by hand


def test_hand_computed_scores(tmp_path):
    run = score(tmp_path, make_phase(tmp_path))
    s = run.scores()
    assert s["pizan_accuracy"] == pytest.approx(0.75)
    assert s["pizan_precision"] == 0.0  # nothing called imitation
    assert s["pizan_recall"] == 0.0
    assert s["pizan_specificity"] == 1.0
    assert s["tasso_accuracy"] == pytest.approx(0.75)
    assert s["tasso_precision"] == pytest.approx(2 / 3)
    assert s["tasso_recall"] == 1.0
    assert s["tasso_specificity"] == pytest.approx(0.5)
    # uar: mean of accuracies; balanced accuracy: mean of (recall + specificity) / 2.
    assert s["uar"] == pytest.approx(0.75)
    assert s["balanced_accuracy"] == pytest.approx(((0 + 1) / 2 + (1 + 0.5) / 2) / 2)
    # Pizan top-k over images 1, 2, 3 (0 left out): top1 hits 1, 2; 3's nearest is 0.
    assert s["pizan_top1"] == pytest.approx(2 / 3)
    assert s["pizan_top2"] == pytest.approx(1.0)
    # Tasso top1: query 0 tie (1/2), 1, 2, 3 miss -> 0.5/4; top2: all hit.
    assert s["tasso_top1"] == pytest.approx(0.5 / 4)
    assert s["tasso_top2"] == pytest.approx(1.0)
    assert s["top1"] == pytest.approx((2 / 3 + 0.5 / 4) / 2)
    assert s["top2"] == pytest.approx(1.0)
    page = html(run)
    assert "Precision is 0 because" in page
    assert "1 left out" in page
    private = os.path.join(run.output, "private", "authentication", "Tasso_images.csv")
    rows = open(private).read().splitlines()
    assert rows[1] == "tasso_000010.JPG,1,1,1,0.5,1"


def test_keys_order_primary_first(tmp_path):
    run = score(tmp_path, make_phase(tmp_path))
    keys = [line.split(":")[0] for line in open(os.path.join(run.output, "scores.txt"))]
    assert keys[:4] == ["uar", "balanced_accuracy", "top1", "top2"]
    assert "pizan_top2" in keys and "tasso_specificity" in keys


def test_npz_gives_the_same_scores_as_csv(tmp_path):
    phase = make_phase(tmp_path)
    expected = score(tmp_path, phase).scores()
    for name, matrix, names in (("Pizan", PIZAN_DISTANCES, PIZAN), ("Tasso", TASSO_DISTANCES, TASSO)):
        os.remove(str(phase / "res" / (name + "_distances.csv")))
        np.savez(str(phase / "res" / (name + "_distances.npz")), names=np.array(names),
                 distances=np.array(matrix, dtype=np.float32))
    assert run_scorer(phase, tmp_path / "out2").scores() == expected


def test_rows_in_any_order_and_permuted_matrix(tmp_path):
    phase = make_phase(tmp_path)
    expected = score(tmp_path, phase).scores()
    p = [2, 0, 3, 1]
    names = [TASSO[i] for i in p]
    matrix = np.array(TASSO_DISTANCES)[np.ix_(p, p)]
    write_file(phase / "res" / "Tasso_distances.csv", distances_csv(names, matrix))
    write_file(phase / "res" / "Tasso_labels.csv", labels_csv(names, [TASSO_PRED[i] for i in p]))
    assert run_scorer(phase, tmp_path / "out2").scores() == expected


def test_asymmetric_matrix_is_a_warning(tmp_path):
    phase = make_phase(tmp_path)
    matrix = [row[:] for row in TASSO_DISTANCES]
    matrix[3][1] = 0.95  # query 3 (row 3 only) now finds 2 first: a hit at k=1
    write_file(phase / "res" / "Tasso_distances.csv", distances_csv(TASSO, matrix))
    run = score(tmp_path, phase)
    assert "Tasso_distances.csv is not symmetric" in run.stderr
    assert run.scores()["tasso_top1"] == pytest.approx(1.5 / 4)


# ------------------------------------------------------------ labels: per subset and merged


def test_label_forms_are_equivalent(tmp_path):
    phase = make_phase(tmp_path)
    expected = score(tmp_path, phase).scores()
    words = {0: "Authentic", 1: "IMITATION"}
    write_file(phase / "res" / "Pizan_labels.csv", labels_csv(PIZAN, [words[v] for v in PIZAN_PRED]))
    named = {0: "tasso", 1: "Not-Tasso"}
    write_file(phase / "res" / "Tasso_labels.csv", labels_csv(TASSO, [named[v] for v in TASSO_PRED]))
    assert run_scorer(phase, tmp_path / "out2").scores() == expected


def merged(rows, header="filename,label"):
    return header + "\n" + "".join(",".join(r) + "\n" for r in rows)


def test_merged_labels_named_by_subset_labels(tmp_path):
    phase = make_phase(tmp_path)
    expected = score(tmp_path, phase).scores()
    for name in ("Pizan", "Tasso"):
        os.remove(str(phase / "res" / (name + "_labels.csv")))
    rows = [(n, "not-Pizan" if v else "Pizan") for n, v in zip(PIZAN, PIZAN_PRED)]
    rows += [(n, "not-Tasso" if v else "Tasso") for n, v in zip(TASSO, TASSO_PRED)]
    write_file(phase / "res" / "labels.csv", merged(rows[::-1]))
    assert run_scorer(phase, tmp_path / "out2").scores() == expected


def test_merged_labels_with_subset_column_and_by_filename(tmp_path):
    phase = make_phase(tmp_path)
    expected = score(tmp_path, phase).scores()
    for name in ("Pizan", "Tasso"):
        os.remove(str(phase / "res" / (name + "_labels.csv")))
    rows = [(n, str(v), "pizan") for n, v in zip(PIZAN, PIZAN_PRED)]
    rows += [(n, str(v), "Tasso") for n, v in zip(TASSO, TASSO_PRED)]
    write_file(phase / "res" / "labels.csv", merged(rows, "filename,label,subset"))
    assert run_scorer(phase, tmp_path / "out2").scores() == expected
    # Without a subset column: 0/1 labels, the subset told from the file name.
    write_file(phase / "res" / "labels.csv", merged([r[:2] for r in rows]))
    assert run_scorer(phase, tmp_path / "out3").scores() == expected


def test_merged_labels_subset_column_disagrees_with_label(tmp_path):
    phase = make_phase(tmp_path)
    for name in ("Pizan", "Tasso"):
        os.remove(str(phase / "res" / (name + "_labels.csv")))
    rows = [(n, "0", "Pizan") for n in PIZAN] + [(n, "Tasso", "Pizan") for n in TASSO]
    write_file(phase / "res" / "labels.csv", merged(rows, "filename,label,subset"))
    failure(tmp_path, phase, "labels.csv line 6", "says subset Pizan", "names Tasso")


def test_merged_labels_unknown_subset(tmp_path):
    phase = make_phase(tmp_path)
    for name in ("Pizan", "Tasso"):
        os.remove(str(phase / "res" / (name + "_labels.csv")))
    rows = [(n, "0", "Yaqut") for n in PIZAN + TASSO]
    write_file(phase / "res" / "labels.csv", merged(rows, "filename,label,subset"))
    failure(tmp_path, phase, "labels.csv line 2", "'Yaqut'", "Pizan, Tasso")


def test_merged_labels_ambiguous_subset(tmp_path):
    # The same image name in both subsets: a 0/1 label cannot say which one.
    phase = tmp_path / "input"
    write_file(phase / "ref" / "track.yaml", "track: authentication\ndistances: optional\n")
    write_file(phase / "ref" / "A.csv", labels_csv(["x.jpg", "y.jpg"], [0, 1]))
    write_file(phase / "ref" / "B.csv", labels_csv(["x.jpg", "z.jpg"], [0, 1]))
    write_file(phase / "res" / "labels.csv", merged([("y.jpg", "1"), ("x.jpg", "0"), ("z.jpg", "1")]))
    failure(tmp_path, phase, "labels.csv line 3", "x.jpg", "cannot be told", "subset column")
    # An unknown name is not ambiguous but has no subset either.
    write_file(phase / "res" / "labels.csv", merged([("q.jpg", "1")]))
    failure(tmp_path, phase, "labels.csv line 2", "q.jpg", "cannot be told")
    # With the subset named by the label, it scores.
    write_file(phase / "res" / "labels.csv", merged([("y.jpg", "not-A"), ("x.jpg", "A"), ("x.jpg", "b"),
                                                ("z.jpg", "NOT-B")]))
    run = score(tmp_path, phase)
    assert run.scores()["uar"] == 1.0


def test_merged_label_not_valid_for_its_subset(tmp_path):
    phase = make_phase(tmp_path)
    for name in ("Pizan", "Tasso"):
        os.remove(str(phase / "res" / (name + "_labels.csv")))
    rows = [(n, "0") for n in PIZAN] + [(n, "maybe") for n in TASSO]
    write_file(phase / "res" / "labels.csv", merged(rows))
    failure(tmp_path, phase, "labels.csv line 6", "'maybe'", "subset Tasso", "Tasso/not-Tasso")


def test_both_label_forms_refused(tmp_path):
    phase = make_phase(tmp_path)
    write_file(phase / "res" / "labels.csv", merged([(n, "0") for n in PIZAN + TASSO]))
    failure(tmp_path, phase, "both labels.csv and Pizan_labels.csv", "keep one form")


def test_no_label_file(tmp_path):
    phase = make_phase(tmp_path, labels=False)
    failure(tmp_path, phase, "The submission has no Pizan_labels.csv", "one labels.csv")


def test_one_subset_label_file_missing(tmp_path):
    phase = make_phase(tmp_path)
    os.remove(str(phase / "res" / "Tasso_labels.csv"))
    failure(tmp_path, phase, "no Tasso_labels.csv")


def test_wrong_case_of_file_names(tmp_path):
    phase = make_phase(tmp_path)
    os.rename(str(phase / "res" / "Pizan_labels.csv"), str(phase / "res" / "pizan_labels.csv"))
    os.rename(str(phase / "res" / "Tasso_labels.csv"), str(phase / "res" / "tasso_labels.csv"))
    failure(tmp_path, phase, "no Pizan_labels.csv (both are missing); found pizan_labels.csv, which differs only in "
            "case (names are case-sensitive): rename it Pizan_labels.csv.")
    phase = make_phase(tmp_path / "b")
    os.rename(str(phase / "res" / "Tasso_distances.csv"), str(phase / "res" / "TASSO_distances.csv"))
    failure(tmp_path / "b", phase, "no Tasso_distances.csv; found TASSO_distances.csv, which differs only in case "
            "(names are case-sensitive): rename it Tasso_distances.csv.")


def test_bad_label(tmp_path):
    phase = make_phase(tmp_path)
    write_file(phase / "res" / "Pizan_labels.csv", labels_csv(PIZAN, [0, 0, "maybe", 1]))
    failure(tmp_path, phase, "Pizan_labels.csv line 4 has the label 'maybe'",
            "0/1, authentic/imitation or Pizan/not-Pizan")
    # Another subset's name is not a valid label in a per-subset file.
    write_file(phase / "res" / "Pizan_labels.csv", labels_csv(PIZAN, [0, 0, "not-Tasso", 1]))
    failure(tmp_path, phase, "Pizan_labels.csv line 4", "'not-Tasso'")


def test_duplicate_label(tmp_path):
    phase = make_phase(tmp_path)
    write_file(phase / "res" / "Pizan_labels.csv", labels_csv(PIZAN + [PIZAN[1]], PIZAN_PRED + [0]))
    failure(tmp_path, phase, "Pizan_labels.csv line 6 repeats the image PIZAN_000002.jpg (first on line 3); list "
            "each image once.")


def test_missing_names_are_an_error(tmp_path):
    phase = make_phase(tmp_path)
    write_file(phase / "res" / "Pizan_labels.csv", labels_csv(PIZAN[:2], PIZAN_PRED[:2]))
    failure(tmp_path, phase, "Pizan_labels.csv lacks 2 of the 4 images", "PIZAN_000003.jpg, PIZAN_000004.jpg")


def test_extra_names_are_a_warning_and_scored(tmp_path):
    phase = make_phase(tmp_path)
    expected = score(tmp_path, phase).scores()
    write_file(phase / "res" / "Pizan_labels.csv", labels_csv(PIZAN + ["PIZAN_999999.jpg"], PIZAN_PRED + [1]))
    names = PIZAN + ["PIZAN_999999.jpg"]
    matrix = np.zeros((5, 5))
    matrix[:4, :4] = PIZAN_DISTANCES
    matrix[4, :] = matrix[:, 4] = 0.01  # nearer than anything: must not count
    write_file(phase / "res" / "Pizan_distances.csv", distances_csv(names, matrix))
    run = run_scorer(phase, tmp_path / "out2")
    assert run.status == 0, run.stderr
    assert run.scores() == expected
    assert "Pizan_labels.csv lists 1 names that are not in the ground truth (ignored), e.g. PIZAN_999999.jpg" \
        in run.stderr
    assert "Pizan_distances.csv lists 1 names" in run.stderr


def resubmitted(tmp_path, phase, subset, names, predictions, distances):
    """The run (scored in out2) of the phase with the subset's labels and distances written
    again under `names`."""
    write_file(phase / "res" / (subset + "_labels.csv"), labels_csv(names, predictions))
    write_file(phase / "res" / (subset + "_distances.csv"), distances_csv(names, distances))
    run = run_scorer(phase, tmp_path / "out2")
    assert run.status == 0, run.stderr
    return run


def test_extension_less_fallback(tmp_path):
    phase = make_phase(tmp_path)
    expected = score(tmp_path, phase).scores()
    run = resubmitted(tmp_path, phase, "Tasso", [n.replace(".JPG", ".jpg") for n in TASSO], TASSO_PRED,
                      TASSO_DISTANCES)
    assert run.scores() == expected
    assert "Tasso_labels.csv: 4 names matched without their extension" in run.stderr


def test_names_typed_decomposed_match_the_composed_ground_truth(tmp_path):
    """The ground truth names its images with accents, composed (NFC); a submission written
    on macOS spells them decomposed (NFD) in both files: the same names, the same scores,
    and one log line says how they were matched."""
    import unicodedata
    accented = ["Sévigné_%d.jpg" % i for i in range(1, 5)]
    decomposed = [unicodedata.normalize("NFD", name) for name in accented]
    assert decomposed != accented
    phase = make_phase(tmp_path, subsets=("Pizan",))
    write_file(phase / "ref" / "Pizan.csv", labels_csv(accented, PIZAN_TRUTH))
    write_file(phase / "res" / "Pizan_labels.csv", labels_csv(accented, PIZAN_PRED))
    write_file(phase / "res" / "Pizan_distances.csv", distances_csv(accented, PIZAN_DISTANCES))
    expected = score(tmp_path, phase).scores()
    run = resubmitted(tmp_path, phase, "Pizan", decomposed, PIZAN_PRED, PIZAN_DISTANCES)
    assert run.scores() == expected
    assert "Pizan_labels.csv: 4 names matched in their composed Unicode form" in run.stderr


def test_extension_less_fallback_refused_when_ambiguous(tmp_path):
    phase = make_phase(tmp_path)
    # Two submitted names share the stem of one ground-truth name.
    names = TASSO[1:] + ["tasso_000010.jpg", "tasso_000010.png"]
    write_file(phase / "res" / "Tasso_labels.csv", labels_csv(names, TASSO_PRED[1:] + [1, 1]))
    failure(tmp_path, phase, "Tasso_labels.csv lacks 1 of the 4 images", "tasso_000010.JPG")


def test_extension_less_fallback_refused_when_truth_is_ambiguous(tmp_path):
    phase = tmp_path / "input"
    write_file(phase / "ref" / "track.yaml", "track: authentication\ndistances: optional\n")
    write_file(phase / "ref" / "A.csv", labels_csv(["x.jpg", "x.png", "y.jpg"], [0, 1, 0]))
    write_file(phase / "res" / "A_labels.csv", labels_csv(["x.JPG", "x.png", "y.jpg"], [0, 1, 0]))
    # x.png matches exactly; x.JPG is then the only candidate for x.jpg's stem.
    assert score(tmp_path, phase).scores()["uar"] == 1.0
    write_file(phase / "res" / "A_labels.csv", labels_csv(["x.JPG", "x.PNG", "y.jpg"], [0, 1, 0]))
    failure(tmp_path, phase, "A_labels.csv lacks 2 of the 3 images", "x.jpg, x.png")


# ------------------------------------------------------------ distances CSV


def test_distances_missing_is_an_error_when_required(tmp_path):
    phase = make_phase(tmp_path)
    os.remove(str(phase / "res" / "Tasso_distances.csv"))
    failure(tmp_path, phase, "The submission has no Tasso_distances.csv",
            "Tasso_distances.csv (or Tasso_distances.npz) of subset Tasso")


def test_distances_optional_gives_topk_zero_and_says_why(tmp_path):
    phase = make_phase(tmp_path, "track: authentication\nk: [1, 2]\ndistances: optional\n", distances=False)
    run = score(tmp_path, phase)
    s = run.scores()
    assert s["top1"] == s["top2"] == s["pizan_top1"] == s["tasso_top2"] == 0.0
    assert s["uar"] == pytest.approx(0.75)
    assert "No distance file was submitted for Pizan: its top-k scores are 0." in html(run)


def test_distances_both_forms_refused(tmp_path):
    phase = make_phase(tmp_path)
    np.savez(str(phase / "res" / "Pizan_distances.npz"), names=np.array(PIZAN), distances=np.zeros((4, 4)))
    failure(tmp_path, phase, "both Pizan_distances.npz and Pizan_distances.csv")


def test_distances_ragged_line(tmp_path):
    phase = make_phase(tmp_path)
    text = distances_csv(TASSO, TASSO_DISTANCES).splitlines()
    text[3] = text[3].rsplit(",", 1)[0]
    write_file(phase / "res" / "Tasso_distances.csv", "\n".join(text) + "\n")
    failure(tmp_path, phase, "Tasso_distances.csv line 4 has 3 distances; expected 4")


def test_distances_not_square(tmp_path):
    phase = make_phase(tmp_path)
    text = distances_csv(TASSO, TASSO_DISTANCES).splitlines()
    write_file(phase / "res" / "Tasso_distances.csv", "\n".join(text[:-1]) + "\n")
    failure(tmp_path, phase, "Tasso_distances.csv has 3 rows of distances for 4 columns", "square")


def test_distances_non_numeric_cell(tmp_path):
    phase = make_phase(tmp_path)
    matrix = [[repr(v) for v in row] for row in TASSO_DISTANCES]
    matrix[2][3] = "abc"
    write_file(phase / "res" / "Tasso_distances.csv", "," + ",".join(TASSO) + "\n" + "".join(
        n + "," + ",".join(row) + "\n" for n, row in zip(TASSO, matrix)))
    failure(tmp_path, phase, "Tasso_distances.csv line 4, column 5 holds 'abc'; expected a number")


def test_distances_nan_is_refused(tmp_path):
    phase = make_phase(tmp_path)
    matrix = [[repr(v) for v in row] for row in TASSO_DISTANCES]
    matrix[1][2] = "nan"
    matrix[3][0] = "NaN"  # a later one: the first is named
    write_file(phase / "res" / "Tasso_distances.csv", "," + ",".join(TASSO) + "\n" + "".join(
        n + "," + ",".join(row) + "\n" for n, row in zip(TASSO, matrix)))
    failure(tmp_path, phase, "Tasso_distances.csv line 3, column 4 (tasso_000011.JPG to tasso_000012.JPG) is nan; "
            "every distance must be a number (inf for the farthest).")


@pytest.mark.parametrize("form", ["csv", "npz"])
def test_infinite_and_huge_distances_order_as_floats(tmp_path, form):
    """Tasso (classes 1, 1, 0, 0) with inf as "never retrieve" and +-1e308: ranked as the
    floats they are. Query 0: its classmate 1 at -1e308 is nearest (hit at k=1). Query 1:
    2 and 3 at 1e308 tie with no one closer, its classmate 0 at inf is farthest (miss at
    k=1 and k=2). Query 2: 3 (its classmate) at 5e-324 beats 0 and 1 at inf (hit). Query
    3: its classmate 2 at -inf is nearest (hit). top1 = top2 = 3/4."""
    matrix = np.array([[0.0, -1e308, np.inf, np.inf],
                       [np.inf, 0.0, 1e308, 1e308],
                       [np.inf, np.inf, 0.0, 5e-324],
                       [1.0, 2.0, -np.inf, 0.0]])
    phase = make_phase(tmp_path, subsets=("Tasso",))
    if form == "csv":
        write_file(phase / "res" / "Tasso_distances.csv", distances_csv(TASSO, matrix))
    else:
        os.remove(str(phase / "res" / "Tasso_distances.csv"))
        with open(str(phase / "res" / "Tasso_distances.npz"), "wb") as stream:
            np.savez(stream, names=np.array(TASSO), distances=matrix)
    run = score(tmp_path, phase)
    assert run.scores()["top1"] == run.scores()["top2"] == 0.75
    assert "asymmetric" in run.stderr or "not symmetric" in run.stderr


def test_distances_rows_in_a_different_order_from_columns(tmp_path):
    phase = make_phase(tmp_path)
    columns = [TASSO[0], TASSO[2], TASSO[1], TASSO[3]]
    write_file(phase / "res" / "Tasso_distances.csv", distances_csv(TASSO, TASSO_DISTANCES, columns))
    failure(tmp_path, phase, "Tasso_distances.csv line 3 is named tasso_000011.JPG but column 2 is tasso_000012.JPG",
            "same order")


def test_distances_header_of_numbers(tmp_path):
    phase = make_phase(tmp_path)
    text = distances_csv(TASSO, TASSO_DISTANCES).splitlines()
    write_file(phase / "res" / "Tasso_distances.csv", "\n".join(text[1:]) + "\n")
    failure(tmp_path, phase, "Tasso_distances.csv line 1 holds numbers", "header row of file names")


def test_distances_duplicate_name(tmp_path):
    phase = make_phase(tmp_path)
    names = TASSO[:3] + [TASSO[0]]
    write_file(phase / "res" / "Tasso_distances.csv", distances_csv(names, TASSO_DISTANCES))
    failure(tmp_path, phase, "Tasso_distances.csv names tasso_000010.JPG twice")


def test_distances_missing_names(tmp_path):
    phase = make_phase(tmp_path)
    matrix = np.array(TASSO_DISTANCES)[:3, :3]
    write_file(phase / "res" / "Tasso_distances.csv", distances_csv(TASSO[:3], matrix))
    failure(tmp_path, phase, "Tasso_distances.csv lacks 1 of the 4 images", "tasso_000013.JPG")


def test_distances_crlf_bom_and_quoted_names(tmp_path):
    phase = make_phase(tmp_path)
    expected = score(tmp_path, phase).scores()
    text = distances_csv(['"%s"' % n for n in TASSO], TASSO_DISTANCES, ['"%s"' % n for n in TASSO])
    with open(str(phase / "res" / "Tasso_distances.csv"), "wb") as stream:
        stream.write(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8"))
    assert run_scorer(phase, tmp_path / "out2").scores() == expected


# ------------------------------------------------------------ distances npz


def npz_phase(tmp_path, **arrays):
    phase = make_phase(tmp_path)
    os.remove(str(phase / "res" / "Tasso_distances.csv"))
    with open(str(phase / "res" / "Tasso_distances.npz"), "wb") as stream:
        np.savez(stream, **arrays)
    return phase


def test_npz_missing_arrays(tmp_path):
    phase = npz_phase(tmp_path, a=np.zeros(2), b=np.zeros(2))
    failure(tmp_path, phase, "Tasso_distances.npz holds the arrays a, b; expected 'names' and 'distances'")


def test_npz_not_square(tmp_path):
    phase = npz_phase(tmp_path, names=np.array(TASSO), distances=np.zeros((4, 3)))
    failure(tmp_path, phase, "Tasso_distances.npz: the distance matrix is 4 x 3; expected a square 4 x 4 matrix")
    phase = npz_phase(tmp_path / "b", names=np.array(TASSO), distances=np.zeros((3, 3)))
    failure(tmp_path / "b", phase, "Tasso_distances.npz has 4 names for a 3 x 3 matrix")


def test_npz_object_arrays_refused(tmp_path):
    phase = npz_phase(tmp_path, names=np.array(TASSO, dtype=object), distances=np.array(TASSO_DISTANCES))
    failure(tmp_path, phase, "Tasso_distances.npz holds object arrays", "pickled objects are refused")
    phase = npz_phase(tmp_path / "b", names=np.array(TASSO), distances=np.array(TASSO_DISTANCES, dtype=object))
    failure(tmp_path / "b", phase, "Tasso_distances.npz holds object arrays")


def test_npz_names_not_strings(tmp_path):
    phase = npz_phase(tmp_path, names=np.arange(4), distances=np.array(TASSO_DISTANCES))
    failure(tmp_path, phase, "Tasso_distances.npz: 'names' must be a 1-D array of strings")


def test_npz_not_finite(tmp_path):
    matrix = np.array(TASSO_DISTANCES)
    matrix[2, 1] = np.nan
    phase = npz_phase(tmp_path, names=np.array(TASSO), distances=matrix)
    failure(tmp_path, phase, "Tasso_distances.npz distances[2, 1] (tasso_000012.JPG to tasso_000011.JPG) is nan")


def test_npz_floats_have_no_bound_and_integers_stop_at_2_to_the_53(tmp_path):
    matrix = np.array(TASSO_DISTANCES)
    matrix[1, 2] = 1e17  # a float beyond 2^53: a float like any other
    phase = npz_phase(tmp_path, names=np.array(TASSO), distances=matrix)
    score(tmp_path, phase)
    integers = (np.array(TASSO_DISTANCES) * 10).astype(np.int64)
    integers[1, 2] = 2 ** 53 + 1  # an integer beyond 2^53: it would become 2^53 as a float64
    phase = npz_phase(tmp_path / "b", names=np.array(TASSO), distances=integers)
    failure(tmp_path / "b", phase, "Tasso_distances.npz distances[1, 2] (tasso_000011.JPG to tasso_000012.JPG) is "
            "the integer 9007199254740993, beyond 2^53")


def test_npz_not_an_archive(tmp_path):
    phase = make_phase(tmp_path)
    os.remove(str(phase / "res" / "Tasso_distances.csv"))
    write_file(phase / "res" / "Tasso_distances.npz", "not a zip")
    failure(tmp_path, phase, "Tasso_distances.npz is not a readable .npz archive")


def test_npz_integer_and_bytes_names_accepted(tmp_path):
    phase = make_phase(tmp_path)
    expected = score(tmp_path, phase).scores()
    os.remove(str(phase / "res" / "Tasso_distances.csv"))
    np.savez(str(phase / "res" / "Tasso_distances.npz"), names=np.array([n.encode() for n in TASSO]),
             distances=(np.array(TASSO_DISTANCES) * 10).astype(np.int32))
    assert run_scorer(phase, tmp_path / "out2").scores() == expected


# ------------------------------------------------------------ documentation


def test_documentation_optional_is_a_warning(tmp_path):
    run = score(tmp_path, make_phase(tmp_path, documentation=False))
    assert "No documentation (README.md, .txt or .pdf)" in run.stderr
    assert "Documentation: none found." in html(run)


def test_documentation_required(tmp_path):
    yaml = "track: authentication\nk: [1, 2]\ndocumentation: required\n"
    failure(tmp_path, make_phase(tmp_path, yaml, documentation=False),
            "The submission has no documentation; add a README.md, .txt or .pdf")
    phase = make_phase(tmp_path / "b", yaml, documentation=False)
    write_file(phase / "res" / "method.PDF", "%PDF-1.4\n")
    run = score(tmp_path / "b", phase)
    assert "Documentation: method.PDF." in html(run)


# ------------------------------------------------------------ the CSV reader's two paths


@pytest.mark.parametrize("fixed_width", [True, False])
@pytest.mark.parametrize("quoted", [True, False])
def test_csv_reader_paths_agree(tmp_path, fixed_width, quoted):
    """Cells of one layout (0.300000) go the fixed-width path, others (0, 0.3) the general
    one; quoted names take the general one too. Both read the same matrix and refuse a
    row of 5 distances alike."""
    from scoring.errors import SubmissionError
    from scoring.readers import authentication as reader
    shown = ['"%s"' % n for n in TASSO] if quoted else TASSO
    cell = "%.6f" if fixed_width else "%g"  # 0 and 0.3: cells of two widths
    text = ("," + ",".join(shown) + "\n" + "".join(
        name + "," + ",".join(cell % float(d) for d in row) + "\n" for name, row in zip(shown, TASSO_DISTANCES)))
    path = tmp_path / "Tasso_distances.csv"
    write_file(path, text)
    with open(str(path), "rb") as stream:
        stream.readline()
        fast = reader._parse_fixed_width(stream, 4, [], "Tasso_distances.csv")
        assert (fast is not None) == (fixed_width and not quoted)
    names, matrix = reader.read_distances_csv(str(path), "Tasso_distances.csv")
    assert names == TASSO
    assert matrix.tolist() == TASSO_DISTANCES
    lines = text.splitlines()
    lines[2] += "," + cell % 0.5  # one distance too many on line 3
    write_file(path, "\n".join(lines) + "\n")
    with pytest.raises(SubmissionError, match="line 3 has 5 distances; expected 4"):
        reader.read_distances_csv(str(path), "Tasso_distances.csv")


# ------------------------------------------------------------ the README's error table


def test_empty_submission(tmp_path):
    phase = make_phase(tmp_path, labels=False, distances=False, documentation=False)
    os.rmdir(str(phase / "res"))
    failure(tmp_path, phase, "The submission is empty; the zip must hold the result files.")


def test_label_file_inside_a_folder(tmp_path):
    phase = make_phase(tmp_path)
    os.makedirs(str(phase / "res" / "sub" / "dir"))
    os.rename(str(phase / "res" / "Pizan_labels.csv"), str(phase / "res" / "sub" / "dir" / "Pizan_labels.csv"))
    failure(tmp_path, phase, "The submission has no Pizan_labels.csv", "(found sub/dir/Pizan_labels.csv: put the "
            "files at the top level of the zip, not inside folders).")


@pytest.mark.parametrize("content,fragments", [
    (b"filename,label\nPIZAN_000001.jpg,0\nPIZAN_000002.jpg,\xe9\n",
     ["Pizan_labels.csv line 3 is not UTF-8 text (byte 0xe9); save the file as UTF-8."]),
    (b"filename;label\nPIZAN_000001.jpg;0\n",
     ["Pizan_labels.csv separates its columns with semicolons; expected commas, e.g. 'filename,label'."]),
    (b"PIZAN_000001.jpg,0\nPIZAN_000002.jpg,0\n",
     ["Pizan_labels.csv line 1 should be the header 'filename,label' (found 'PIZAN_000001.jpg,0'); "
      "add the header line."]),
    (b"filename,label\nPIZAN_000001.jpg,0\nfilename,label\nPIZAN_000002.jpg,0\n",
     ["Pizan_labels.csv line 3 repeats the header; keep a single header line."]),
    (b"filename,label\nPIZAN_000001.jpg,0\nPIZAN_000002.jpg,0,1\n",
     ["Pizan_labels.csv line 3 has 3 fields; expected 2 (filename,label)."]),
])
def test_malformed_label_file(tmp_path, content, fragments):
    phase = make_phase(tmp_path)
    with open(str(phase / "res" / "Pizan_labels.csv"), "wb") as stream:
        stream.write(content)
    failure(tmp_path, phase, *fragments)


def test_matrix_too_large_for_memory(monkeypatch):
    from scoring.errors import SubmissionError
    from scoring.readers import authentication as reader
    monkeypatch.setattr(reader.memory, "available_memory", lambda: 16 * 10 ** 9)
    with pytest.raises(SubmissionError) as raised:
        reader.check_memory(200000, 8, "Pizan_distances.csv")
    assert str(raised.value).startswith(
        "Pizan_distances.csv is a 200000 x 200000 matrix that needs 320.0 GB of memory but the scoring machine has "
        "16.0 GB free; submit it as Pizan_distances.npz")
    reader.check_memory(20000, 8, "Pizan_distances.csv")  # 3.2 GB: fits


@pytest.mark.parametrize("save,order,dtype", [(np.savez, "C", np.float64), (np.savez, "F", np.float32),
                                              (np.savez_compressed, "C", np.float32)])
def test_npz_stored_compressed_and_fortran_order_agree(tmp_path, save, order, dtype):
    from scoring.readers import authentication as reader
    path = str(tmp_path / "Tasso_distances.npz")
    save(path, names=np.array(TASSO), distances=np.asarray(TASSO_DISTANCES, dtype=dtype, order=order))
    names, matrix = reader.read_distances_npz(path, "Tasso_distances.npz")
    assert names == TASSO
    assert matrix.dtype == dtype
    assert matrix.tolist() == np.asarray(TASSO_DISTANCES, dtype=dtype).tolist()


def test_npz_truncated_member(tmp_path):
    from scoring.errors import SubmissionError
    from scoring.readers import authentication as reader
    path = str(tmp_path / "Tasso_distances.npz")
    np.savez(path, names=np.array(TASSO), distances=np.zeros((4, 4)))
    # Claim a larger matrix in the member's .npy header: the data then ends too early.
    with open(path, "rb") as stream:
        data = stream.read()
    header = b"'shape': (4, 4)"
    assert data.count(header) == 1
    with open(path, "wb") as stream:
        stream.write(data.replace(header, b"'shape': (9, 9)"))
    with pytest.raises(SubmissionError, match="Tasso_distances.npz: an array cannot be read"):
        reader.read_distances_npz(path, "Tasso_distances.npz")


def test_npz_datetime_distances_refused(tmp_path):
    phase = npz_phase(tmp_path, names=np.array(TASSO), distances=np.zeros((4, 4), dtype="M8[s]"))
    failure(tmp_path, phase, "Tasso_distances.npz: 'distances' must hold numbers")


# ------------------------------------------------------------ the fixed-width CSV path

fixed_layout = st.tuples(
    st.integers(1, 5),  # n
    st.integers(1, 15),  # digits
    st.data(),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),  # the last row ends with its line end
)


@settings(max_examples=150, deadline=None)
@given(fixed_layout)
def test_fixed_width_csv_equals_float_bit_for_bit(layout):
    from scoring.errors import SubmissionError
    from scoring.readers import authentication as reader
    n, digits, data, end, final_end = layout
    places = data.draw(st.integers(0, digits))
    names = ["img_%03d.png" % i for i in range(n)]

    def cell(value):
        text = "%0*d" % (digits, value)
        return text[:digits - places] + "." + text[digits - places:] if places else text

    cells = [[cell(data.draw(st.integers(0, 10 ** digits - 1))) for _ in range(n)] for _ in range(n)]
    if data.draw(st.booleans()):  # one cell off the layout: the general path reads the file
        i, j = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))
        cells[i][j] = data.draw(st.sampled_from(["1e-3", "-0", " 1", "7", cells[i][j] + "1", "+" + cells[i][j]]))
    lines = ["," + ",".join(names)] + [name + "," + ",".join(row) for name, row in zip(names, cells)]
    text = end.join(lines) + (end if final_end else "")
    expected = [[float(c) for c in row] for row in cells]
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "Tasso_distances.csv")
        with open(path, "wb") as stream:
            stream.write(text.encode("ascii"))
        if max(max(row) for row in expected) > 2 ** 53:  # a 16th digit: refused, on either path
            with pytest.raises(SubmissionError, match="beyond 2\\^53"):
                reader.read_distances_csv(path, "f")
            return
        names_read, matrix = reader.read_distances_csv(path, "f")
        with open(path, "rb") as stream:
            stream.readline()
            fast = reader._parse_fixed_width(stream, n, [], "distances.csv")
    assert names_read == names
    assert matrix.tobytes() == np.array(expected, dtype=np.float64).tobytes()
    # The fast path's layout: cells of one width, digits and at most one dot, at most 15 digits.
    plain = all(len(c) == len(cells[0][0]) and c.replace(".", "", 1).isdigit() for row in cells for c in row)
    plain = plain and len(cells[0][0].replace(".", "", 1)) <= 15
    plain = plain and len(set(c.find(".") for row in cells for c in row)) == 1
    # The fast path wants the first row's line end, and takes a last row without its LF.
    ends_taken = final_end or (n > 1 and end == "\n")
    assert (fast is not None) == (plain and ends_taken)


def test_fixed_width_csv_blocks_and_departures(tmp_path, monkeypatch):
    from scoring.errors import SubmissionError
    from scoring.readers import authentication as reader
    monkeypatch.setattr(reader, "_BLOCK_BYTES", 600)  # rows of 125 bytes: 4 a block
    monkeypatch.setattr(reader, "_GROUP_BYTES", 250)  # converted 2 at a time
    n = 12
    rng = np.random.RandomState(5)
    values = np.round(rng.rand(n, n), 6)
    names = ["PIZAN_%06d.jpg" % i for i in range(n)]
    rows = [name + "," + ",".join("%.6f" % v for v in row) for name, row in zip(names, values)]
    path = tmp_path / "Pizan_distances.csv"
    write_file(path, "," + ",".join(names) + "\n" + "\n".join(rows) + "\n")
    got_names, matrix = reader.read_distances_csv(str(path), "Pizan_distances.csv")
    assert got_names == names and matrix.tolist() == [[float("%.6f" % v) for v in row] for row in values]
    # A bad cell in a later block is named by the general path, as before.
    bad = list(rows)
    bad[9] = bad[9][:-8] + "x.123456"
    write_file(path, "," + ",".join(names) + "\n" + "\n".join(bad) + "\n")
    with pytest.raises(SubmissionError, match="line 11, column 13 holds 'x.123456'"):
        reader.read_distances_csv(str(path), "Pizan_distances.csv")
    # A name with a comma, a quoted name and rows after the square are the general path's.
    for changed in (rows[:5] + ['"PIZAN_000005.jp",' + rows[5].split(",", 1)[1]] + rows[6:], rows + rows[:1]):
        write_file(path, "," + ",".join(names) + "\n" + "\n".join(changed) + "\n")
        with pytest.raises(SubmissionError):
            reader.read_distances_csv(str(path), "Pizan_distances.csv")
