"""The statistics of one track over all submissions, from their TrackViews."""

from collections import OrderedDict

import numpy as np

from ..metrics import agreement, pseudo, significance
from . import bootstrap


class TrackAnalysis(object):
    """Everything the report shows for one track (plain arrays and tables)."""

    def __init__(self, kind, names):
        self.kind = kind
        self.names = list(names)
        self.notes = []


def analyse(kind, names, views, resamples=bootstrap.DEFAULT_RESAMPLES, seed=bootstrap.DEFAULT_SEED,
            ground_truth=True, reference=None, binary_override=None):
    """Confidence, significance, ground-truth-free ranking and protocol agreement.

    views: one adapters.TrackView per submission (same items in the same order);
    binary_override: (predictions matrix or sufficient statistics) for the ground-truth-free
    part when the binary decisions are not per-item vectors of the views (line pixels).
    """
    a = TrackAnalysis(kind, names)
    first = views[0]
    a.primary = first.primary
    a.score_names = [k for k in first.scores if all(k in v.scores for v in views)]
    a.ground_truth = ground_truth
    a.comparable = first.comparable
    if ground_truth:
        _confidence(a, views, resamples, seed)
        _significance(a, views)
        _protocols(a)
    _without_ground_truth(a, views, reference, binary_override)
    return a


def _confidence(a, views, resamples, seed):
    sizes = [len(terms[0][0]) for terms in views[0].scores[a.primary]]
    counts = bootstrap.stratum_counts(sizes, resamples, seed)
    a.resamples, a.seed = resamples, seed
    a.values = OrderedDict()
    a.intervals = OrderedDict()
    for name in a.score_names:
        a.values[name] = np.array([v.value(name) for v in views])
        samples = bootstrap.resampled_scores([v.scores[name] for v in views], counts)
        a.intervals[name] = bootstrap.interval(samples)
        if name == a.primary:
            primary_samples = samples
    a.rank = agreement.ranks_from_scores(a.values[a.primary])
    ranks = bootstrap.ranks_per_resample(primary_samples)
    size = len(views)
    a.rank_median = np.median(ranks, axis=0)
    a.rank_interval = bootstrap.interval(ranks)
    a.rank_frequency = np.stack([np.bincount(ranks[:, s], minlength=size + 1)[1:] for s in range(size)]) \
        / float(resamples)


def _significance(a, views):
    kind, _ = views[0].paired
    size = len(views)
    pairs = [(i, j) for i in range(size) for j in range(i + 1, size)]
    raw = []
    a.pair_counts = {}
    a.pair_detail = {}
    for i, j in pairs:
        x, y = views[i].paired[1], views[j].paired[1]
        if kind == "mcnemar":
            b, c = significance.mcnemar_counts(x, y)
            a.pair_counts[(i, j)] = (b, c)
            a.pair_detail[(i, j)] = "b=%d, c=%d" % (b, c)
            raw.append(significance.mcnemar_exact(b, c))
        else:
            difference = np.asarray(x, dtype=float) - np.asarray(y, dtype=float)
            a.pair_detail[(i, j)] = "mean difference %+.4f" % (difference.mean() if difference.size else 0.0)
            raw.append(significance.sign_flip_test(difference))
    adjusted = significance.holm(raw)
    a.test = ("exact McNemar test on %s" if kind == "mcnemar"
              else "paired sign-flip permutation test on %s") % views[0].unit
    a.p_raw = np.ones((size, size))
    a.p_holm = np.ones((size, size))
    for (i, j), p, q in zip(pairs, raw, adjusted):
        a.p_raw[i, j] = a.p_raw[j, i] = p
        a.p_holm[i, j] = a.p_holm[j, i] = q


def _protocols(a):
    """Rank distance and tau-b between the rankings of every two comparable scores."""
    a.protocol_pairs = []
    names = [k for k in a.comparable if k in a.values]
    for x in range(len(names)):
        for y in range(x + 1, len(names)):
            p, q = names[x], names[y]
            a.protocol_pairs.append((p, q, agreement.rank_distance(a.values[p], a.values[q]),
                                     agreement.kendall_tau_b(a.values[p], a.values[q])))


def _without_ground_truth(a, views, reference, binary_override):
    a.gt_free = None
    if binary_override is not None:
        stats, gram = binary_override
    elif views[0].binary is not None:
        predictions = np.stack([np.asarray(v.binary, dtype=float) for v in views])
        p = pseudo.consensus(predictions)
        stats = pseudo.sufficient_stats(predictions, p)
        if reference is None:
            ref = p > 0.5
        else:
            ref = predictions[a.names.index(reference)] > 0
        errors = (predictions > 0) != ref[None, :]
        gram = errors.astype(float).dot(errors.T.astype(float))
    else:
        return
    metrics = pseudo.pseudo_metrics(stats)
    n_agree, pvalues = significance.reference_pvalues_from_gram(gram)
    values = significance.reference_rank_values(n_agree, pvalues)
    a.gt_free = {"metrics": metrics, "reference": reference or "consensus majority vote",
                 "n_agree": n_agree, "p": pvalues, "rank_values": values,
                 "f_rank": agreement.ranks_from_scores(metrics["f_measure"]),
                 "reference_rank": agreement.ranks_from_scores(values)}
    if a.ground_truth:
        # Pixel pseudo-metrics are compared with pixel_iu too, the ground-truth score of the same pixels.
        keys = [a.primary] + [k for k in ("pixel_iu",) if k in a.values and k != a.primary and binary_override]
        a.gt_free["agreement"] = []
        for key in keys:
            truth = a.values[key]
            a.gt_free["agreement"] += [
                ("pseudo F-measure", key, agreement.rank_distance(truth, metrics["f_measure"]),
                 agreement.kendall_tau_b(truth, metrics["f_measure"])),
                ("reference-classifier protocol", key, agreement.rank_distance(truth, values),
                 agreement.kendall_tau_b(truth, values)),
            ]
