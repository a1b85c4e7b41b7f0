"""compare.py end to end on the controlled scenario of 8 submissions (error rates 5%..40%)."""

import csv
import os
import subprocess
import sys
import zipfile

import compare_scenario
import pytest
from conftest import run_compare

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COMPARE = os.path.join(ROOT, "program", "compare.py")


def run_compare_process(*args):
    """compare.py as the organizer starts it: a fresh interpreter (the other runs fork)."""
    return subprocess.run([sys.executable, COMPARE] + [str(a) for a in args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=600)


def read_ranking(out, track="authentication"):
    with open(os.path.join(str(out), "ranking.csv")) as stream:
        return [row for row in csv.DictReader(stream) if row["track"] == track]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    base = tmp_path_factory.mktemp("scenario")
    ref, dirs, rates = compare_scenario.make(str(base), 8)
    out = base / "out"
    run = run_compare_process("--ref", ref, "--out", out, "--resamples", 300, *dirs)
    assert run.returncode == 0, run.stderr
    return base, ref, dirs, rates, out, run


def test_true_order_recovered_with_ground_truth(scenario):
    _, _, dirs, rates, out, run = scenario
    rows = read_ranking(out)
    assert [r["submission"] for r in rows] == ["sub%d" % (i + 1) for i in range(8)]
    # Error rates 5%, 10%, ...: ranks 1..8, and uar = 1 - rate exactly (rounded flips).
    assert [int(r["rank"]) for r in rows] == list(range(1, 9))
    for r, rate in zip(rows, rates):
        assert float(r["score"]) == pytest.approx(1 - rate, abs=0.002)
        assert float(r["ci_low"]) <= float(r["score"]) <= float(r["ci_high"])
    medians = [float(r["median_rank"]) for r in rows]
    assert medians == sorted(medians)
    # Events: noise growing with the submission number, so mean AP falls with it.
    events = read_ranking(out, "events")
    assert [int(r["rank"]) for r in events] == list(range(1, 9))
    assert all(r["pseudo_f_rank"] == "" for r in events)  # confidences, no binary decisions
    # Lines: submission i misses i of the 20 lines of every page: line_iu = 1 - 0.05 i.
    lines = read_ranking(out, "lines")
    assert [int(r["rank"]) for r in lines] == list(range(1, 9))
    for r, rate in zip(lines, rates):
        assert float(r["score"]) == pytest.approx(1 - rate)


def test_progress_line_per_submission_and_closing_note(scenario):
    _, _, _, _, out, run = scenario
    progress = [line for line in run.stderr.splitlines() if line.startswith("[")]
    assert len(progress) == 8 and progress[0].startswith("[1/8] sub1")
    # The closing note reads the agreement: here the pseudo F-measure keeps the true order.
    assert "the pseudo F-measure ranking orders the submissions exactly as uar does" in run.stderr
    page = open(os.path.join(str(out), "report.html"), encoding="utf-8").read()
    assert "Closing note" in page and "<svg" in page and 'name="viewport"' in page
    # Beside the page: the LaTeX tables and every chart as a file of its own.
    latex = open(os.path.join(str(out), "latex", "authentication-ranking.tex"), encoding="utf-8").read()
    assert "\\toprule" in latex and "\\bottomrule" in latex and latex.count("\\\\") == 9  # header + 8 rows
    assert latex.index("sub1") < latex.index("sub8")
    svgs = sorted(os.listdir(os.path.join(str(out), "svg")))
    assert len(svgs) == page.count("<figure>") and all(name in page for name in svgs)
    import xml.etree.ElementTree as ElementTree
    for name in svgs:
        root = ElementTree.parse(os.path.join(str(out), "svg", name)).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert '"num">0.0000<' not in page  # p-values below 1e-4 read < 0.0001
    assert 'href="http' not in page and 'src="http' not in page and "<script" not in page


def test_ground_truth_free_ranking_recovers_the_order(scenario):
    _, _, _, _, out, _ = scenario
    rows = read_ranking(out)
    # With gaps of 5 points, the pseudo F-measure against the consensus keeps the order,
    # on the labels of the authentication track and on the pixels of the line maps.
    assert [int(r["pseudo_f_rank"]) for r in rows] == list(range(1, 9))
    assert [int(r["pseudo_f_rank"]) for r in read_ranking(out, "lines")] == list(range(1, 9))
    reference = [int(r["reference_rank"]) for r in rows]
    assert reference == sorted(reference)  # ties allowed, never an inversion


def test_deterministic_and_zip_equals_directory(scenario, tmp_path):
    base, ref, dirs, _, out, _ = scenario
    archive = tmp_path / "sub1.zip"
    with zipfile.ZipFile(str(archive), "w") as z:
        for directory, _, files in os.walk(dirs[0]):
            for name in sorted(files):
                full = os.path.join(directory, name)
                z.write(full, os.path.relpath(full, dirs[0]))
    again = tmp_path / "again"
    run = run_compare("--ref", ref, "--out", again, "--resamples", 300, str(archive), *dirs[1:])
    assert run.returncode == 0, run.stderr
    with open(os.path.join(str(out), "ranking.csv")) as a, open(str(again / "ranking.csv")) as b:
        assert a.read() == b.read()


def test_reference_and_no_ground_truth(scenario, tmp_path):
    _, ref, dirs, _, _, _ = scenario
    out = tmp_path / "nogt"
    run = run_compare("--ref", ref, "--out", out, "--no-ground-truth", "--reference", "best",
                      "--names", ",".join(["best"] + ["s%d" % i for i in range(2, 5)]), *dirs[:4])
    assert run.returncode == 0, run.stderr
    rows = read_ranking(out)
    assert all(r["rank"] == "" for r in rows)
    assert [int(r["pseudo_f_rank"]) for r in rows] == [1, 2, 3, 4]
    page = open(str(out / "report.html"), encoding="utf-8").read()
    assert "reference: best" in page and "95% intervals" not in page
    # The reference is never ranked by the protocol: it would agree with itself everywhere.
    assert rows[0]["reference_rank"] == "" and rows[0]["reference_rank_value"] == ""
    assert sorted(int(r["reference_rank"]) for r in rows[1:])[0] == 1


def test_unsafe_zip_is_refused(scenario, tmp_path):
    _, ref, dirs, _, _, _ = scenario
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(str(archive), "w") as z:
        z.writestr("../outside.csv", "x")
    run = run_compare("--ref", ref, "--out", tmp_path / "o", str(archive), dirs[0])
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    assert "leaves the extraction folder" in run.stderr.splitlines()[-1]
    assert not os.path.exists(str(tmp_path / "outside.csv"))


def test_bad_names_are_an_organizer_error(scenario, tmp_path):
    _, ref, dirs, _, _, _ = scenario
    run = run_compare("--ref", ref, "--out", tmp_path / "o", "--names", "a", *dirs[:2])
    assert run.returncode == 2 and "--names gives 1 names for 2 submissions" in run.stderr


def test_reference_without_labels_gives_the_ground_truth_free_analysis(scenario, tmp_path):
    _, ref, dirs, _, _, _ = scenario
    import shutil
    unlabeled = tmp_path / "ref"
    shutil.copytree(ref, str(unlabeled))
    track = unlabeled / "authentication"
    for name in os.listdir(str(track)):
        if name.endswith(".csv"):
            rows = (track / name).read_text().splitlines()
            (track / name).write_text("\n".join(["filename"] + [r.split(",")[0] for r in rows[1:]]) + "\n")
    out = tmp_path / "out"
    run = run_compare("--ref", unlabeled, "--out", out, "--resamples", 50, *dirs)
    assert run.returncode == 0, run.stderr
    assert "No labels in" in run.stderr
    rows = read_ranking(out)
    assert all(r["rank"] == "" for r in rows)
    assert [int(r["pseudo_f_rank"]) for r in rows] == list(range(1, 9))
    assert [int(r["rank"]) for r in read_ranking(out, "events")] == list(range(1, 9))


def test_names_from_people_are_inert_in_every_output(scenario, tmp_path):
    """Team names that are spreadsheet formulas, terminal escapes and bidirectional or
    invisible characters (issue 31): the CSV cells are quoted as OWASP recommends (numbers,
    negative ones too, stay numbers), the terminal and the LaTeX get escapes, the page shows
    the controls as \\u202e."""
    _, ref, dirs, _, _, _ = scenario
    names = ["=1+cmd|' /C calc'!A0", "@SUM(1+9)", "sub\x1b[2J\u202eA", "-x\u200bB"]
    out = tmp_path / "out"
    run = run_compare("--ref", ref, "--out", out, "--resamples", 10, "--permutations", 100,
                      "--names", ",".join(names), *dirs[:4])
    assert run.returncode == 0, run.stderr
    assert "\x1b" not in run.stderr and "\u202e" not in run.stderr and "\u200b" not in run.stderr
    assert "[3/4] sub\\x1b[2J\\u202eA scored" in run.stderr
    shown = ["'=1+cmd|' /C calc'!A0", "'@SUM(1+9)", "sub\\x1b[2J\\u202eA", "'-x\\u200bB"]
    for name in ("ranking.csv", "pairs.csv", "ranks.csv"):
        with open(str(out / name), newline="", encoding="utf-8") as stream:
            rows = list(csv.reader(stream))
        cells = [cell for row in rows for cell in row]
        assert not [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r")], name
        assert not [c for c in cells if c.startswith("-") and not _is_number(c)], name
        assert set(c for c in cells if any(m in c for m in ("calc", "SUM(", "[2J", "x\u200b", "x\\u200b"))) \
            <= set(shown), name
        assert any(c in shown for c in cells), name
    with open(str(out / "ranking.csv"), newline="", encoding="utf-8") as stream:
        ranking = list(csv.DictReader(stream))
    assert set(r["submission"] for r in ranking) == set(shown)
    for path in [out / "report.html"] + list((out / "latex").iterdir()):
        text = path.read_text(encoding="utf-8")
        assert "\u202e" not in text and "\u200b" not in text and "\x1b" not in text, path


def _is_number(cell):
    try:
        float(cell)
    except ValueError:
        return False
    return True


def test_a_pair_whose_leader_could_fail_unseen_is_given_no_p_value(scenario):
    """Lines, 15 pages, line IU a page's share (no page scores less than 0): a leader at s1
    failing (IU 0) on a share f of pages loses f s1, so f = (s1 - s2) / s1 closes the gap,
    and 15 pages hold no failure with chance (1 - f)^15 = (s2 / s1)^15. From 5% on (sub1
    against sub2, 0.05 apart) pairs.csv leaves p empty and names that chance; far apart
    (sub1 against sub8) the pair is tested. The LaTeX caption counts the pairs given no test."""
    _, _, _, _, out, _ = scenario
    score = dict((r["submission"], float(r["score"])) for r in read_ranking(out, "lines"))
    with open(os.path.join(str(out), "pairs.csv"), encoding="utf-8") as stream:
        rows = dict(((r["a"], r["b"]), r) for r in csv.DictReader(stream)
                    if r["track"] == "lines" and r["score"] == "line_iu")
    chance = (score["sub2"] / score["sub1"]) ** 15
    assert chance >= 0.05
    assert rows["sub1", "sub2"]["p"] == rows["sub1", "sub2"]["p_adjusted"] == ""
    assert "with a chance of %.0f%%" % (100 * chance) in rows["sub1", "sub2"]["test"]
    assert (score["sub8"] / score["sub1"]) ** 15 < 0.05
    assert float(rows["sub1", "sub8"]["p"]) < 0.05 and "no p-value" not in rows["sub1", "sub8"]["test"]
    withheld = sum(1 for (a, b), r in rows.items() if a < b and r["p"] == "")
    with open(os.path.join(str(out), "latex", "lines-ranking.tex"), encoding="utf-8") as stream:
        assert "No test is given for %d of the 28 pairs" % withheld in stream.read()
