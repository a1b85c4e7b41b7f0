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

    One pass per block of rows: the block's columns are gathered class by class (one
    copy of the block in all), each class's part is partitioned in place for its k
    nearest (the first of which is a query's nearest classmate), and the k nearest of
    all classes follow from those few values. Only queries whose nearest classmate ties
    with the k-th distance need the counts of the tie formula, which do not depend on
    the order partition left.
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
    class_of = np.searchsorted(classes, labels)
    members = [np.nonzero(class_of == c)[0] for c in range(classes.shape[0])]
    place = np.empty(n, dtype=np.int64)  # each image's column within its class's part
    for columns in members:
        place[columns] = np.arange(columns.size)
    rows_per_block = min(n, max(1, BLOCK_BYTES // (distances.dtype.itemsize * n)))
    # One buffer per class, reused by every block (fresh 64 MB arrays would page-fault anew);
    # take's mode "clip" (the indices are valid) because with out= its default mode buffers.
    buffers = [np.empty((rows_per_block, columns.size), dtype=distances.dtype) for columns in members]
    for start in range(0, n, rows_per_block):
        stop = min(n, start + rows_per_block)
        rows = distances[start:stop]
        own = np.arange(start, stop)
        block_classes = class_of[start:stop]
        parts, smallest = [], []
        for c, columns in enumerate(members):
            part = np.take(rows, columns, axis=1, out=buffers[c][:stop - start], mode="clip")
            mine = np.nonzero(block_classes == c)[0]
            part[mine, place[own[mine]]] = np.inf  # a query is never its own neighbour
            depth = min(deepest, columns.size)
            if depth < columns.size:
                part.partition(depth - 1, axis=1)
            parts.append(part)
            smallest.append(part[:, :depth])
        candidates = np.concatenate(smallest, axis=1)
        nearest = np.sort(candidates, axis=1)[:, :deepest]
        # Distance from each query to its nearest other image of the same class.
        nearest_same = np.empty(stop - start, dtype=nearest.dtype)
        for c, least in enumerate(smallest):
            mine = np.nonzero(block_classes == c)[0]
            nearest_same[mine] = least[mine].min(axis=1)
        for column, k in enumerate(effective):
            kth = nearest[:, k - 1]
            hits[start:stop, column] = nearest_same < kth
            tied = np.nonzero(nearest_same == kth)[0]
            if tied.size:
                hits[start + tied, column] = _tie_hits(parts, block_classes[tied], tied, nearest[tied, :k], k)
    hits[~included] = 0.0
    return hits, included


def _tie_hits(parts, row_classes, tied, nearest, k):
    """The exact hit values of queries whose nearest classmate sits at the k-th distance.

    parts: the block's distances, one array per class (columns in any order within a
    row, the query itself at inf); tied: the queries' rows in the block; nearest: their
    k smallest distances, ascending.
    """
    kth = nearest[:, -1:]
    closer = np.count_nonzero(nearest < kth, axis=1)
    tied_count = np.zeros(tied.size, dtype=np.int64)
    tied_same = np.zeros(tied.size, dtype=np.int64)
    for c, part in enumerate(parts):
        at_kth = np.count_nonzero(part[tied] == kth, axis=1)
        tied_count += at_kth
        tied_same += np.where(row_classes == c, at_kth, 0)
    return [tie_hit_probability(int(a), int(t), int(m), k) for a, t, m in zip(closer, tied_count, tied_same)]


def topk_accuracy(hits, included):
    """Mean hit value over the included queries, per k (0 where none is included)."""
    if not included.any():
        return np.zeros(hits.shape[1])
    return hits[included].mean(axis=0)
