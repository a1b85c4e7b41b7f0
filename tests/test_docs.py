"""The guides name nothing that does not exist: every file they link to, every path of the
repository, file of the code, module attribute (`matching.find_files`) and constant
(`TEXT_ERRORS`) they cite in code spans is looked up in the tree (the code is parsed, never
imported)."""

import ast
import os
import re

import pytest
from conftest import ROOT

#: The guides; the records (CHANGELOG.md, docs/speed-history.md, docs/platform-notes.md) may
#: name what existed when they were written.
RECORDS = ("CHANGELOG.md", os.path.join("docs", "speed-history.md"), os.path.join("docs", "platform-notes.md"))
GUIDES = ["README.md"] + sorted(
    path for path in (os.path.join(folder, name)
                      for folder in ("docs", os.path.join("docs", "participants"))
                      for name in os.listdir(os.path.join(ROOT, folder)) if name.endswith(".md"))
    if path not in RECORDS)

#: Where the project's code lives: a module is known by its file name without .py.
CODE = ("program", "tools", "bench", "tests")

#: Files of the platforms' own code that the guides cite (Codabench, EvalAI, Codalab v1.5):
#: they are not in this repository.
PLATFORM_FILES = {"compute_worker.py", "worker.py", "gunicorn_run.py", "submission_worker.py",
                  "urls.py", "views.py", "models.py", "serializers.py", "tasks.py", "utils.py",
                  "base_unpacker.py", "v2_unpacker.py", "v15_unpacker.py", "leaderboards.py",
                  "competitions.py", "submissions.py", "settings.py", "challenge_zip.py"}


def _modules():
    """module name -> the set of names defined at its top level (every file of that name),
    path of a file -> the same, and the set of every string constant of the code (names of
    environment variables, of files the code reads)."""
    found, by_path, strings = {}, {}, set()
    for top in CODE:
        for folder, dirs, files in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
            for name in files:
                if not name.endswith(".py"):
                    continue
                module = os.path.basename(folder) if name == "__init__.py" else name[:-3]
                with open(os.path.join(folder, name), encoding="utf-8") as stream:
                    tree = ast.parse(stream.read())
                names = found.setdefault(module, set())
                by_path[os.path.relpath(os.path.join(folder, name), ROOT)] = names
                for node in ast.walk(tree):
                    if isinstance(node, ast.Constant) and isinstance(node.value, str):
                        strings.add(node.value)
                    elif type(node).__name__ == "Str":  # Python 3.7's parser
                        strings.add(node.s)
                    elif isinstance(node, ast.Attribute):
                        strings.add(node.attr)  # a library's name the code uses (resource.RUSAGE_CHILDREN)
                for node in tree.body:
                    if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                        names.add(node.name)
                    elif isinstance(node, ast.Assign):
                        names.update(t.id for t in node.targets if isinstance(t, ast.Name))
                    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                        names.add(node.target.id)
                    elif isinstance(node, (ast.Import, ast.ImportFrom)):
                        names.update((a.asname or a.name).split(".")[0] for a in node.names)
                for sub in os.listdir(folder) if name == "__init__.py" else ():
                    names.add(sub[:-3] if sub.endswith(".py") else sub)
    return found, by_path, strings


MODULES, DEFINED_IN, STRINGS = _modules()
CONSTANTS = set(n for names in MODULES.values() for n in names if re.match(r"^[A-Z][A-Z0-9_]+$", n))
TRACKED = set(os.listdir(ROOT))
TEXTS = "\n".join(STRINGS)
IGNORED = set(line.strip().rstrip("/") for line in open(os.path.join(ROOT, ".gitignore")) if line.strip())
#: Names of the platforms' settings that the guides cite (Codabench's and EvalAI's).
PLATFORM_NAMES = {"MAX_EXECUTION_TIME_LIMIT", "BASE_DIR", "HOST_DIRECTORY", "RERUN_SUBMISSION_LIMIT",
                  "AWS_SQS_ENDPOINT", "DB_ENGINE", "STORAGE_TYPE", "SUBMISSIONS_API_URL"}
FILES = set(name for top in ("program", "tools", "tests", "bench") for _, _, names in os.walk(os.path.join(ROOT, top))
            for name in names)


def _spans(path):
    text = open(os.path.join(ROOT, path), encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # examples of commands and trees
    return text, re.findall(r"`([^`\n]+)`", text)


def _problems(path):
    text, spans = _spans(path)
    folder = os.path.dirname(os.path.join(ROOT, path))
    problems = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        target = target.split("#")[0]
        if target and not re.match(r"^[a-z]+:", target) and not os.path.exists(os.path.join(folder, target)):
            problems.append("link %s" % target)
    for name, where in re.findall(r"`([A-Za-z_][\w.]*)` in `([\w/]+\.py)`", text):
        if where in DEFINED_IN and name.split(".")[0] not in DEFINED_IN[where]:
            problems.append("%s not in %s" % (name, where))
    for span in spans:
        token = span.split()[0] if span.split() else ""
        token = token.rstrip(":,;")
        if re.search(r"[<>*{}$\[\]=]", token):
            continue  # a placeholder or an example
        first = token.split("/")[0]
        if "/" in token and first in TRACKED and first not in ("input", "output", "dist"):
            if not os.path.exists(os.path.join(ROOT, token.rstrip("/"))) and token.rstrip("/") not in IGNORED:
                problems.append("path %s" % token)
        elif re.match(r"^[\w-]+\.py$", token):
            if token not in FILES and token not in PLATFORM_FILES:
                problems.append("file %s" % token)
        elif re.match(r"^[a-z_]+\.[A-Za-z_]+(\(\))?$", token) and token.split(".")[0] in MODULES:
            module, attribute = token.rstrip("()").split(".")
            if attribute not in ("py", "md", "txt", "json", "csv", "yaml", "zip", "html", "tex", "npz", "png", "R") \
                    and attribute not in MODULES[module] and token not in STRINGS:
                problems.append("name %s" % token)
        elif re.match(r"^[A-Z][A-Z0-9]*_[A-Z0-9_]+$", token) and token not in CONSTANTS | PLATFORM_NAMES \
                and not re.search(r"\b%s\b" % token, TEXTS):
            problems.append("constant %s" % token)
    return problems


@pytest.mark.parametrize("path", GUIDES)
def test_a_guide_names_only_what_exists(path):
    assert _problems(path) == [], "%s cites what the repository does not hold" % path


def test_the_front_door_and_the_two_manuals_are_read_in_an_afternoon():
    """README.md, organizers.md and maintainers.md say what to do and why in at most 1,100
    lines together; records of runs go to the notes pages (RECORDS)."""
    paths = ["README.md", os.path.join("docs", "organizers.md"), os.path.join("docs", "maintainers.md")]
    lines = sum(len(open(os.path.join(ROOT, path), encoding="utf-8").read().splitlines()) for path in paths)
    assert lines <= 1100, "the three guides hold %d lines" % lines
