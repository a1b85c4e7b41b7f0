"""The authentication track's kernels against the definitions of SPEC section 3.

Expected values are worked out by hand from the definitions, or by enumerating every
ordering of the tied images (the meaning of "ties resolved exactly in expectation").
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scoring.metrics.classification import binary_rates, confusion_counts, undefined_rates
from scoring.metrics.retrieval import tie_hit_probability, topk_accuracy, topk_hits


def binomial(n, r):
    if r < 0 or r > n:
        return 0
    out = 1
    for j in range(r):
        out = out * (n - j) // (j + 1)
    return out


# ------------------------------------------------------------ classification


def test_confusion_counts_imitation_is_positive():
    y_true = [1, 1, 1, 0, 0, 0, 0]
    y_pred = [1, 0, 1, 1, 0, 0, 0]
    # TP imitation called imitation (0, 2); FN imitation called authentic (1);
    # FP authentic called imitation (3); TN authentic called authentic (4, 5, 6).
    assert confusion_counts(y_true, y_pred) == (2, 1, 1, 3)
    rates = binary_rates(2, 1, 1, 3)
    assert rates["accuracy"] == pytest.approx(5 / 7)
    assert rates["precision"] == pytest.approx(2 / 3)
    assert rates["recall"] == pytest.approx(2 / 3)
    assert rates["specificity"] == pytest.approx(3 / 4)
    assert rates["balanced_accuracy"] == pytest.approx((2 / 3 + 3 / 4) / 2)


def test_swapping_classes_swaps_fp_and_fn():
    y_true = np.array([1, 1, 0, 0, 0])
    y_pred = np.array([0, 1, 1, 1, 0])
    tp, fn, fp, tn = confusion_counts(y_true, y_pred)
    assert (tp, fn, fp, tn) == (1, 1, 2, 1)
    assert confusion_counts(1 - y_true, 1 - y_pred) == (tn, fp, fn, tp)


def test_zero_denominators_are_zero_and_explained():
    # Only authentic images, all accepted: nothing called imitation, no imitation in truth.
    counts = confusion_counts([0, 0, 0], [0, 0, 0])
    assert counts == (0, 0, 0, 3)
    rates = binary_rates(*counts)
    assert rates == {"accuracy": 1.0, "precision": 0.0, "recall": 0.0, "specificity": 1.0,
                     "balanced_accuracy": 0.5}
    assert [name for name, _ in undefined_rates(*counts)] == ["precision", "recall"]
    # Only imitations, all called authentic.
    counts = confusion_counts([1, 1], [0, 0])
    assert counts == (0, 2, 0, 0)
    rates = binary_rates(*counts)
    assert (rates["accuracy"], rates["precision"], rates["recall"], rates["specificity"]) == (0, 0, 0, 0)
    assert [name for name, _ in undefined_rates(*counts)] == ["precision", "specificity"]
    empty = binary_rates(0, 0, 0, 0)
    assert all(value == 0.0 for value in empty.values())
    assert [name for name, _ in undefined_rates(0, 0, 0, 0)][0] == "accuracy"


# ------------------------------------------------------------ top-k retrieval


def enumerated_hits(distances, labels, ks):
    """Hit values by brute force: every ordering of the other images consistent with
    ascending distance (each tie order equally likely), the hit averaged over them."""
    distances = np.asarray(distances, dtype=np.float64)
    n = len(labels)
    out = np.zeros((n, len(ks)))
    included = np.zeros(n, dtype=bool)
    for i in range(n):
        others = [j for j in range(n) if j != i]
        if not any(labels[j] == labels[i] for j in others):
            continue
        included[i] = True
        total = [Fraction(0)] * len(ks)
        count = 0
        for order in itertools.permutations(others):
            row = [distances[i, j] for j in order]
            if any(row[p] > row[p + 1] for p in range(len(row) - 1)):
                continue
            count += 1
            for column, k in enumerate(ks):
                total[column] += any(labels[j] == labels[i] for j in order[:k])
        out[i] = [float(t / count) for t in total]
    return out, included


def test_tie_formula_hand_case():
    # Query 0 (class 0); others: 0.1 class 1, then three at 0.5 (one of class 0), 0.9 class 0.
    labels = np.array([0, 1, 0, 1, 1, 0])
    row = [0.0, 0.1, 0.5, 0.5, 0.5, 0.9]
    distances = np.tile(np.array(row), (6, 1))
    hits, included = topk_hits(distances, labels, [1, 2, 3, 4])
    # k=1: the nearest is of class 1. k=2: a=1, t=3, m=1: 1 - C(2,1)/C(3,1) = 1/3.
    # k=3: 1 - C(2,2)/C(3,2) = 2/3. k=4: 1 - C(2,3)/C(3,3) = 1.
    assert hits[0].tolist() == pytest.approx([0.0, 1 / 3, 2 / 3, 1.0])
    assert included.all()
    brute, _ = enumerated_hits(distances, labels, [1, 2, 3, 4])
    assert hits[0].tolist() == pytest.approx(brute[0].tolist())


def test_tie_formula_against_every_ordering():
    # One query, seven others all at the same distance, m of them of the query's class:
    # every one of the 7! orderings is enumerated and the hit averaged.
    for m in range(1, 4):
        labels = np.array([0] + [0] * m + [1] * (7 - m))
        distances = np.ones((8, 8))
        np.fill_diagonal(distances, 0.0)
        hits, _ = topk_hits(distances, labels, [1, 2, 3, 5])
        others = list(range(1, 8))
        for column, k in enumerate([1, 2, 3, 5]):
            total = sum(any(labels[j] == 0 for j in order[:k]) for order in itertools.permutations(others))
            expected = Fraction(total, 5040)
            assert hits[0, column] == pytest.approx(float(expected))
            assert float(expected) == pytest.approx(1 - binomial(7 - m, k) / binomial(7, k))


@pytest.mark.parametrize("closer,tied,same,k", [(0, 3, 1, 1), (1, 3, 1, 2), (2, 5, 2, 4), (0, 4, 4, 2),
                                                (1, 6, 1, 6), (0, 10, 3, 3)])
def test_tie_hit_probability_is_the_binomial_formula(closer, tied, same, k):
    expected = 1 - Fraction(binomial(tied - same, k - closer), binomial(tied, k - closer))
    assert tie_hit_probability(closer, tied, same, k) == pytest.approx(float(expected))


def test_self_excluded_by_index_not_by_value():
    labels = np.array([0, 0, 1])
    distances = np.array([
        [0.1, 0.3, 0.0],   # diagonal 0.1 nonzero; image 2 (other class) at distance 0
        [0.3, 0.0, 0.5],
        [0.0, 0.5, 0.0],
    ])
    hits, included = topk_hits(distances, labels, [1, 2])
    # Query 0: nearest other is image 2 (class 1) at 0 -> miss at k=1; at k=2 image 1 -> hit.
    assert hits[0].tolist() == [0.0, 1.0]
    # Query 1: nearest other is image 0 (same class) at 0.3 -> hit.
    assert hits[1].tolist() == [1.0, 1.0]
    # Query 2: its class has no other member: left out.
    assert included.tolist() == [True, True, False]
    assert hits[2].tolist() == [0.0, 0.0]
    assert topk_accuracy(hits, included).tolist() == [0.5, 1.0]


def test_all_singleton_classes_give_zero_and_nothing_included():
    hits, included = topk_hits(np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([0, 1]), [1])
    assert not included.any()
    assert topk_accuracy(hits, included).tolist() == [0.0]


def test_k_larger_than_n_minus_one():
    labels = np.array([0, 1, 0, 1])
    rng = np.random.RandomState(0)
    distances = rng.rand(4, 4)
    hits, included = topk_hits(distances, labels, [3, 5, 50])
    # With every other image among the k nearest, each query with a classmate hits.
    assert included.all()
    assert hits.tolist() == [[1.0] * 3] * 4


def test_asymmetric_matrix_each_row_its_own_query():
    labels = np.array([0, 0, 1])
    distances = np.array([
        [0.0, 0.2, 0.9],   # query 0: image 1 nearest -> hit
        [0.9, 0.0, 0.1],   # query 1: image 2 nearest (although d(0,1) = 0.2 in row 0) -> miss
        [0.5, 0.5, 0.0],
    ])
    hits, included = topk_hits(distances, labels, [1])
    assert hits[:2, 0].tolist() == [1.0, 0.0]
    assert hits.T.tolist() == enumerated_hits(distances, labels, [1])[0].T.tolist()


def test_float32_and_float64_give_the_same_result():
    rng = np.random.RandomState(3)
    labels = rng.randint(0, 2, size=40)
    distances = np.round(rng.rand(40, 40), 2)  # ties
    hits64, inc64 = topk_hits(distances.astype(np.float64), labels, [1, 3, 5])
    hits32, inc32 = topk_hits(distances.astype(np.float32), labels, [1, 3, 5])
    assert np.array_equal(inc64, inc32)
    assert np.allclose(hits64, hits32, rtol=0, atol=1e-12)


def test_blocks_give_the_same_result(monkeypatch):
    from scoring.metrics import retrieval
    rng = np.random.RandomState(5)
    labels = rng.randint(0, 3, size=30)
    distances = rng.randint(0, 4, size=(30, 30)).astype(np.float64)
    whole, _ = topk_hits(distances, labels, [1, 2, 4])
    monkeypatch.setattr(retrieval, "BLOCK_BYTES", 8 * 30 * 7)  # 7 rows a block
    blocked, _ = retrieval.topk_hits(distances, labels, [1, 2, 4])
    assert np.array_equal(whole, blocked)


def formula_hits(distances, labels, ks):
    """Hit values from SPEC section 3's formula, row by row: 1 if the nearest classmate is
    closer than the k-th distance, 1 - C(t - m, k - a) / C(t, k - a) if it is at that
    distance (a closer, t at it, m of them classmates), else 0."""
    n = len(labels)
    out = np.zeros((n, len(ks)))
    for i in range(n):
        others = [j for j in range(n) if j != i]
        same = [distances[i, j] for j in others if labels[j] == labels[i]]
        if not same:
            continue
        ranked = sorted(distances[i, j] for j in others)
        for column, k in enumerate(ks):
            k = min(k, n - 1)
            kth = ranked[k - 1]
            if min(same) < kth:
                out[i, column] = 1.0
            elif min(same) == kth:
                closer = sum(1 for v in ranked if v < kth)
                tied = sum(1 for v in ranked if v == kth)
                tied_same = sum(1 for v in same if v == kth)
                out[i, column] = float(1 - Fraction(binomial(tied - tied_same, k - closer), binomial(tied, k - closer)))
    return out


#: (SAMPLE_COLUMNS, CANDIDATES_PER_ROW, rows a block): the default path; a sample so small
#: that its bound lets many cells through; every block ranked by partition (3 rows a
#: block); blocks of 4 rows, some listed and some ranked by partition.
PATHS = [(1024, 256, None), (1, 256, None), (1024, 0, 3), (1, 2, 4)]


def hits_by_path(distances, labels, ks, path):
    from scoring.metrics import retrieval
    saved = retrieval.SAMPLE_COLUMNS, retrieval.CANDIDATES_PER_ROW, retrieval.BLOCK_BYTES
    sample, candidates, rows = path
    retrieval.SAMPLE_COLUMNS, retrieval.CANDIDATES_PER_ROW = sample, candidates
    if rows is not None:
        retrieval.BLOCK_BYTES = distances.dtype.itemsize * distances.shape[1] * rows
    try:
        return retrieval.topk_hits(distances, labels, ks)[0]
    finally:
        retrieval.SAMPLE_COLUMNS, retrieval.CANDIDATES_PER_ROW, retrieval.BLOCK_BYTES = saved


def test_every_path_on_a_constant_matrix():
    # Every other image ties at every k: hit = 1 - C(t - m, k) / C(t, k), t = 9, m = 4 or 3.
    labels = np.array([0] * 5 + [1] * 5)
    distances = np.full((10, 10), 0.5)
    for path in PATHS:
        hits = hits_by_path(distances, labels, [1, 3], path)
        assert np.allclose(hits[0], [4 / 9, float(1 - Fraction(binomial(5, 3), binomial(9, 3)))], rtol=0, atol=1e-12)
        assert np.array_equal(hits, hits_by_path(distances, labels, [1, 3], PATHS[0]))


# ------------------------------------------------------------ properties


#: The cells of a small problem: few distinct distances, so that ties are many.
FEW_DISTANCES = st.integers(0, 3)


@st.composite
def small_problem(draw, cell=FEW_DISTANCES, largest=6):
    n = draw(st.integers(min_value=2, max_value=largest))
    labels = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))  # up to 3 classes
    cells = draw(st.lists(cell, min_size=n * n, max_size=n * n))
    return np.array(cells, dtype=np.float64).reshape(n, n), labels


@settings(max_examples=150, deadline=None)
@given(small_problem())
def test_hits_equal_the_mean_over_every_tie_ordering(problem):
    distances, labels = problem
    ks = [1, 2, 3, 5]
    hits, included = topk_hits(distances, labels, ks)
    expected, expected_included = enumerated_hits(distances, labels, ks)
    assert included.tolist() == expected_included.tolist()
    assert np.allclose(hits, expected, rtol=0, atol=1e-12)


@st.composite
def medium_problem(draw):
    n = draw(st.integers(min_value=2, max_value=25))
    labels = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    cells = draw(st.lists(st.integers(0, 5), min_size=n * n, max_size=n * n))
    permutation = np.array(draw(st.permutations(range(n))))
    return np.array(cells, dtype=np.float64).reshape(n, n), labels, permutation


@settings(max_examples=100, deadline=None)
@given(medium_problem())
def test_topk_never_decreases_with_k(problem):
    distances, labels, _ = problem
    ks = list(range(1, len(labels) + 2))
    hits, _ = topk_hits(distances, labels, ks)
    assert np.all(np.diff(hits, axis=1) >= -1e-12)


@settings(max_examples=100, deadline=None)
@given(medium_problem())
def test_invariant_to_a_simultaneous_permutation(problem):
    distances, labels, p = problem
    hits, included = topk_hits(distances, labels, [1, 3, 5])
    hits_p, included_p = topk_hits(distances[np.ix_(p, p)], labels[p], [1, 3, 5])
    assert np.allclose(hits_p, hits[p], rtol=0, atol=1e-12)
    assert np.array_equal(included_p, included[p])


@settings(max_examples=100, deadline=None)
@given(medium_problem())
def test_relabelling_the_classes_changes_nothing(problem):
    distances, labels, _ = problem
    binary = labels % 2
    hits, included = topk_hits(distances, binary, [1, 3, 5])
    swapped, swapped_included = topk_hits(distances, 1 - binary, [1, 3, 5])
    assert np.array_equal(hits, swapped)
    assert np.array_equal(included, swapped_included)
    # Any renumbering of the classes, not only 0 <-> 1.
    renumbered, _ = topk_hits(distances, 7 - 3 * labels, [1, 3, 5])
    assert np.array_equal(topk_hits(distances, labels, [1, 3, 5])[0], renumbered)


@settings(max_examples=100, deadline=None)
@given(medium_problem(), st.sampled_from([np.float64, np.float32]))
def test_every_path_gives_the_formula(problem, dtype):
    distances, labels, _ = problem
    distances = distances.astype(dtype)
    ks = [1, 2, 3, 5]
    expected = formula_hits(distances, labels, ks)
    first = hits_by_path(distances, labels, ks, PATHS[0])
    assert np.allclose(first, expected, rtol=0, atol=1e-12)
    for path in PATHS[1:]:
        assert np.array_equal(hits_by_path(distances, labels, ks, path), first)


#: Floats a distance matrix may hold (issue 24): inf as "never retrieve", -inf, the largest
#: and smallest doubles; each orders exactly, and the tie formula counts ties at inf too.
EXTREMES = [-np.inf, -1.7976931348623157e308, -1e308, 0.0, 5e-324, 1.0, 1e308, np.inf]


@settings(max_examples=150, deadline=None)
@given(small_problem(st.sampled_from(EXTREMES), largest=12))
def test_every_path_gives_the_formula_with_infinite_and_extreme_distances(problem):
    distances, labels = problem
    ks = [1, 2, 3, 5]
    expected = formula_hits(distances, labels, ks)
    for path in PATHS:
        assert np.allclose(hits_by_path(distances, labels, ks, path), expected, rtol=0, atol=1e-12), path
    if len(labels) <= 6:  # every ordering of the ties, enumerated
        hits, _ = topk_hits(distances, labels, ks)
        assert np.allclose(hits, enumerated_hits(distances, labels, ks)[0], rtol=0, atol=1e-12)
