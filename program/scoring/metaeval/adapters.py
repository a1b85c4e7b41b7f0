"""Per-track adapters: a TrackResult's items -> a TrackView of per-item arrays.

From a TrackView on, the statistics know nothing of tracks. A leaderboard score is
written as, per stratum (subset, manuscript, ...), a list of ratio terms (num, den) over
the stratum's items: the stratum's value is the mean over terms of sum(num) / sum(den)
(0 if sum(den) = 0), and the score is the mean over strata. Bootstrapping resamples the
items of each stratum and recomputes these sums, never the items themselves.
"""

from collections import OrderedDict

import numpy as np


class TrackView(object):
    """What the meta-evaluation needs from one submission's result on one track.

    strata: stratum names in order; scores: name -> [terms per stratum], a term (num, den);
    primary: the leaderboard score; comparable: scores whose rankings are compared;
    paired: ("mcnemar", bool correctness per item) or ("sign_flip", value per unit) with
    unit names; binary: 0/1 predictions per item for the ground-truth-free analysis, or None.
    """

    def __init__(self, kind, strata, scores, primary, comparable, paired, units, binary=None, unit="item"):
        self.kind = kind
        self.unit = unit  # what a paired test compares: "image correctness", "page line_iu", ...
        self.strata = list(strata)
        self.scores = scores
        self.primary = primary
        self.comparable = list(comparable)
        self.paired = paired
        self.units = list(units)
        self.binary = binary

    def value(self, name):
        """The score on the full test set (the leaderboard value)."""
        return score_value(self.scores[name])


def ratio_of_sums(num, den):
    num, den = float(np.sum(num)), float(np.sum(den))
    return num / den if den > 0 else 0.0


def score_value(per_stratum):
    if not per_stratum:
        return 0.0
    return float(np.mean([np.mean([ratio_of_sums(n, d) for n, d in terms]) for terms in per_stratum]))


def authentication(result):
    """items[subset] = {filenames, y_true, y_pred, hits (n x len(k)), included}.

    uar: per subset the mean correctness; balanced_accuracy: per subset the mean of recall
    (correct over imitations) and specificity (correct over authentic); top-k: hits over
    included images. Paired test: McNemar on per-image correctness over all subsets.
    """
    strata = list(result.items)
    scores = OrderedDict((name, []) for name in ("uar", "balanced_accuracy"))
    ks = [key for key in result.scores if key.startswith("top") and key[3:].isdigit()]
    for key in ks:
        scores[key] = []
    correct_all, pred_all, units = [], [], []
    for subset in strata:
        item = result.items[subset]
        y_true = np.asarray(item["y_true"]).astype(int)
        y_pred = np.asarray(item["y_pred"]).astype(int)
        correct = (y_true == y_pred).astype(float)
        ones = np.ones_like(correct)
        positive = (y_true == 1).astype(float)
        scores["uar"].append([(correct, ones)])
        scores["balanced_accuracy"].append([(correct * positive, positive), (correct * (1 - positive), 1 - positive)])
        hits = np.asarray(item["hits"], dtype=float).reshape(len(correct), -1)
        included = np.asarray(item["included"], dtype=float)
        for column, key in enumerate(ks):
            scores[key].append([(hits[:, column] * included, included)])
        correct_all.append(correct > 0)
        pred_all.append(y_pred)
        units.extend("%s/%s" % (subset, f) for f in item["filenames"])
    comparable = [k for k in ("uar", "balanced_accuracy", "top1") if k in scores]
    return TrackView("authentication", strata, scores, "uar", comparable,
                     ("mcnemar", np.concatenate(correct_all) if correct_all else np.zeros(0, bool)), units,
                     binary=np.concatenate(pred_all) if pred_all else np.zeros(0, int), unit="per-image correctness")


LINE_METRICS = ("line_iu", "pixel_iu", "dr", "ra", "fm")


def lines(result):
    """items[manuscript] = {pages, line_iu, pixel_iu, dr, ra, fm} (arrays per page) for the
    primary protocol, and items["fest2025"] = {manuscript: the same} when both protocols
    are scored. Each score: per manuscript the mean over pages; the fest2025 scores are
    named fest2025_<metric>. Paired test: sign-flip on per-page line_iu."""
    items = dict(result.items)
    fest = items.pop("fest2025", None)
    strata = [m for m in items if isinstance(items[m], dict) and "pages" in items[m]]
    scores = OrderedDict()
    for prefix, source in (("", items), ("fest2025_", fest or {})):
        for metric in LINE_METRICS:
            per_stratum = []
            for manuscript in strata:
                if manuscript not in source or metric not in source[manuscript]:
                    break
                values = np.asarray(source[manuscript][metric], dtype=float)
                per_stratum.append([(values, np.ones_like(values))])
            else:
                if per_stratum:
                    scores[prefix + metric] = per_stratum
    units = ["%s/%s" % (m, p) for m in strata for p in items[m]["pages"]]
    per_page = np.concatenate([np.asarray(items[m]["line_iu"], dtype=float) for m in strata]) if strata \
        else np.zeros(0)
    comparable = [k for k in ("line_iu", "pixel_iu", "fm", "fest2025_line_iu", "fest2025_pixel_iu", "fest2025_fm")
                  if k in scores]
    return TrackView("lines", strata, scores, "line_iu", comparable, ("sign_flip", per_page), units,
                     unit="per-page line_iu")


def events(result):
    """items = {"categories": {"names": [...], "ap": array}}: map is the mean AP over the
    categories (one stratum). Paired test: sign-flip on per-category AP."""
    categories = result.items["categories"]
    ap = np.asarray(categories["ap"], dtype=float)
    scores = OrderedDict([("map", [[(ap, np.ones_like(ap))]])])
    return TrackView("events", ["categories"], scores, "map", ["map"], ("sign_flip", ap),
                     list(categories["names"]), unit="per-category AP")


ADAPTERS = {"authentication": authentication, "lines": lines, "events": events}


def view(result):
    return ADAPTERS[result.kind](result)
