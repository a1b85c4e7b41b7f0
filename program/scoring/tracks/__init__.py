"""The registry of track kinds. A kind is one module that declares everything the scoring
program and the build know about it; nothing else names a kind.

Where kinds are found (the name is the module's file name, `track: <name>` in track.yaml):
  - the modules of this package, tracks/<name>.py (the built-in kinds);
  - the modules of KINDS_FOLDER, a folder `kinds/` beside the `scoring` package: how a
    scoring program and a starting kit built from a competition folder carry that
    competition's own kinds (tools/make_bundle.py copies the folder's kinds/ there);
  - add_folder(path), for the build (the competition folder's kinds/) and tests;
  - register(name, module), a module made in-process.
A kind found in a folder is imported as scoring.tracks.<name>, so it is written exactly as
a built-in kind (relative imports `from ..itemview import Score`); it is one file (its
reader inside it). Modules are imported on first use: a phase pays only for its kinds.

What a kind module provides (docs/maintainers.md, "Adding a kind", step by step):

  scoring (evaluate.py, check_submission.py, compare.py)
    OPTIONS                            name -> (default, options.Check) for its track.yaml
    columns(track, options)            its scores.txt keys as columns.Column, primary first, each
                                       with its columns.Metric: title, meaning, direction, bounds
    score(track, submission, options, log) -> result.TrackResult, its view's Scores made
                                       from the same Metrics (Metric.score)
    reference_files(track), REFERENCE  the files of the track's folder it reads ('/'-separated,
                                       relative to it), and what they are in a few words: any
                                       other file is refused by name (layout.refuse_unread)
  the public items (public.py: the starting kit's checker, Codabench's stand-in)
    public_items(track)                names and sizes of the test items, no ground truth
    stand_in_reference(items, folder)  a reference with those names and sizes
    dummy_submission(items, folder)    a valid submission that predicts nothing useful
  hints (hints.py: "the submission holds files of another track")
    FILES                              what its submission holds, in a few words
    looks_like(rel, path)              whether a submitted file looks like one of its files
  the pages and the participant manual (tools/pages.py, tools/manual.py)
    LABEL, TASK                        a neutral name and task of the kind
    submission_format(options)         the files to submit (text: see tools/markup.py)
    example(items, options)            a tiny submission made from the phase's own names
    metrics_text(options), privacy(options)  how it is scored; what the page shows or keeps
                                       private
    count_items(items)                 "120 images in 3 subsets (A, B, C)"
    errors(options), error_values(items)  the refusals a participant may see, and example
                                       values (the phase's own names) to show them with

Optional: unlabeled_files(track) and write_placeholder_labels(folder, files) (compare.py
without ground truth); sample_reference(folder) and reference_as_submission(track,
options, folder), a small made-up reference and the submission that repeats it, from which
the tests check every kind alike (tests/test_every_kind.py);
MISTAKES, {problem of an errors() row: a function making that
mistake to a dummy submission's folder}, whose sentences the manual shows
(tools/mistakes.py).
"""

import importlib
import importlib.util
import os
import re
import sys
from collections import OrderedDict
from collections.abc import Mapping

from ..errors import ReferenceDataError

#: What every kind provides (the list above, optional hooks aside).
PIECES = ("OPTIONS", "columns", "score", "reference_files", "REFERENCE", "public_items", "stand_in_reference",
          "dummy_submission", "FILES", "looks_like", "LABEL", "TASK", "submission_format", "example",
          "metrics_text", "privacy", "count_items", "errors", "error_values")

#: A kind's name: what `track:` says in track.yaml, and its module's name.
NAME = re.compile(r"[a-z][a-z0-9_]*\Z")
HERE = os.path.dirname(os.path.abspath(__file__))
#: Where a built scoring program (and a starting kit) carries a competition's own kinds.
KINDS_FOLDER = os.path.join(os.path.dirname(os.path.dirname(HERE)), "kinds")


def _modules_of(folder):
    """{name: path} of the kind modules in a folder (none if it does not exist)."""
    if not os.path.isdir(folder):
        return {}
    found = {}
    for filename in sorted(os.listdir(folder)):
        name, extension = os.path.splitext(filename)
        if extension == ".py" and NAME.match(name):
            found[name] = os.path.join(folder, filename)
    return found


class Registry(Mapping):
    """name -> kind module, imported on first use."""

    def __init__(self):
        self.built_in = _modules_of(HERE)
        self.folders = [KINDS_FOLDER]
        self.given = OrderedDict()  # name -> module, from register()

    def paths(self):
        """{name: file} of the kinds found in folders (a built-in name first of all)."""
        found = {}
        for folder in reversed(self.folders):
            found.update(_modules_of(folder))
        found.update(self.built_in)
        return found

    def unregister(self, name):
        if self.given.pop(name, None) is not None:
            sys.modules.pop(__name__ + "." + name, None)

    def add_folder(self, folder):
        if folder not in self.folders:
            self.folders.insert(0, folder)

    def register(self, name, module):
        if not NAME.match(name):
            raise ValueError("a kind's name is lower case letters, digits and '_', got %r" % name)
        self.given[name] = module
        sys.modules[__name__ + "." + name] = module

    def __getitem__(self, name):
        if not isinstance(name, str) or not NAME.match(name):
            raise KeyError(name)
        if name in self.given:
            return self.given[name]
        qualified = __name__ + "." + name
        if qualified in sys.modules:
            return sys.modules[qualified]
        if name in self.built_in:
            return importlib.import_module(qualified)
        path = self.paths().get(name)
        if path is None:
            raise KeyError(name)
        spec = importlib.util.spec_from_file_location(qualified, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[qualified] = module  # before running it: a pickled function names it
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[qualified]
            raise
        return module

    def __contains__(self, name):
        return isinstance(name, str) and (name in self.given or name in self.paths())

    def __iter__(self):
        return iter(sorted(set(self.paths()) | set(self.given)))

    def __len__(self):
        return len(set(self.paths()) | set(self.given))

    def origin(self, name):
        """Where a kind comes from, as a message names it."""
        if name in self.given:
            return "the kind %s (registered)" % name
        path = self.paths().get(name)
        if path is None or name in self.built_in:
            return "the kind %s" % name
        return "the kind %s (%s)" % (name, path)


TRACKS = Registry()


def register(name, module):
    """Make `module` the kind `name` (a kind built in-process, e.g. by a test)."""
    TRACKS.register(name, module)


def unregister(name):
    """Forget a kind made by register() (a test's, when it ends)."""
    TRACKS.unregister(name)


def add_folder(folder):
    """Look for kinds in `folder` too (kinds/<name>.py), before KINDS_FOLDER."""
    TRACKS.add_folder(os.path.abspath(folder))


def require(kind, piece, purpose):
    """The attribute `piece` of the kind named `kind`, or a ReferenceDataError saying which
    kind lacks what, and what needs it: a kind missing a piece is never given another
    kind's text."""
    module = TRACKS[kind]
    value = getattr(module, piece, None)
    if value is None:
        raise ReferenceDataError(
            "%s provides no %s, which %s needs; add it to the kind's module (docs/maintainers.md, \"Adding a "
            "kind\")." % (_capital(TRACKS.origin(kind)), piece, purpose))
    return value


def refusals(entries):
    """A kind's errors(options) from its list of (problem, sentence, when): the refusals that
    can happen under these options (when None: always; else a test of the options), all of
    them for options None."""
    def errors(options=None):
        return [(problem, sentence) for problem, sentence, when in entries
                if options is None or when is None or when(options)]

    return errors


def _capital(text):
    return text[:1].upper() + text[1:]


def keys(kind, track, options):
    """The scores.txt keys of a track, primary first: its kind's columns."""
    return [column.key for column in require(kind, "columns", "the leaderboard")(track, options)]
