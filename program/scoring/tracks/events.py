"""Track `events` (ChaLearn LAP cultural event recognition): mean average precision.

Glue: reader (one file per category) -> AP kernel per category -> mean over the
categories with a positive image -> result (AP table, precision/recall charts).
SPEC section 5; seeds/events-track-evaluation.txt.
"""

import io

import numpy as np

from .. import options as opt
from ..errors import ReferenceDataError
from ..itemview import AveragePrecision, ItemView, Score, leaderboard
from ..metrics.ranking import area_under_envelope, operating_points
from ..readers import events as reader
from ..result import Paragraph, PrecisionRecall, Table, TrackResult

TITLE = "Cultural event recognition (ChaLearn LAP)"

OPTIONS = {
    "missing": ("error", opt.choice("error", "last")),
    "public_details": (False, opt.boolean()),
    "stand_in": (False, opt.boolean()),  # runner.stand_in_result: validate, score nothing
}

#: Per category, how many of the worst-placed positives and best-placed negatives the
#: private table lists (the images that cost the most precision).
HARDEST = 10


def keys(track, options):
    return ["map"]


def score(track, submission, options, log):
    categories = reader.read_reference(track)
    scored = [c for c in categories if c.positives > 0]
    if not scored:
        raise ReferenceDataError("No category of %s has a positive image (label 1); average precision is "
                                 "undefined for all of them." % track.label)
    reader.check_files(submission, categories, log)
    result = TrackResult("events", TITLE)
    for category in categories:
        if category.positives == 0:
            result.warnings.append("Category %s has no positive image in the reference; it is left out of the "
                                   "mean." % category.name)
            log.warn("Category %s has no positive image in the reference; it is left out of the mean."
                     % category.name)
    rows = []
    for category in categories:
        filename = category.name + ".txt"
        scores, absent = reader.read_confidences(submission.path(filename), submission.name(filename),
                                                 category, options["missing"])
        if absent:
            log.info("%s: %d of %d images not submitted, ranked last (missing: last)."
                     % (submission.name(filename), absent, len(category.ids)))
        curve = None
        ap = None
        if category.positives:
            curve = operating_points(category.positive, scores)
            ap = area_under_envelope(curve[0], curve[2])
        rows.append({"category": category, "scores": scores, "absent": absent, "curve": curve, "ap": ap})

    kept = [row for row in rows if row["ap"] is not None]
    result.view = item_view(kept)
    result.set_score("map", leaderboard(result.view)["map"])
    describe(result, rows, kept, options)
    return result


def item_view(kept):
    """Images within the categories that have a positive image; resampled within
    (category, true class). map: the mean over categories of the AP of the images'
    labels and confidences (not a sum of per-image terms: it is recomputed per resample)."""
    sizes = [len(row["category"].ids) for row in kept]
    labels = np.concatenate([row["category"].positive for row in kept]).astype(np.float64)
    columns = {"label": labels, "confidence": np.concatenate([row["scores"] for row in kept])}
    block = 2 * np.repeat(np.arange(len(kept)), sizes) + labels.astype(np.int64)
    items = []
    for row in kept:
        items.extend(reader.as_list(row["category"].ids))  # one list of strings, shared by categories
    return ItemView([row["category"].name for row in kept], sizes, items, columns,
                    [("map", Score(AveragePrecision("label", "confidence"), ranked=True))], "map",
                    reference_columns=["label"], block=block, truth="label", unit="image")


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
        cells = [category.name, row["ap"], category.positives, len(category.ids), int(row["curve"][0].shape[0])]
        if any_absent:
            cells.append(row["absent"])
        table.append(cells)
    summary.add(Table(columns, table, "Average precision per category, worst first"))

    charts = result.section("Precision/recall per category")
    charts.add(Paragraph("Grey: precision at each operating point, in ranking order. Blue: the monotone "
                         "precision (at each point the highest precision at that point or any later one); "
                         "the shaded area under it, by the trapezoidal rule from recall 0, is the AP. "
                         "Worst category first."))
    for row in ordered:
        recall, precision, envelope, _ = row["curve"]
        charts.add(PrecisionRecall(row["category"].name, recall, precision, envelope, row["ap"]))

    hardest = hardest_images(ordered)
    result.private.append(("events/hardest_images.csv", csv_bytes(HARDEST_COLUMNS, hardest)))
    if options["public_details"]:
        details = result.section("Hardest images per category (public_details: true)")
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
        for label, members, sign in ((1, category.positive, 1.0), (0, ~category.positive, -1.0)):
            members = np.flatnonzero(members)
            if members.shape[0] > HARDEST:  # lowest positives, highest negatives
                members = members[np.argpartition(sign * scores[members], HARDEST - 1)[:HARDEST]]
            members = members[np.lexsort((members, sign * scores[members]))]
            ranks = 1 + np.count_nonzero(scores[None, :] > scores[members][:, None], axis=1)
            for i, rank in zip(members.tolist(), ranks.tolist()):
                shown = "%.10g" % scores[i] if np.isfinite(scores[i]) else "not submitted"
                table.append([category.name, category.ids[i], label, shown, rank])
    return table


def csv_bytes(columns, table):
    out = io.StringIO()
    for cells in [columns] + table:
        out.write(",".join(_csv_cell(str(c)) for c in cells) + "\n")
    return out.getvalue().encode("utf-8")


def _csv_cell(text):
    if any(c in text for c in ',"'):
        return '"' + text.replace('"', '""') + '"'
    return text
