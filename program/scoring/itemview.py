"""Each track's per-item view: its items within strata, their per-item terms, and how the
terms aggregate into every leaderboard score.

A track builds one ItemView per submission; `aggregate` turns it into the scores that
evaluate.py writes, and compare.py calls the same function with bootstrap draw counts
(a weight per item and resample) to recompute every score on a resample. The view is
all the meta-evaluation knows of a track: it never names one.

  items      n items in order, contiguous per stratum (images within subsets, pages
             within manuscripts, images within categories): a list, or StrataItems (one
             list per stratum); `stratum` gives each item's stratum, `block` its
             resampling block (items are drawn within blocks).
  columns    name -> (n,) float array of per-item terms (booleans are taken as 0 and 1,
             and written to the view's file as the bytes they are); `reference_columns`
             are the terms that are the same for every submission (labels, "one", ...).
  scores     key -> Score: a stratum statistic (Ratio or AveragePrecision) and either the
             mean over the strata (stratum None), the value of one stratum, or (pooled, a
             Ratio) the ratio of the sums over every item, strata pooled.
  denominators  column -> the column of its items' denominators, for a column of
             fractions (a page's line IU, TP / (TP + FP + FN), has denominator TP + FP + FN),
             or an integer below 2**24 that bounds them (a top-1 hit value m / t of t tied
             images): compare.py recovers each item's exact fraction and compares scores
             exactly (metaeval/exact.py); columns of integers need none.
  missing    the column marking (1) the items the submission gave nothing for (scored as
             the track's rule says), or None: compare.py's per-case analysis treats them
             as challengeR's missing cases.

Ratio(terms): per stratum, the mean over terms (num, den) of sum(w num) / sum(w den),
0 where sum(w den) = 0 (TrackEval's habit: every ratio from summed counts).
AveragePrecision(label, confidence): per stratum, the AP of metrics/ranking.py over the
items, an item drawn w times counting w times (drawn items tie with their copies).
"""

import json
import zipfile
from collections import OrderedDict

import numpy as np

from .metrics.ranking import area_from_counts, ranked_counts


class Ratio(object):
    kind = "ratio"

    def __init__(self, *terms):
        self.terms = [tuple(t) for t in terms]

    def columns(self):
        return [c for term in self.terms for c in term]

    def to_json(self):
        return {"kind": self.kind, "terms": [list(t) for t in self.terms]}


class AveragePrecision(object):
    kind = "average_precision"

    def __init__(self, label, confidence):
        self.label, self.confidence = label, confidence

    def columns(self):
        return [self.label, self.confidence]

    def to_json(self):
        return {"kind": self.kind, "label": self.label, "confidence": self.confidence}


def statistic_from_json(data):
    if data.get("kind") == "ratio":
        return Ratio(*[tuple(t) for t in data["terms"]])
    if data.get("kind") == "average_precision":
        return AveragePrecision(data["label"], data["confidence"])
    raise ValueError("unknown stratum statistic %r" % (data,))


class Score(object):
    """A leaderboard score: `statistic` per stratum, then the mean over the strata, or
    (stratum = h) the value of stratum h alone, or (pooled, a Ratio only) the statistic
    of all the items as one stratum: the summed numerators over the summed denominators
    (a pooled character error rate, total errors over total characters, beside the mean of
    the per-manuscript rates). `ranked`: compared between submissions by the
    meta-evaluation (the others are shown, not tested).

    `lower_is_better`: the score's direction (an error rate), declared once by the kind and
    followed by every leaderboard, ranking, test and chart. `bounds`: (low, high) of the
    values the score can take, either end None where it has none (an error rate can exceed
    1); intervals are clipped to them. `given`: a submission column (1 per item) marking
    the items whose input for this score the submission gave (the authentication track's
    distances); a submission giving none scores the track's value for nothing, and
    compare.py says it gave none instead of showing that value as measured."""

    def __init__(self, statistic, stratum=None, ranked=False, lower_is_better=False, bounds=(0.0, 1.0),
                 pooled=False, given=None):
        if pooled and (stratum is not None or statistic.kind != "ratio"):
            raise ValueError("a pooled score is a Ratio over every item, of no one stratum")
        self.statistic = statistic
        self.stratum = stratum
        self.ranked = ranked
        self.lower_is_better = bool(lower_is_better)
        self.bounds = tuple(bounds)
        self.pooled = bool(pooled)
        self.given = given

    def oriented(self, values):
        """values turned so that higher is better (negated for a lower-is-better score)."""
        return -values if self.lower_is_better else values

    def to_json(self):
        return {"statistic": self.statistic.to_json(), "stratum": self.stratum, "ranked": self.ranked,
                "lower_is_better": self.lower_is_better, "bounds": list(self.bounds), "pooled": self.pooled,
                "given": self.given}

    @classmethod
    def from_json(cls, data):
        """A score written by to_json; a view file of an earlier version has no direction,
        bounds or pooling (higher is better, in [0, 1], a mean over strata)."""
        return cls(statistic_from_json(data["statistic"]), data["stratum"], data["ranked"],
                   data.get("lower_is_better", False), tuple(data.get("bounds", (0.0, 1.0))),
                   data.get("pooled", False), data.get("given"))


class StrataItems(object):
    """A view's items given as one list per stratum, strata listing the same items sharing
    one list (the events track's 100 categories of the same 30,000 images: 100
    references to one list, not 3 million). Reads as the flat list of the items."""

    def __init__(self, parts):
        self.parts = list(parts)
        self._flat = None

    def __len__(self):
        return sum(len(part) for part in self.parts)

    def flat(self):
        if self._flat is None:
            self._flat = [item for part in self.parts for item in part]
        return self._flat

    def __getitem__(self, index):
        return self.flat()[index]

    def __iter__(self):
        return iter(self.flat())

    def __eq__(self, other):
        return list(self) == list(other)

    def __ne__(self, other):
        return not self == other

    __hash__ = None


class ItemView(object):
    """See the module text. `primary` is the leaderboard's ranking score; `decision` names
    a 0/1 column of per-item decisions for the ground-truth-free analysis (or None),
    `truth` the matching reference column; `unit` says what an item is."""

    def __init__(self, strata, sizes, items, columns, scores, primary, reference_columns=(), block=None,
                 decision=None, truth=None, unit="item", denominators=None, missing=None):
        self.strata = list(strata)
        self.sizes = np.asarray(sizes, dtype=np.int64)
        ends = np.cumsum(self.sizes)
        self.bounds = list(zip((ends - self.sizes).tolist(), ends.tolist()))  # (start, end) of each stratum
        self.items = items if isinstance(items, (list, StrataItems)) else list(items)
        self.block = np.asarray(block if block is not None else self.stratum)
        if self.block.dtype.kind != "i":  # any signed integer type is kept (32 bits are enough for events)
            self.block = self.block.astype(np.int64)
        self.columns = OrderedDict((k, np.asarray(v, dtype=np.float64)) for k, v in columns.items())
        # Columns given as booleans, kept to be written as the bytes they are (0 and 1).
        self.boolean = {k: v for k, v in columns.items() if getattr(v, "dtype", None) == np.bool_}
        self.scores = OrderedDict(scores)
        self.primary = primary
        self.reference_columns = list(reference_columns)
        self.decision, self.truth, self.unit = decision, truth, unit
        self.denominators = dict(denominators or {})
        self.missing = missing
        self.memo = {}  # what is computed once from the columns (ranking_counts, exact values, digests)
        n = int(self.sizes.sum())
        if any(score.pooled and any(den not in self.reference_columns for _, den in score.statistic.terms)
               for score in self.scores.values()):
            raise ValueError("a pooled score divides by reference columns (the same for every submission)")
        if isinstance(items, StrataItems) and [len(part) for part in items.parts] != self.sizes.tolist():
            raise ValueError("an item view given its items per stratum needs one list per stratum")
        if len(self.items) != n or any(v.shape != (n,) for v in self.columns.values()) or self.block.shape != (n,):
            raise ValueError("an item view needs one entry per item in every column")

    def ranked(self):
        return [k for k, s in self.scores.items() if s.ranked]

    @property
    def stratum(self):
        """Each item's stratum (computed when asked: 3 million items at the events scale)."""
        return np.repeat(np.arange(len(self.strata)), self.sizes)

    # -- the file under OUTPUT/private/views/ (what compare.py --scored reads) --------

    def write(self, stream):
        """Write the view to a binary stream as an uncompressed .npz that from_file reads
        back array for array. Deflating it cost more than a second for the events
        track's 3 million items; instead, arrays are stored narrow where that is exact
        (a column of small integers as uint8, blocks and name codes in the smallest
        integer type) and each distinct list of item names once."""
        spec = {"strata": self.strata, "sizes": self.sizes.tolist(), "primary": self.primary,
                "scores": [[k, s.to_json()] for k, s in self.scores.items()],
                "reference_columns": self.reference_columns, "decision": self.decision, "truth": self.truth,
                "unit": self.unit, "columns": list(self.columns), "denominators": self.denominators,
                "missing": self.missing}
        # Item names once each, and each distinct list of them once: the events track
        # lists the same 30,000 images in each of its 100 categories. starts[h]: where
        # stratum h's names begin among the stored codes.
        if isinstance(self.items, StrataItems):
            given = self.items.parts
        else:
            given = [self.items[start:end] for start, end in self.bounds]
        # Earlier lists are found by identity (the events track shares one list object
        # between categories), else by their content: one lookup per stratum, so that
        # 3,000 subsets cost ten times 300.
        codes, parts, starts, by_identity, by_content, stored = {}, [], [], {}, {}, 0
        for part in given:
            known = by_identity.get(id(part))
            if known is None:
                content = tuple(part)
                known = by_content.get(content)
            if known is not None:  # the same names as an earlier stratum
                starts.append(known)
                continue
            parts.append(np.array([codes.setdefault(item, len(codes)) for item in part], dtype=np.int64))
            by_identity[id(part)] = by_content[content] = stored
            starts.append(stored)
            stored += len(part)
        index = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        arrays = [("spec", np.array(json.dumps(spec))), ("names", np.array(list(codes), dtype=np.str_)),
                  ("items", _narrow_integers(index)), ("starts", np.array(starts, dtype=np.int64)),
                  ("block", _narrow_integers(self.block))]
        for i, (name, values) in enumerate(self.columns.items()):
            given = self.boolean.get(name)
            arrays.append(("column%d" % i, _narrow_column(values) if given is None else given.view(np.uint8)))
        with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_STORED) as archive:
            for name, value in arrays:
                if not value.flags.c_contiguous:
                    value = value.copy()
                with archive.open(name + ".npy", "w", force_zip64=True) as member:
                    # write_array would copy the array in 16 MB chunks: its buffer is written as is
                    np.lib.format.write_array_header_1_0(member, np.lib.format.header_data_from_array_1_0(value))
                    member.write(memoryview(value.reshape(-1).view(np.uint8)))  # bytes: Python 3.7 counts len()

    @classmethod
    def from_file(cls, path):
        with np.load(path, allow_pickle=False) as data:
            spec = json.loads(str(data["spec"]))
            columns = OrderedDict((name, data["column%d" % i].astype(np.float64))
                                  for i, name in enumerate(spec["columns"]))
            scores = OrderedDict((k, Score.from_json(s)) for k, s in spec["scores"])
            names = data["names"].tolist()
            codes = data["items"]
            if "starts" in data.files:
                starts = data["starts"].tolist()
            else:  # a file of an earlier version: every item's code, stratum after stratum
                starts = (np.cumsum(spec["sizes"]) - spec["sizes"]).tolist()
            items, parts = [], {}
            for start, size in zip(starts, spec["sizes"]):
                if (start, size) not in parts:
                    parts[start, size] = [names[i] for i in codes[start:start + size].tolist()]
                items.extend(parts[start, size])
            return cls(spec["strata"], spec["sizes"], items, columns, scores, spec["primary"],
                       spec["reference_columns"], data["block"].astype(np.int64), spec["decision"], spec["truth"],
                       spec["unit"], spec.get("denominators"), spec.get("missing"))


def _narrow_integers(values):
    """An integer array in the smallest signed type that holds its values."""
    if values.size == 0:
        return values
    low, high = int(values.min()), int(values.max())
    for kind in (np.int8, np.int16, np.int32):
        if np.iinfo(kind).min <= low and high <= np.iinfo(kind).max:
            return values.astype(kind, copy=False)
    return values


def _narrow_column(values):
    """A float64 column as uint8 when every value is an integer from 0 to 255 (labels,
    counts of one), which float64 gives back bit for bit; else as it is. The first values
    are checked first: a column of fractions shows it there, before a pass over all."""
    if values.size and _small_integers(values[:4096]) and _small_integers(values):
        return values.astype(np.uint8)
    return values


def _small_integers(values):
    if 0 <= values.min() and values.max() <= 255:
        return bool((values.astype(np.uint8) == values).all()) and not np.signbit(values).any()  # no -0.0
    return False


def ratio_sums(view, statistic, weights, h, start, end):
    """[(numerator sums, denominator sums)] of each term over stratum h's items, one value
    per resample."""
    sums = []
    for num, den in statistic.terms:
        n_col, d_col = view.columns[num][start:end], view.columns[den][start:end]
        if weights is None:
            # Summed in the order of np.mean over a stratum's items, so that the scores of
            # evaluate.py are those of a plain mean over pages or images.
            sums.append((np.add.reduce(n_col)[None], np.add.reduce(d_col)[None]))
        else:
            w = weights[h]
            sums.append((w.dot(n_col), w.dot(d_col)))
    return sums


def ratios(sums):
    """The mean over terms of each term's numerator over its denominator (0 where it is 0)."""
    values = []
    for n_sum, d_sum in sums:
        ratio = np.zeros(n_sum.shape)
        np.divide(n_sum, d_sum, out=ratio, where=d_sum != 0)
        values.append(ratio)
    return values[0] if len(values) == 1 else np.mean(np.stack(values, axis=1), axis=1)


def _ratio_values(view, statistic, weights, h, start, end):
    return ratios(ratio_sums(view, statistic, weights, h, start, end))


def pooled_values(view, statistic, weights=None):
    """(resamples,) values of a Ratio over every item, strata pooled: each term's sums over
    the strata, then the ratios (weights as for stratum_values)."""
    per_stratum = [ratio_sums(view, statistic, weights, h, start, end) for h, (start, end) in enumerate(view.bounds)]
    if not per_stratum:
        return np.zeros(1 if weights is None else 0)
    return ratios([(sum(s[t][0] for s in per_stratum), sum(s[t][1] for s in per_stratum))
                    for t in range(len(statistic.terms))])


def _ap_values(view, statistic, weights, h, start, end):
    """AP per resample with item multiplicities (metrics.ranking's operating points with
    weights): one sort of the stratum; an operating point per distinct confidence.
    Without weights, metrics.ranking's own AP (the same number, bit for bit)."""
    if weights is None:
        key = ("average_precision", statistic.label, statistic.confidence, h)
        if key not in view.memo:
            view.memo[key] = area_from_counts(*ranking_counts(view, statistic, h))
        return np.array([view.memo[key]])
    labels = view.columns[statistic.label][start:end]
    confidence = view.columns[statistic.confidence][start:end]
    order = np.argsort(confidence)[::-1]
    ranked = confidence[order]
    ends = np.append(np.flatnonzero(ranked[1:] != ranked[:-1]), ranked.shape[0] - 1)
    by_item = weights.by_item(h) if hasattr(weights, "by_item") else weights[h].T
    true_positives, counts = _weighted_points(by_item, labels, order, ends)
    return _area(true_positives, counts)


def ranking_counts(view, statistic, h):
    """metrics.ranking.ranked_counts of stratum h's items, each once (true positives and
    items at each operating point), computed once per view and kept: the leaderboard's
    AP and a track's precision/recall charts then share one sort per stratum."""
    key = ("ranked_counts", statistic.label, statistic.confidence, h)
    if key not in view.memo:
        start, end = view.bounds[h]
        view.memo[key] = ranked_counts(view.columns[statistic.label][start:end] > 0,
                                       view.columns[statistic.confidence][start:end])
    return view.memo[key]


def _weighted_points(by_item, labels, order, ends):
    """Cumulative positive and total weights at the operating points that can change AP:
    the points whose group holds a positive, and the point before each (a mixed group's
    trapezoid starts there). A point of negatives only has a precision no higher than the
    point before it, so it never raises the monotone precision of an earlier point; the
    others are left out. by_item: (items, resamples) draw counts, an item's draws a row;
    returns (true positives, totals), each (points, resamples).

    Totals are the rows of the items between two kept points (in ranking order) summed,
    accumulated over the points; positives from a product over the positive items only.
    The weights are draw counts: every sum is of integers, exact in any order."""
    group_start = np.concatenate(([0], ends[:-1] + 1))
    positive_groups = np.flatnonzero(np.add.reduceat(labels[order], group_start) > 0)
    kept = np.unique(np.concatenate((positive_groups, positive_groups - 1)))
    kept = kept[kept >= 0]
    cut = ends[kept]
    resamples = by_item.shape[1]
    if not cut.size:
        return np.zeros((0, resamples)), np.zeros((0, resamples))
    position = np.empty(order.shape[0], dtype=np.int64)
    position[order] = np.arange(order.shape[0])
    positives = np.flatnonzero(labels)
    above = (position[positives][None, :] <= cut[:, None]).astype(np.float64)  # ranked at or above
    ranked = by_item[order[:cut[-1] + 1]]
    totals = np.empty((cut.size, resamples))
    start = 0
    for k, end in enumerate((cut + 1).tolist()):
        part = np.add.reduce(ranked[start:end], axis=0)
        totals[k] = part if k == 0 else totals[k - 1] + part
        start = end
    return above.dot(by_item[positives]), totals


def _area(true_positives, counts):
    """AP per resample from (points, resamples) arrays: the trapezoidal rule of
    metrics.ranking, its terms summed per resample as numpy sums the rows of a
    (resamples, points) array (pairwise), as metrics.ranking does."""
    positives = true_positives[-1:]
    precision = np.zeros(counts.shape)
    np.divide(true_positives, counts, out=precision, where=counts > 0)
    recall = np.zeros(counts.shape)
    np.divide(true_positives, positives, out=recall, where=positives > 0)
    envelope = np.maximum.accumulate(precision[::-1], axis=0)[::-1]
    r = np.concatenate((np.zeros((1, recall.shape[1])), recall), axis=0)
    p = np.concatenate((envelope[:1], envelope), axis=0)
    terms = (r[1:] - r[:-1]) * (p[1:] + p[:-1])
    return np.sum(np.ascontiguousarray(terms.T), axis=1) / 2.0


STATISTICS = {"ratio": _ratio_values, "average_precision": _ap_values}


def stratum_values(view, statistic, weights=None):
    """(resamples, strata) values of a stratum statistic; weights None: each item once
    (one row), else per stratum a (resamples, items of the stratum) matrix of counts."""
    function = STATISTICS[statistic.kind]
    columns = [function(view, statistic, weights, h, start, end) for h, (start, end) in enumerate(view.bounds)]
    if not columns:
        return np.zeros((1 if weights is None else 0, 0))
    return np.stack(columns, axis=1)


def aggregate(view, weights=None, keys=None):
    """The scores of the view: key -> (resamples,) array (one value when weights is None).

    The one function from per-item terms to leaderboard scores, for evaluate.py (no
    weights) and for every bootstrap resample of compare.py (draw counts as weights).
    """
    out = _scores(view, [k for k in keys or list(view.scores) if not view.scores[k].pooled],
                  lambda statistic: stratum_values(view, statistic, weights))
    for key in keys or list(view.scores):
        if view.scores[key].pooled:
            out[key] = pooled_values(view, view.scores[key].statistic, weights)
    return OrderedDict((key, out[key]) for key in keys or list(view.scores))


def _name(statistic):
    return json.dumps(statistic.to_json(), sort_keys=True)


def _scores(view, keys, values_of):
    """key -> (resamples,) array from values_of(statistic), its (resamples, strata) values,
    asked once per distinct statistic: a stratum's value, or the mean over the strata."""
    out = OrderedDict()
    cache = {}
    for key in keys:
        score = view.scores[key]
        name = _name(score.statistic)
        if name not in cache:
            cache[name] = values_of(score.statistic)
        values = cache[name]
        if score.stratum is not None:
            out[key] = values[:, score.stratum].copy()
        elif values.shape[1] == 0:
            out[key] = np.zeros(values.shape[0])
        else:
            out[key] = np.mean(values, axis=1)
    return out


def leaderboard(view):
    """key -> float: the scores of evaluate.py."""
    return OrderedDict((k, float(v[0])) for k, v in aggregate(view).items())
