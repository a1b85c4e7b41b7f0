"""Track `lines` (ICDAR 2025 FEST): text-line segmentation, per manuscript.

Glue: reader -> components and one overlap table per page -> page metrics of the chosen
protocol(s) -> mean over pages per manuscript -> mean over manuscripts -> result.
SPEC section 4; seeds/lines-track-evaluation.txt.
"""

import functools
import io
import multiprocessing
import os
import traceback
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import numpy as np

from .. import options as opt
from .. import runs
from ..errors import ScoringError, SubmissionError
from ..itemview import ItemView, Ratio, Score, leaderboard
from ..layout import key_name
from ..metrics import segmentation as seg
from ..charts import error_map_images
from ..readers import lines as reader
from ..result import ErrorMap, Outcome, Paragraph, Table, TrackResult

TITLE = "Text-line segmentation (FEST 2025)"


def _above_half():
    def convert(value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return float(value) if 0.5 < value <= 1 else None

    return opt.Check("a number above 0.5 and at most 1 (matches must stay one-to-one)", convert)


OPTIONS = {
    "protocol": ("standard", opt.choice("standard", "fest2025", "both")),
    "threshold": (0.75, opt.number(0.0, 1.0)),
    "match_threshold": (0.75, _above_half()),
    "connectivity": (8, opt.integer_in(4, 8)),
    "public_details": (False, opt.boolean()),
    # mask: nonzero pixels are line pixels; instances: each colour or grey value a class of
    # lines, as a prediction is read (touching lines of different values stay apart)
    "ground_truth": ("mask", opt.choice("mask", "instances")),
}

METRICS = seg.METRICS
#: The scores the meta-evaluation compares between submissions (per protocol).
RANKED = ("line_iu", "pixel_iu", "fm")
COUNTS = ("gt", "predicted", "correct", "missed", "imprecise", "extra")
FEST_PREFIX = "fest2025_"
#: The outcomes each protocol's per-page table counts (the error map's colours).
OUTCOMES = {"standard": (seg.CORRECT, seg.MISSED, seg.IMPRECISE, seg.EXTRA),
            "fest2025": (seg.CORRECT, seg.MISSED, seg.IMPRECISE, seg.UNCOUNTED)}
OUTCOME_COUNT = {seg.CORRECT: "correct", seg.MISSED: "missed", seg.IMPRECISE: "imprecise",
                 seg.EXTRA: "extra", seg.UNCOUNTED: "uncounted"}


def protocols(options):
    """(protocol, key prefix) pairs; the first gives the unprefixed keys."""
    if options["protocol"] == "both":
        return [("standard", ""), ("fest2025", FEST_PREFIX)]
    return [(options["protocol"], "")]


def keys(track, options):
    """line_iu first (the leaderboard), then the other means, then per manuscript."""
    names = [key_name(m) for m in reader.manuscripts(track)]
    out = []
    for _, prefix in protocols(options):
        out += [prefix + metric for metric in METRICS]
        out += [prefix + name + "_" + metric for name in names for metric in METRICS]
    return out


def score(track, submission, options, log):
    result = TrackResult("lines", TITLE)
    chosen = protocols(options)
    wanted = [p for p, _ in chosen]
    per_page = dict((p, []) for p in wanted)  # protocol -> [(page, metrics)]
    maps = []
    for note in fest2025_option_notes(options) if "fest2025" in wanted else []:
        log.warn(note)
        result.warnings.append(note)
    pages_by_manuscript = reader.ground_truth_pages(track)
    pages = [page for _, group in pages_by_manuscript for page in group]
    for page in pages:  # a missing page is reported before any decoding
        prediction_file(submission, page)
    jobs = [(track, submission, page, options, wanted) for page in pages]
    for page, (metrics, full_png, preview, notes, foreground) in zip(pages, map_pages(_page_job, jobs)):
        result.foregrounds[(page.manuscript, page.stem)] = foreground
        for protocol in wanted:
            per_page[protocol].append((page, metrics[protocol]))
        maps.append((page, full_png, preview))
        for note in notes:
            log.warn(note)
            result.warnings.append(note)
    manuscripts = [m for m, _ in pages_by_manuscript]
    summaries = dict((protocol, summarize(per_page[protocol], manuscripts)) for protocol, _ in chosen)
    result.view = item_view(per_page, chosen, manuscripts)
    for key, value in leaderboard(result.view).items():
        result.set_score(key, value)
    describe(result, chosen, per_page, summaries, manuscripts, maps, options)
    return result


def reference_warnings(track, options, shown=None):
    """What the build (tools/make_bundle.py) tells the organizer of this track's reference
    data: with ground_truth: mask, the first ground-truth page holding more than one nonzero
    value, lines annotated one value each (as annotation tools export them), which a mask
    merges where they touch. shown(manuscript, file) names a page as the organizer knows it."""
    if options["ground_truth"] != "mask":
        return []
    shown = shown or track.ref_name
    for _, pages in reader.ground_truth_pages(track):
        for page in pages:
            values = reader.mask_values(track, page)
            if values > 1:
                return ["%s holds %d different nonzero values but track.yaml reads the ground truth as a mask "
                        "(ground_truth: mask, the default), so touching lines of different values become one line; "
                        "if each value is a line, set ground_truth: instances."
                        % (shown(page.manuscript, page.filename), values)]
    return []


def fest2025_option_notes(options):
    """Where track.yaml asks fest2025 for something the official script does not do."""
    notes = []
    if options["connectivity"] != 8:
        notes.append("connectivity is 4: fest2025 then splits ground-truth lines that the official script, which "
                     "uses 8-connected components, keeps whole.")
    for name in ("threshold", "match_threshold"):
        if options[name] != OPTIONS[name][0]:
            notes.append("%s is %g: fest2025 applies it, whereas the official script hard-codes %g, so its numbers "
                         "differ from the official leaderboard's." % (name, options[name], OPTIONS[name][0]))
    return notes


def prediction_file(submission, page):
    filename = reader.find_prediction(submission, page)
    if filename is None:
        raise submission.missing(page.manuscript + "/" + page.stem + ".png",
                                 "one prediction per ground-truth page (%s/%s.png, .tif, .tiff or .bmp)"
                                 % (page.manuscript, page.stem))
    return filename


def map_pages(function, jobs):
    """function over jobs, in order; on up to 4 processes where fork is available.

    Pages are independent and each takes a fraction of a second, so processes pay off;
    results (and the first error, in page order) are the same as in one process.
    A worker returns its error instead of raising it, so that every page's result is
    read before the pool ends. A worker killed from outside (the out-of-memory killer)
    breaks the pool, which concurrent.futures reports at once (multiprocessing.Pool would
    wait for its result forever).
    """
    try:
        workers = len(os.sched_getaffinity(0))
    except AttributeError:
        workers = os.cpu_count() or 1
    workers = min(workers, 4, len(jobs))
    if workers < 2 or len(jobs) < 4 or "fork" not in multiprocessing.get_all_start_methods():
        return [function(job) for job in jobs]
    try:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
            outcomes = list(pool.map(functools.partial(_outcome, function), jobs))
    except BrokenProcessPool:
        raise SubmissionError("A page worker was killed by the system while decoding or scoring a page (most "
                              "likely for lack of memory); check the size of the prediction images.")
    for failed, value in outcomes:
        if failed:
            raise value
    return [value for _, value in outcomes]


def _outcome(function, job):
    """(False, function(job)), or (True, an exception to raise in the parent). Only errors
    known to unpickle cleanly cross the pipe: a ScoringError, a MemoryError, else a
    RuntimeError carrying the worker's traceback (exit status 3 prints it)."""
    try:
        return False, function(job)
    except (ScoringError, MemoryError) as error:
        return True, error
    except Exception:
        return True, RuntimeError("in a page worker:\n" + traceback.format_exc())


def _page_job(job):
    track, submission, page, options, wanted = job
    metrics, classes, notes, foreground = score_page(track, submission, page, options, wanted)
    # The preview is drawn only for the page (public_details); the full map always goes to private/.
    full, preview = error_map_images(classes, preview=options["public_details"])
    for protocol in wanted:  # the per-line outcomes are drawn: only the numbers go back
        for name in ("gt_outcome", "pred_extra", "pred_match"):
            metrics[protocol].pop(name, None)
    return metrics, full, preview, notes, foreground


def score_page(track, submission, page, options, wanted):
    """The metrics of one page under each wanted protocol, its error-map classes, notes and
    packed predicted foreground."""
    official = "fest2025" in wanted
    instances = options["ground_truth"] == "instances"
    gt_mask = reader.read_ground_truth(track, page, official, instances)
    if official:
        gt_mask, official_mask = gt_mask
    filename = prediction_file(submission, page)
    prediction = reader.read_prediction(submission, page, filename, gt_mask.shape)
    connectivity = options["connectivity"]
    gt = seg.lines_of(gt_mask, connectivity)
    predicted = seg.lines_of(prediction.runs, connectivity)
    shared = seg.overlap(gt, predicted)
    standard = seg.standard_page(shared, options["threshold"], options["match_threshold"])
    out = {"standard": standard}
    notes = []
    counted = {"standard": (gt, shared)}  # per protocol: the ground-truth lines it counts, their overlap
    if official:
        counted["fest2025"] = counted["standard"]
        dropped = 0 if official_mask is gt_mask else runs.area(gt_mask) - runs.shared_area(gt_mask, official_mask)
        if dropped or instances:
            # The official script reads a mask, and sees only pixels whose luminance survives OpenCV's 8-bit grey.
            official_gt = seg.lines_of(official_mask, connectivity)
            counted["fest2025"] = (official_gt, seg.overlap(official_gt, predicted))
            notes.append("%s has %d line pixels that OpenCV's 8-bit grey conversion, which the official script "
                         "uses, turns black (dark colours, or 16-bit values below 256); fest2025 leaves them out "
                         "as the official script does." % (track.ref_name(page.manuscript, page.filename), dropped))
        out["fest2025"], more = fest2025(counted["fest2025"][1], prediction, predicted, options,
                                         submission.name(page.manuscript, filename))
        notes += more
    # The map shows the outcomes that the per-page table counts: the primary protocol's.
    lines, lines_shared = counted[wanted[0]]
    classes = seg.error_map(lines, predicted, out[wanted[0]], lines_shared)
    # The foreground kept packed (1 bit a pixel) so that compare.py never decodes a page twice.
    return out, classes, notes, runs.packed_mask(prediction.runs)


def fest2025(shared, prediction, predicted, options, shown):
    """The official script's numbers of a page, from the same overlap table, and notes."""
    component_colours = seg.component_colours(predicted)
    background = bool(shared.area_pred[0] > 0)
    labels, n_labels = seg.fest2025_labels(component_colours, background)
    merged = seg.fest2025_table(shared, labels, n_labels)
    metrics = seg.fest2025_page(merged, n_labels, options["threshold"], options["match_threshold"])
    notes = []
    if metrics["ra_undefined"]:
        notes.append("%s has no predicted line but its page has ground-truth lines: the official script "
                     "divides by zero there; fest2025 RA is given as 0." % shown)
    if prediction.transparent_colour:
        notes.append("%s has transparent pixels that are not black: they are background here, but the "
                     "official script ignores transparency and would count them as lines." % shown)
    if prediction.sixteen_bit:
        notes.append("%s is a 16-bit image: fest2025 ranks its labels or colours, whereas the official "
                     "script would read it reduced to 8 bits." % shown)
    return metrics, notes


def summarize(per_page, manuscripts):
    """Mean over pages per manuscript, then mean over manuscripts."""
    summary = {}
    for manuscript in manuscripts:
        rows = [m for page, m in per_page if page.manuscript == manuscript]
        summary[manuscript] = dict((metric, float(np.mean([r[metric] for r in rows])) if rows else 0.0)
                                   for metric in METRICS)
        summary[manuscript]["pages"] = len(rows)
        for count in COUNTS:
            summary[manuscript][count] = int(sum(r[count] for r in rows))
    summary["overall"] = dict((metric, float(np.mean([summary[m][metric] for m in manuscripts])))
                              for metric in METRICS)
    return summary


def item_view(per_page, chosen, manuscripts):
    """Pages within manuscripts. Every key is a per-page value (column <prefix><metric>)
    averaged over the pages of a manuscript, then over the manuscripts (or one manuscript's
    mean, for its own keys)."""
    first = per_page[chosen[0][0]]
    columns = {"one": np.ones(len(first))}
    for protocol, prefix in chosen:
        for metric in METRICS:
            columns[prefix + metric] = np.array([m[metric] for _, m in per_page[protocol]], dtype=np.float64)
    sizes = [sum(1 for page, _ in first if page.manuscript == m) for m in manuscripts]
    scores = []
    for _, prefix in chosen:
        scores += [(prefix + metric, Score(Ratio((prefix + metric, "one")), ranked=metric in RANKED))
                   for metric in METRICS]
        scores += [(prefix + key_name(m) + "_" + metric, Score(Ratio((prefix + metric, "one")), stratum=h))
                   for h, m in enumerate(manuscripts) for metric in METRICS]
    return ItemView(manuscripts, sizes, ["%s/%s" % (page.manuscript, page.stem) for page, _ in first], columns,
                    scores, chosen[0][1] + "line_iu", reference_columns=["one"], unit="page")


def page_csv(per_page_by_protocol, chosen):
    out = io.StringIO()
    columns = ["manuscript", "page"]
    for protocol, _ in chosen:
        columns += ["%s_%s" % (protocol, c) for c in COUNTS + METRICS]
    out.write(",".join(columns) + "\n")
    first = per_page_by_protocol[chosen[0][0]]
    for i, (page, _) in enumerate(first):
        cells = [page.manuscript, page.stem]
        for protocol, _ in chosen:
            metrics = per_page_by_protocol[protocol][i][1]
            cells += [str(metrics[c]) for c in COUNTS] + ["%.10g" % metrics[m] for m in METRICS]
        out.write(",".join(cells) + "\n")
    return out.getvalue().encode("utf-8")


def describe(result, chosen, per_page, summaries, manuscripts, maps, options):
    primary = chosen[0][0]
    overall = summaries[primary]["overall"]
    result.meaning = ("The share of text lines correctly detected (pixel precision and recall >= %g): "
                      "correct / (correct + missed + extra), averaged over pages, then over manuscripts."
                      % options["threshold"])
    totals = dict((count, sum(summaries[primary][m][count] for m in manuscripts)) for count in COUNTS)
    result.highlights = [("pixel_iu", overall["pixel_iu"]), ("fm", overall["fm"])]
    result.highlights += [("%s line_iu" % m, summaries[primary][m]["line_iu"]) for m in manuscripts]
    result.highlights += [("lines correct / in ground truth", "%d / %d" % (totals["correct"], totals["gt"]))]
    overview = result.section("Summary")
    names = ", ".join(p for p, _ in chosen)
    overview.add(Paragraph(
        "Ranking score line_iu: the mean over manuscripts of the per-manuscript mean Line IU over pages "
        "(protocol %s). Line IU = correct / (correct + extra + missed) with precision and recall >= %g; "
        "Pixel IU over matched pixels; DR, RA, FM with one-to-one matches of IoU >= %g; %d-connected "
        "components." % (chosen[0][0], options["threshold"], options["match_threshold"], options["connectivity"])))
    if len(chosen) > 1:
        overview.add(Paragraph("Both protocols are shown side by side (%s); keys of fest2025 start with %s."
                               % (names, FEST_PREFIX)))
    columns = ["manuscript", "pages"]
    for protocol, _ in chosen:
        columns += ["%s %s" % (protocol, m) for m in METRICS]
    rows = []
    for manuscript in manuscripts + ["overall"]:
        row = [manuscript, summaries[chosen[0][0]][manuscript].get("pages", sum(
            summaries[chosen[0][0]][m]["pages"] for m in manuscripts))]
        for protocol, _ in chosen:
            row += [summaries[protocol][manuscript][m] for m in METRICS]
        rows.append(row)
    overview.add(Table(columns, rows, "Per manuscript (means over pages) and overall (mean over manuscripts)"))
    result.private.append(("lines/pages.csv", page_csv(per_page, chosen)))
    public = options["public_details"]
    outcomes = OUTCOMES[primary]
    for manuscript in manuscripts:
        section = result.section("Manuscript %s" % manuscript) if public else None
        rows = []
        for i, (page, metrics) in enumerate(per_page[primary]):
            if page.manuscript != manuscript:
                continue
            row = [page.stem, metrics["gt"], metrics["predicted"]]
            row += [metrics[OUTCOME_COUNT[code]] for code in outcomes] + [metrics[m] for m in METRICS]
            for protocol, _ in chosen[1:]:
                row += [per_page[protocol][i][1][m] for m in METRICS]
            rows.append(row)
        if section is not None:
            columns = ["page", "lines in ground truth", "predicted lines"] + [Outcome(code) for code in outcomes]
            columns += ["%s %s" % (protocol, m) for protocol, _ in chosen for m in METRICS]
            section.add(Table(columns, rows, "Per page: line counts of protocol %s (the error maps' colours); "
                                             "public_details: true" % primary))
        for (page, full_png, preview), (_, metrics) in zip(maps, per_page[primary]):
            if page.manuscript != manuscript:
                continue
            result.private.append(("lines/%s/%s_errors.png" % (page.manuscript, page.stem), full_png))
            if section is not None:
                png, width, height = preview
                section.add(ErrorMap(png, "%s: line_iu %.4f" % (page.stem, metrics["line_iu"]), width, height,
                                     outcomes + (seg.TOLERATED,)))
    if not public:
        overview.add(Paragraph("Per-page tables and error maps reveal the ground truth; they are kept for the "
                               "organizers (private/lines/) unless track.yaml sets public_details: true."))

