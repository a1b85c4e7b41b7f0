"""The participant manual of a starting kit (MANUAL.md) and the kit's README.md, generated
per competition, track and phase: the organizer's titles, the phase's own names in every
example (its subsets, manuscripts, categories...), the formats, metrics and keys the
track's kind declares, every sentence a refused submission can get, and how to check a
submission on one's own machine. Nothing only an organizer needs (reference formats,
track.yaml options) and no link that leaves the kit.

The refusals: COMMON_ERRORS are the sentences of every kind (the layout of the zip, the
checker), HINTS the clauses that a missing file's sentence may end with; each kind lists
its own (tracks/<kind>.py, errors() and error_values()). tests/test_manual.py checks that
every sentence the program can raise for a participant, and every refusal of the corpus of
malformed submissions, is one of them.
"""

import markup
import mistakes
from scoring import __version__, bidi
from scoring.tracks import TRACKS, require

#: Sentences of a refusal that every kind shares: (problem, sentence, {name} standing for
#: what varies, filled from COMMON_VALUES).
COMMON_ERRORS = [
    ("an empty zip", "The submission is empty; the zip must hold the result files."),
    ("a symbolic link", "The submission contains a symbolic link, {link}; submit regular files only (links are "
                        "refused so that nothing outside the submission is read)."),
    ("a named pipe, a socket or a device", "The submission's {link} is a named pipe (FIFO); submit regular files "
                                           "and folders only."),
    ("a hard link to the reference data", "The submission's {link} is a hard link to a file of the reference data; "
                                          "submit your own result files."),
    ("a hard link to a file outside the submission", "The submission's {link} is a hard link to a file outside the "
                                                     "submission ({link_names} names, {link_names_inside} of them in "
                                                     "the submission); submit your own result files, each a file of "
                                                     "its own."),
    ("folders nested too deep", "The submission nests folders more than 64 levels deep ({deep_path}...); zip the "
                                "result files at the top level or in the folders the phase expects."),
    ("a folder that cannot be listed", "The submission's folder {folder} cannot be listed (Permission denied)."),
    ("a name too long", "The submission's {link} cannot be examined (File name too long); use shorter names and "
                        "fewer nested folders."),
    ("a file that leaves the submission", "{link} leaves the submission folder or is a link; submit regular files "
                                          "only."),
    ("not enough memory", "the submission needs more memory than the scoring machine has."),
    ("a file named almost as expected", "The submission has no {file}; found {near_file}, a name close to it: "
                                        "rename it {file} if it is meant for it."),
    ("a file named in another case", "The submission has no {file}; found {file_upper}, which differs only in case "
                                     "(names are case-sensitive): rename it {file}."),
    ("a file named with other accents", "The submission has no {file_accented}; found {file_plain}, which differs "
                                        "only in its accents: rename it {file_accented}."),
    ("a file named with other accents and case", "The submission has no {file_accented}; found "
                                                 "{file_plain_lower}, which differs only in its accents and case: "
                                                 "rename it {file_accented}."),
    ("a file named with other spaces, dashes or underscores", "The submission has no {file_words}; found "
                                                              "{file_underscored}, which differs only in its spaces, "
                                                              "dashes, underscores or case: rename it {file_words}."),
    ("a file with another extension", "The submission has no {file}; found {file_other_form}, which differs in its "
                                      "extension: rename it {file}."),
    ("several files missing, one named almost so", "The submission has no {file} ({missing_count} of the "
                                                   "{expected_count} expected files are missing, e.g. {file}, "
                                                   "{file2}); found {near_file}, a name close to it: rename it {file} "
                                                   "if it is meant for it."),
    ("two files for one name", "The submission holds both {file} and {file_other_form}; keep one."),
    ("one name written twice (composed and decomposed, NFC and NFD)", "The submission holds 2 files named "
                                                                      "{file_accented}, written differently in the "
                                                                      "zip ({file_forms}); keep one."),
    ("check_submission.py: not a zip", "{zip} is neither a zip file nor a folder; upload a zip of your result "
                                       "files."),
    ("check_submission.py: no such file", "{zip} does not exist."),
]

#: The sentences of a phase of several tracks, which no starting kit's phase is (its track
#: sits at the root of the reference data).
SEVERAL_TRACKS_ERRORS = [
    ("a track's folder missing", "The submission has no folder {folder}/; this phase expects one folder per track: "
                                 "{folder}/, other/{hint}."),
]

#: What a sentence about a missing file may end with (before its last full stop).
HINTS = [
    ("the file in a folder named in another case", " (found {in_other_case}: folder names are case-sensitive, "
                                                   "rename the folder {folder_upper}/ to {folder}/)"),
    ("the file out of its folder", " (found {file}: it belongs in the folder {folder}/, as {in_folder})"),
    ("the files inside a folder", " (found {in_a_folder}: put the files at the top level of the zip, not inside "
                                  "folders)"),
    ("the files inside extra folders", " (found {in_extra_folders}, inside extra folders: move it to {in_folder})"),
    ("a track's folder named in another case", " (found {folder_upper}/: folder names are case-sensitive, rename it "
                                               "{folder}/)"),
    ("a track's folder named almost so", " (found {folder_near}/: rename it {folder}/)"),
    ("no track's folder", " (the submission holds {top} at its top)"),
    ("the file in a folder of another name", " (found {in_other_folder}: rename the folder {folder_other}/ to "
                                             "{folder}/)"),
    ("a file of another name", " ({holder} holds {file_other}, a name the phase does not expect)"),
    ("files of other names", " ({holder} holds 2 files whose names the phase does not expect: {file_other}, "
                             "{file_other2})"),
    ("a zip inside the zip", " (the submission holds {inner_zip}, a zip inside the zip: the platform unzips your "
                             "upload once, so zip the result files themselves)"),
    ("another kind of track's files", " (the submission holds files of the {other} track ({other_files}), such as "
                                      "{other_file}: submit them to that track's phase)"),
]
#: The HINTS of a phase of several tracks only (SEVERAL_TRACKS_ERRORS), which no kit's phase is.
SEVERAL_TRACKS_HINTS = ("a track's folder named in another case", "a track's folder named almost so",
                        "no track's folder")

COMMON_VALUES = {"deep_path": "a/a/a/a/a", "link": "my_results/link.csv", "folder": "mytrack", "holder": "mytrack/",
                 "folder_upper": "MyTrack",
                 "zip": "submission.rar", "file": "results.txt", "in_other_case": "MyTrack/results.txt",
                 "in_folder": "mytrack/results.txt", "in_a_folder": "my_results/results.txt",
                 "in_extra_folders": "my_results/mytrack/results.txt", "inner_zip": "results.zip",
                 "other": "other", "other_files": "its own files", "other_file": "other/page.png", "hint": "",
                 "file2": "results2.txt", "near_file": "results (1).txt", "file_upper": "Results.txt",
                 "file_other_form": "results.csv", "file_accented": "S\u00e9vign\u00e9.txt",
                 "file_plain": "Sevigne.txt", "file_plain_lower": "sevigne.txt", "file_words": "my results.txt",
                 "file_underscored": "my_results.txt",
                 "file_forms": "'Se\\u0301vigne\\u0301.txt', 'S\\xe9vign\\xe9.txt'", "image_any": "img_001.png",
                 "folder_near": "my_track", "top": "results.txt, notes/", "in_other_folder": "Results/results.txt",
                 "folder_other": "Results", "file_other": "predictions.csv", "file_other2": "notes.md",
                 "repeat_line": 9, "first_on_line": 2, "missing_count": 2, "expected_count": 3, "link_names": 2,
                 "link_names_inside": 1, "folder_holds": " (it holds results.txt)"}


def fill(template, values):
    """A sentence of the manual: the template with its {names} from values."""
    return template.format(**values)


def escape_cell(text):
    """A Markdown table cell: pipes escaped, on one line."""
    return text.replace("|", "\\|").replace("\n", " ")


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(escape_cell(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


SET_UP = """Create a virtual environment beside the kit (once), install the packages of
[`requirements.txt`](requirements.txt) into it (Python 3.7 to 3.13; numpy, scipy, Pillow,
PyYAML), then run the checker with it:

```
python3 -m venv venv
venv/bin/python -m pip install -r requirements.txt
venv/bin/python check_submission.py sample_submission
venv/bin/python check_submission.py my_submission.zip
```

On Windows, `py -m venv venv`, then `venv\\Scripts\\python` instead of `venv/bin/python`.
(A virtual environment is needed where the system's Python refuses `pip install`, as on
Debian 12 and Ubuntu 24.04.)

[`check_submission.py`](check_submission.py) takes the zip you will upload, or the folder
you will zip. It runs the scoring program's own code (`scoring/`) on it against the
phase's list of test items ([`public_items.json`](public_items.json): names and sizes, no
ground truth), prints the very sentence the scoring program would print, and exits with
its status:

| status | meaning |
|---|---|
| 0 | the submission is valid: the scoring program would score it |
| 1 | the submission is refused; the last line says why and how to fix it |
| 2 | the list of test items (or the kit) is broken: tell the organizers |
| 3 | a package is missing or cannot be loaded (the sentence says why), or a bug of the program: tell the organizers |
"""


def readme(source, title, stage, count):
    """The kit's README.md, its right-to-left names isolated (markup.isolated)."""
    return markup.isolated("""# Starting kit: {title} ({stage} phase)

{competition}. This kit holds:

- [`MANUAL.md`](MANUAL.md): the participant manual of this track: what to submit, with
  examples from this phase, how it is scored, the leaderboard's columns and every error
  message;
- [`evaluation.html`](evaluation.html): the track's evaluation page (format, example,
  metrics, columns);
- [`sample_submission/`](sample_submission/): a submission that the scoring program
  accepts. Replace its files by yours, keep the names and the layout, and zip the files
  themselves (not the folder);
- [`check_submission.py`](check_submission.py), with the scoring program (`scoring/`),
  [`requirements.txt`](requirements.txt) and [`public_items.json`](public_items.json):
  checks a submission on your machine before you upload it.

The phase holds {count}.

## Check a submission

{set_up}
---
Scoring program {version}.
""".format(title=title, stage=stage, competition=source["title"], count=count, set_up=SET_UP,
           version=__version__))


def _example(track_items, options):
    res, _, code = require(track_items["kind"], "example", "the manual's example")(track_items["items"], options)
    if code is not None:
        return ("This Python script, run in your submission folder, writes a valid file for the phase's first "
                "item:\n\n" + markup.code(code, "python"))
    parts = ["For two items of this phase (a real submission lists all of them):"]
    for name in sorted(res):
        parts.append("%s:\n\n%s" % (markup.literal(name), markup.code(res[name])))
    return "\n\n".join(parts)


def _columns(columns):
    overall = [column for column in columns if column.stratum is None]
    rows = [[markup.literal(c.key), c.title(), "lower is better" if c.lower_is_better else "higher is better",
             c.metric.meaning] for c in overall]
    text = table(["key", "column", "order", "what it is"], rows)
    strata = []
    for column in columns:
        if column.stratum is not None and column.stratum not in strata:
            strata.append(column.stratum)
    if strata:
        text += ("\n\nThe same metrics, each on one part of the test set alone (%s):\n\n" % ", ".join(strata))
        text += "\n".join("- %s: %s" % (stratum, ", ".join(markup.literal(c.key) for c in columns
                                                           if c.stratum == stratum)) for stratum in strata)
    return text


def error_rows(track_items, options, strict=False, examples=None):
    """[(problem, sentence)] of the manual's table of refusals: the kind's rows that apply
    under these options, then every kind's; each sentence the scoring program's own for that
    mistake made to a submission of this phase (mistakes.sentence_for), else the row's
    template filled with example values (a mistake this machine cannot make: mistakes.py).
    strict: a row the program contradicts raises mistakes.ManualError (the tests), else keeps
    its template. examples: a list that receives the problems of the rows filled with example
    values."""
    kind = track_items["kind"]
    values = dict(COMMON_VALUES)
    mine = require(kind, "error_values", "the manual's error messages")(track_items["items"])
    values.update(mine)
    own = require(kind, "errors", "the manual's error messages")(options)
    values["link"] = mine.get("file") or mine.get("page") or values["link"]  # a name of this phase
    values["folder"] = "my_results"  # a folder of the participant's (the kit's track is at the root)
    rows = []
    for problem, template in list(own) + list(COMMON_ERRORS):
        sentence = mistakes.sentence_for(track_items, problem, template, (problem, template) in own, strict)
        if sentence is not False:  # False: a row of every kind's that this kind never says
            rows.append((problem, sentence or fill(template, values)))
            if not sentence and examples is not None:
                examples.append(problem)
    return rows


def hint_rows(track_items, values):
    """[(what was found, the clause a sentence ends with)] of a kit's phase: each clause the
    program's own for that mistake made to this phase (mistakes.clause_for); a clause this
    phase never says left out; one no mistake makes here filled with example values."""
    others = [kind for kind in TRACKS if kind != track_items["kind"] and getattr(TRACKS[kind], "FILES", None)]
    if others:  # another kind the program knows, as its sentence names it
        values = dict(values, other=others[0], other_files=TRACKS[others[0]].FILES, other_file="...")
    rows = []
    for problem, clause in HINTS:
        if problem in SEVERAL_TRACKS_HINTS:
            continue
        found = mistakes.clause_for(track_items, problem, clause)
        if found is not False:
            rows.append((problem, found or fill(clause, values).strip()))
    return rows


def _errors(track_items, options):
    kind = track_items["kind"]
    values = dict(COMMON_VALUES)
    values.update(require(kind, "error_values", "the manual's error messages")(track_items["items"]))
    examples = []
    # Each sentence as the program prints it (bidi.terminal: its right-to-left names isolated).
    rows = [[problem, markup.literal(bidi.terminal(sentence))]
            for problem, sentence in error_rows(track_items, options, examples=examples)]
    hints = [[problem, markup.literal(bidi.terminal(clause))] for problem, clause in hint_rows(track_items, values)]
    return ("Every refusal is one line, the last one the program prints, starting with `Submission error: ` "
            "(exit status 1); no scores are written and the detailed results page shows the same sentence. "
            "Each example is the scoring program's own sentence for that mistake made to a submission of this "
            "phase (a few of its items)%s.\n\n" % (
                "; the rows no such submission could show on the machine that built this kit keep example names: %s"
                % "; ".join(examples) if examples else "")
            + table(["problem", "message"], rows)
            + "\n\nA sentence about a missing file may end, before its full stop, with what was found instead:\n\n"
            + table(["found", "the sentence ends with"], hints))


def manual(source, title, description, stage, track_items, options, columns):
    """MANUAL.md of one phase of one track: title and description the organizer's (or the
    kind's task), columns the phase's (columns.Column); its right-to-left names isolated
    (markup.isolated)."""
    kind = track_items["kind"]
    piece = lambda name, purpose: require(kind, name, purpose)  # noqa: E731
    count = piece("count_items", "the manual")(track_items["items"])
    parts = [
        "# %s: participant manual" % title,
        "%s, %s phase. Scoring program %s." % (source["title"], stage, __version__),
        "What to submit to this track, how it is scored, and every message a refused submission can get. "
        "The kit: [`README.md`](README.md), [`evaluation.html`](evaluation.html) (the same format and metrics "
        "as a page), [`sample_submission/`](sample_submission/) (a valid submission), "
        "[`check_submission.py`](check_submission.py).",
        "## The task",
        description or piece("TASK", "the manual"),
        "The %s phase holds %s." % (stage, count),
        "## Check a submission on your machine",
        SET_UP.strip(),
        "## What to submit",
        piece("submission_format", "the manual")(options).strip(),
        "### An example from this phase",
        _example(track_items, options),
        "### How the zip is read",
        "- Zip the result files themselves, not a folder around them; a zip holding a single folder is "
        "accepted all the same (the log says so).\n"
        "- `__MACOSX/`, `.DS_Store`, `._*` files, `Thumbs.db` and `desktop.ini` are ignored.\n"
        "- Only regular files and folders: a symbolic link, a named pipe or a device anywhere is refused, and "
        "so are folders nested more than 64 levels deep.\n"
        "- Names are case-sensitive; a file at another place or in another case gets a sentence saying where it "
        "was found.",
        "## How it is scored",
        piece("metrics_text", "the manual")(options).strip(),
        "### The leaderboard's columns",
        "The first key ranks the leaderboard; the scoring program writes every key to `scores.txt`.",
        _columns(columns),
        "## What you see after a submission",
        piece("privacy", "the manual")(options).strip(),
    ]
    if stage == "final":  # the same kit on every platform: said whether or not a platform withholds it
        parts.append("**A final phase not scored yet.** If the organizers keep the test set's ground truth off "
                     "the platform until the final phase closes (Codabench can be set so), a submission is read "
                     "and checked exactly as the test set will check it (a bad one gets the same sentence), but "
                     "every key is 0, also on the leaderboard, and the detailed results page says so. The "
                     "organizers then score the submissions against the test set, and the leaderboard shows "
                     "their scores.")
    if source.get("description") and source["description"] != (description or piece("TASK", "the manual")):
        parts.insert(2, source["description"])  # the competition's, above the track's own task
    parts += ["## Error messages", _errors(track_items, options), "---", "Scoring program %s." % __version__]
    return markup.isolated("\n\n".join(parts) + "\n")
