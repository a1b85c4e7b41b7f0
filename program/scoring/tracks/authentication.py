"""The kind `authentication`: authentic vs. imitation handwriting, per subset (labels and
distances between the images of each subset).

Glue: reader -> confusion counts and top-k kernels -> mean over subsets -> result; then
what the build says of the kind (public items, hints, page texts, error sentences).
The metrics are the ICDAR 2026 FalsID competition's (metrics/classification.py,
metrics/retrieval.py).
"""

import csv
import io
import os

import numpy as np

from .. import matching, names
from .. import options as opt
from ..columns import Column, Metric
from ..csvtext import csv_bytes, csv_data
from ..errors import ReferenceDataError, SubmissionError
from ..files import write_text
from ..itemview import ItemView, Ratio, leaderboard
from ..metrics.classification import binary_rates, confusion_counts, undefined_rates
from ..metrics.retrieval import retrievable, topk_accuracy, topk_hits
from ..readers import authentication as reader
from ..readers import text
from ..readers.text import decode_lines, read_bytes
from ..result import ConfusionMatrix, Paragraph, Table, TrackResult
from . import refusals

OPTIONS = {
    "distances": ("required", opt.choice("required", "optional")),
    "k": ([1, 3, 5], opt.positive_int_list()),
    "documentation": ("optional", opt.choice("optional", "required")),
    "public_details": (False, opt.boolean()),
}

RATES = ("accuracy", "precision", "recall", "specificity")
DOC_EXTENSIONS = (".md", ".txt", ".pdf")

FP_FN_NOTE = (
    "About the names of the errors: imitation is the positive class here, as used for precision and "
    "recall, so an authentic image rejected as imitation is a false positive and an imitation accepted as "
    "authentic a false negative; forensic texts often name them the other way round (an accepted forgery "
    "as a false positive). The tables therefore name the two errors in words."
)

METRICS = {
    "uar": Metric("UAR (mean accuracy)", "the mean over subsets of the share of images labelled right"),
    "balanced_accuracy": Metric("Balanced accuracy", "the mean over subsets of (recall + specificity) / 2"),
    "accuracy": Metric("accuracy", "the share of images labelled right"),
    "precision": Metric("precision", "of the images called imitation, the share that are imitations"),
    "recall": Metric("recall", "of the imitations, the share called imitation"),
    "specificity": Metric("specificity", "of the authentic images, the share called authentic"),
}


def top_metric(k):
    return Metric("top-%d" % k, "the share of images that have an image of their own class among their %d "
                                "nearest (by your distances), mean over subsets" % k)


def columns(track, options):
    """uar first, then balanced accuracy, top-k, per-subset rates and top-k."""
    ks = options["k"]
    out = [Column("uar", "uar", METRICS["uar"]),
           Column("balanced_accuracy", "balanced_accuracy", METRICS["balanced_accuracy"])]
    out += [Column("top%d" % k, "top%d" % k, top_metric(k)) for k in ks]
    for subset, key in subset_keys(track, reader.subset_names(track.path)).items():
        prefix = key + "_"
        out += [Column(prefix + name, name, METRICS[name], subset, what="subset") for name in RATES]
        out += [Column(prefix + "top%d" % k, "top%d" % k, top_metric(k), subset, what="subset") for k in ks]
    return out


def subset_keys(track, subset_names):
    """{subset name: its key}, two subsets giving one key refused naming both files."""
    return names.name_keys(subset_names, "subset", lambda name: track.ref_name(name + ".csv"))


def score(track, submission, options, log):
    subsets = reader.read_ground_truth(track)
    predictions = read_predictions(submission, subsets, log)
    documentation = find_documentation(submission, options, log)
    ks = options["k"]
    result = TrackResult("authentication")
    per_subset = []
    unclaimed = names.NameIndex(matching.unused(submission, expected_files(subsets)))
    for subset in subsets:
        y_pred = predictions[subset.name]
        counts = confusion_counts(subset.labels, y_pred)
        rates = binary_rates(*counts)
        retrieval = read_retrieval(submission, subset, ks, options, log, unclaimed)
        per_subset.append((subset, y_pred, counts, rates, retrieval))

    result.view = item_view(per_subset, ks, subset_keys(track, [subset.name for subset in subsets]))
    for key, value in leaderboard(result.view).items():
        result.set_score(key, value)

    describe(result, per_subset, ks, documentation, options)
    return result


def item_view(per_subset, ks, subset_keys):
    """Images within subsets; resampled within the subset, not within (subset, true class):
    a subset's share of imitations varies from one test set to the next, and where the
    classes' accuracies differ (a class gap) that adds to the score's variance, which a
    bootstrap holding the class counts misses; with class counts fixed by design,
    resampling by subset errs on the wide side (bench/coverage.py measures both). Every
    key of columns()
    is a Ratio of summed per-image terms: uar the mean over subsets of correct / images,
    balanced_accuracy of (correct imitations / imitations + correct authentic / authentic) / 2,
    top-k of hit values over the included images; per subset its rates and top-k."""
    columns = dict((name, []) for name in ("one", "label", "predicted", "correct", "positive", "negative",
                                           "correct_positive", "correct_negative", "included", "retrieved"))
    top = ["top%d" % k for k in ks]
    for name in top:
        columns[name] = []
    items, sizes, strata, block = [], [], [], []
    for h, (subset, y_pred, _, _, retrieval) in enumerate(per_subset):
        truth = np.asarray(subset.labels) == 1
        predicted = np.asarray(y_pred) == 1
        correct = truth == predicted
        # included: the images whose class has another image in the subset (the reference's,
        # distances given or not, so every submission's view has the same denominators)
        included = retrievable(subset.labels)
        retrieved = np.full(truth.shape, retrieval["source"] is not None)
        for name, values in (("one", np.ones(truth.shape)), ("label", truth), ("predicted", predicted),
                             ("correct", correct), ("positive", truth), ("negative", ~truth),
                             ("correct_positive", correct & truth), ("correct_negative", correct & ~truth),
                             ("included", included), ("retrieved", retrieved)):
            columns[name].append(np.asarray(values, dtype=np.float64))
        for column, name in enumerate(top):
            columns[name].append(np.where(included, retrieval["hits"][:, column], 0.0))
        strata.append(subset.name)
        sizes.append(truth.shape[0])
        items.extend(subset.filenames)
        block.append(np.full(truth.shape, h))
    columns = dict((k, np.concatenate(v) if v else np.zeros(0)) for k, v in columns.items())
    top_metrics = [top_metric(k) for k in ks]
    scores = [("uar", METRICS["uar"].score(Ratio(("correct", "one")), ranked=True)),
              ("balanced_accuracy", METRICS["balanced_accuracy"].score(
                  Ratio(("correct_positive", "positive"), ("correct_negative", "negative")), ranked=True))]
    scores += [(name, metric.score(Ratio((name, "included")), ranked=column == 0, given="retrieved"))
               for column, (name, metric) in enumerate(zip(top, top_metrics))]
    rates = {"accuracy": ("correct", "one"), "precision": ("correct_positive", "predicted"),
             "recall": ("correct_positive", "positive"), "specificity": ("correct_negative", "negative")}
    for h, subset in enumerate(strata):
        prefix = subset_keys[subset] + "_"
        scores += [(prefix + name, METRICS[name].score(Ratio(rates[name]), stratum=h)) for name in RATES]
        scores += [(prefix + name, metric.score(Ratio((name, "included")), stratum=h, given="retrieved"))
                   for name, metric in zip(top, top_metrics)]
    return ItemView(strata, sizes, items, columns, scores, "uar",
                    reference_columns=["one", "label", "positive", "negative", "included"],
                    block=np.concatenate(block) if block else np.zeros(0), decision="predicted", truth="label",
                    unit="image", denominators=hit_denominators(top, ks, max(sizes) if sizes else 1))


def hit_denominators(top, ks, largest):
    """A bound on the denominators of each top-k column's hit values, where one below 2**24
    exists (compare.py then recovers them as exact fractions): a tied hit value is
    1 - C(t - m, r) / C(t, r), r <= k, t at most the other images of a subset."""
    bounds = {}
    for name, k in zip(top, ks):
        others, bound, choose = largest - 1, 1, 1
        for r in range(1, k + 1):
            choose = choose * (others - r + 1) // r if others >= r else 0
            bound = max(bound, choose)
        if bound < 2 ** 24:
            bounds[name] = bound
    return bounds


def read_predictions(submission, subsets, log):
    """Predicted labels per subset, aligned on the ground truth's image order."""
    per_subset_files = [s.name + "_labels.csv" for s in subsets]
    merged = submission.find("labels.csv")
    present = [found for found in (submission.find(name) for name in per_subset_files) if found is not None]
    if merged and present:
        raise SubmissionError("The submission holds both labels.csv and %s; keep one form: one "
                              "<Subset>_labels.csv per subset or a single labels.csv." % submission.name(present[0]))
    if merged:
        shown = submission.name(merged)
        submitted = reader.read_merged_labels(submission.path(merged), shown, subsets)
    else:
        found = matching.find_files(
            submission, per_subset_files, "one <Subset>_labels.csv per subset (%s) or one labels.csv"
            % names.shown_list(per_subset_files), claimed=expected_files(subsets, labels=False) + [
                f for f in submission.files() if f.lower().endswith(DOC_EXTENSIONS)  # the documentation
                and names.near_name(f, per_subset_files) is None])
        submitted = {}
        for subset, filename in zip(subsets, per_subset_files):
            submitted[subset.name] = reader.read_subset_labels(
                submission.path(found[filename]), submission.name(found[filename]), subset)
    predictions = {}
    for subset in subsets:
        listed, labels = submitted[subset.name]
        if merged:
            shown = "%s (subset %s)" % (submission.name(merged), subset.name)
        else:
            shown = submission.name(found[subset.name + "_labels.csv"])
        order = reader.match_names(listed, subset.filenames, shown, log)
        predictions[subset.name] = np.asarray(labels, dtype=np.int8)[order]
    return predictions


def expected_files(subsets, labels=True):
    """The names of the files a submission may hold for these subsets."""
    found = [s.name + "_distances" + ext for s in subsets for ext in (".npz", ".csv")]
    if labels:
        found += ["labels.csv"] + [s.name + "_labels.csv" for s in subsets]
    return found


def read_retrieval(submission, subset, ks, options, log, unclaimed):
    """Top-k hit values of the subset from its distance file (zeros if absent and optional).
    unclaimed: a names.NameIndex of the files that are no subset's (a near name refused)."""
    n = len(subset.filenames)
    empty = {"hits": np.zeros((n, len(ks))), "included": np.zeros(n, dtype=bool),
             "accuracy": [0.0] * len(ks), "source": None}
    stem = subset.name + "_distances"
    filename = matching.one_of(submission, [stem + ".npz", stem + ".csv"])
    if filename is None:
        required = options["distances"] == "required"
        guess = unclaimed.near(stem + ".npz", fuzzy=required) or unclaimed.near(stem + ".csv", fuzzy=required)
        if guess is not None:
            raise matching.did_you_mean(submission, stem + (".npz" if guess.lower().endswith(".npz") else ".csv"),
                                        guess)
        if required:
            raise matching.absent_file(submission, stem + ".csv", "the distance matrix %s.csv (or %s.npz) of "
                                       "subset %s" % (stem, stem, subset.name))
        log.info("No distances for subset %s: its top-k scores are 0." % subset.name)
        return empty
    shown = submission.name(filename)
    if filename.endswith(".npz"):
        listed, distances = reader.read_distances_npz(submission.path(filename), shown)
    else:
        listed, distances = reader.read_distances_csv(submission.path(filename), shown)
    repeat = names.first_repeat(listed)
    if repeat is not None:
        raise SubmissionError("%s names %s twice (rows %d and %d); each image once."
                              % (shown, listed[repeat[1]], repeat[0] + 1, repeat[1] + 1))
    order = reader.match_names(listed, subset.filenames, shown, log)
    if len(listed) > n:
        distances = distances[np.ix_(order, order)]
        labels = subset.labels
    else:
        labels = np.empty(n, dtype=np.int8)
        labels[order] = subset.labels
    if not reader.is_symmetric(distances):
        log.warn("%s is not symmetric; each row ranks the images for its own query." % shown)
    hits, included = topk_hits(distances, labels, ks)
    if len(listed) == n:
        hits, included = hits[order], included[order]
    return {"hits": hits, "included": included, "accuracy": list(topk_accuracy(hits, included)),
            "source": filename}


def find_documentation(submission, options, log):
    docs = [f for f in submission.files() if f.lower().endswith(DOC_EXTENSIONS)]
    if not docs:
        if options["documentation"] == "required":
            raise SubmissionError("The submission has no documentation; add a README.md, .txt or .pdf that "
                                  "describes which script features drive the distances and the classification.")
        log.warn("No documentation (README.md, .txt or .pdf) in the submission; the rules ask for one.")
    return docs


def describe(result, per_subset, ks, documentation, options):
    result.meaning = "The mean over subsets of the accuracy of the authentic/imitation labels."
    result.highlights = [("balanced accuracy", result.scores["balanced_accuracy"])]
    result.highlights += [("top-%d" % k, result.scores["top%d" % k]) for k in ks]
    result.highlights += [("%s accuracy" % subset.name, rates["accuracy"]) for subset, _, _, rates, _ in per_subset]
    overview = result.section("Summary")
    overview.add(Paragraph(
        "Ranking score uar: the mean over subsets of per-subset accuracy. "
        "balanced_accuracy: the mean over subsets of (recall + specificity) / 2. Imitation is the "
        "positive class. Top-k: for each image, whether an image of its own class is among its k "
        "nearest by the submitted distances (ties at the k-th place counted in expectation)."))
    overview.add(Paragraph(FP_FN_NOTE))
    overview.add(Paragraph("Documentation: %s." % (", ".join(documentation) if documentation else "none found")))
    top_columns = ["top%d" % k for k in ks]
    rows = []
    for subset, _, counts, rates, retrieval in per_subset:
        tp, fn, fp, tn = counts
        rows.append([subset.name, len(subset.filenames), tp, tn, fn, fp]
                    + [rates[m] for m in RATES] + list(retrieval["accuracy"]))
    overview.add(Table(
        ["subset", "images", "imitations detected", "authentic accepted", "imitations accepted as authentic",
         "authentic rejected as imitation"] + list(RATES) + top_columns, rows, "Per subset"))
    for subset, y_pred, counts, _, retrieval in per_subset:
        section = result.section("Subset %s" % subset.name)
        tp, fn, fp, tn = counts
        section.add(ConfusionMatrix("Confusion matrix of %s (%d images)" % (subset.name, len(subset.filenames)),
                                    [[tn, fp], [fn, tp]], ["authentic", "imitation"], ["authentic", "imitation"]))
        for name, reason in undefined_rates(*counts):
            section.add(Paragraph("%s is 0 because %s." % (name.capitalize(), reason)))
        if retrieval["source"] is None:
            section.add(Paragraph("No distance file was submitted for %s: its top-k scores are 0." % subset.name))
        else:
            left_out = int(np.count_nonzero(~retrieval["included"]))
            section.add(Paragraph("Top-k from %s over %d images%s." % (
                retrieval["source"], int(np.count_nonzero(retrieval["included"])),
                (" (%d left out: their class has no other image in the subset)" % left_out) if left_out else "")))
        table = per_image_table(subset, y_pred, retrieval, ks)
        result.private.append(("authentication/%s_images.csv" % subset.name, table))
        if options["public_details"]:
            section.add(Table(["filename", "true", "predicted"] + top_columns,
                              [[f, int(t), int(p)] + list(h) for f, t, p, h in
                               zip(subset.filenames, subset.labels, y_pred, retrieval["hits"].tolist())],
                              "Per image (made public by the organizers)"))


def unlabeled_files(track):
    """compare.py's hook: {subset csv: filenames} for subset files of ref/ that list images
    with no `label` column, or only empty labels (a test set without its truth)."""
    files = {}
    for name in sorted(os.listdir(track.path)):
        if name.lower().endswith(".csv"):
            filenames = _unlabeled_csv(os.path.join(track.path, name), track.ref_name(name))
            if filenames is not None:
                files[name] = filenames
    return files


def _unlabeled_csv(path, shown):
    lines = decode_lines(read_bytes(path, shown, ReferenceDataError), shown, ReferenceDataError)
    if not lines:
        return None
    rows = list(csv.reader(lines))
    header = [c.strip().lower() for c in rows[0]]
    if "filename" not in header:
        return None
    column = header.index("label") if "label" in header else None
    if column is None or all(len(row) > column and not row[column].strip() for row in rows[1:] if row):
        return [row[header.index("filename")] for row in rows[1:] if row]
    return None


def write_placeholder_labels(track_dir, files):
    """compare.py's hook: rewrite the unlabeled subset files of a copy of ref/ with label 0."""
    for name, filenames in files.items():
        with open(os.path.join(track_dir, name), "w", encoding="utf-8") as stream:
            stream.write(csv_data(["filename", "label"], [[f, 0] for f in filenames]))


def per_image_table(subset, y_pred, retrieval, ks):
    shown = {}  # hit values repeat (0, 1 and a few tie probabilities): format each once
    for h in set(retrieval["hits"].ravel().tolist()):  # numpy.unique of floats would import numpy.ma
        shown[h] = "%.10g" % h
    left_out = [""] * len(ks)
    rows = [[filename, true, predicted, int(true == predicted)] + ([shown[h] for h in hits] if included else left_out)
            for filename, true, predicted, hits, included in zip(
                subset.filenames, np.asarray(subset.labels).tolist(), np.asarray(y_pred).tolist(),
                retrieval["hits"].tolist(), retrieval["included"].tolist())]
    return csv_bytes(["filename", "true", "predicted", "correct"] + ["top%d" % k for k in ks], rows)


# ---------------------------------------------------------------- the public items (public.py)


def public_items(track):
    """The image names of each subset."""
    return {"subsets": [{"name": subset.name, "images": list(subset.filenames)}
                        for subset in reader.read_ground_truth(track)]}


REFERENCE = "one <Subset>.csv of filename,label rows per subset, at the top of the track's folder"


def reference_files(track):
    """The files of the track's folder that the reader reads (layout.refuse_unread)."""
    return reader.subset_files(track.path)


def stand_in_reference(items, directory):

    for subset in items["subsets"]:
        rows = [[name, i % 2] for i, name in enumerate(subset["images"])]
        write_text(os.path.join(directory, subset["name"] + ".csv"), csv_data(["filename", "label"], rows))


def dummy_submission(items, directory):

    for subset in items["subsets"]:
        names = subset["images"]
        write_text(os.path.join(directory, subset["name"] + "_labels.csv"),
                   csv_data(["filename", "label"], [[name, 0] for name in names]))
        np.savez_compressed(os.path.join(directory, subset["name"] + "_distances.npz"),
                            names=np.array(names), distances=np.ones((len(names), len(names)), dtype=np.float32))
    write_text(os.path.join(directory, "README.md"),
               "A dummy submission: every image authentic, every distance 1. Replace these files by yours.\n")


def sample_reference(directory):
    """A small made-up reference (tests/test_every_kind.py): two subsets of six images, one
    named in Arabic, three of each class."""

    for s, subset in enumerate(("\u0627\u0628\u0646 \u0645\u0642\u0644\u0629", "S\u00e9vign\u00e9")):
        rows = [["page_%d_%02d.png" % (s, i), i % 2] for i in range(6)]
        write_text(os.path.join(directory, subset + ".csv"), csv_data(["filename", "label"], rows))


def reference_as_submission(track, options, directory):
    """The submission that repeats the reference: its labels, and distances 0 within a class
    and 1 across (tests/test_every_kind.py: it gets the best value of every score)."""

    for subset in reader.read_ground_truth(track):
        rows = list(zip(subset.filenames, subset.labels.tolist()))
        write_text(os.path.join(directory, subset.name + "_labels.csv"),
                   csv_data(["filename", "label"], [[name, label] for name, label in rows]))
        distances = [[name] + [int(label != other) for _, other in rows] for name, label in rows]
        write_text(os.path.join(directory, subset.name + "_distances.csv"),
                   csv_data([""] + [name for name, _ in rows], distances))
    write_text(os.path.join(directory, "README.md"), "The reference's own labels.\n")


# ---------------------------------------------------------------- hints (hints.py)

FILES = "labels and distances per subset"


def looks_like(rel, path):
    name = rel.split("/")[-1].lower()
    return name == "labels.csv" or name.endswith(("_labels.csv", "_distances.csv", "_distances.npz"))


# ---------------------------------------------------------------- pages and manual (tools/markup.py's format)

LABEL = "Handwriting authentication"

TASK = ("Handwriting authentication: for every image of a subset (one writer or one script), tell whether it is "
        "authentic or an imitation, and give distances between the images of the subset so that images of the "
        "same class are near each other.")


def submission_format(options):
    return (
        "Per subset `<Subset>` of the test set, at the top level of the zip:\n\n"
        "- `<Subset>_labels.csv`: a header line `filename,label`, then one line per image; the label is "
        "`0`/`1`, `authentic`/`imitation` or `<Subset>`/`not-<Subset>` (0 and `<Subset>` mean authentic). One "
        "merged `labels.csv` with the columns `filename,label,subset` is accepted instead (the `subset` column "
        "may be left out where the label or the file name tells the subset).\n"
        "- `<Subset>_distances.csv`: a square matrix of distances between the images of the subset, top-left "
        "cell empty, a header row of file names, then one row per image starting with its name; or "
        "`<Subset>_distances.npz` with the arrays `names` and `distances` (`numpy.savez`), smaller and faster "
        "for large subsets. Every distance a number, `inf` for the farthest (`NaN` is refused). %s\n"
        "- a `README.md`, `.txt` or `.pdf` describing your method (%s).\n\n"
        "Names must match the test set's exactly; where one does not, it is matched on the name without its "
        "extension if that is unambiguous, and the log says so. Images not in the test set are ignored with a "
        "warning; an asymmetric matrix is accepted with a warning (each row ranks for its own image).\n"
        % ("Required." if options["distances"] == "required" else "Optional: without it, the subset's top-k is 0.",
           "required" if options["documentation"] == "required" else "optional"))


def example(items, options):
    """(submission files, reference files holding the same items, None): {path: text}."""
    subset = items["subsets"][0]
    name = subset["name"]
    a, b = (subset["images"] + subset["images"])[:2] if len(subset["images"]) < 2 else subset["images"][:2]
    res = {"%s_labels.csv" % name: csv_data(["filename", "label"], [[a, 0], [b, 1]])}
    if options["distances"] == "required":
        res["%s_distances.csv" % name] = csv_data(["", a, b], [[a, 0, 0.42], [b, 0.42, 0]])
    if options["documentation"] == "required":
        res["README.md"] = "Features: slant, stroke width and letter spacing.\n"
    ref = {"%s.csv" % name: csv_data(["filename", "label"], [[a, 0], [b, 1]])}
    return res, ref, None


def metrics_text(options):
    ks = ", ".join("`top%d`" % k for k in options["k"])
    return (
        "Per subset, with imitation as the positive class: accuracy, precision, recall and specificity of the "
        "labels (a ratio whose denominator is 0 is 0, and the detailed results say why). The ranking score "
        "`uar` is the mean over subsets of the accuracy; `balanced_accuracy` the mean over subsets of (recall + "
        "specificity) / 2. %s: for each image, the others of its subset ranked by your distances (its own row; "
        "itself left out); a hit if an image of its class is among the k nearest, ties at the k-th place "
        "counted in expectation; images whose class has no other image in the subset are left out; the mean "
        "over images, then over subsets. Every score: higher is better, from 0 to 1.\n" % ks)


def privacy(options):
    detail = "the per-image table (truth, prediction, top-k hits)"
    return ("After each submission you see your scores and a detailed results page: per subset the counts, "
            "rates and a confusion matrix, and every warning. %s\n"
            % ("It also shows %s." % detail if options["public_details"] else
               "The per-image table (truth, prediction, top-k hits) stays private to the organizers: showing it "
               "would reveal the ground truth."))


def count_items(items):
    images = sum(len(s["images"]) for s in items["subsets"])
    return "%d image%s in %d subset%s (%s)" % (images, "" if images == 1 else "s", len(items["subsets"]),
                                               "" if len(items["subsets"]) == 1 else "s",
                                               ", ".join(s["name"] for s in items["subsets"]))


#: The sentences of a refusal (exit status 1), {name} standing for what varies. Each is
#: (problem, sentence, when it can happen: None always, else a test of the options).
ERRORS = [
    ("no label file", "The submission has no {labels}{more}; expected one <Subset>_labels.csv per subset "
                      "({all_labels}) or one labels.csv{hint}.", None),
    ("both label forms", "The submission holds both labels.csv and {labels}; keep one form: one "
                         "<Subset>_labels.csv per subset or a single labels.csv.", None),
    ("a bad label", "{labels} line {line} has the label '{value}'; expected 0/1, authentic/imitation or "
                    "{subset}/not-{subset}.", None),
    ("images missing", "{labels} lacks {missing} of the {count} images of the ground truth, e.g. {image}; every "
                       "image must be listed.", None),
    ("a name listed twice", "{file} line {repeat_line} repeats the image {image_any} (first on line {first_on_line}); "
                            "list each image once.", None),
    ("merged labels: an unknown subset", "labels.csv line {line} names the subset '{value}'; expected one of "
                                         "{subsets}.", None),
    ("merged labels: a subset named almost so", "labels.csv line {line} names the subset '{subset_near}'; the test "
                                                "set has {subset}, a name close to it: write it {subset}.", None),
    ("merged labels: subset and label disagree", "labels.csv line {line} says subset {subset} but the label "
                                                 "'not-{subset2}' names {subset2}; make them agree.", None),
    ("merged labels: no subset", "labels.csv line {line}: the subset of {image} cannot be told from its name or "
                                 "its label '{value}'; add a subset column or use labels like "
                                 "<Subset>/not-<Subset> (e.g. {subset}/not-{subset}).", None),
    ("merged labels: a bad label", "labels.csv line {line} has the label '{value}' for subset {subset}; expected "
                                   "0/1, authentic/imitation or {subset}/not-{subset}.", None),
    ("no distance file", "The submission has no {distances}; expected the distance matrix {distances} (or {npz}) "
                         "of subset {subset}{hint}.", lambda options: options["distances"] == "required"),
    ("both distance forms", "The submission holds both {npz} and {distances}; keep one.", None),
    ("an empty matrix", "{distances} is empty; expected a header row of file names.", None),
    ("no header row", "{distances} line 1 should be the header ',name1,name2,...' (found '{found}'); separate "
                      "the cells with commas.", None),
    ("a header of numbers", "{distances} line 1 holds numbers; expected a header row of file names (top-left "
                            "cell empty).", None),
    ("a matrix too large", "{distances} is a {big} x {big} matrix that needs {needed} GB of memory but the scoring "
                           "machine has {free} GB free; submit it as {npz} with float32 distances, or check its "
                           "size.", None),
    ("not a matrix", "{distances} is not a {count} x {count} labeled matrix; expected a header row and one row per "
                     "image.", None),
    ("rows and columns in another order", "{distances} line {line} is named {image2} but column {column} is "
                                          "{image}; rows and columns must list the same names in the same order.",
     None),
    ("a row without commas", "{distances} line {line} has no comma; expected 'name,d1,...,d{count}'.", None),
    ("a quoted name not followed by a comma", "{distances} line {line}: the image name in quotes is not followed by "
                                              "a comma; expected 'name,d1,...,d{count}' (a quoted name ends with a "
                                              "quote just before its comma, and a quote inside it is written \"\").",
     None),
    ("a row of another length", "{distances} line {line} has {fields} distances; expected {count}, one per column "
                                "of the header.", None),
    ("a cell that is no number", "{distances} line {line}, column {column} holds '{value}'; expected a number.",
     None),
    ("a decimal comma", "{distances} line {line}, column {column} holds '0,5'; expected a number with a dot for "
                        "decimals, e.g. 0.5.", None),
    ("rows missing", "{distances} has {rows} rows of distances for {count} columns; expected a square matrix.",
     None),
    ("NaN", "{distances} line {line}, column {column} ({image} to {image2}) is nan; every distance must be a "
            "number (inf for the farthest).", None),
    ("an image twice in a matrix", "{distances} names {image} twice (rows {first} and {line}); each image once.",
     None),
    ("not square", "{distances}: the distance matrix is {count} x {fields}; expected a square {count} x {count} "
                   "matrix.", None),
    ("names and rows differ", "{npz} has {fields} names for a {count} x {count} matrix; expected one name per row.",
     None),
    (".npz: not an archive", "{npz} is not a readable .npz archive; save it with numpy.savez(names=..., "
                             "distances=...).", None),
    (".npz: arrays missing", "{npz} holds the arrays a, b; expected 'names' and 'distances'.", None),
    (".npz: names not strings", "{npz}: 'names' must be a 1-D array of strings (found float64 of shape "
                                "({count},)).", None),
    (".npz: names too large", "{npz}: 'names' declares {big} strings of {bytes} bytes, more than the memory the "
                              "scoring machine has; check the array.", None),
    (".npz: distances not numbers", "{npz}: 'distances' must hold numbers (found <U8).", None),
    (".npz: too large to decode", "{npz}: decoding its arrays needs more memory than the scoring machine has.",
     None),
    (".npz: objects", "{npz} holds object arrays; save names as strings and distances as floats (pickled objects "
                      "are refused).", None),
    (".npz: an unreadable array", "{npz}: the array 'distances' cannot be read ({reason}); save it with "
                                  "numpy.savez.", None),
    (".npz: a damaged archive", "{npz}: an array cannot be read ('distances': {reason}); save it again with "
                                "numpy.savez.", None),
    (".npz: another compression", "{npz}: the array 'distances' is compressed with method 12; save it with "
                                  "numpy.savez or numpy.savez_compressed.", None),
    (".npz: not a .npy array", "{npz}: the array 'distances' is not a .npy array of format 1 or 2; save it with "
                               "numpy.savez.", None),
    (".npz: a header too long", "{npz}: the array 'distances' declares a header of 65535 bytes; a .npy header is "
                                "at most 10000.", None),
    (".npz: an unreadable header", "{npz}: the header of the array 'distances' cannot be read (expected a "
                                   "dictionary like {{'descr': '<f8', 'fortran_order': False, 'shape': (3, 3)}}); "
                                   "save it with numpy.savez.", None),
    (".npz: data missing", "{npz}: the array 'distances' declares {count} x {count} values ({bytes} bytes) but the "
                           "archive holds {held} bytes ({held_compressed} compressed) for it; save it again with "
                           "numpy.savez.", None),
    (".npz: NaN", "{npz} distances[{row}, {column}] ({image} to {image2}) is nan; every distance must be a number "
                  "(inf for the farthest).", None),
    (".npz: an integer beyond 2^53", "{npz} distances[{row}, {column}] ({image} to {image2}) is the integer {huge}, "
                                     "beyond 2^53 = 9007199254740992, where integers stop being exact as float64 "
                                     "(neighbouring integers become equal); scale the distances down or save them as "
                                     "floats.", None),
    ("no documentation", "The submission has no documentation; add a README.md, .txt or .pdf that describes which "
                         "script features drive the distances and the classification.",
     lambda options: options["documentation"] == "required"),
]

ERRORS += text.TEXT_ERRORS + text.CSV_ERRORS  # the CSV files' own sentences ({file}: a label file)
errors = refusals(ERRORS)


def _of_kind(res, suffix):
    """The files of a submission folder (its dummy submission's) ending with suffix, sorted."""
    return sorted(os.path.join(res, name) for name in os.listdir(res) if name.endswith(suffix))


def _label_rows(change):
    """A mistake of the manual (tools/mistakes.py): the first labels file's rows (after its
    header) changed by change(rows of [filename, label]) -> rows."""
    def mistake(res, kind=None):
        path = _of_kind(res, "_labels.csv")[0]
        with open(path, encoding="utf-8", newline="") as stream:
            rows = list(csv.reader(stream))
        if len(rows) < 3:
            return False
        with open(path, "w", encoding="utf-8", newline="") as stream:
            csv.writer(stream, lineterminator="\n").writerows(rows[:1] + change(rows[1:]))
        return True
    return mistake


def _merged_too(res, kind=None):
    with open(_of_kind(res, "_labels.csv")[0], "rb") as source, open(os.path.join(res, "labels.csv"), "wb") as copy:
        copy.write(source.read())


def _remove_all(suffix, count=None):
    def mistake(res, kind=None):
        for path in _of_kind(res, suffix)[:count]:
            os.remove(path)
    return mistake


def _merged(change):
    """A mistake: the subsets' label files merged into labels.csv with a subset column, its
    rows of [filename, label, subset] changed by change(rows, the subsets' names)."""
    def mistake(res, kind=None):
        rows, subsets = [], []
        for path in _of_kind(res, "_labels.csv"):
            subsets.append(os.path.basename(path)[:-len("_labels.csv")])
            with open(path, encoding="utf-8", newline="") as stream:
                rows += [row + [subsets[-1]] for row in list(csv.reader(stream))[1:]]
            os.remove(path)
        rows = change(rows, subsets)
        if rows is None:
            return False
        with open(os.path.join(res, "labels.csv"), "w", encoding="utf-8", newline="") as stream:
            header = ["filename", "label", "subset"][:len(rows[0])]  # no subset column: rows of two
            csv.writer(stream, lineterminator="\n").writerows([header] + rows)
        return True
    return mistake


def _first_row(change):
    """change(the first row, the subsets' names) -> that row, the others kept."""
    return lambda rows, subsets: [change(rows[0], subsets)] + rows[1:]


def _npz_arrays(change):
    """A mistake: the first subset's .npz rewritten (stored, as numpy.savez writes it) with
    the arrays change(names, distances) -> {array name: array}."""
    def mistake(res, kind=None):
        path = _of_kind(res, "_distances.npz")[0]
        with np.load(path) as archive:
            names, distances = archive["names"], archive["distances"]
        if len(names) < 3:
            return False
        np.savez(path, **change(names, distances.astype(np.float64)))
        return True
    return mistake


def _npz_member(data, key="distances", method=0):
    """A mistake: the first subset's .npz holding its names and distances, the array key
    (a member key.npy) replaced by the bytes data(count of names), compressed by the zip
    method (0: stored)."""
    def mistake(res, kind=None):
        import zipfile

        path = _of_kind(res, "_distances.npz")[0]
        with np.load(path) as archive:
            arrays = {"names": archive["names"], "distances": archive["distances"]}
        count = len(arrays.pop(key if key == "names" else "distances"))
        np.savez(path, **arrays)
        with zipfile.ZipFile(path, "a") as archive:
            archive.writestr(zipfile.ZipInfo(key + ".npy"), data(count), compress_type=method)
        return True
    return mistake


def _npz_damaged(short):
    """A mistake: the first subset's .npz with its distances.npy damaged in the zip: its local
    header's signature changed (not short), or (short) deflated 16 bytes short of the array
    its .npy header declares while the zip's directory declares the whole array's size."""
    def mistake(res, kind=None):
        import struct
        import zipfile

        path = _of_kind(res, "_distances.npz")[0]
        with np.load(path) as archive:
            names, distances = archive["names"], archive["distances"].astype(np.float64)
        stream = io.BytesIO()
        np.save(stream, distances)
        whole = stream.getvalue()
        np.savez(path, names=names)
        with zipfile.ZipFile(path, "a") as archive:
            archive.writestr("distances.npy", whole[:-16] if short else whole,
                             compress_type=zipfile.ZIP_DEFLATED if short else zipfile.ZIP_STORED)
        with zipfile.ZipFile(path) as archive:
            offset = archive.getinfo("distances.npy").header_offset
        with open(path, "rb") as stream:
            data = bytearray(stream.read())
        if short:  # the uncompressed size, in the local header and in the central directory's entry
            central = data.rindex(b"PK\x01\x02", 0, data.rindex(b"distances.npy"))
            data[offset + 22:offset + 26] = data[central + 24:central + 28] = struct.pack("<I", len(whole))
        else:
            data[offset + 2:offset + 4] = b"\0\0"
        with open(path, "wb") as stream:
            stream.write(data)
        return True
    return mistake


def _npy(header, body=b""):
    """The bytes of a .npy array of format 1 with this header (a dict's text)."""
    text = header.encode("latin1")
    return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text + body


def _changed(distances, row, column, value):
    distances = distances.copy()
    distances[row, column] = value
    return distances


def _matrix_csv(change, keep=False, quoted_name_then=None):
    """A mistake: the first subset's distances as <Subset>_distances.csv in place of its .npz
    (beside it: keep), its rows (a header, then one a name) changed by change(rows) -> rows;
    quoted_name_then: the second row's name written in quotes with this text after them."""
    def mistake(res, kind=None):
        path = _of_kind(res, "_distances.npz")[0]
        with np.load(path) as archive:
            names, distances = archive["names"].tolist(), archive["distances"]
        if len(names) < 3:
            return False
        if not keep:
            os.remove(path)
        rows = [[""] + names] + [[name] + ["%g" % d for d in row] for name, row in zip(names, distances)]
        rows = change(rows)
        with open(path[:-len(".npz")] + ".csv", "w", encoding="utf-8", newline="") as stream:
            writer = csv.writer(stream, lineterminator="\n")
            writer.writerows(rows[:2])
            if quoted_name_then is not None:
                stream.write('"%s"%s,%s\n' % (rows[2][0].replace('"', '""'), quoted_name_then, ",".join(rows[2][1:])))
                rows = rows[:2] + rows[3:]
            writer.writerows(rows[2:])
        return True
    return mistake


def _cell(line, column, value):
    """change(rows): the cell (line, column) of the CSV (both counted from 1) set to value."""
    def change(rows):
        rows[line - 1][column - 1] = value
        return rows
    return change


def _decoded_too_large(res, kind=None):
    """The first subset's .npz declaring a 2,800 x 2,800 matrix of zeros, compressed: 63 MB
    decoded, scored with a headroom of 24 MB of address space (tools/mistakes.py)."""
    path = _of_kind(res, "_distances.npz")[0]
    names = np.array(["image_%04d.jpg" % i for i in range(2800)])
    np.savez_compressed(path, names=names, distances=np.zeros((2800, 2800)))
    return True


_decoded_too_large.headroom = 24 << 20
#: A header of 200,000 names (a 320 GB matrix), scored with 1.05 GB of address space left: the
#: sentence says 1.0 GB free wherever the build runs.
_header_too_large = _matrix_csv(lambda rows: [[""] + ["image_%06d.jpg" % i for i in range(200000)]] + rows[1:])
_header_too_large.headroom = 1050 * 10 ** 6


#: The mistakes that make the rows of ERRORS in the kit's manual (tools/mistakes.py); one
#: with a headroom is scored with that much address space left.
MISTAKES = {
    "a matrix too large": _header_too_large,
    "not a matrix": _matrix_csv(lambda rows: rows[:2] + [["\u00a0"]] + rows[2:]),
    ".npz: too large to decode": _decoded_too_large,
    "no label file": _remove_all("_labels.csv"),
    "both label forms": _merged_too,
    "a bad label": _label_rows(lambda rows: [rows[0], [rows[1][0], "maybe"]] + rows[2:]),
    "images missing": _label_rows(lambda rows: rows[:1] + rows[2:]),
    "merged labels: an unknown subset": _merged(_first_row(lambda row, subsets: row[:2] + ["Other"])),
    "merged labels: a subset named almost so": _merged(_first_row(lambda row, subsets: row[:2] + [subsets[0][:-1]])),
    "merged labels: subset and label disagree": _merged(lambda rows, subsets: None if len(subsets) < 2 else [
        rows[0][:1] + ["not-" + subsets[-1], subsets[0]]] + rows[1:]),
    "merged labels: no subset": _merged(lambda rows, subsets: [
        ["unknown_" + rows[0][0], rows[0][1]]] + [row[:2] for row in rows[1:]]),
    "merged labels: a bad label": _merged(_first_row(lambda row, subsets: [row[0], "maybe", row[2]])),
    "no distance file": _remove_all("_distances.npz", 1),
    "both distance forms": _matrix_csv(lambda rows: rows, keep=True),
    "an empty matrix": _matrix_csv(lambda rows: []),
    "no header row": _matrix_csv(lambda rows: [[";".join(rows[0])]] + rows[1:]),
    "a header of numbers": _matrix_csv(lambda rows: [[""] + [str(i) for i in range(1, len(rows))]] + rows[1:]),
    "rows and columns in another order": _matrix_csv(lambda rows: rows[:1] + [rows[2], rows[1]] + rows[3:]),
    "a row without commas": _matrix_csv(lambda rows: rows[:2] + [rows[2][:1]] + rows[3:]),
    "a quoted name not followed by a comma": _matrix_csv(lambda rows: rows, quoted_name_then="x"),
    "a row of another length": _matrix_csv(lambda rows: rows[:2] + [rows[2] + ["1"]] + rows[3:]),
    "a cell that is no number": _matrix_csv(_cell(3, 4, "far")),
    "a decimal comma": _matrix_csv(_cell(3, 4, "0,5")),
    "rows missing": _matrix_csv(lambda rows: rows[:-1]),
    "NaN": _matrix_csv(_cell(3, 4, "nan")),
    "an image twice in a matrix": _npz_arrays(lambda names, distances: {
        "names": np.concatenate((names[:2], names[:1], names[3:])), "distances": distances}),
    "not square": _npz_arrays(lambda names, distances: {"names": names, "distances": distances[:, :-1]}),
    "names and rows differ": _npz_arrays(lambda names, distances: {"names": names[:-1], "distances": distances}),
    ".npz: not an archive": lambda res, kind=None: _write(_of_kind(res, "_distances.npz")[0], b"1 1 1\n"),
    ".npz: arrays missing": _npz_arrays(lambda names, distances: {"a": names, "b": distances}),
    ".npz: names not strings": _npz_arrays(lambda names, distances: {
        "names": np.arange(len(names), dtype=np.float64), "distances": distances}),
    ".npz: names too large": _npz_member(lambda n: _npy("{'descr': '<U8', 'fortran_order': False, 'shape': "
                                                        "(1000000000000,), }"), key="names"),
    ".npz: distances not numbers": _npz_arrays(lambda names, distances: {
        "names": names, "distances": distances.astype("<U8")}),
    ".npz: objects": _npz_member(lambda n: _npy("{'descr': '|O', 'fortran_order': False, 'shape': (%d, %d), }"
                                                % (n, n))),
    ".npz: an unreadable array": _npz_damaged(short=True),
    ".npz: a damaged archive": _npz_damaged(short=False),
    ".npz: another compression": _npz_member(lambda n: _npy("{'descr': '<f8', 'fortran_order': False, 'shape': "
                                                            "(%d, %d), }" % (n, n), b"\\0" * 8 * n * n), method=12),
    ".npz: not a .npy array": _npz_member(lambda n: b"1 1 1\n"),
    ".npz: a header too long": _npz_member(lambda n: b"\x93NUMPY\x01\x00\xff\xff"),
    ".npz: an unreadable header": _npz_member(lambda n: _npy("{'descr': '<f8', 'shape': ((((")),
    ".npz: data missing": _npz_member(lambda n: _npy("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }"
                                                     % (n, n), b"\0" * 8)),
    ".npz: NaN": _npz_arrays(lambda names, distances: {"names": names, "distances": _changed(distances, 1, 2,
                                                                                             np.nan)}),
    ".npz: an integer beyond 2^53": _npz_arrays(lambda names, distances: {
        "names": names, "distances": _changed(distances.astype(np.int64), 1, 2, 2 ** 53 + 1)}),
}


def _write(path, data):
    with open(path, "wb") as stream:
        stream.write(data)


def error_values(items):
    """Example values for ERRORS' {names}, from the phase's own subsets and images."""
    subsets = items["subsets"]
    first = subsets[0]
    images = (first["images"] + ["image.png", "image2.png"])[:2]
    labels = first["name"] + "_labels.csv"
    return {
        "subset": first["name"], "subset_near": first["name"][:-1] + "_",
        "subset2": subsets[-1]["name"], "subsets": ", ".join(s["name"] for s in subsets),
        "labels": labels, "file": labels,
        "all_labels": ", ".join(s["name"] + "_labels.csv" for s in subsets),
        "distances": first["name"] + "_distances.csv", "npz": first["name"] + "_distances.npz",
        "image": images[0], "image2": images[1], "count": len(first["images"]), "missing": 1, "line": 3, "first": 2,
        "column": 4, "row": 2, "fields": 3, "field_count": "3 fields", "rows": 2, "value": "maybe",
        "found": "%s;%s" % tuple(images), "line_one_text": images[0] + ",0", "separator": "semicolons",
        "columns": "filename,label", "image_any": images[0], "repeat_line": 3, "first_on_line": 2,
        "column_list": "filename, label, subset", "count_columns": 2, "big": 200000, "needed": "320.0",
        "free": "7.5", "bytes": 8 * len(first["images"]) ** 2, "held": 128, "held_compressed": 100,
        "huge": "9007199254740993",
        "reason": "Bad CRC-32 for file 'distances.npy'", "hint": "",
        "more": "" if len(subsets) < 2 else " (both are missing)" if len(subsets) == 2 else
        " (all %d are missing)" % len(subsets)}
