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
    kth_positions = sorted(set(k - 1 for k in effective))
    masks = dict((c, labels == c) for c in classes)
    rows_per_block = max(1, BLOCK_BYTES // (distances.dtype.itemsize * n))
    for start in range(0, n, rows_per_block):
        stop = min(n, start + rows_per_block)
        block = np.array(distances[start:stop], copy=True)
        own = np.arange(start, stop)
        block[own - start, own] = np.inf
        # Distance from each query to its nearest other image of the same class.
        nearest_same = np.full(stop - start, np.inf)
        block_labels = labels[start:stop]
        for c in classes:
            rows = np.nonzero(block_labels == c)[0]
            if rows.size:
                nearest_same[rows] = np.min(block[rows], axis=1, where=masks[c][None, :], initial=np.inf)
        block.partition(kth_positions, axis=1)
        for column, k in enumerate(effective):
            kth = block[:, k - 1]
            hits[start:stop, column] = nearest_same < kth
            for row in np.nonzero(nearest_same == kth)[0]:
                hits[start + row, column] = _tie_hit(distances, labels, start + row, kth[row], k)
    hits[~included] = 0.0
    return hits, included


def _tie_hit(distances, labels, query, kth_value, k):
    """The exact hit value of a query whose nearest same-class image sits at the k-th distance."""
    row = np.array(distances[query], dtype=np.float64, copy=True)
    row[query] = np.inf
    same = labels == labels[query]
    same[query] = False
    at_kth = row == kth_value
    return tie_hit_probability(
        int(np.count_nonzero(row < kth_value)),
        int(np.count_nonzero(at_kth)),
        int(np.count_nonzero(at_kth & same)),
        k,
    )


def topk_accuracy(hits, included):
    """Mean hit value over the included queries, per k (0 where none is included)."""
    if not included.any():
        return np.zeros(hits.shape[1])
    return hits[included].mean(axis=0)
