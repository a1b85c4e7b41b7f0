"""Names in their own direction on the terminal and in the platforms' logs: every line
evaluate.py, check_submission.py, compare.py and the build write isolates its right-to-left
runs between FSI (U+2068) and PDI (U+2069) (UAX #9, section 2.7), so that a viewer laying
text out by the bidirectional algorithm (a platform's log page in a browser) keeps the
sentence in order; a name's own controls stay escaped, so that none passes for ours."""

import subprocess
import sys

from conftest import PROGRAM, assert_clean_failure, run_scorer
from phases import write_phase

from scoring import bidi

FSI, PDI = "\u2068", "\u2069"
BOOK = "\u0643\u062a\u0627\u0628 \u0627\u0644\u0623\u063a\u0627\u0646\u064a"  # كتاب الأغاني
HEBREW = "\u05e4\u05e1\u05d7"  # פסח


def test_a_line_isolates_its_right_to_left_runs_and_escapes_a_name_s_own_controls():
    line = bidi.terminal("The submission has no %s.txt (found x\u2068y.txt, %s (2)/a.png)." % (HEBREW, BOOK))
    assert line == ("The submission has no %s%s%s.txt (found x\\u2068y.txt, %s%s%s (2)/a.png)."
                    % (FSI, HEBREW, PDI, FSI, BOOK, PDI))
    assert bidi.terminal("no right-to-left name\x1b[2J") == "no right-to-left name\\x1b[2J"


def test_evaluate_py_isolates_names_in_its_refusal_and_its_warnings(tmp_path):
    ref = {HEBREW + ".txt": "a.jpg 1\nb.jpg 0\n", BOOK + ".txt": "a.jpg 0\nb.jpg 1\n"}
    res = {BOOK + ".txt": "a.jpg 0.9\nb.jpg 0.1\n", "\u062f.txt": "a.jpg 0.5\n"}
    run = run_scorer(write_phase(tmp_path, ref, res, "track: events\n"), tmp_path / "out")
    assert_clean_failure(run, 1)
    assert run.last_line.startswith("Submission error: The submission has no %s%s%s.txt" % (FSI, HEBREW, PDI))
    with open(str(tmp_path / "out" / "detailed_results.html"), encoding="utf-8") as stream:
        page = stream.read()
    assert FSI not in page and "<bdi>%s</bdi>.txt" % HEBREW in page  # the page isolates its own way

    res[HEBREW + ".txt"] = "a.jpg 0.9\nb.jpg 0.1\n"
    run = run_scorer(write_phase(tmp_path / "b", ref, res, "track: events\n"), tmp_path / "out2")
    assert run.status == 0, run.stderr
    warning = next(line for line in run.stderr.splitlines() if line.startswith("WARNING: "))
    assert warning == ("WARNING: The submission holds 1 .txt file that names no category (ignored): %s\u062f%s.txt."
                       % (FSI, PDI))


def test_the_checker_isolates_names_in_its_refusal(tmp_path):
    ref = {HEBREW + ".txt": "a.jpg 1\nb.jpg 0\n"}
    phase = write_phase(tmp_path, ref, {"other.txt": "a.jpg 1\n"}, "track: events\n")
    sys.path.insert(0, PROGRAM)
    from scoring import public

    items = tmp_path / "items.json"
    items.write_text(public.dumps(public.public_items(str(phase / "ref"))), encoding="utf-8")
    run = subprocess.run([sys.executable, "check_submission.py", "--items", str(items), str(phase / "res")],
                         cwd=PROGRAM, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                         encoding="utf-8")
    assert run.returncode == 1
    assert run.stderr.splitlines()[-1].startswith("Submission error: The submission has no %s%s%s.txt"
                                                  % (FSI, HEBREW, PDI))


def test_compare_py_and_the_build_isolate_names_on_the_terminal(capsys):
    import io

    import make_bundle
    from scoring.metaeval import cli

    make_bundle.say("competition written to dist/%s:" % BOOK)
    assert capsys.readouterr().out == "competition written to dist/%s%s%s:\n" % (FSI, BOOK, PDI)
    stream = io.StringIO()
    cli.say(stream, "Analysing track %s over 3 submissions." % HEBREW)
    assert stream.getvalue() == "Analysing track %s%s%s over 3 submissions.\n" % (FSI, HEBREW, PDI)
