"""Kernels of the meta-evaluation against hand-computed cases and their definitions."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scoring import bootstrap
from scoring.metrics import agreement, pseudo, significance


# --- exact McNemar -------------------------------------------------------------------

@pytest.mark.parametrize("b, c, expected", [
    (0, 0, 1.0),                         # nothing tells the two apart
    (3, 0, 2 * 0.5 ** 3),                # 2 * P(X <= 0), X ~ B(3, 1/2)
    (0, 10, 2.0 / 1024),
    (1, 5, 2 * (1 + 6) / 64.0),          # 2 * (C(6,0) + C(6,1)) / 2^6
    (2, 2, 1.0),                         # 2 * 11/16 > 1, capped
    (4, 9, 2 * (1 + 13 + 78 + 286 + 715) / 8192.0),
])
def test_mcnemar_exact_hand_tables(b, c, expected):
    assert significance.mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)
    assert significance.mcnemar_exact(c, b) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_counts():
    a = [1, 1, 0, 0, 1]
    b = [1, 0, 1, 0, 0]
    assert significance.mcnemar_counts(a, b) == (2, 1)


# --- reference-classifier McNemar (Raj, Singh and Baker; equation (1)) ----------------

def test_reference_mcnemar_counts_and_p():
    r = np.array([1, 1, 1, 0, 0, 0, 1, 0])
    a = np.array([1, 1, 1, 0, 0, 0, 0, 1])  # differs from R on items 6, 7
    b = np.array([0, 0, 1, 1, 0, 0, 1, 0])  # differs from R on items 0, 1, 3
    n_abr, n_bar, p = significance.reference_mcnemar(a, b, r)
    # A agrees with R where B does not: 0, 1, 3; B agrees with R where A does not: 6, 7.
    assert (n_abr, n_bar) == (3, 2)
    # N_ABR > N_BAR: 2 * P(3 <= X <= 5), X ~ B(5, 1/2) = 2 * 16/32, capped at 1.
    assert p == 1.0
    assert significance.reference_pvalue(6, 0) == pytest.approx(2 * 0.5 ** 6)
    assert significance.reference_pvalue(0, 6) == pytest.approx(2 * 0.5 ** 6)
    assert significance.reference_pvalue(4, 4) == 1.0
    assert significance.reference_pvalue(7, 1) == pytest.approx(2 * (1 + 8) / 256.0)


def test_reference_gram_matches_direct_counts():
    rng = np.random.RandomState(3)
    preds = rng.randint(0, 2, size=(5, 60))
    ref = rng.randint(0, 2, size=60)
    errors = (preds != ref).astype(float)
    n_agree, p = significance.reference_pvalues_from_gram(errors.dot(errors.T))
    for i, j in itertools.permutations(range(5), 2):
        n_ij, n_ji, p_ij = significance.reference_mcnemar(preds[i], preds[j], ref)
        assert (n_agree[i, j], n_agree[j, i]) == (n_ij, n_ji)
        assert p[i, j] == pytest.approx(p_ij)


def test_reference_rank_values_protocol():
    # 0 beats 1 significantly, 1 beats 2, 0 vs 2 not significant.
    n_agree = np.array([[0, 10, 5], [0, 0, 12], [4, 1, 0]])
    p = np.array([[1, 0.01, 0.5], [0.01, 1, 0.001], [0.5, 0.001, 1]])
    assert significance.reference_rank_values(n_agree, p).tolist() == [1, 1, 0]


# --- Holm and the sign-flip test -------------------------------------------------------

def test_holm_hand_case():
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 = 0.04 -> 0.06 (monotone)
    adjusted = significance.holm([0.01, 0.04, 0.03, 0.005])
    assert adjusted == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert significance.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_randomisation_exact_hand_cases():
    # One pair, three units, equal positive differences: only all-plus and all-minus
    # reach |sum| = 3: p = 2/8. Its max-T p is the same (one hypothesis).
    x = np.array([[1.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    pairs, t, p, p_max, total, exact = significance.paired_randomisation(x)
    assert exact and total == 8 and t.tolist() == [3.0]
    assert p.tolist() == [0.25] and p_max.tolist() == [0.25]
    # Differences [3, 1, 0]: the zero unit is left out; sums 4, 2, -2, -4: p = 2/4.
    x = np.array([[3.0, 0.0], [1.0, 0.0], [5.0, 5.0]])
    assert significance.paired_randomisation(x)[2].tolist() == [0.5]
    # Identical submissions: p = 1.
    assert significance.paired_randomisation(np.ones((4, 2)))[2].tolist() == [1.0]


def test_randomisation_monte_carlo_is_deterministic_and_small_for_clear_gaps():
    x = np.zeros((40, 2))
    x[:, 0] = 0.1
    first = significance.paired_randomisation(x, draws=500, seed=5)
    again = significance.paired_randomisation(x, draws=500, seed=5)
    assert not first[5] and first[2].tolist() == again[2].tolist()
    assert first[2][0] == pytest.approx(1.0 / 501)


# --- rank distance and tau-b --------------------------------------------------------------

def test_rank_distance_figure_3():
    # a=d>b>c>f>e versus a>b>c>d>e>f costs 3.5 (one split and three swaps).
    first = {"a": 6, "d": 6, "b": 5, "c": 4, "f": 3, "e": 2}
    second = {"a": 6, "b": 5, "c": 4, "d": 3, "e": 2, "f": 1}
    order = sorted(first)
    assert agreement.rank_distance([first[k] for k in order], [second[k] for k in order]) == 3.5


@pytest.mark.parametrize("a, b, expected", [
    ([3, 2, 1], [3, 2, 1], 0.0),
    ([3, 2, 1], [1, 2, 3], 3.0),          # three swaps
    ([3, 2, 1], [2, 3, 1], 1.0),          # one swap of neighbours
    ([1, 1, 1], [3, 2, 1], 1.5),          # the tie split three times
    ([2, 2, 1], [2, 1, 1], 1.0),          # a=b>c vs a>b=c: split a=b, merge b=c
    ([2, 2, 1], [1, 2, 2], 2.0),          # a=b>c -> b>a>c (split) -> b>c>a (swap) -> b=c>a (merge)
])
def test_rank_distance_hand_cases(a, b, expected):
    assert agreement.rank_distance(a, b) == expected
    assert agreement.rank_distance(b, a) == expected


def _tau_b_by_definition(x, y):
    n0 = c = d = t1 = t2 = 0
    for i, j in itertools.combinations(range(len(x)), 2):
        n0 += 1
        sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        t1 += sx == 0
        t2 += sy == 0
        c += sx * sy > 0
        d += sx * sy < 0
    den = math.sqrt((n0 - t1) * (n0 - t2))
    return None if den == 0 else (c - d) / den


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=9))
def test_tau_b_matches_its_definition_and_scipy(pairs):
    x = np.array([p[0] for p in pairs], dtype=float)
    y = np.array([p[1] for p in pairs], dtype=float)
    tau = agreement.kendall_tau_b(x, y)
    expected = _tau_b_by_definition(x, y)
    if expected is None:
        assert tau is None
        return
    assert tau == pytest.approx(expected, abs=1e-12)
    from scipy.stats import kendalltau
    if len(set(x)) > 1 and len(set(y)) > 1:
        assert tau == pytest.approx(kendalltau(x, y)[0], abs=1e-9)


def test_tau_b_hand_case():
    # x = 1 2 3, y = 1 3 2: C = 2, D = 1, no ties: 1/3.
    assert agreement.kendall_tau_b([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3.0)


def test_ranks_from_scores_share_ties():
    assert agreement.ranks_from_scores([0.9, 0.5, 0.9, 0.1]).tolist() == [1, 3, 1, 4]
    assert agreement.ranks_from_scores([0.9, 0.5], higher_is_better=False).tolist() == [2, 1]


# --- pseudo-metrics on a tiny consensus ---------------------------------------------------

def test_pseudo_metrics_tiny_consensus():
    s = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [1, 1, 1, 0]])
    p = pseudo.consensus(s)
    assert p == pytest.approx([1, 2 / 3.0, 1 / 3.0, 0])
    m = pseudo.pseudo_metrics(pseudo.sufficient_stats(s, p))
    # S1: sum P S = 5/3, sum S = 2, sum P = 2.
    assert m["precision"][0] == pytest.approx(5 / 6.0)
    assert m["recall"][0] == pytest.approx(5 / 6.0)
    assert m["f_measure"][0] == pytest.approx(5 / 6.0)
    # NR_FN = 1/6; NR_FP = (1/3) / sum(1 - P) = (1/3) / 2 = 1/6.
    assert m["nrm"][0] == pytest.approx(1 / 6.0)
    # NCC: cov 2/3, var S 1, var P 5/9 -> 2 / sqrt(5).
    assert m["ncc"][0] == pytest.approx(2 / math.sqrt(5))
    # PSNR: sum (S - P)^2 = 2/9 over d = 4 -> -ln(1/18).
    assert m["psnr"][0] == pytest.approx(math.log(18))
    # S2 = [1,0,0,0]: precision 1, recall 1/2, F 2/3.
    assert m["precision"][1] == pytest.approx(1.0)
    assert m["recall"][1] == pytest.approx(0.5)
    assert m["f_measure"][1] == pytest.approx(2 / 3.0)


def test_pseudo_metrics_of_unanimous_classifiers_are_perfect():
    s = np.array([[1, 0, 1], [1, 0, 1]])
    m = pseudo.pseudo_metrics(pseudo.sufficient_stats(s, pseudo.consensus(s)))
    assert m["f_measure"] == pytest.approx([1, 1])
    assert m["nrm"] == pytest.approx([0, 0])
    assert np.all(np.isfinite(m["psnr"]))


# --- bootstrap ----------------------------------------------------------------------------

def test_competition_ranks_share_equal_keys():
    keys = np.array([[9, 5, 9], [1, 2, 3]])
    assert bootstrap.competition_ranks(keys).tolist() == [[1, 3, 1], [3, 2, 1]]
    assert agreement.ranks_from_scores([0.9, 0.5, 0.9]).tolist() == [1, 3, 1]


def test_rank_interval_is_an_order_statistic():
    ranks = np.array([[1], [2], [2], [3]] * 10)
    low, high = bootstrap.rank_interval(ranks)
    assert (low.tolist(), high.tolist()) == ([1], [3])


def test_latex_cells_escape_the_special_characters():
    from scoring.metaeval import latex, page
    assert latex.escape("A&B_1 50% #2 {x} ~ ^ \\") == (
        "A\\&B\\_1 50\\% \\#2 \\{x\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{}")
    assert latex.escape("Sévigné") == "Sévigné"  # UTF-8 kept
    assert page.slug("Lines (Sévigné & co)") == "lines-sevigne-co"


def test_significance_groups_are_a_compact_letter_display():
    from scoring.metaeval import analysis
    # a > c, a > d, b > d; the rest undecided: a b | b c | c d  ->  a: "a", b: "ab", c: "b"... by insert-absorb
    better = np.zeros((4, 4), dtype=bool)
    better[0, 2] = better[0, 3] = better[1, 3] = True
    letters = analysis.significance_groups(better, np.arange(4))
    for i in range(4):
        for j in range(4):
            shares = bool(set(letters[i]) & set(letters[j]))
            assert shares == (not better[i, j] and not better[j, i]), (i, j, letters)
    assert letters == ["a", "ab", "bc", "c"]


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 9).flatmap(lambda n: st.lists(st.booleans(), min_size=n * n, max_size=n * n)))
def test_significance_groups_share_a_letter_exactly_when_undecided(cells):
    from scoring.metaeval import analysis
    n = int(round(len(cells) ** 0.5))
    better = np.array(cells, dtype=bool).reshape(n, n)
    better = np.triu(better, 1)  # i better than j only above the diagonal: no contradiction
    letters = analysis.significance_groups(better, np.arange(n))
    for i in range(n):
        for j in range(i + 1, n):
            assert bool(set(letters[i]) & set(letters[j])) == (not better[i, j] and not better[j, i])
