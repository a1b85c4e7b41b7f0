"""Track `authentication` (ICDAR 2026 FalsID): authentic vs. imitation, per subset.

Glue: reader -> confusion counts and top-k kernels -> mean over subsets -> result.
SPEC section 3; seeds/authentication-track-evaluation.txt.
"""

import csv
import io
import os

import numpy as np

from .. import matching, names
from .. import options as opt
from ..errors import ReferenceDataError, SubmissionError
from ..itemview import ItemView, Ratio, Score, leaderboard
from ..metrics.classification import binary_rates, confusion_counts, undefined_rates
from ..metrics.retrieval import topk_accuracy, topk_hits
from ..readers import authentication as reader
from ..readers.text import decode_lines, read_bytes
from ..result import ConfusionMatrix, Paragraph, Table, TrackResult

TITLE = "Authentication (FalsID)"

OPTIONS = {
    "distances": ("required", opt.choice("required", "optional")),
    "k": ([1, 3, 5], opt.positive_int_list()),
    "documentation": ("optional", opt.choice("optional", "required")),
    "public_details": (False, opt.boolean()),
}

RATES = ("accuracy", "precision", "recall", "specificity")
DOC_EXTENSIONS = (".md", ".txt", ".pdf")

FP_FN_NOTE = (
    "About the names of the errors: the competition text calls 'FP' an imitation accepted as "
    "authentic and 'FN' an authentic image rejected as imitation (the forensic viewpoint). With "
    "imitation as the positive class, as used for precision and recall here, the standard names "
    "are the other way round. The tables therefore name the two errors in words."
)


def keys(track, options):
    """Leaderboard keys: uar first, then balanced accuracy, top-k, per-subset rates."""
    ks = ["top%d" % k for k in options["k"]]
    subsets = subset_keys(track, reader.subset_names(track.path))
    per_subset = [names.Key(key + "_" + m, name, "subset") for name, key in subsets.items() for m in list(RATES) + ks]
    return ["uar", "balanced_accuracy"] + ks + per_subset


def subset_keys(track, subset_names):
    """{subset name: its key}, two subsets giving one key refused naming both files."""
    return names.name_keys(subset_names, "subset", lambda name: track.ref_name(name + ".csv"))


def score(track, submission, options, log):
    subsets = reader.read_ground_truth(track)
    predictions = read_predictions(submission, subsets, log)
    documentation = find_documentation(submission, options, log)
    ks = options["k"]
    result = TrackResult("authentication", TITLE)
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
    """Images within subsets; resampled within (subset, true class). Every key of keys()
    is a Ratio of summed per-image terms: uar the mean over subsets of correct / images,
    balanced_accuracy of (correct imitations / imitations + correct authentic / authentic) / 2,
    top-k of hit values over the included images; per subset its rates and top-k."""
    columns = dict((name, []) for name in ("one", "label", "predicted", "correct", "positive", "negative",
                                           "correct_positive", "correct_negative", "included"))
    top = ["top%d" % k for k in ks]
    for name in top:
        columns[name] = []
    items, sizes, strata, block = [], [], [], []
    for h, (subset, y_pred, _, _, retrieval) in enumerate(per_subset):
        truth = np.asarray(subset.labels) == 1
        predicted = np.asarray(y_pred) == 1
        correct = truth == predicted
        included = np.asarray(retrieval["included"], dtype=bool)
        for name, values in (("one", np.ones(truth.shape)), ("label", truth), ("predicted", predicted),
                             ("correct", correct), ("positive", truth), ("negative", ~truth),
                             ("correct_positive", correct & truth), ("correct_negative", correct & ~truth),
                             ("included", included)):
            columns[name].append(np.asarray(values, dtype=np.float64))
        for column, name in enumerate(top):
            columns[name].append(np.where(included, retrieval["hits"][:, column], 0.0))
        strata.append(subset.name)
        sizes.append(truth.shape[0])
        items.extend(subset.filenames)
        block.append(2 * h + truth)
    columns = dict((k, np.concatenate(v) if v else np.zeros(0)) for k, v in columns.items())
    scores = [("uar", Score(Ratio(("correct", "one")), ranked=True)),
              ("balanced_accuracy", Score(Ratio(("correct_positive", "positive"), ("correct_negative", "negative")),
                                          ranked=True))]
    scores += [(name, Score(Ratio((name, "included")), ranked=column == 0)) for column, name in enumerate(top)]
    rates = {"accuracy": ("correct", "one"), "precision": ("correct_positive", "predicted"),
             "recall": ("correct_positive", "positive"), "specificity": ("correct_negative", "negative")}
    for h, subset in enumerate(strata):
        prefix = subset_keys[subset] + "_"
        scores += [(prefix + name, Score(Ratio(rates[name]), stratum=h)) for name in RATES]
        scores += [(prefix + name, Score(Ratio((name, "included")), stratum=h)) for name in top]
    return ItemView(strata, sizes, items, columns, scores, "uar",
                    reference_columns=["one", "label", "positive", "negative", "included"],
                    block=np.concatenate(block) if block else np.zeros(0), decision="predicted", truth="label",
                    unit="image")


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
            % names.shown_list(per_subset_files), claimed=expected_files(subsets, labels=False))
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
        "Ranking score uar: the mean over subsets of per-subset accuracy (the competition's formula). "
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
                              "Per image (public_details: true)"))


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
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["filename", "label"])
        writer.writerows([f, 0] for f in filenames)
        with open(os.path.join(track_dir, name), "w", encoding="utf-8") as stream:
            stream.write(out.getvalue())


def per_image_table(subset, y_pred, retrieval, ks):
    lines = ["filename,true,predicted,correct,%s\n" % ",".join("top%d" % k for k in ks)]
    shown = {}  # hit values repeat (0, 1 and a few tie probabilities): format each once
    for h in set(retrieval["hits"].ravel().tolist()):  # numpy.unique of floats would import numpy.ma (50 ms)
        shown[h] = "%.10g" % h
    left_out = "," * (len(ks) - 1)
    for filename, true, predicted, hits, included in zip(
            subset.filenames, np.asarray(subset.labels).tolist(), np.asarray(y_pred).tolist(),
            retrieval["hits"].tolist(), retrieval["included"].tolist()):
        lines.append("%s,%d,%d,%d,%s\n" % (_csv_cell(filename), true, predicted, int(true == predicted),
                                            ",".join([shown[h] for h in hits]) if included else left_out))
    return "".join(lines).encode("utf-8")


def _csv_cell(text):
    if any(c in text for c in ',"\n'):
        return '"' + text.replace('"', '""') + '"'
    return text
