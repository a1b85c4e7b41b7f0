"""The pages of a competition, generated per track from its kind, options and public items.

Every page can be replaced by the organizer's own html (the `pages` of the source); the
data page is a placeholder the organizer fills. What a page says of a track comes from its
kind (tracks/<kind>.py: TASK, submission_format, example, metrics_text, privacy,
count_items; a kind without one of them stops the build with a sentence naming it). The
submission-format section carries a tiny example built from the phase's own names;
tests/test_organizer_bundle.py writes each example with a reference of the same items and
scores it with evaluate.py.

The pages uploaded to the platforms are fragments: the platform puts them in its own
document and style. The starting kit's copy of the evaluation page is a whole document
(document()), styled as the detailed results page, with the version in its footer.
"""

import html

import markup
from scoring import __version__, bidi, webpage, yamltext
from scoring.errors import ReferenceDataError
from scoring.runner import track_options as parse_track_options
from scoring.tracks import TRACKS, require

#: The last line of every generated page: the version of the scoring program.
FOOTER = '<footer class="version">Scoring program %s</footer>\n' % html.escape(__version__)


def esc(text):
    """Text for a page, escaped, names written right to left isolated (scoring/bidi.py)."""
    return bidi.html_text(str(text), quote=False)


def pre(text):
    return "<pre>%s</pre>\n" % esc(text)


def piece(track_items, name, purpose):
    """A piece of the track's kind (tracks.require: a clear error if the kind lacks it)."""
    return require(track_items["kind"], name, purpose)


#: What a page of the kit adds to the detailed results page's style: code and tables scroll
#: in their own box, the page never does.
KIT_STYLE = ("pre{overflow-x:auto;background:#f7f8fa;padding:.6rem;border-radius:6px;font-size:.85rem}"
             "td{white-space:normal}")


def document(title, body):
    """A whole HTML document (doctype, charset, viewport, the program's style) around body,
    its tables in scrolling boxes (the page is read on phones too)."""
    body = body.replace("<table>", '<div class="scroll" tabindex="0"><table>').replace("</table>", "</table></div>")
    return webpage.head(title, KIT_STYLE) + "<main>\n" + body + "</main>\n" + webpage.footer()


# ---------------------------------------------------------------- tiny examples


def example(track_items, options):
    """(files of the example submission, files of a reference holding the same items, code).

    Files are {relative path: text}; an example submission that is not text (an image) is
    written by the Python snippet `code`, run in the submission folder.
    """
    return piece(track_items, "example", "the evaluation page's example")(track_items["items"], options)


def example_html(track_items, options):
    res, _, code = example(track_items, options)
    if code is not None:
        return "<p>For example, this Python script, run in the submission folder, writes a valid file:</p>\n%s" \
            % pre(code)
    parts = ["<p>For example, for two items of the set (a real submission lists all of them):</p>\n"]
    for name in sorted(res):
        parts.append("<p><code>%s</code></p>\n%s" % (esc(name), pre(res[name])))
    return "".join(parts)


# ---------------------------------------------------------------- the pages


def track_options(track_items):
    module = TRACKS[track_items["kind"]]
    config = yamltext.load(track_items["track_yaml"].encode("utf-8"), "track.yaml", ReferenceDataError,
                           "%(file)s is not valid YAML%(where)s.")
    return parse_track_options(config, module, "track.yaml")


def count_items(track_items):
    return piece(track_items, "count_items", "the data page")(track_items["items"])


def task(kind):
    return require(kind, "TASK", "the overview page")


def evaluation_section(heading, track_items, options):
    """The evaluation page's part of one track."""
    return ("%s<h4>Submission format</h4>\n%s%s<h4>Metrics</h4>\n%s<h4>What you see</h4>\n%s"
            % (heading, markup.html(piece(track_items, "submission_format", "the evaluation page")(options)),
               example_html(track_items, options),
               markup.html(piece(track_items, "metrics_text", "the evaluation page")(options)),
               markup.html(piece(track_items, "privacy", "the evaluation page")(options))))


def generate(source, tracks, columns_html, platform=None, footer=True):
    """The four pages of a competition: tracks is [(title, description, track_items)]
    with the development phase's public items of each track; columns_html the table of
    leaderboard columns; platform the texts of the platform the pages are written for (its
    writer's texts() in tools/platforms/: counts, overview, seen, terms; data_in_overview,
    a platform without a data page, is read by make_bundle.pages: fold_data),
    None for a page that names no platform (the starting kit's); footer: each page ends with the version
    (FOOTER)."""
    platform = platform or {"overview": "", "seen": "", "terms": "",
                            "counts": "the leaderboard's rule says which submission counts"}
    dates = source["dates"]
    overview = ["<h2>%s</h2>\n<p>%s</p>\n" % (esc(source["title"]), esc(source["description"]))]
    evaluation = ["<h2>Evaluation</h2>\n"]
    data = ["<h2>Data</h2>\n<p><em>Organizers: describe here how participants get the data, its licence and "
            "how to cite it (replace this page through the <code>pages</code> of the competition's "
            "source).</em></p>\n"]
    for title, description, track_items in tracks:
        options = track_options(track_items)
        heading = "<h3>%s</h3>\n" % esc(title) if len(tracks) > 1 else ""
        description = description or task(track_items["kind"])
        if description != source["description"]:
            overview.append("%s<p>%s</p>\n" % (heading, esc(description)))
        evaluation.append(evaluation_section(heading, track_items, options) + platform["seen"])
        data.append("%s<p>The development set holds %s.</p>\n" % (heading, esc(count_items(track_items))))
    overview.append(
        "<h3>Schedule (UTC)</h3>\n<ul>\n<li>Development phase: from %s, submit as often as the limits allow "
        "to check your files and your method.</li>\n<li>Final phase: from %s to %s, on the test set; %s.%s"
        "</li>\n</ul>\n<p>Each track's starting kit holds a sample submission, the "
        "participant manual (formats, metrics, every error message) and <code>check_submission.py</code>, "
        "which checks a submission on your machine before you upload it.</p>\n"
        % (dates["development"], dates["final"], dates["end"], platform["counts"], platform["overview"]))
    evaluation.append("<h3>Leaderboard columns</h3>\n%s" % columns_html)
    terms = ("<h2>Terms</h2>\n<p>By submitting you agree that your scores, team name and method description "
             "may be published by the organizers. Use the test data only to produce your submissions.</p>\n"
             "<p>What a submission shows: its scores on the leaderboard, its detailed results page and its "
             "logs (see each track's <em>What you see</em> on the Evaluation page). In the final phase the "
             "detailed results never show per-item ground truth of the test set; the per-item files that "
             "the scoring program writes for the organizers (<code>private/</code>) are never shown to "
             "participants.</p>\n" + platform["terms"])
    pages = {"overview": "".join(overview), "evaluation": "".join(evaluation), "data": "".join(data),
             "terms": terms}
    return dict((name, text + (FOOTER if footer else "")) for name, text in pages.items())


def fold_data(pages):
    """The pages of a platform without a data page (EvalAI): the data page, the organizer's
    or the generated one, at the end of the overview (one footer, the data page's)."""
    folded = dict(pages)
    overview = pages["overview"]
    if overview.endswith(FOOTER):
        overview = overview[:-len(FOOTER)]
    folded["overview"] = overview + pages["data"]
    return folded
