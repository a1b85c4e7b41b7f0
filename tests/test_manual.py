"""The participant manual of a starting kit lists every sentence a refused submission can get.

Two checks, from both ends, run on every kind by tests/test_every_kind.py with these
helpers: every sentence the program can raise for a participant (each
format string of a SubmissionError, of a reader's `error(...)`, of a missing file's
`missing(..., expected)`, of a memory guard, and the hints' clauses, read from the source
with ast) matches a sentence of the manual of its kind (tracks/<kind>.py, errors()) or of
every kind (tools/manual.py, COMMON_ERRORS and HINTS); and every refusal of the corpus of
malformed submissions is one of the manual's sentences (documented(), called by
tests/test_malformed.py on each case it runs and by tests/test_every_kind.py).
"""

import ast
import os
import re
import sys

import pytest
from conftest import PROGRAM, ROOT

import manual
from scoring import public
from scoring.tracks import TRACKS

SCORING = os.path.join(PROGRAM, "scoring")
#: The modules whose sentences reach the participants of every kind.
COMMON_MODULES = [os.path.join(SCORING, name) for name in ("layout.py", "cli.py", "files.py", "matching.py",
                                                           "names.py")] + [os.path.join(PROGRAM, "check_submission.py")]
#: A module of COMMON_MODULES whose sentence reaches only the kinds that call it: a name listed
#: twice in a file (a kind whose files list no names never says it).
REPEATS = (os.path.join(SCORING, "names.py"), "refuse_repeats")


def common_modules(kind):
    """COMMON_MODULES whose sentences reach the participants of this kind."""
    own = ""
    for path, _ in kind_modules(kind):
        with open(path, encoding="utf-8") as stream:
            own += stream.read()
    return [path for path in COMMON_MODULES if path != REPEATS[0] or REPEATS[1] in own]
HINT_MODULE = os.path.join(SCORING, "hints.py")
PREFIX = "Submission error: "


def kind_modules(kind):
    """[(path, the names of its functions to read, None for all)]: the kind's own modules,
    and of readers/text.py the functions its reader imports (and those they call)."""
    found = [(os.path.join(SCORING, "tracks", kind + ".py"), None)]
    reader = os.path.join(SCORING, "readers", kind + ".py")
    if os.path.isfile(reader):
        found.append((reader, None))
        with open(reader, encoding="utf-8") as stream:
            tree = ast.parse(stream.read())
        imported = set(alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                       and node.module == "text" and node.level == 1 for alias in node.names)
        if imported:
            found.append((os.path.join(SCORING, "readers", "text.py"), imported))
    return found


def called_closure(tree, names):
    """names and every function of the module they call, directly or not."""
    functions = dict((node.name, node) for node in tree.body if isinstance(node, ast.FunctionDef))
    pending, seen = [n for n in names if n in functions], set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for node in ast.walk(functions[name]):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions:
                pending.append(node.func.id)
    return [functions[name] for name in sorted(seen)]


# ---------------------------------------------------------------- the program's sentences


def string_of(node):
    """The text of a string literal node, else None (Python 3.7's ast has Str nodes; later
    versions Constant)."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if sys.version_info < (3, 8) and isinstance(node, ast.Str):
        return node.s
    return None


def _string(node, assigned):
    """The format string of an argument: a literal, the left side of `literal % args`, or
    a name assigned a literal in the same module."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        node = node.left
    if isinstance(node, ast.Name):
        return assigned.get(node.id)
    return string_of(node)


def sentences_of(path, functions=None):
    """The format strings a module raises for a participant (see the module's text); only
    in these functions (and those they call) unless functions is None."""
    with open(path, encoding="utf-8") as stream:
        tree = ast.parse(stream.read())
    roots = [tree] if functions is None else called_closure(tree, functions)
    assigned = {}
    for node in [n for root in roots for n in ast.walk(root)]:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = _string(node.value, {})
            if value is not None:
                assigned[node.targets[0].id] = value
    found = []
    for node in [n for root in roots for n in ast.walk(root)]:
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        position = {"SubmissionError": 0, "error": 0, "memory_guard": 0, "missing": 1, "guarded": 3}.get(name)
        if position is None or len(node.args) <= position:
            continue
        text = _string(node.args[position], assigned)
        if text is not None:
            found.append(text[len(PREFIX):] if text.startswith(PREFIX) else text)
    return found


def hint_clauses(path):
    """The clauses hints.py appends to a sentence: its literals that open with ' ('."""
    with open(path, encoding="utf-8") as stream:
        tree = ast.parse(stream.read())
    return [string_of(node) for node in ast.walk(tree) if (string_of(node) or "").startswith(" (")]


def format_pattern(text):
    """A regex for the sentences a printf format string gives (every conversion: any text)."""
    parts = re.split(r"(%%|%[-#0 +]*\d*(?:\.\d+)?[sdrgfx])", text)
    return "".join("%" if part == "%%" else ".*?" if part.startswith("%") else re.escape(part) for part in parts)


# ---------------------------------------------------------------- the manual's sentences


def sample_items(kind):
    """The public items of the demo's track of this kind (input/ref/<kind>)."""
    return public.public_items(os.path.join(ROOT, "input", "ref", kind))["tracks"][0]["items"]


def manual_sentences(kind, items=None):
    """Every sentence and clause of the manual of a kind, filled with example values."""
    module = TRACKS[kind]
    values = dict(manual.COMMON_VALUES)
    values.update(module.error_values(items if items is not None else sample_items(kind)))
    return ([manual.fill(sentence, values) for _, sentence in module.errors(None)]
            + [manual.fill(sentence, values) for _, sentence in manual.COMMON_ERRORS + manual.SEVERAL_TRACKS_ERRORS]
            + [manual.fill(clause, values) for _, clause in manual.HINTS])


def template_pattern(template, hints=""):
    """A regex for the sentences a manual's template stands for: each {name} any text, and
    {hint} one of the hints (or none)."""
    parts = re.split(r"(\{[a-z_0-9]+\})", template)
    return "".join(("(?:%s)?" % hints if part == "{hint}" else ".*?") if part.startswith("{") else re.escape(part)
                   for part in parts)


def documented(kind, sentence):
    """Whether a refusal's sentence (the last stderr line) is one of the manual's of its kind."""
    if sentence.startswith(PREFIX):
        sentence = sentence[len(PREFIX):]
    hints = "|".join(template_pattern(clause) for _, clause in manual.HINTS)
    templates = [sentence for _, sentence in TRACKS[kind].errors(None)]
    templates += [sentence for _, sentence in manual.COMMON_ERRORS + manual.SEVERAL_TRACKS_ERRORS]
    return any(re.fullmatch(template_pattern(template, hints), sentence, flags=re.S) for template in templates)


def test_every_hint_is_in_the_manual():
    rendered = [manual.fill(clause, manual.COMMON_VALUES) for _, clause in manual.HINTS]
    for text in hint_clauses(HINT_MODULE):
        assert any(re.fullmatch(format_pattern(text), clause, flags=re.S) for clause in rendered), text


def test_the_checks_can_fail():
    """The two checks above find a sentence the manual does not list, and a format string
    whose sentence is in it."""
    assert not documented("events", "The submission holds 3 files nobody asked for.")
    assert documented("events", "Submission error: La_Tomatina.txt line 4 repeats the image a.jpg (first on line 1); "
                                "list each image once.")
    assert documented("authentication", "The submission has no Pizan_labels.csv; expected one <Subset>_labels.csv "
                                        "per subset (Pizan_labels.csv, Tasso_labels.csv) or one labels.csv (the "
                                        "submission holds results.zip, a zip inside the zip: the platform unzips your "
                                        "upload once, so zip the result files themselves).")
    rendered = manual_sentences("events")
    assert not any(re.search(format_pattern("%s holds %d files nobody asked for."), s) for s in rendered)
    assert len(sentences_of(os.path.join(SCORING, "files.py"))) >= 7
    assert len(hint_clauses(HINT_MODULE)) >= 5


# ---------------------------------------------------------------- the examples are the program's own


def check_examples_are_the_program_s(kind, ref_dir, examples=None):
    """The manual's table of refusals of a phase (ref_dir, a track of the kind at its root):
    made at all (no row contradicted by the program: mistakes.ManualError), and every row that
    a mistake makes is the sentence the program refuses that mistake with, naming the phase's
    own files. Returns {problem: sentence}; examples (a list) gets the rows left with example
    names."""
    import mistakes
    import pages

    track_items = public.public_items(ref_dir)["tracks"][0]
    rows = dict(manual.error_rows(track_items, pages.track_options(track_items), examples=examples, strict=True))
    made = [problem for problem in rows if mistakes.mistake_of(kind, problem) is not None]
    assert made, kind
    for problem in made:
        sentence = mistakes.program_sentence(track_items, mistakes.mistake_of(kind, problem))
        if sentence is not None:  # else a row the phase cannot make, shown with example names
            assert rows[problem] == sentence, (kind, problem, rows[problem], sentence)
    hints = dict(manual.hint_rows(track_items, dict(manual.COMMON_VALUES)))
    for problem, clause in hints.items():
        assert "mytrack" not in clause and "{" not in clause, (kind, problem, clause)
        if problem in mistakes.HINT_MISTAKES:  # the end of the program's own sentence
            assert mistakes.program_sentence(track_items, mistakes.HINT_MISTAKES[problem]).endswith(
                " " + clause + "."), (kind, problem, clause)
    assert not set(hints) & set(manual.SEVERAL_TRACKS_HINTS)  # no kit's phase has several tracks
    return rows


@pytest.mark.parametrize("kind", ["authentication", "events", "lines"])
def test_the_demo_s_manual_examples_are_the_program_s_sentences(kind):
    """The demo's phases: the rows the issue found wrong, as the program says them (every
    kind's own sample phase: tests/test_every_kind.py)."""
    examples = []
    rows = check_examples_are_the_program_s(kind, os.path.join(ROOT, "input", "ref", kind), examples)
    # the rows, as the program says them for this phase
    assert rows["a file named in another case"].startswith("The submission has no ")
    assert "my_results/" not in rows["a symbolic link"] and "mytrack" not in rows["a file named almost as expected"]
    if kind == "events":
        assert rows["not two fields"].startswith("Ati_Atihan.txt line 2 has 3 fields ('")
    if kind == "authentication":
        assert rows["no header"].startswith("Pizan_labels.csv line 1 should be the header 'filename,label' (found "
                                            "'PIZAN_")
        assert re.fullmatch(r"Pizan_labels\.csv line 3 repeats the image (PIZAN_\d+\.jpg) \(first on line 2\); "
                            r"list each image once\.", rows["a name listed twice"])
    if kind == "lines":  # its files list no names: no row says so
        assert "a name listed twice" not in rows and "two files for one name" not in rows
        # Made: a page that needs 24 MB to open with 16 MB of address space left (it was 'cannot be read
        # as an image (MemoryError)'), and page workers killed as they start where they are forked (on
        # Linux, with two processors or more: 9 pages of the phase's cut submission); left: a page's
        # size beyond the memory left (the phase's pages are 128 x 96) and an unguarded MemoryError.
        assert rows["too large to decode"] == ("Latin14396/latin14396_001.png: decoding it needs more memory than "
                                               "the scoring machine has.")
        assert rows["out of memory"].startswith("A page worker was killed by the system while decoding")
        forked = sys.platform.startswith("linux") and len(os.sched_getaffinity(0)) >= 2
        assert examples == ["larger than the memory left"] + ([] if forked else ["out of memory"]) + [
            "a file that leaves the submission", "not enough memory"]


def test_a_row_the_program_contradicts_fails_the_check():
    import mistakes

    track_items = public.public_items(os.path.join(ROOT, "input", "ref", "events"))["tracks"][0]
    with pytest.raises(mistakes.ManualError) as stopped:
        mistakes.sentence_for(track_items, "an empty file", "{file} is empty; expected nothing at all.", strict=True)
    assert "but the scoring program says" in str(stopped.value)
    assert "Ati_Atihan.txt is empty; expected one line '<image id> <confidence>' per image" in str(stopped.value)
    assert mistakes.sentence_for(track_items, "an empty file", "{file} is empty; expected nothing at all.") is None
    assert mistakes.sentence_for(track_items, "an empty file", "{file} is empty.", own=False) is False


def test_rows_of_permissions_memory_and_the_checker_are_made_and_the_rest_named():
    """Permissions (without root's power to read past them), memory (a bounded address space)
    and the checker's own refusals are real mistakes run through the real readers; the
    manual names exactly the rows left with example names."""
    import pages

    track_items = public.public_items(os.path.join(ROOT, "input", "ref", "events"))["tracks"][0]
    options = pages.track_options(track_items)
    examples = []
    rows = dict(manual.error_rows(track_items, options, examples=examples))
    assert examples == ["a file that leaves the submission"]  # only a file changed while it is read
    assert rows["a file that cannot be read"] == "Ati_Atihan.txt cannot be read (Permission denied)."
    assert rows["a folder that cannot be listed"] == ("The submission's folder my_results cannot be listed "
                                                      "(Permission denied).")
    assert rows["larger than the memory"] == "Ati_Atihan.txt is larger than the memory the scoring machine has left."
    assert rows["not enough memory"] == "the submission needs more memory than the scoring machine has."
    assert rows["check_submission.py: not a zip"].startswith("my_submission.rar is neither a zip file nor a folder")
    assert rows["check_submission.py: no such file"] == "my_submission.zip does not exist."
    text = manual.manual({"title": "T"}, "Events", None, "development", track_items, options, [])
    assert "keep example names: a file that leaves the submission.\n" in text
    authentication = public.public_items(os.path.join(ROOT, "input", "ref", "authentication"))["tracks"][0]
    rows = dict(manual.error_rows(authentication, pages.track_options(authentication), strict=True))
    assert rows["a matrix too large"].endswith("needs 320.0 GB of memory but the scoring machine has 1.0 GB free; "
                                               "submit it as Pizan_distances.npz with float32 distances, or check "
                                               "its size.")
    assert rows[".npz: too large to decode"] == ("Pizan_distances.npz: decoding its arrays needs more memory than "
                                                 "the scoring machine has.")
    assert rows["not a matrix"].startswith("Pizan_distances.csv is not a 3 x 3 labeled matrix")


def test_a_distance_csv_the_system_does_not_let_the_program_read_is_told_so():
    """Before, a distance CSV of mode 000 ended in a traceback (status 3) and an .npz was 'not a
    readable .npz archive'."""
    import mistakes
    from scoring.tracks import authentication

    def unreadable_csv(res, kind):
        authentication._matrix_csv(lambda rows: rows)(res)
        os.chmod(os.path.join(res, "Pizan_distances.csv"), 0)
        return True

    track_items = public.public_items(os.path.join(ROOT, "input", "ref", "authentication"))["tracks"][0]
    sentence = mistakes.program_sentence(track_items, mistakes.unprivileged(unreadable_csv))
    if sys.platform.startswith("linux"):  # elsewhere no way to make it (None)
        assert sentence == "Pizan_distances.csv cannot be read (Permission denied)."
