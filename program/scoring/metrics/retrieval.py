"""Top-k retrieval accuracy from a distance matrix, with ties resolved exactly in
expectation (pure numpy, no I/O).

Source: the ICDAR 2026 FalsID competition's "Top-k Retrieval Accuracy" (pairwise
distances within each subset). For query i, the other images are ranked by row i ascending (i is
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
#: The first columns of a row, whose k-th smallest distance bounds the row's from above.
SAMPLE_COLUMNS = 1024
#: Cells at most that bound a block may list per row; beyond (a sample unlike the rest
#: of the row, or many ties) the block is ranked from whole rows instead.
CANDIDATES_PER_ROW = 256


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


def retrievable(labels, classes=None, counts=None):
    """The queries that can have a hit: those whose class has another member (classes,
    counts: np.unique(labels, return_counts=True), when already known)."""
    labels = np.asarray(labels)
    if classes is None:
        classes, counts = np.unique(labels, return_counts=True)
    return np.isin(labels, classes[counts > 1])


def topk_hits(distances, labels, ks):
    """Hit values of every query for every k, shape (n, len(ks)), and the mask of
    queries whose class has another member (the others are 0 and must be left out).

    distances: (n, n) floats without NaN (inf and -inf order as every float does), row i
    the distances from query i; the diagonal is ignored. labels: (n,) integer classes. ks: increasing positive integers.

    Only the cells at most a query's k-th distance decide its hits: the nearest
    classmate is a hit if it lies closer than the k-th distance, and the tie formula
    counts the cells at that distance. One comparison pass per block of rows lists the
    cells at most a bound of each row's deepest k-th distance (the k+1-th smallest of the
    row's first columns, which cannot be below it), about k * n / SAMPLE_COLUMNS a row;
    sorting those few gives the k-th distances. A block whose bound lets too many
    cells through (many ties) is ranked by a partition of its rows instead.
    """
    distances = np.asarray(distances)
    labels = np.asarray(labels)
    n = labels.shape[0]
    hits = np.zeros((n, len(ks)), dtype=np.float64)
    classes, counts = np.unique(labels, return_counts=True)
    included = retrievable(labels, classes, counts)
    if n < 2 or not included.any():
        return hits, included
    effective = [min(k, n - 1) for k in ks]
    class_of = np.searchsorted(classes, labels)
    rows_per_block = min(n, max(1, BLOCK_BYTES // (distances.dtype.itemsize * n)))
    for start in range(0, n, rows_per_block):
        stop = min(n, start + rows_per_block)
        hits[start:stop] = _block_hits(distances[start:stop], np.arange(start, stop), class_of, effective)
    hits[~included] = 0.0
    return hits, included


def _block_hits(rows, own, class_of, effective):
    """Hits of the queries `own` (rows of the block) for each k of `effective`."""
    n = rows.shape[1]
    deepest = max(effective)
    # The deepest + 1-th smallest of the first columns: at least `deepest` of them other
    # than the query lie at or below it, so its deepest k-th distance does too.
    sample = np.array(rows[:, :min(n, max(SAMPLE_COLUMNS, deepest + 1))])
    sample.partition(deepest, axis=1)
    within = rows <= sample[:, deepest, None]
    if np.count_nonzero(within) > CANDIDATES_PER_ROW * own.size:
        return _hits_by_partition(rows, own, class_of, effective)
    row, column = np.divmod(np.flatnonzero(within), n)
    other = column != own[row]  # the query itself left out
    row, column = row[other], column[other]
    return _hits_from_cells((row, column, rows[row, column]), own, class_of, effective)


def _hits_from_cells(cells, own, class_of, effective):
    """Hits of the queries `own` from (row, column, distance) of every cell at most a
    bound of their deepest k-th distance, in row order, the queries themselves left out
    (each row lists at least its deepest k cells)."""
    row, column, value = cells
    order = np.lexsort((value, row))
    row, column, value = row[order], column[order], value[order]
    count = own.size
    per_row = np.bincount(row, minlength=count)
    first = np.cumsum(per_row) - per_row
    kth = np.stack([value[first + k - 1] for k in effective], axis=1)
    same = class_of[column] == class_of[own][row]
    # The nearest classmate: the first cell of its class in each row (rows sorted by value).
    nearest_same = np.full(count, np.inf, dtype=value.dtype)
    same_rows, same_values = row[same], value[same]
    first_same = np.ones(same_rows.size, dtype=bool)
    first_same[1:] = same_rows[1:] != same_rows[:-1]
    nearest_same[same_rows[first_same]] = same_values[first_same]
    hits = np.zeros((count, len(effective)))
    for column_k, k in enumerate(effective):
        at = kth[:, column_k]
        hits[:, column_k] = nearest_same < at
        tied = np.flatnonzero(nearest_same == at)
        if tied.size:
            cell_kth = at[row]
            closer = np.bincount(row[value < cell_kth], minlength=count)
            on_kth = value == cell_kth
            tied_count = np.bincount(row[on_kth], minlength=count)
            tied_same = np.bincount(row[on_kth & same], minlength=count)
            hits[tied, column_k] = [tie_hit_probability(int(closer[i]), int(tied_count[i]), int(tied_same[i]), k)
                                    for i in tied]
    return hits


def _hits_by_partition(rows, own, class_of, effective):
    """The same hits from whole rows, for a block whose bound lets too many cells
    through to list them (a sample unlike the rest of the row, or many ties).

    The query's own cell stays in the rows that are partitioned (a single different
    value in a row of equal ones makes numpy's partition several times slower); it is
    left out of the deepest + 1 smallest values afterwards."""
    count = own.size
    everywhere = np.arange(count)
    mine = rows[everywhere, own]
    deepest = max(effective)
    smallest = np.sort(np.partition(rows, deepest, axis=1)[:, :deepest + 1], axis=1)  # the copy is freed here
    same = class_of[None, :] == class_of[own][:, None]
    same[everywhere, own] = False
    nearest_same = np.where(same, rows, np.inf).min(axis=1)  # inf without a classmate (or all at inf)
    # Leave out one occurrence of the query's own distance if it is among them, else the largest.
    drop = np.argmax(smallest == mine[:, None], axis=1)
    drop[smallest[everywhere, drop] != mine] = deepest
    keep = np.ones(smallest.shape, dtype=bool)
    keep[everywhere, drop] = False
    nearest = smallest[keep].reshape(count, deepest)
    hits = np.zeros((count, len(effective)))
    for column_k, k in enumerate(effective):
        at = nearest[:, k - 1]
        hits[:, column_k] = nearest_same < at
        tied = np.flatnonzero(nearest_same == at)
        if tied.size:  # counted over the whole block: many rows tie when many cells do
            on = at[:, None]
            closer = np.count_nonzero(nearest < on, axis=1)  # a closer cell is among the deepest nearest
            tied_count = np.count_nonzero(rows == on, axis=1) - (mine == at)
            tied_same = np.count_nonzero(same & (rows == on), axis=1)  # a classmate at inf too
            hits[tied, column_k] = [tie_hit_probability(int(closer[i]), int(tied_count[i]), int(tied_same[i]), k)
                                    for i in tied]
    return hits


def topk_accuracy(hits, included):
    """Mean hit value over the included queries, per k (0 where none is included)."""
    if not included.any():
        return np.zeros(hits.shape[1])
    return hits[included].mean(axis=0)
