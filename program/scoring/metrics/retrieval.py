"""Top-k retrieval accuracy from a distance matrix, with ties resolved exactly in
expectation (pure numpy, no I/O).

Source: seeds/authentication-track-evaluation.txt ("Top-k Retrieval Accuracy") and
SPEC section 3. For query i, the other images are ranked by row i ascending (i is
excluded by index, never by value). Query i is a hit at k if an image of its class is
among the k nearest. When images tie at the k-th distance, the k-th place is filled by
a uniformly random choice among the tied ones; the hit value is the probability of a
hit: with a images strictly closer than the k-th distance (none of i's class) and t
images at that distance, m of them of i's class,

    hit = 1 - C(t - m, k - a) / C(t, k - a).

Queries whose class has no other member cannot hit and are left out of the mean.
"""

import numpy as np

#: Row-block budget in bytes: top-k works on blocks of rows so memory stays bounded.
BLOCK_BYTES = 64 * 1024 * 1024


def tie_hit_probability(closer, tied, tied_same, k):
    """1 - C(t - m, r) / C(t, r), r = k - a: the chance that a random choice of the r
    remaining places among t tied images includes at least one of the m same-class ones."""
    r = k - closer
    miss = 1.0
    for j in range(r):
        miss *= float(tied - tied_same - j) / (tied - j)
        if miss <= 0.0:
            return 1.0
    return 1.0 - miss


def topk_hits(distances, labels, ks):
    """Hit values of every query for every k, shape (n, len(ks)), and the mask of
    queries whose class has another member (the others are 0 and must be left out).

    distances: (n, n) finite floats, row i the distances from query i; the diagonal is
    ignored. labels: (n,) integer classes. ks: increasing positive integers.

    One pass per block of rows: the columns are grouped by class (so a query's nearest
    classmate is the minimum of one contiguous slice), one partition finds the k nearest
    for the largest k, and only queries whose nearest classmate ties with the k-th
    distance need the counts of the tie formula.
    """
    distances = np.asarray(distances)
    labels = np.asarray(labels)
    n = labels.shape[0]
    hits = np.zeros((n, len(ks)), dtype=np.float64)
    classes, counts = np.unique(labels, return_counts=True)
    included = np.isin(labels, classes[counts > 1])
    if n < 2 or not included.any():
        return hits, included
    effective = [min(k, n - 1) for k in ks]
    deepest = max(effective)
    column_order = np.argsort(labels, kind="mergesort")
    column_of = np.empty(n, dtype=np.int64)
    column_of[column_order] = np.arange(n)
    class_bounds = np.concatenate([np.cumsum(counts) - counts, [n]])
    class_of = np.searchsorted(classes, labels)
    rows_per_block = max(1, BLOCK_BYTES // (distances.dtype.itemsize * n))
    for start in range(0, n, rows_per_block):
        stop = min(n, start + rows_per_block)
        block = np.take(distances[start:stop], column_order, axis=1)
        own = np.arange(start, stop)
        block[own - start, column_of[own]] = np.inf
        # Distance from each query to its nearest other image of the same class.
        nearest_same = np.empty(stop - start, dtype=block.dtype)
        for c in range(classes.shape[0]):
            rows = np.nonzero(class_of[start:stop] == c)[0]
            if rows.size:
                nearest_same[rows] = block[:, class_bounds[c]:class_bounds[c + 1]].min(axis=1)[rows]
        block.partition(deepest - 1, axis=1)
        nearest = np.sort(block[:, :deepest], axis=1)
        for column, k in enumerate(effective):
            kth = nearest[:, k - 1]
            hits[start:stop, column] = nearest_same < kth
            tied = np.nonzero(nearest_same == kth)[0]
            if tied.size:
                hits[start + tied, column] = _tie_hits(distances, labels, start + tied, kth[tied], k)
    hits[~included] = 0.0
    return hits, included


def _tie_hits(distances, labels, queries, kth_values, k):
    """The exact hit values of queries whose nearest classmate sits at the k-th distance."""
    rows = np.array(distances[queries], copy=True)
    rows[np.arange(queries.shape[0]), queries] = np.inf
    kth_values = kth_values[:, None]
    at_kth = rows == kth_values
    same = labels[None, :] == labels[queries][:, None]
    same[np.arange(queries.shape[0]), queries] = False
    closer = np.count_nonzero(rows < kth_values, axis=1)
    tied = np.count_nonzero(at_kth, axis=1)
    tied_same = np.count_nonzero(at_kth & same, axis=1)
    return [tie_hit_probability(int(a), int(t), int(m), k) for a, t, m in zip(closer, tied, tied_same)]


def topk_accuracy(hits, included):
    """Mean hit value over the included queries, per k (0 where none is included)."""
    if not included.any():
        return np.zeros(hits.shape[1])
    return hits[included].mean(axis=0)
