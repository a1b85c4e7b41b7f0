"""The kind `lines`: text-line segmentation of page images, per manuscript.

Glue: reader -> components and one overlap table per page -> page metrics of the chosen
protocol(s) -> mean over pages per manuscript -> mean over manuscripts -> result; then
what the build says of the kind (public items, hints, page texts, error sentences).
The metrics are the ICDAR 2025 FEST competition's (metrics/segmentation.py).
"""

import functools
import io
import os
import pickle
import select
import signal
import struct
import sys
import traceback
from collections import OrderedDict

import numpy as np

from .. import matching, names
from .. import options as opt
from .. import runs
from ..columns import Column, Metric
from ..csvtext import csv_bytes
from ..errors import ScoringError, SubmissionError
from ..itemview import ItemView, Ratio, leaderboard
from ..metrics import segmentation as seg
from ..charts import error_map_images
from ..readers import lines as reader
from ..result import ErrorMap, Outcome, Paragraph, Table, TrackResult
from . import refusals

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

#: The metrics of a page (seg.METRICS), in that order.
METRICS = OrderedDict([
    ("line_iu", Metric("Line IU", "correct lines / (correct + missed + extra lines), mean over pages, then over "
                                  "manuscripts")),
    ("pixel_iu", Metric("Pixel IU", "the intersection over union of the matched lines' pixels, mean over pages, "
                                    "then over manuscripts")),
    ("dr", Metric("Detection rate", "the share of ground-truth lines matched one-to-one to a predicted line with an "
                                    "intersection over union of at least the match threshold")),
    ("ra", Metric("Recognition accuracy", "the share of predicted lines matched one-to-one to a ground-truth line "
                                          "with an intersection over union of at least the match threshold")),
    ("fm", Metric("F-measure", "the harmonic mean of the detection rate and the recognition accuracy")),
])
assert tuple(METRICS) == seg.METRICS
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


def columns(track, options):
    """line_iu first (the leaderboard), then the other means, then per manuscript; the same
    again with the prefix fest2025_ under protocol both."""
    manuscripts = manuscript_keys(track, reader.manuscripts(track))
    out = []
    for protocol, prefix in protocols(options):
        qualifier = protocol if prefix else None
        out += [Column(prefix + name, name, metric, None, qualifier) for name, metric in METRICS.items()]
        out += [Column(prefix + key + "_" + name, name, metric, m, qualifier, what="manuscript")
                for m, key in manuscripts.items() for name, metric in METRICS.items()]
    return out


def manuscript_keys(track, manuscripts):
    """{manuscript: its key}, two manuscripts giving one key refused naming both folders."""
    return names.name_keys(manuscripts, "manuscript", lambda name: track.ref_name(name) + "/")


def score(track, submission, options, log):
    result = TrackResult("lines")
    chosen = protocols(options)
    wanted = [p for p, _ in chosen]
    per_page = dict((p, []) for p in wanted)  # protocol -> [(page, metrics)]
    maps = []
    for note in fest2025_option_notes(options) if "fest2025" in wanted else []:
        log.warn(note)
        result.warnings.append(note)
    pages_by_manuscript = reader.ground_truth_pages(track)
    pages = [page for _, group in pages_by_manuscript for page in group]
    # Every page's file is found (a missing one reported) before any decoding; a job
    # carries its file's path and name, not the submission's index.
    found = [prediction_file(submission, page, pages_by_manuscript) for page in pages]
    warn_unused(submission, pages_by_manuscript, found, log)
    jobs = [(track, page, (submission.path(page.manuscript, filename), submission.name(page.manuscript, filename)),
             options, wanted) for page, filename in zip(pages, found)]
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
    result.view = item_view(per_page, chosen, manuscripts, manuscript_keys(track, manuscripts))
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


def metric_head(name, protocol, chosen):
    """A table's column head of a metric: its title, and its protocol when the page shows two."""
    title = METRICS[name].title
    return "%s (%s)" % (title, protocol) if len(chosen) > 1 else title


def prediction_file(submission, page, pages_by_manuscript):
    """The name of a page's prediction in its manuscript's folder; a missing one refused
    with what was found instead (a folder or a file named almost so, or a hint)."""
    filename = reader.find_prediction(submission, page)
    if filename is not None:
        return filename
    rel = page.manuscript + "/" + page.stem + ".png"
    manuscripts = [m for m, _ in pages_by_manuscript]
    others = [m for m in manuscripts if m != page.manuscript]  # their pages are their own, not misplaced copies
    if not submission.isdir(page.manuscript):
        guess = matching.near_folder(submission, page.manuscript, manuscripts)
        if guess is not None:
            how = names.how_it_differs(guess, page.manuscript)
            raise SubmissionError("The submission has no folder %s/; found %s/, %s: rename it %s/%s (one folder per "
                                  "manuscript: %s)." % (
                                      submission.name(page.manuscript), submission.name(guess), how, page.manuscript,
                                      " if it is meant for it" if how == names.CLOSE else "",
                                      names.shown_list([m + "/" for m in manuscripts])))
        raise matching.absent_file(submission, rel, "a folder %s/ with one prediction per page of manuscript %s"
                                   % (page.manuscript, page.manuscript), folders=others)
    stems = [p.stem for m, group in pages_by_manuscript if m == page.manuscript for p in group]
    raise matching.absent_file(submission, rel, "one prediction per ground-truth page, as %s/%s.png, .tif, .tiff or "
                               ".bmp" % (page.manuscript, page.stem), unused_files(submission, page.manuscript,
                                                                                    stems), folders=others)


def unused_files(submission, manuscript, stems):
    """The files of a manuscript's folder that are no page's."""
    pages = set(names.canonical(stem) for stem in stems)
    return [name for name in submission.files(manuscript) if names.canonical(names.stem(name)) not in pages]


def warn_unused(submission, pages_by_manuscript, found, log):
    """A warning naming the files of the manuscripts' folders that are no page's prediction."""
    extra = []
    for manuscript, group in pages_by_manuscript:
        extra += [submission.name(manuscript, name)
                  for name in unused_files(submission, manuscript, [page.stem for page in group])]
    if extra:
        log.warn("The submission holds %d file%s in manuscript folders that are no page's prediction (ignored): %s."
                 % (len(extra), "" if len(extra) == 1 else "s", names.shown_list(extra, 3)))


def map_pages(function, jobs):
    """function over jobs, in order; on up to 4 forked processes where fork is available.

    Pages are independent and each takes a fraction of a second, so processes pay off;
    results (and the first error, in page order) are the same as in one process.
    A worker returns its error instead of raising it, so that every page's result is
    read before the pool ends. The pool (`_forked_map`) starts no thread in this process:
    concurrent.futures' pool does, and under an address-space limit (ulimit -v) a thread
    that cannot start left it waiting forever or failing as a bug.
    """
    try:
        workers = len(os.sched_getaffinity(0))
    except AttributeError:
        workers = os.cpu_count() or 1
    workers = min(workers, 4, len(jobs))
    if workers < 2 or len(jobs) < 4 or not hasattr(os, "fork"):
        return [function(job) for job in jobs]
    outcomes = _forked_map(functools.partial(_outcome, function), jobs, workers)
    for failed, value in outcomes:
        if failed:
            raise value
    return [value for _, value in outcomes]


#: A worker's exit status when it ran out of memory outside a page (sending a result).
_OUT_OF_MEMORY = 75


def _forked_map(function, jobs, workers):
    """[function(job) for job in jobs] on up to `workers` forked children, each told a job's
    index on one pipe and answering its pickled result on another (the jobs are inherited,
    not sent). A job no child could be forked for (fork refused for lack of memory or
    processes) is run here, so results never depend on how many started. A child that
    dies (the out-of-memory killer) ends the pool at once: its pipe ends before its answer.
    """
    results = [None] * len(jobs)
    waiting = list(range(len(jobs) - 1, -1, -1))  # pop() gives the next job
    busy = {}  # a child's answer pipe -> (its pid, its order pipe, the job it computes)
    try:
        while len(busy) < workers and waiting:
            child = _fork_worker(function, jobs, [orders for _, orders, _ in busy.values()] + list(busy))
            if child is None:
                break
            pid, orders, answers = child
            busy[answers] = (pid, orders, waiting.pop())
            _order(orders, busy[answers][2])
        while busy:
            for answers in select.select(list(busy), [], [])[0]:
                pid, orders, index = busy[answers]
                answered, results[index] = _answer(answers)
                if answered and waiting:
                    busy[answers] = (pid, orders, waiting.pop())
                    _order(orders, busy[answers][2])
                    continue
                del busy[answers]
                _end_worker(pid, orders, answers, reap=answered)
                if not answered:
                    raise _death(pid)
        while waiting:
            index = waiting.pop()
            results[index] = function(jobs[index])
        return results
    finally:
        for answers, (pid, orders, _) in busy.items():
            _end_worker(pid, orders, answers, kill=True)


def _fork_worker(function, jobs, parents_ends):
    """(pid, order pipe, answer pipe) of a new child serving jobs, or None if it cannot start.
    The child closes parents_ends (the earlier children's pipes), so that each child's
    pipes end when the parent or that child closes them."""
    opened = []
    _flush()  # what this process wrote is not written again by the child
    try:
        opened += os.pipe()
        opened += os.pipe()
        pid = os.fork()
    except (OSError, MemoryError):
        for fd in opened:
            os.close(fd)
        return None
    order_read, order_write, answer_read, answer_write = opened
    if pid == 0:  # the child: never returns
        status = 0
        try:
            for fd in parents_ends + [order_write, answer_read]:
                os.close(fd)
            _serve(function, jobs, order_read, answer_write)
        except MemoryError:
            status = _OUT_OF_MEMORY
        except BaseException:  # a bug outside a page (a result that cannot be pickled): its traceback
            status = 1
            traceback.print_exc()
        finally:
            _flush()
            os._exit(status)
    os.close(order_read)
    os.close(answer_write)
    return pid, order_write, answer_read


def _flush():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):  # no stream, or a closed one
            pass


def _serve(function, jobs, orders, answers):
    """In a child: for each job index read from orders, its result pickled into answers
    (8 bytes of length first), until orders ends."""
    while True:
        index = _read(orders, 4)
        if len(index) < 4:
            return
        data = pickle.dumps(function(jobs[struct.unpack("<I", index)[0]]), pickle.HIGHEST_PROTOCOL)
        _write(answers, struct.pack("<Q", len(data)))
        _write(answers, data)


def _order(orders, index):
    """Tell a child the next job; a child already dead is found by its answer pipe."""
    try:
        _write(orders, struct.pack("<I", index))
    except OSError:
        pass


def _answer(answers):
    """(True, the result a child sends), or (False, None) if its pipe ends first."""
    head = _read(answers, 8)
    if len(head) < 8:
        return False, None
    size = struct.unpack("<Q", head)[0]
    data = _read(answers, size)
    return (True, pickle.loads(data)) if len(data) == size else (False, None)


def _death(pid):
    """The error telling how the child `pid`, whose pipe ended before its answer, ended."""
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == _OUT_OF_MEMORY:
        return MemoryError("a page worker ran out of memory sending its result")
    if os.WIFEXITED(status):
        return RuntimeError("a page worker ended with exit status %d (its traceback above)" % os.WEXITSTATUS(status))
    return SubmissionError("A page worker was killed by the system while decoding or scoring a page (most "
                           "likely for lack of memory); check the size of the prediction images.")


def _end_worker(pid, orders, answers, kill=False, reap=True):
    """Close a child's pipes (its orders end: it exits), killed first if asked; reap it
    unless its end is still to be told (by _death)."""
    if kill:
        os.kill(pid, signal.SIGKILL)
    os.close(orders)
    os.close(answers)
    if reap:
        os.waitpid(pid, 0)


def _read(fd, size):
    """Up to size bytes from fd: fewer only if it ends."""
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _write(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


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
    track, page, prediction, options, wanted = job
    metrics, classes, notes, foreground = score_page(track, page, prediction, options, wanted)
    # The preview is drawn only for the page (public_details); the full map always goes to private/.
    full, preview = error_map_images(classes, preview=options["public_details"])
    for protocol in wanted:  # the per-line outcomes are drawn: only the numbers go back
        for name in ("gt_outcome", "pred_extra", "pred_match"):
            metrics[protocol].pop(name, None)
    return metrics, full, preview, notes, foreground


def score_page(track, page, predicted_file, options, wanted):
    """The metrics of one page under each wanted protocol, its error-map classes, notes and
    packed predicted foreground. predicted_file: (path, name shown in sentences)."""
    official = "fest2025" in wanted
    instances = options["ground_truth"] == "instances"
    gt_mask = reader.read_ground_truth(track, page, official, instances)
    if official:
        gt_mask, official_mask = gt_mask
    path, shown = predicted_file
    prediction = reader.read_prediction(path, shown, gt_mask.shape)
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
        out["fest2025"], more = fest2025(counted["fest2025"][1], prediction, predicted, options, shown)
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


def item_view(per_page, chosen, manuscripts, manuscript_keys):
    """Pages within manuscripts. Every key is a per-page value (column <prefix><metric>)
    averaged over the pages of a manuscript, then over the manuscripts (or one manuscript's
    mean, for its own keys)."""
    first = per_page[chosen[0][0]]
    columns = {"one": np.ones(len(first))}
    denominators = {}
    for protocol, prefix in chosen:
        for metric in METRICS:
            columns[prefix + metric] = np.array([m[metric] for _, m in per_page[protocol]], dtype=np.float64)
            # each page's metric is an integer over this (compare.py compares scores exactly)
            columns[prefix + metric + "_denominator"] = np.array(
                [m["denominators"][metric] for _, m in per_page[protocol]], dtype=np.float64)
            denominators[prefix + metric] = prefix + metric + "_denominator"
    sizes = [sum(1 for page, _ in first if page.manuscript == m) for m in manuscripts]
    scores = []
    for _, prefix in chosen:
        scores += [(prefix + name, metric.score(Ratio((prefix + name, "one")), ranked=name in RANKED))
                   for name, metric in METRICS.items()]
        scores += [(prefix + manuscript_keys[m] + "_" + name, metric.score(Ratio((prefix + name, "one")), stratum=h))
                   for h, m in enumerate(manuscripts) for name, metric in METRICS.items()]
    return ItemView(manuscripts, sizes, ["%s/%s" % (page.manuscript, page.stem) for page, _ in first], columns,
                    scores, chosen[0][1] + "line_iu", reference_columns=["one"], unit="page",
                    denominators=denominators)


def page_csv(per_page_by_protocol, chosen):
    columns = ["manuscript", "page"]
    for protocol, _ in chosen:
        columns += ["%s_%s" % (protocol, c) for c in COUNTS + tuple(METRICS)]
    rows = []
    for i, (page, _) in enumerate(per_page_by_protocol[chosen[0][0]]):
        cells = [page.manuscript, page.stem]
        for protocol, _ in chosen:
            metrics = per_page_by_protocol[protocol][i][1]
            cells += [metrics[c] for c in COUNTS] + ["%.10g" % metrics[m] for m in METRICS]
        rows.append(cells)
    return csv_bytes(columns, rows)


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
        columns += [metric_head(m, protocol, chosen) for m in METRICS]
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
            columns += [metric_head(m, protocol, chosen) for protocol, _ in chosen for m in METRICS]
            section.add(Table(columns, rows, "Per page: line counts of protocol %s (the error maps' colours), "
                                             "made public by the organizers" % primary))
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
                               "organizers (private/lines/) unless they choose to make them public."))



# ---------------------------------------------------------------- the public items (public.py)


def public_items(track):
    """The pages of each manuscript with their width and height."""
    from PIL import Image

    manuscripts = []
    for manuscript, pages in reader.ground_truth_pages(track):
        listed = []
        for page in pages:
            with Image.open(os.path.join(track.path, manuscript, page.filename)) as image:
                width, height = image.size
            listed.append({"file": page.filename, "width": width, "height": height})
        manuscripts.append({"name": manuscript, "pages": listed})
    return {"manuscripts": manuscripts}


REFERENCE = ("one folder per manuscript holding a ground-truth mask per page (.png, .tif, .tiff or .bmp), "
             "Manuscript_A/page01.png")


def reference_files(track):
    """The files of the track's folder that the reader reads (layout.refuse_unread)."""
    return [page.manuscript + "/" + page.filename for _, pages in reader.ground_truth_pages(track) for page in pages]


def _blank_pages(items, directory, extension=None):
    from PIL import Image

    for manuscript in items["manuscripts"]:
        folder = os.path.join(directory, manuscript["name"])
        os.makedirs(folder)
        for page in manuscript["pages"]:
            name = page["file"] if extension is None else os.path.splitext(page["file"])[0] + extension
            Image.new("1", (page["width"], page["height"]), 0).save(os.path.join(folder, name))


def stand_in_reference(items, directory):
    """Blank ground-truth masks of each page's size."""
    _blank_pages(items, directory)


def dummy_submission(items, directory):
    """A blank prediction (.png) of each page."""
    _blank_pages(items, directory, ".png")


def sample_reference(directory):
    """A small made-up reference (tests/test_every_kind.py): two manuscripts, one named in
    Arabic, of one page holding three lines each."""
    from PIL import Image

    for manuscript in ("\u0643\u062a\u0627\u0628 \u0627\u0644\u0623\u063a\u0627\u0646\u064a", "Codex Suprasliensis"):
        mask = np.zeros((40, 50), dtype=np.uint8)
        for top in (4, 16, 28):
            mask[top:top + 6, 5:45] = 255
        os.makedirs(os.path.join(directory, manuscript))
        Image.fromarray(mask).save(os.path.join(directory, manuscript, "\u0648\u0631\u0642\u0629 1.png"))


def reference_as_submission(track, options, directory):
    """The submission that repeats the reference: each page's lines (connected components
    of the mask at the track's connectivity) numbered 1, 2, ... in an 8-bit grey image
    (tests/test_every_kind.py: it gets the best value of every score)."""
    from PIL import Image
    from scipy import ndimage

    structure = np.ones((3, 3)) if options["connectivity"] == 8 else None
    for manuscript, pages in reader.ground_truth_pages(track):
        os.makedirs(os.path.join(directory, manuscript))
        for page in pages:
            with Image.open(os.path.join(track.path, manuscript, page.filename)) as image:
                mask = np.asarray(image.convert("L")) != 0
            labels, _ = ndimage.label(mask, structure=structure)
            Image.fromarray(labels.astype(np.uint8)).save(
                os.path.join(directory, manuscript, os.path.splitext(page.filename)[0] + ".png"))


# ---------------------------------------------------------------- hints (hints.py)

FILES = "one image per page in manuscript folders"
IMAGE_EXTENSIONS = (".png", ".tif", ".tiff", ".bmp", ".jpg", ".jpeg")


def looks_like(rel, path):
    return "/" in rel and os.path.splitext(rel)[1].lower() in IMAGE_EXTENSIONS


# ---------------------------------------------------------------- pages and manual (tools/markup.py's format)

LABEL = "Text-line segmentation"

TASK = ("Text-line segmentation: for every page, predict an instance map where each text line is its own "
        "connected region (its own colour, grey value or blob).")


def submission_format(options):
    return (
        "For every page `<manuscript>/<page>` of the test set, one image in the same folder with the same name, "
        "the same width and height, as `.png`, `.tif`, `.tiff` or `.bmp` (JPEG is refused: its lossy colours "
        "split lines). Keep the manuscript folders, with their names exactly as given (case matters). The image "
        "is an instance map:\n\n"
        "- an RGB or RGBA colour image: each colour is one line; black (and any pixel of alpha 0) is background;\n"
        "- an 8- or 16-bit grey label image: each grey value is one line, 0 is background;\n"
        "- a binary mask (1-bit, or grey 0/255): each blob is one line.\n\n"
        "A predicted line is a connected component (%d-connected) of one colour: two touching lines of different "
        "colours stay apart, and one colour used for two separate blobs gives two lines. The file's first bytes "
        "decide its format, not its name; pages that are not in the test set are ignored.\n"
        % options["connectivity"])


def example(items, options):
    """({}, {}, a Python script that writes a valid prediction of the phase's first page)."""
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


def metrics_text(options):
    official = {"standard": "",
                "both": " The keys prefixed `fest2025_` are computed as the official FEST 2025 evaluation script "
                        "does (its own matching rules), beside the standard ones.",
                "fest2025": " The numbers are computed as the official FEST 2025 evaluation script does (its own "
                            "matching rules)."}[options["protocol"]]
    return (
        "Per page, predicted lines are matched one-to-one to ground-truth lines by IoU, greedily from the highest. "
        "A matched pair whose pixel precision and recall both reach %g is a correctly detected line; otherwise a "
        "low precision adds an extra line and a low recall a missed one, and unmatched lines are missed or extra. "
        "`line_iu` (the ranking score) = correct / (correct + extra + missed); `pixel_iu` the IoU of the matched "
        "pixels; `dr`, `ra`, `fm` the detection rate, recognition accuracy and F-measure of the pairs with IoU at "
        "least %g. A page with no line in the ground truth and none predicted scores 1. Means over the pages of "
        "each manuscript, then over manuscripts. Every score: higher is better, from 0 to 1. Ground-truth lines "
        "are %s.%s\n"
        % (options["threshold"], options["match_threshold"],
           "the connected components of each grey value or colour of the ground truth, as for predictions "
           "(touching lines of different values stay apart)" if options["ground_truth"] == "instances" else
           "the connected components of the ground-truth mask", official))


def privacy(options):
    return ("After each submission you see your scores and a detailed results page: per manuscript the means, "
            "and every warning. %s\n"
            % ("It also shows the per-page tables and error maps." if options["public_details"] else
               "The per-page tables and error maps stay private to the organizers: showing them would reveal the "
               "ground truth."))


def count_items(items):
    pages = sum(len(m["pages"]) for m in items["manuscripts"])
    count = len(items["manuscripts"])
    return "%d page%s of %d manuscript%s (%s)" % (pages, "" if pages == 1 else "s", count, "" if count == 1 else "s",
                                                 ", ".join(m["name"] for m in items["manuscripts"]))


#: The sentences of a refusal (exit status 1), {name} standing for what varies:
#: (problem, sentence, when it can happen: None always, else a test of the options).
ERRORS = [
    ("a page missing", "The submission has no {page}; expected one prediction per ground-truth page, as {page}, .tif, "
                       ".tiff or .bmp{hint}.", None),
    ("a manuscript folder missing", "The submission has no {page}; expected a folder {manuscript}/ with one "
                                    "prediction per page of manuscript {manuscript}{hint}.", None),
    ("a manuscript folder named almost so", "The submission has no folder {manuscript}/; found {manuscript_near}/, "
                                            "a name close to it: rename it {manuscript}/ if it is meant for it (one "
                                            "folder per manuscript: {manuscripts}).", None),
    ("a manuscript folder named in another case", "The submission has no folder {manuscript}/; found "
                                                  "{manuscript_case}/, which differs only in case (names are "
                                                  "case-sensitive): rename it {manuscript}/ (one folder per "
                                                  "manuscript: {manuscripts}).", None),
    ("two files for a page", "The submission holds both {page} and {tif} for the same page; keep one.", None),
    ("a JPEG", "{jpeg} is a JPEG; JPEG is refused because its lossy compression changes colours and splits lines: "
               "save the instance map as .png, .tif, .tiff or .bmp.", None),
    ("a JPEG under another name", "{page} is a JPEG image (whatever its name says); JPEG is refused because its "
                                  "lossy compression changes colours and splits lines: save the map as PNG, TIFF or "
                                  "BMP.", None),
    ("not an image", "{page} cannot be read as an image: its first bytes ({first_bytes}) are not those of a PNG, "
                     "TIFF or BMP file; save it as .png, .tif, .tiff or .bmp.", None),
    ("a broken image", "{page} cannot be read as an image ({reason}); save it as an uncompressed or PNG-compressed "
                       "image (.png, .tif, .tiff or .bmp).", None),
    ("another size", "{page} is {small} pixels but the ground-truth page is {size} (width x height); predict at "
                     "the size of the page.", None),
    ("larger than the memory left", "{page} is {size} pixels, more than the memory the scoring machine has left can "
                            "decode; check its size.", None),
    ("too large to decode", "{page}: decoding it needs more memory than the scoring machine has.", None),
    ("a palette index beyond the palette", "{page} uses the palette index 7 but its palette has 4 colours; save it "
                                           "with every pixel's colour in the palette (or as RGB).", None),
    ("negative labels", "{page} holds negative labels; a grey label image uses 0 for the background and positive "
                        "numbers for lines.", None),
    ("another image mode", "{page} has the image mode CMYK; expected an RGB/RGBA colour image, an 8- or 16-bit grey "
                           "label image or a binary mask.", None),
    ("a file that cannot be read", "{page} cannot be read (Permission denied).", None),
    ("not a file", "{page} is a folder, not a regular file{folder_holds}; put the file itself in its place.",
     None),
    ("out of memory", "A page worker was killed by the system while decoding or scoring a page (most likely for "
                      "lack of memory); check the size of the prediction images.", None),
]


errors = refusals(ERRORS)


def _first_page(res):
    """(folder, file) of the first page of a submission folder (its dummy submission's)."""
    folder = sorted(name for name in os.listdir(res) if os.path.isdir(os.path.join(res, name)))[0]
    return os.path.join(res, folder), sorted(os.listdir(os.path.join(res, folder)))[0]


def _no_page(res, kind=None):
    folder, page = _first_page(res)
    os.remove(os.path.join(folder, page))


def _no_folder(res, kind=None):
    import shutil

    shutil.rmtree(_first_page(res)[0])


def _page_twice(res, kind=None):
    import shutil

    folder, page = _first_page(res)
    shutil.copyfile(os.path.join(folder, page), os.path.join(folder, os.path.splitext(page)[0] + ".tif"))


def _folder_renamed(change):
    def mistake(res, kind=None):
        folder = _first_page(res)[0]
        name = change(os.path.basename(folder))
        if name == os.path.basename(folder):
            return False
        os.rename(folder, os.path.join(res, name))
        return True
    return mistake


def _page_saved(change, extension=None):
    """A mistake: the first page's prediction replaced by change(its image) -> (image,
    Pillow's format) or bytes, saved under its name or with another extension."""
    def mistake(res, kind=None):
        from PIL import Image

        folder, page = _first_page(res)
        path = os.path.join(folder, page)
        with Image.open(path) as image:
            image.load()
        made = change(image)
        os.remove(path)
        if extension is not None:
            path = os.path.splitext(path)[0] + extension
        if isinstance(made, bytes):
            with open(path, "wb") as stream:
                stream.write(made)
        else:
            made[0].save(path, made[1])
        return True
    return mistake


def _truncated_png(image):
    """The image as a PNG cut after the first bytes of its pixel data."""
    stream = io.BytesIO()
    image.save(stream, "PNG")
    data = stream.getvalue()
    return data[:data.index(b"IDAT") + 6]


def _palette_png(image):
    """A PNG of 8-bit palette indices (written chunk by chunk: Pillow writes a palette of 4
    colours with 2-bit indices), its palette of 4 colours, its first pixel the index 7."""
    import struct
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    width, height = image.size
    rows = b"\x00\x07" + b"\x00" * (width - 1) + (b"\x00" + b"\x00" * width) * (height - 1)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
            + chunk(b"PLTE", bytes([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _negative(image):
    from PIL import Image

    labels = np.zeros((image.size[1], image.size[0]), dtype=np.int32)
    labels[0, 0] = -1
    return Image.fromarray(labels, "I"), "TIFF"


def _large_chunk(image):
    """The image as a PNG holding, before its pixels, a private chunk of 24 MB (the PNG
    standard's ancillary, private chunk type 'prVt'), which Pillow reads whole as it opens
    the file."""
    import zlib

    stream = io.BytesIO()
    image.save(stream, "PNG")
    data = stream.getvalue()
    body = bytes(24 << 20)
    chunk = struct.pack(">I", len(body)) + b"prVt" + body + struct.pack(">I", zlib.crc32(b"prVt" + body) & 0xFFFFFFFF)
    pixels = data.index(b"IDAT") - 4
    return data[:pixels] + chunk + data[pixels:]


#: A page that needs 24 MB to be opened, scored with a headroom of 16 MB of address space
#: (tools/mistakes.py).
_decoded_too_large = _page_saved(_large_chunk)
_decoded_too_large.headroom = 16 << 20


def _as_it_is(res, kind=None):
    """The submission as it is: the mistake is the system's, which kills each page worker
    as it starts (SIGKILL, as Linux's out-of-memory killer does; tools/mistakes.py)."""
    return True


_as_it_is.workers_killed = True


#: The mistakes that make the rows of ERRORS in the kit's manual (tools/mistakes.py).
MISTAKES = {"a page missing": _no_page, "a manuscript folder missing": _no_folder, "two files for a page": _page_twice,
            "a manuscript folder named in another case": _folder_renamed(
                lambda name: name.lower() if name.lower() != name else name.upper()),
            "a manuscript folder named almost so": _folder_renamed(lambda name: name + name[-1]),
            "a JPEG": _page_saved(lambda image: (image.convert("RGB"), "JPEG"), ".jpg"),
            "a JPEG under another name": _page_saved(lambda image: (image.convert("RGB"), "JPEG")),
            "not an image": _page_saved(lambda image: b"Line 1 is the first line of the page.\n"),
            "a broken image": _page_saved(_truncated_png),
            "another size": _page_saved(lambda image: (image.resize((max(1, image.size[0] // 2),
                                                                      max(1, image.size[1] // 2))), "PNG")),
            "a palette index beyond the palette": _page_saved(_palette_png),
            "negative labels": _page_saved(_negative, ".tif"),
            "another image mode": _page_saved(lambda image: (image.convert("CMYK"), "TIFF"), ".tif"),
            "too large to decode": _decoded_too_large, "out of memory": _as_it_is}


def error_values(items):
    """Example values for ERRORS' {names}, from the phase's own manuscripts and pages."""
    manuscript = items["manuscripts"][0]
    page = manuscript["pages"][0]
    stem = os.path.splitext(page["file"])[0]
    path = manuscript["name"] + "/" + stem
    name = manuscript["name"]
    return {"manuscript": name, "stem": stem, "page": path + ".png", "tif": path + ".tif",
            "jpeg": path + ".jpg", "size": "%dx%d" % (page["width"], page["height"]),
            "small": "%dx%d" % (max(1, page["width"] // 2), max(1, page["height"] // 2)),
            "first_bytes": "b'Line 1 i'", "reason": "image file is truncated", "hint": "",
            "manuscript_near": name.replace(" ", "_") if " " in name else name + "_",
            "manuscript_case": name.lower() if name.lower() != name else name.upper(),
            "manuscripts": ", ".join(m["name"] + "/" for m in items["manuscripts"][:5])}
