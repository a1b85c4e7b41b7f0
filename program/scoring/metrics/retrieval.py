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
#: The first columns of a row, whose k-th smallest distance bounds the row's from above.
SAMPLE_COLUMNS = 1024
#: Cells at most that bound a block may list per row; beyond (a sample unlike the rest
#: of the row, or many ties) the block's k-th distances come from a partition instead.
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


def topk_hits(distances, labels, ks):
    """Hit values of every query for every k, shape (n, len(ks)), and the mask of
    queries whose class has another member (the others are 0 and must be left out).

    distances: (n, n) finite floats, row i the distances from query i; the diagonal is
    ignored. labels: (n,) integer classes. ks: increasing positive integers.

    Only the cells at most a query's k-th distance decide its hits: the nearest
    classmate is a hit if it lies closer than the k-th distance, and the tie formula
    counts the cells at that distance. One comparison pass per block of rows lists the
    cells at most a bound of each row's deepest k-th distance (the k-th smallest of the
    row's first columns, which cannot be below it), about k * n / SAMPLE_COLUMNS a row;
    sorting those few gives the k-th distances. A block whose bound lets too many
    cells through has its k-th distances computed by a partition, then its cells
    listed a few rows at a time.
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
    sample = np.array(rows[:, :min(n, max(SAMPLE_COLUMNS, deepest + 1))])
    inside = np.flatnonzero(own < sample.shape[1])
    sample[inside, own[inside]] = np.inf  # a query is never its own neighbour
    sample.partition(deepest - 1, axis=1)
    cells = _cells_at_most(rows, own, sample[:, deepest - 1])
    budget = CANDIDATES_PER_ROW * own.size
    if cells[0].size <= budget:
        return _hits_from_cells(cells, own, class_of, effective, None)
    nearest = np.array(rows)
    nearest[np.arange(own.size), own] = np.inf
    nearest.partition(deepest - 1, axis=1)
    nearest = np.sort(nearest[:, :deepest], axis=1)
    kth = nearest[:, [k - 1 for k in effective]]
    hits = np.empty((own.size, len(effective)))
    step = max(1, budget // n)  # rows whose cells fit the budget even if every cell is listed
    for start in range(0, own.size, step):
        part = slice(start, start + step)
        cells = _cells_at_most(rows[part], own[part], nearest[part, -1])
        hits[part] = _hits_from_cells(cells, own[part], class_of, effective, kth[part])
    return hits


def _cells_at_most(rows, own, bound):
    """(row, column, distance) of the cells of `rows` at most `bound` of their row,
    the query itself left out; in row order."""
    row, column = np.divmod(np.flatnonzero(rows <= bound[:, None]), rows.shape[1])
    other = column != own[row]
    row, column = row[other], column[other]
    return row, column, rows[row, column]


def _hits_from_cells(cells, own, class_of, effective, kth):
    """Hits of the queries `own` from every cell at most their deepest k-th distance.

    kth: their k-th distances (one column per k), or None to take them from the cells
    (each row then lists at least its deepest k cells)."""
    row, column, value = cells
    order = np.lexsort((value, row))
    row, column, value = row[order], column[order], value[order]
    count = own.size
    if kth is None:
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


def topk_accuracy(hits, included):
    """Mean hit value over the included queries, per k (0 where none is included)."""
    if not included.any():
        return np.zeros(hits.shape[1])
    return hits[included].mean(axis=0)
