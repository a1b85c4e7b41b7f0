"""The kind `events`: event recognition, ranked per category by confidence; mean average
precision.

Glue: reader (one file per category) -> AP kernel per category -> mean over the
categories with a positive image -> result (AP table, precision/recall charts); then what
the build says of the kind (public items, hints, page texts, error sentences).
The metric is the ChaLearn LAP 2015 cultural event recognition challenge's AP
(metrics/ranking.py).
"""

import math
import os

import numpy as np

from .. import matching, names
from .. import options as opt
from ..columns import Column, Metric
from ..csvtext import csv_bytes
from ..errors import ReferenceDataError
from ..files import write_text
from ..itemview import AveragePrecision, ItemView, StrataItems, leaderboard, ranking_counts, stratum_values
from ..readers import events as reader
from ..readers.text import TEXT_ERRORS
from ..result import Paragraph, PrecisionRecall, Table, TrackResult
from . import refusals

OPTIONS = {
    "missing": ("error", opt.choice("error", "last")),
    "public_details": (False, opt.boolean()),
}

#: Per category, how many of the worst-placed positives and best-placed negatives the
#: private table lists (the images that cost the most precision).
HARDEST = 10

#: The detailed results draw the precision/recall charts of at most this many categories,
#: the lowest APs (a dozen charts is what a reader scrolls through on a phone; beyond, the
#: AP table above them says which categories to look at).
CHARTED = 12


METRICS = {"map": Metric("mAP", "the mean over categories of the average precision of your ranking by confidence")}


def columns(track, options):
    return [Column("map", "map", METRICS["map"])]


def score(track, submission, options, log):
    categories = reader.read_reference(track)
    scored = [c for c in categories if c.positives > 0]
    if not scored:
        raise ReferenceDataError("No category of %s has a positive image (label 1); average precision is "
                                 "undefined for all of them." % track.label)
    files = check_files(submission, categories, log, options["missing"])
    result = TrackResult("events")
    for category in categories:
        if category.positives == 0:
            result.warnings.append("Category %s has no positive image in the reference; it is left out of the "
                                   "mean." % category.name)
            log.warn("Category %s has no positive image in the reference; it is left out of the mean."
                     % category.name)
    rows = []
    # The view's confidence column, filled file by file (the scored categories' parts of it).
    confidence, filled = np.empty(sum(len(c.ids) for c in scored)), 0
    for category in categories:
        filename = files.get(category.name + ".txt")
        if filename is None:  # missing: last, the file not submitted: a missing case
            scores, absent = np.full(len(category.ids), -np.inf), len(category.ids)
            sentence = ("No %s.txt: every image of category %s is ranked last, tied (missing: last)."
                        % (category.name, category.name))
            result.warnings.append(sentence)
            log.warn(sentence)
        else:
            scores, absent = reader.read_confidences(submission.path(filename), submission.name(filename),
                                                     category, options["missing"])
        if absent and filename is not None:
            log.info("%s: %d of %d images not submitted, ranked last (missing: last)."
                     % (submission.name(filename), absent, len(category.ids)))
        if category.positives:
            part = confidence[filled:filled + scores.shape[0]]
            part[:] = scores
            scores, filled = part, filled + scores.shape[0]
        rows.append({"category": category, "scores": scores, "absent": absent, "counts": None, "ap": None})

    kept = [row for row in rows if row["category"].positives]
    result.view = item_view(kept, confidence)
    result.set_score("map", leaderboard(result.view)["map"])
    statistic = result.view.scores["map"].statistic
    aps = stratum_values(result.view, statistic)[0]  # the APs map is the mean of (kept by the view)
    for h, row in enumerate(kept):
        row["counts"] = ranking_counts(result.view, statistic, h)  # the operating points they came from
        row["ap"] = float(aps[h])
    describe(result, rows, kept, options)
    return result


def check_files(submission, categories, log, missing="error"):
    """{<Category>.txt: the submitted file's name} of every category submitted; a missing
    one refused (a near name pointed out), or under missing: last left out of the map (a
    missing case: its images ranked last) unless a file of a near name was probably meant
    for it or no category file is there at all. .txt files that name no category are
    ignored with a warning."""
    expected = [c.name + ".txt" for c in categories]
    what = "one <Category>.txt per category, e.g. %s, with lines '<image id> <confidence>'" % expected[0]
    found = {}
    if missing == "last":
        found = dict((name, submission.find(name)) for name in expected)
        found = dict((name, present) for name, present in found.items() if present is not None)
        others = matching.unused(submission, found.values())
        for name in expected:
            guess = names.near_name(name, others) if name not in found else None
            if guess is not None:
                raise matching.did_you_mean(submission, name, guess)
    if not found:
        found = matching.find_files(submission, expected, what)
    extra = [name for name in matching.unused(submission, found.values()) if name.lower().endswith(".txt")]
    if extra:
        log.warn("The submission holds 1 .txt file that names no category (ignored): %s." % extra[0] if len(extra) == 1
                 else "The submission holds %d .txt files that name no category (ignored), e.g. %s."
                 % (len(extra), ", ".join(extra[:3])))
    return found


def item_view(kept, confidence):
    """Images within the categories that have a positive image; resampled within
    (category, true class). map: the mean over categories of the AP of the images'
    labels and confidences (not a sum of per-image terms: it is recomputed per resample).
    confidence: the kept rows' scores, one after the other."""
    sizes = [len(row["category"].ids) for row in kept]
    positive = np.concatenate([row["category"].positive for row in kept])
    columns = {"label": positive, "confidence": confidence}
    # (category, true class) as 2 h + label, in 16 bits where they fit: 3 million items
    kind = np.int16 if 2 * len(kept) <= np.iinfo(np.int16).max else np.int32
    block = np.repeat(np.arange(0, 2 * len(kept), 2, dtype=kind), sizes)
    block += positive
    items = StrataItems([reader.as_list(row["category"].ids) for row in kept])  # lists shared by categories
    missing = None
    if any(row["absent"] for row in kept):  # missing: last gave the images not submitted -inf
        columns["missing"] = np.isneginf(confidence)
        missing = "missing"
    return ItemView([row["category"].name for row in kept], sizes, items, columns,
                    [("map", METRICS["map"].score(AveragePrecision("label", "confidence"), ranked=True))], "map",
                    reference_columns=["label"], block=block, truth="label", unit="image", missing=missing)


def describe(result, rows, kept, options):
    result.meaning = "The mean over categories of the average precision of the ranking by confidence."
    aps = sorted((row["ap"], row["category"].name) for row in kept)
    result.highlights = [("categories scored", len(kept)), ("worst AP (%s)" % aps[0][1], aps[0][0]),
                         ("best AP (%s)" % aps[-1][1], aps[-1][0])]
    summary = result.section("Summary")
    summary.add(Paragraph(
        "map: the mean over %d categories of the average precision (AP). Per category the images are ranked "
        "by confidence; images of equal confidence form one operating point. AP is the area under the "
        "monotone precision (at each point the highest precision at that point or any later one) by the "
        "trapezoidal rule from recall 0; without ties it equals the PASCAL VOC 2010 AP." % len(kept)))
    left_out = [row["category"].name for row in rows if row["ap"] is None]
    if left_out:
        summary.add(Paragraph("Left out of the mean (no positive image in the reference): %s."
                              % ", ".join(left_out)))
    ordered = sorted(kept, key=lambda row: (row["ap"], row["category"].name))
    columns = ["category", "AP", "positives", "images", "operating points"]
    any_absent = any(row["absent"] for row in rows)
    if any_absent:
        columns.append("not submitted (ranked last)")
    table = []
    for row in ordered:
        category = row["category"]
        cells = [category.name, row["ap"], category.positives, len(category.ids), int(row["counts"][1].shape[0])]
        if any_absent:
            cells.append(row["absent"])
        table.append(cells)
    summary.add(Table(columns, table, "Average precision per category, worst first"))

    charted = ordered[:CHARTED]
    charts = result.section("Precision/recall per category" if len(ordered) == len(charted) else
                            "Precision/recall of the %d categories of lowest AP" % len(charted))
    charts.add(Paragraph("Grey: precision at each operating point, in ranking order. Blue: the monotone "
                         "precision (at each point the highest precision at that point or any later one); "
                         "the shaded area under it, by the trapezoidal rule from recall 0, is the AP. "
                         "Worst category first." + ("" if len(ordered) == len(charted) else
                                                    " The AP of each of the %d categories is in the table above."
                                                    % len(ordered))))
    for row in charted:
        charts.add(PrecisionRecall(row["category"].name, row["counts"][0], row["counts"][1], row["ap"]))

    hardest = hardest_images(ordered)
    result.private.append(("events/hardest_images.csv", csv_bytes(HARDEST_COLUMNS, hardest)))
    if options["public_details"]:
        details = result.section("Hardest images per category (made public by the organizers)")
        details.add(Table(HARDEST_COLUMNS, hardest, "Per category, the %d lowest-ranked positives and %d "
                                                    "highest-ranked negatives" % (HARDEST, HARDEST)))


HARDEST_COLUMNS = ["category", "image", "label", "confidence", "rank"]


def hardest_images(rows):
    """Per category, the positives ranked lowest and the negatives ranked highest.

    rank = 1 + the number of images with a strictly higher confidence (tied images
    share a rank, so the table does not depend on file order).
    """
    table = []
    for row in rows:
        category, scores = row["category"], row["scores"]
        positives = np.flatnonzero(category.positive)
        positive_scores = np.sort(scores[positives])
        for label, members, sign in ((1, positives, 1.0), (0, np.flatnonzero(~category.positive), -1.0)):
            if members.shape[0] > HARDEST:  # lowest positives, highest negatives
                members = first_in_order(members, sign * scores[members])
            members = members[np.lexsort((members, sign * scores[members]))]
            values = scores[members]
            ranks = 1 + images_above(positive_scores, row["counts"], values, label)
            for i, value, rank in zip(members.tolist(), values.tolist(), ranks.tolist()):
                shown = "%.10g" % value if math.isfinite(value) else "not submitted"
                table.append([category.name, category.ids[i], label, shown, rank])
    return table


def first_in_order(members, keys):
    """The HARDEST members of lowest key, ties at the boundary going to the lowest
    members (file order): the first HARDEST of the order by (key, member), which
    argpartition alone leaves to the numpy version. members: increasing."""
    boundary = keys[np.argpartition(keys, HARDEST - 1)[HARDEST - 1]]
    below = members[keys < boundary]
    return np.concatenate((below, members[keys == boundary][:HARDEST - below.shape[0]]))


def images_above(positive_scores, counts, values, label):
    """How many images of a category have a strictly higher confidence than each of
    `values`, the confidences of its lowest positives (label 1) or highest negatives
    (label 0), without a pass over the category's images for each: from its positives'
    confidences (sorted) and its operating points (counts: ranked_counts' true positives
    and items at each point, from the highest confidence down).

    The point of a positive of confidence s is the first whose true positives reach the
    number of positives at or above s; the images above s are the items of the point
    before it. The images above one of the highest negatives are the positives above it
    and, of the negatives, only others of the highest (a negative above one of them is
    one of them).
    """
    true_positives, items = counts
    if label == 1:
        reached = positive_scores.shape[0] - np.searchsorted(positive_scores, values)  # positives >= s
        point = np.searchsorted(true_positives, reached)
        return np.where(point > 0, items[np.maximum(point - 1, 0)], 0)
    positives_above = positive_scores.shape[0] - np.searchsorted(positive_scores, values, side="right")
    return positives_above + np.count_nonzero(values[None, :] > values[:, None], axis=1)


# ---------------------------------------------------------------- the public items (public.py)


def public_items(track):
    """The image ids of each category, each distinct list of ids once."""
    lists, categories = [], []
    for category in reader.read_reference(track):
        ids = list(category.ids)
        if ids not in lists:
            lists.append(ids)
        categories.append({"name": category.name, "images": lists.index(ids)})
    return {"image_lists": lists, "categories": categories}


REFERENCE = "one <Category>.txt of '<image id> <label>' lines per category, at the top of the track's folder"


def reference_files(track):
    """The files of the track's folder that the reader reads (layout.refuse_unread)."""
    return [name + ".txt" for name in reader.category_names(track.path)]


def stand_in_reference(items, directory):

    for category in items["categories"]:
        ids = items["image_lists"][category["images"]]
        lines = ["%s %d" % (image, 1 if i % 2 == 0 else 0) for i, image in enumerate(ids)]
        write_text(os.path.join(directory, category["name"] + ".txt"), "\n".join(lines) + "\n")


def dummy_submission(items, directory):

    for category in items["categories"]:
        ids = items["image_lists"][category["images"]]
        write_text(os.path.join(directory, category["name"] + ".txt"), "".join("%s 0.5\n" % image for image in ids))


def sample_reference(directory):
    """A small made-up reference (tests/test_every_kind.py): two categories of eight images,
    one named in Hebrew."""

    for c, category in enumerate(("\u05d7\u05d2 \u05d4\u05d0\u05d5\u05e8\u05d9\u05dd", "D\u00eda de Muertos")):
        write_text(os.path.join(directory, category + ".txt"),
                   "".join("%06d.jpg %d\n" % (i, 1 if (i + c) % 3 == 0 else 0) for i in range(8)))


def reference_as_submission(track, options, directory):
    """The submission that repeats the reference: each image's label as its confidence
    (tests/test_every_kind.py: it gets the best value of every score)."""

    for category in reader.read_reference(track):
        ids = list(category.ids)
        write_text(os.path.join(directory, category.name + ".txt"),
                   "".join("%s %d\n" % (image, positive) for image, positive in zip(ids, category.positive.tolist())))


# ---------------------------------------------------------------- hints (hints.py)

FILES = "one <Category>.txt of confidences per category"


def looks_like(rel, path):
    """A .txt file whose first line is two fields, the second a number."""
    if not rel.lower().endswith(".txt") or os.path.islink(path) or not os.path.isfile(path):
        return False  # never open a link, a FIFO or a device
    try:
        with open(path, "rb") as stream:
            head = stream.read(256).decode("utf-8", "replace").lstrip("\ufeff").strip().splitlines()
    except OSError:
        return False
    fields = head[0].split() if head else []
    if len(fields) != 2:
        return False
    try:
        float(fields[1])
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------- pages and manual (tools/markup.py's format)

LABEL = "Event recognition"

TASK = ("Event recognition: for every category, give each test image a confidence that it shows the event; "
        "categories are ranked separately.")


def submission_format(options):
    return (
        "One `<Category>.txt` per category, named exactly as the category, at the top level of the zip; one line "
        "per test image: the image id as given (with its extension), spaces or a tab, then a confidence (a "
        "finite number, higher meaning more confident that the image shows the event). Every image is listed "
        "once in every category file%s. UTF-8 with or without a BOM, LF or CRLF line ends and blank lines are "
        "accepted, the lines in any order; `.txt` files that name no category are ignored with a warning.\n"
        % ("" if options["missing"] == "error" else "; an image left out is ranked below every listed one, and "
           "a category file left out (or empty) ranks all its images there, tied"))


def example(items, options):
    """(submission files, reference files holding the same items, None): {path: text}."""
    category = items["categories"][0]
    ids = items["image_lists"][category["images"]]
    a, b = (ids + ids)[:2] if len(ids) < 2 else ids[:2]
    res = {"%s.txt" % category["name"]: "%s 0.91\n%s -1.7\n" % (a, b)}
    ref = {"%s.txt" % category["name"]: "%s 1\n%s 0\n" % (a, b)}
    return res, ref, None


def metrics_text(options):
    return (
        "Per category, the average precision (AP) of your ranking: images sorted by confidence, equal "
        "confidences entering together as one operating point (so the order of the lines never matters), the "
        "area under the monotone precision/recall curve by the trapezoidal rule from recall 0 (without ties, the "
        "PASCAL VOC 2010 AP). The ranking score `map` is the mean AP over the categories that have a positive "
        "image. Higher is better, from 0 to 1.\n")


def privacy(options):
    return ("After each submission you see your scores and a detailed results page: the AP of every category, "
            "the precision/recall charts of the %d categories of lowest AP, and every warning. %s\n"
            % (CHARTED,
               "It also shows the hardest images of each category." if options["public_details"] else
               "The hardest images of each category stay private to the organizers: showing them would reveal "
               "the ground truth."))


def count_items(items):
    count = len(items["categories"])
    names = ", ".join(c["name"] for c in items["categories"])
    return "%d categor%s (%s)" % (count, "y" if count == 1 else "ies", names)


#: The sentences of a refusal (exit status 1), {name} standing for what varies:
#: (problem, sentence, when it can happen: None always, else a test of the options).
ERRORS = [
    ("a category file missing", "The submission has no {file}{more}; expected one <Category>.txt per category, "
                                "e.g. {file}, with lines '<image id> <confidence>'{hint}.", None),
    ("an empty file", "{file} is empty; expected one line '<image id> <confidence>' per image of category "
                      "{category}.", lambda options: options["missing"] == "error"),
    ("not two fields", "{file} line {line} has {field_count} ('{line_text}'); expected two, '<image id> <value>', "
                       "separated by spaces or a tab.", None),
    ("a confidence that is no number", "{file} line {line} has the confidence '{value}'; expected a number such as "
                                       "0.127031.", None),
    ("NaN or infinite", "{file} line {line} has the confidence '{not_finite}'; expected a finite number.", None),
    ("an unknown image", "{file} line {line} names the image {unknown}, which is not among the {count} images of "
                         "category {category}; list only the images of the test set.", None),
    ("an id without its extension", "{file} line {line} names the image {stem}, which is not among the {count} "
                                    "images of category {category}; the test set has {image}, which differs in its "
                                    "extension: write each image id as the test set does, {image}.", None),
    ("images missing", "{file} lacks 1 of the {count} images of category {category}, e.g. {image}; list every "
                       "image with a confidence.", lambda options: options["missing"] == "error"),
    ("a name listed twice", "{file} line {repeat_line} repeats the image {image_any} (first on line {first_on_line}); "
                            "list each image once.", None),
]
ERRORS += TEXT_ERRORS  # the text files' own sentences (readers/text.py)


def _first_file(res):
    """The first category file of a submission folder (its dummy submission's)."""
    found = sorted(name for name in os.listdir(res) if name.endswith(".txt"))
    return os.path.join(res, found[0]) if found else None


def _second_line(change):
    """A mistake of the manual (tools/mistakes.py): the first category file's line 2, its id
    and confidence, changed by change(id, confidence) -> the new line, or None (no way)."""
    def mistake(res, kind=None):
        path = _first_file(res)
        with open(path, encoding="utf-8") as stream:
            lines = stream.read().splitlines()
        if len(lines) < 2:
            return False
        identifier, confidence = lines[1].split()
        line = change(identifier, confidence)
        if line is None:
            return False
        lines[1:2] = [line] if line else []
        with open(path, "w", encoding="utf-8", newline="\n") as stream:
            stream.write("".join(line + "\n" for line in lines))
        return True
    return mistake


def _no_category_file(res, kind=None):
    os.remove(_first_file(res))


#: The mistakes that make the rows of ERRORS in the kit's manual (tools/mistakes.py).
MISTAKES = {
    "a category file missing": _no_category_file,
    "not two fields": _second_line(lambda image, confidence: "%s %s 0.1" % (image, confidence)),
    "a confidence that is no number": _second_line(lambda image, confidence: "%s abc" % image),
    "NaN or infinite": _second_line(lambda image, confidence: "%s nan" % image),
    "an unknown image": _second_line(lambda image, confidence: "unknown_image.jpg %s" % confidence),
    "an id without its extension": _second_line(
        lambda image, confidence: "%s %s" % (os.path.splitext(image)[0], confidence)
        if os.path.splitext(image)[0] and os.path.splitext(image)[1] else None),
    "images missing": _second_line(lambda image, confidence: ""),
}
errors = refusals(ERRORS)


def error_values(items):
    """Example values for ERRORS' {names}, from the phase's own categories and images."""
    categories = items["categories"]
    category = categories[0]
    ids = items["image_lists"][category["images"]] or ["image.jpg"]
    name = category["name"] + ".txt"
    return {"file": name, "files": ", ".join(c["name"] + ".txt" for c in categories[:3]),
            "category": category["name"], "image": ids[0], "stem": os.path.splitext(ids[0])[0] or ids[0],
            "count": len(ids), "line": 3, "first": 1, "field_count": "3 fields", "line_text": ids[0] + " 0.8 0.1",
            "value": "abc", "not_finite": "nan", "unknown": "unknown.jpg", "hint": "", "image_any": ids[0],
            "repeat_line": 3, "first_on_line": 2,
            "more": "" if len(categories) < 2 else " (both are missing)" if len(categories) == 2 else
            " (all %d are missing)" % len(categories)}
