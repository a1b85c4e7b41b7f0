"""The pages of a competition, generated per track from its kind, options and public items.

Every page can be replaced by the organizer's own html (the `pages` of the source); the
data page is a placeholder the organizer fills. The submission-format section carries a
tiny example built from the phase's own names (a subset and two of its images, a page
and its size, a category and two of its images); tests/test_organizer_bundle.py writes
each example with a reference of the same items and scores it with evaluate.py.
"""

import html
import os

from scoring.runner import track_options as parse_track_options
from scoring.tracks import TRACKS

PAGE_NAMES = ("overview", "evaluation", "data", "terms")

TASKS = {
    "authentication": (
        "Handwriting authentication: for every image of a subset (one writer or one script), tell "
        "whether it is authentic or an imitation, and give distances between the images of the subset "
        "so that images of the same class are near each other."),
    "lines": (
        "Text-line segmentation: for every page, predict an instance map where each text line is "
        "its own connected region (its own colour, grey value or blob)."),
    "events": (
        "Event recognition: for every category, give each test image a confidence that it shows "
        "the event; categories are ranked separately."),
}


def esc(text):
    return html.escape(str(text), quote=False)


def pre(text):
    return "<pre>%s</pre>\n" % esc(text)


# ---------------------------------------------------------------- tiny examples


def example(kind, track_items, options):
    """(files of the example submission, files of a reference holding the same items, code).

    Files are {relative path: text}; for the lines track the submission is written by the
    Python snippet `code` (run in the submission folder), since it is an image.
    """
    items = track_items["items"]
    if kind == "authentication":
        subset = items["subsets"][0]
        name = subset["name"]
        a, b = (subset["images"] + subset["images"])[:2] if len(subset["images"]) < 2 else subset["images"][:2]
        res = {"%s_labels.csv" % name: "filename,label\n%s,0\n%s,1\n" % (a, b)}
        if options["distances"] == "required":
            res["%s_distances.csv" % name] = ",%s,%s\n%s,0,0.42\n%s,0.42,0\n" % (a, b, a, b)
        if options["documentation"] == "required":
            res["README.md"] = "Features: slant, stroke width and letter spacing.\n"
        ref = {"%s.csv" % name: "filename,label\n%s,0\n%s,1\n" % (a, b)}
        return res, ref, None
    if kind == "lines":
        manuscript = items["manuscripts"][0]
        page = manuscript["pages"][0]
        width, height = page["width"], page["height"]
        stem = os.path.splitext(page["file"])[0]
        rows = [(height // 5, height // 5 + max(1, height // 10)), (height // 2, height // 2 + max(1, height // 10))]
        left, right = width // 10, max(width // 10 + 1, width - width // 10)
        code = (
            "import os\n"
            "import numpy as np\n"
            "from PIL import Image\n\n"
            "labels = np.zeros((%d, %d), dtype=np.uint8)  # height x width of the page\n"
            "labels[%d:%d, %d:%d] = 1  # line 1\n"
            "labels[%d:%d, %d:%d] = 2  # line 2\n"
            "os.makedirs(%r, exist_ok=True)\n"
            "Image.fromarray(labels).save(%r)  # an 8-bit grey label image\n"
            % (height, width, rows[0][0], rows[0][1], left, right, rows[1][0], rows[1][1], left, right,
               manuscript["name"], manuscript["name"] + "/" + stem + ".png"))
        return {}, {}, code
    category = items["categories"][0]
    ids = items["image_lists"][category["images"]]
    a, b = (ids + ids)[:2] if len(ids) < 2 else ids[:2]
    res = {"%s.txt" % category["name"]: "%s 0.91\n%s -1.7\n" % (a, b)}
    ref = {"%s.txt" % category["name"]: "%s 1\n%s 0\n" % (a, b)}
    return res, ref, None


def example_html(kind, track_items, options):
    res, _, code = example(kind, track_items, options)
    if code is not None:
        return ("<p>For example, this Python script writes a valid prediction of page <code>%s</code> "
                "with two lines:</p>\n%s" % (esc(track_items["items"]["manuscripts"][0]["name"] + "/"
                                                + track_items["items"]["manuscripts"][0]["pages"][0]["file"]),
                                             pre(code)))
    parts = ["<p>For example, for two images of the set (a real submission lists all of them):</p>\n"]
    for name in sorted(res):
        parts.append("<p><code>%s</code></p>\n%s" % (esc(name), pre(res[name])))
    return "".join(parts)


# ---------------------------------------------------------------- per-kind texts


def submission_format(kind, options):
    if kind == "authentication":
        text = (
            "<p>Per subset <code>&lt;Subset&gt;</code> of the test set, at the top level of the zip:</p>\n<ul>\n"
            "<li><code>&lt;Subset&gt;_labels.csv</code>: a header line <code>filename,label</code>, then one line "
            "per image; the label is <code>0</code>/<code>1</code>, <code>authentic</code>/<code>imitation</code> "
            "or <code>&lt;Subset&gt;</code>/<code>not-&lt;Subset&gt;</code>. One merged <code>labels.csv</code> "
            "with the columns <code>filename,label,subset</code> is accepted instead.</li>\n"
            "<li><code>&lt;Subset&gt;_distances.csv</code>: a square matrix of distances between the images of the "
            "subset, top-left cell empty, a header row of file names, then one row per image starting with its "
            "name; or <code>&lt;Subset&gt;_distances.npz</code> with the arrays <code>names</code> and "
            "<code>distances</code> (<code>numpy.savez</code>). %s</li>\n"
            "<li>a <code>README.md</code>, <code>.txt</code> or <code>.pdf</code> describing your method (%s).</li>\n"
            "</ul>\n") % ("Required." if options["distances"] == "required" else "Optional.",
                          "required" if options["documentation"] == "required" else "optional")
        return text
    if kind == "lines":
        return (
            "<p>For every page <code>&lt;manuscript&gt;/&lt;page&gt;</code> of the test set, one image in the "
            "same folder with the same name, the same width and height, as <code>.png</code>, <code>.tif</code>, "
            "<code>.tiff</code> or <code>.bmp</code> (JPEG is refused: its lossy colours split lines). The image "
            "is an instance map: each colour of an RGB/RGBA image is one line, or each value of an 8/16-bit grey "
            "label image, or each connected blob of a binary mask; black (0) is the background. Keep the "
            "manuscript folders, with their names exactly as given (case matters).</p>\n")
    return (
        "<p>One <code>&lt;Category&gt;.txt</code> per category, named exactly as the category, at the top "
        "level of the zip; one line per test image: the image id as given (with its extension), whitespace, "
        "then a confidence (a finite number, higher meaning more confident that the image shows the "
        "event). Every image is listed once in every category file%s.</p>\n"
        % ("" if options["missing"] == "error" else "; an image left out is ranked below every listed one"))


def metrics(kind, options):
    if kind == "authentication":
        ks = ", ".join("top%d" % k for k in options["k"])
        return (
            "<p>Per subset, with imitation as the positive class: accuracy, precision, recall and "
            "specificity of the labels. The ranking score <code>uar</code> is the mean over subsets of the "
            "accuracy; <code>balanced_accuracy</code> the mean of (recall + specificity) / 2. %s: for each "
            "image, the others of its subset ranked by your distances; a hit if an image of its class is among "
            "the k nearest (ties count in expectation), averaged over images, then over subsets.</p>\n" % ks)
    if kind == "lines":
        return (
            "<p>Per page, predicted lines are matched one-to-one to ground-truth lines by IoU. A matched pair "
            "whose pixel precision and recall both reach %g is a correctly detected line. <code>line_iu</code> "
            "(the ranking score) = correct / (correct + extra + missed); <code>pixel_iu</code> the IoU of the "
            "matched pixels; <code>dr</code>, <code>ra</code>, <code>fm</code> the detection rate, recognition "
            "accuracy and F-measure of the pairs with IoU at least %g. Means over the pages of each manuscript, "
            "then over manuscripts.%s</p>\n"
            % (options["threshold"], options["match_threshold"],
               "" if options["protocol"] == "standard"
               else " The keys prefixed <code>fest2025_</code> are computed as the official FEST 2025 script does."
               if options["protocol"] == "both" else " The numbers are computed as the official FEST 2025 script "
               "does."))
    return (
        "<p>Per category, the average precision of your ranking (images sorted by confidence, equal "
        "confidences entering together, area under the monotone precision/recall curve); the ranking "
        "score <code>map</code> is the mean over the categories that have a positive image.</p>\n")


def privacy(kind, options):
    shown = options.get("public_details")
    if kind == "authentication":
        detail = "the per-image table (truth, prediction, top-k hits)"
    elif kind == "lines":
        detail = "the per-page tables and error maps"
    else:
        detail = "the hardest images of each category"
    return ("<p>After each submission you see your scores and a detailed results page (per subset, "
            "manuscript or category tables and charts, and every warning). %s</p>\n"
            % ("It also shows %s." % detail if shown else
               "%s %s private to the organizers: showing it would reveal the ground truth."
               % (detail[0].upper() + detail[1:], "stays" if kind == "authentication" else "stay")))


# ---------------------------------------------------------------- the pages


def track_options(track_items):
    import yaml

    module = TRACKS[track_items["kind"]]
    return parse_track_options(yaml.safe_load(track_items["track_yaml"]), module, "track.yaml")


def plural(count, word):
    return "%d %s%s" % (count, word, "" if count == 1 else "s")


def count_items(kind, items):
    if kind == "authentication":
        return "%s in %s (%s)" % (plural(sum(len(s["images"]) for s in items["subsets"]), "image"),
                                  plural(len(items["subsets"]), "subset"),
                                  ", ".join(s["name"] for s in items["subsets"]))
    if kind == "lines":
        return "%s of %s (%s)" % (plural(sum(len(m["pages"]) for m in items["manuscripts"]), "page"),
                                  plural(len(items["manuscripts"]), "manuscript"),
                                  ", ".join(m["name"] for m in items["manuscripts"]))
    return "%s (%s)" % (plural(len(items["categories"]), "category").replace("categorys", "categories"),
                        ", ".join(c["name"] for c in items["categories"]))


def generate(source, tracks, columns_html, platform=None):
    """The four pages of a competition: tracks is [(title, description, track_items)]
    with the development phase's public items of each track; columns_html the table of
    leaderboard columns; platform the texts of the platform the pages are written for (its
    writer's texts() in tools/platforms/: overview, seen, terms), None for a page that
    names no platform (the starting kit's)."""
    platform = platform or {"overview": "", "seen": "", "terms": "",
                            "counts": "the leaderboard's rule says which submission counts"}
    dates = source["dates"]
    overview = ["<h2>%s</h2>\n<p>%s</p>\n" % (esc(source["title"]), esc(source["description"]))]
    evaluation = ["<h2>Evaluation</h2>\n"]
    data = ["<h2>Data</h2>\n<p><em>Organizers: describe here how participants get the data, its licence and "
            "how to cite it (replace this page through the <code>pages</code> of the competition's "
            "source).</em></p>\n"]
    for title, description, track_items in tracks:
        kind = track_items["kind"]
        options = track_options(track_items)
        heading = "<h3>%s</h3>\n" % esc(title) if len(tracks) > 1 else ""
        if (description or TASKS[kind]) != source["description"]:
            overview.append("%s<p>%s</p>\n" % (heading, esc(description or TASKS[kind])))
        evaluation.append("%s<h4>Submission format</h4>\n%s%s<h4>Metrics</h4>\n%s<h4>What you see</h4>\n%s"
                          % (heading, submission_format(kind, options), example_html(kind, track_items, options),
                             metrics(kind, options), privacy(kind, options) + platform["seen"]))
        data.append("%s<p>The development set holds %s.</p>\n"
                    % (heading, esc(count_items(kind, track_items["items"]))))
    overview.append(
        "<h3>Schedule (UTC)</h3>\n<ul>\n<li>Development phase: from %s, submit as often as the limits allow "
        "to check your files and your method.</li>\n<li>Final phase: from %s to %s, on the test set; %s.%s"
        "</li>\n</ul>\n<p>Each track's starting kit holds a sample submission, the format description and "
        "<code>check_submission.py</code>, which checks a submission on your machine before you upload it.</p>\n"
        % (dates["development"], dates["final"], dates["end"], platform["counts"], platform["overview"]))
    evaluation.append("<h3>Leaderboard columns</h3>\n%s" % columns_html)
    terms = ("<h2>Terms</h2>\n<p>By submitting you agree that your scores, team name and method description "
             "may be published by the organizers. Use the test data only to produce your submissions.</p>\n"
             "<p>What a submission shows: its scores on the leaderboard, its detailed results page and its "
             "logs (see each track's <em>What you see</em> on the Evaluation page). In the final phase the "
             "detailed results never show per-item ground truth of the test set; the per-item files that "
             "the scoring program writes for the organizers (<code>private/</code>) are never shown to "
             "participants.</p>\n" + platform["terms"])
    return {"overview": "".join(overview), "evaluation": "".join(evaluation), "data": "".join(data),
            "terms": terms}
