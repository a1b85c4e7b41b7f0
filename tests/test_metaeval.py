"""The meta-evaluation on per-item views: the issue's reproductions, tests of the exact
leaderboard score against brute force, weighted AP against expanded items, exact ties."""

import dataclasses
import itertools
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binom
from scoring import itemview
from scoring.itemview import AveragePrecision, ItemView, Ratio, Score
from scoring import bootstrap
from scoring.metaeval import analysis
from scoring.metrics import significance
from scoring.metrics.ranking import average_precision


def classification_view(correct_per_subset, labels_per_subset=None):
    """An authentication-like view: images within subsets, uar and balanced_accuracy."""
    correct = [np.asarray(c, dtype=float) for c in correct_per_subset]
    labels = [np.asarray(y, dtype=float) for y in labels_per_subset] if labels_per_subset else \
        [np.arange(len(c)) % 2 for c in correct]
    c, y = np.concatenate(correct), np.concatenate(labels).astype(float)
    columns = {"one": np.ones(c.shape), "correct": c, "positive": y, "negative": 1 - y,
               "correct_positive": c * y, "correct_negative": c * (1 - y), "label": y,
               "predicted": np.where(c > 0, y, 1 - y)}
    sizes = [len(x) for x in correct]
    scores = [("uar", Score(Ratio(("correct", "one")), ranked=True)),
              ("balanced_accuracy", Score(Ratio(("correct_positive", "positive"),
                                                ("correct_negative", "negative")), ranked=True))]
    block = 2 * np.repeat(np.arange(len(sizes)), sizes) + y.astype(int)
    return ItemView(["s%d" % h for h in range(len(sizes))], sizes, [str(i) for i in range(len(c))], columns,
                    scores, "uar", ["one", "positive", "negative", "label"], block=block, decision="predicted",
                    truth="label", unit="image")


def page_view(values_per_manuscript):
    values = [np.asarray(v, dtype=float) for v in values_per_manuscript]
    x = np.concatenate(values)
    return ItemView(["m%d" % h for h in range(len(values))], [len(v) for v in values],
                    [str(i) for i in range(len(x))], {"line_iu": x, "one": np.ones(x.shape)},
                    [("line_iu", Score(Ratio(("line_iu", "one")), ranked=True))], "line_iu", ["one"], unit="page")


def ap_view(labels, confidences, sizes):
    labels = np.asarray(labels, dtype=float)
    block = 2 * np.repeat(np.arange(len(sizes)), sizes) + labels.astype(int)
    return ItemView(["c%d" % h for h in range(len(sizes))], sizes, [str(i) for i in range(len(labels))],
                    {"label": labels, "confidence": np.asarray(confidences, dtype=float)},
                    [("map", Score(AveragePrecision("label", "confidence"), ranked=True))], "map", ["label"],
                    block=block, truth="label", unit="image")


def options(**kw):
    kw.setdefault("resamples", 200)
    return analysis.Options(**kw)


# --- the reproduction: UAR is tested, not the pooled accuracy ------------------

def big_small():
    """Big: 1,000 images, both right on 915, A alone on 60, B alone on 20. Small: 20 images,
    both right on 10, B alone on the other 10. UAR A = (975/1000 + 10/20)/2 = 0.7375,
    B = (935/1000 + 20/20)/2 = 0.9675; pooled b = 60, c = 30."""
    big_a = np.zeros(1000)
    big_b = np.zeros(1000)
    big_a[:915] = big_b[:915] = 1
    big_a[915:975] = 1
    big_b[975:995] = 1
    small_a, small_b = np.r_[np.ones(10), np.zeros(10)], np.ones(20)
    return classification_view([big_a, small_a]), classification_view([big_b, small_b])


def exact_big_small_p():
    """P(|T*| >= |T|) over all sign patterns, by convolution: T* = (2 X - 80) / 2000 +
    (2 Y - 10) / 40 with X ~ B(80, 1/2) (the 80 Big images that differ) and Y ~ B(10, 1/2)."""
    observed = abs(0.7375 - 0.9675)
    total = 0.0
    for x in range(81):
        for y in range(11):
            value = (2 * x - 80) / 2000.0 + (2 * y - 10) / 40.0
            if abs(value) >= observed - 1e-12:
                total += binom.pmf(x, 80, 0.5) * binom.pmf(y, 10, 0.5)
    return total


def test_uar_test_agrees_with_the_uar_order():
    a_view, b_view = big_small()
    a = analysis.analyse("t", ["A", "B"], [a_view, b_view], options(permutations=20000))
    assert a.values["uar"] == pytest.approx([0.7375, 0.9675])
    tests = a.significance.tests["uar"]
    assert tests.difference[0] == pytest.approx(-0.23)
    better = tests.better()
    assert better[1, 0] and not better[0, 1]  # B significantly better, as the UAR order says
    exact = exact_big_small_p()
    assert exact == pytest.approx(0.002, abs=0.001)
    assert tests.p[0] == pytest.approx(exact, abs=0.0015)
    # The pooled McNemar test (secondary view) counts b = 60, c = 30 and favours A.
    assert (a.mcnemar.b[0], a.mcnemar.c[0]) == (60, 30)
    assert a.mcnemar.p[0] == pytest.approx(2 * binom.cdf(30, 90, 0.5))
    assert a.mcnemar.accuracy[0] > a.mcnemar.accuracy[1]


# --- exact ties ---------------------------------------------------------------------------------

def equal_uar_counts():
    """Two count vectors over subsets of 32, 75 and 100 images with UAR exactly 4621/7200,
    (a/32 + b/75 + c/100) / 3, whose floating-point values differ."""
    found = []
    for a in range(33):
        for b in range(76):
            rest = 4621 - 75 * a - 32 * b
            if rest % 24 == 0 and 0 <= rest // 24 <= 100:
                c = rest // 24
                assert (Fraction(a, 32) + Fraction(b, 75) + Fraction(c, 100)) / 3 == Fraction(4621, 7200)
                found.append((a, b, c))
    values = {}
    for counts in found:
        values.setdefault(np.mean([counts[0] / 32.0, counts[1] / 75.0, counts[2] / 100.0]), counts)
    assert len(values) > 1, "the scenario needs two float values of one rational"
    return list(values.values())[:2]


def test_equal_uar_from_different_orders_share_ranks():
    views = []
    for counts in equal_uar_counts():
        views.append(classification_view([np.arange(n) < k for n, k in zip((32, 75, 100), counts)]))
    a = analysis.analyse("t", ["A", "B"], views, options())
    assert a.values["uar"][0] != a.values["uar"][1]  # the floats differ in the last bits
    assert a.rank.tolist() == [1, 1]
    # The difference is exactly 0 and nothing tells them apart.
    assert a.significance.tests["uar"].difference[0] == 0.0 and a.significance.tests["uar"].p[0] == 1.0


def test_each_step_returns_a_declared_record_that_nothing_writes_into():
    views = [classification_view([np.arange(12) < k, np.arange(10) < k]) for k in (9, 6, 3)]
    a = analysis.analyse("t", ["A", "B", "C"], views, options(resamples=50))
    records = {"leaderboard": analysis.Leaderboard, "confidence": analysis.Confidence,
               "significance": analysis.Significance, "methods": analysis.Methods,
               "stability": analysis.Stability, "mcnemar": analysis.McNemar, "gt_free": analysis.GroundTruthFree}
    for name, record in records.items():
        found = getattr(a, name)
        assert isinstance(found, record), name
        assert set(vars(found)) == set(f.name for f in dataclasses.fields(record)), name
        with pytest.raises(dataclasses.FrozenInstanceError):
            found.extra = 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.rank_median = a.confidence.rank_median
    assert set(vars(a)) == set(f.name for f in dataclasses.fields(analysis.TrackAnalysis))


# --- a perfect submission among 50 --------------------------------------------------------------

def test_a_perfect_submission_beats_49_others_in_every_kind_of_score():
    """Pages as realistic submissions see them: a shared difficulty per page, a quality per
    submission, a little noise. (With 15 pages the smallest exact two-sided p is 2^-14; if
    every pair of 50 submissions disagreed on its own pattern of pages, no FWER control over
    1,225 pairs could go below 0.05, whatever the method: 2,450 / 2^15 = 0.075.)"""
    rng = np.random.RandomState(0)
    y = np.arange(200) % 2
    auth = [classification_view([np.ones(200)] * 3, [y] * 3)]
    auth += [classification_view([rng.rand(200) < 0.5 + 0.3 * rng.rand() for _ in range(3)], [y] * 3)
             for _ in range(49)]
    lines = [page_view([np.ones(5)] * 3)]
    difficulty = 0.2 * rng.rand(3, 5)
    lines += [page_view(np.clip(0.3 + 0.6 * rng.rand() - difficulty + rng.normal(0, 0.03, (3, 5)), 0, 1))
              for _ in range(49)]
    labels = np.zeros((20, 60))
    labels[:, :6] = 1
    events = [ap_view(labels.ravel(), labels.ravel(), [60] * 20)]
    events += [ap_view(labels.ravel(), (labels + 1.5 * rng.randn(20, 60)).ravel(), [60] * 20) for _ in range(49)]
    names = ["s%d" % k for k in range(50)]
    for views in (auth, lines, events):
        a = analysis.analyse("t", names, views, options(resamples=50))
        assert a.rank[0] == 1 and a.methods.winners == [0]
        for key, tests in a.significance.tests.items():
            assert tests.better()[0].sum() == 49, key


# --- the randomisation test against brute force --------------------------------------------------

def brute_force(x):
    """Every sign pattern by itertools, each pair's p and the max-T step-down, written out."""
    units, k = x.shape
    pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
    d = [x[:, a] - x[:, b] for a, b in pairs]
    scale = [np.sqrt((v ** 2).sum()) or 1.0 for v in d]
    observed = [abs(v.sum()) / s for v, s in zip(d, scale)]
    patterns = [np.array(p) for p in itertools.product((-1.0, 1.0), repeat=units)]
    stats = [[abs((p * v).sum()) / s for v, s in zip(d, scale)] for p in patterns]
    p_raw = [np.mean([row[j] >= observed[j] - 1e-9 for row in stats]) for j in range(len(pairs))]
    order = sorted(range(len(pairs)), key=lambda j: -observed[j])
    adjusted, running = [0.0] * len(pairs), 0.0
    for position, j in enumerate(order):
        rest = order[position:]
        share = np.mean([max(row[r] for r in rest) >= observed[j] - 1e-9 for row in stats])
        running = max(running, share)
        adjusted[j] = running
    return pairs, p_raw, adjusted


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_randomisation_and_max_t_equal_brute_force(seed):
    rng = np.random.RandomState(seed)
    x = np.round(rng.rand(7, 4), 2)
    x[:, 0] += 0.2 * seed
    pairs, t, p, p_max, total, exact = significance.paired_randomisation(x)
    assert exact and total == 2 ** 7
    expected_pairs, p_raw, adjusted = brute_force(x)
    assert [tuple(q) for q in pairs.tolist()] == expected_pairs
    assert p.tolist() == pytest.approx(p_raw)
    assert p_max.tolist() == pytest.approx(adjusted)


def test_randomisation_equals_scipy_permutation_test():
    stats = pytest.importorskip("scipy.stats")
    if not hasattr(stats, "permutation_test"):
        pytest.skip("scipy without permutation_test (the 3.7 floor)")
    rng = np.random.RandomState(4)
    x = rng.rand(9, 2)
    x[:, 0] += 0.3
    p = significance.paired_randomisation(x)[2][0]
    result = stats.permutation_test((x[:, 0], x[:, 1]), lambda a, b: np.sum(a - b), permutation_type="samples",
                                    alternative="two-sided", n_resamples=np.inf)
    assert p == pytest.approx(result.pvalue)


def test_contributions_swap_exactly_like_rescoring_the_swapped_submissions():
    """Swapping A and B on a set of images and rescoring both views with aggregate() gives
    the difference the sign pattern predicts (balanced accuracy: two weighted terms)."""
    rng = np.random.RandomState(5)
    y = [rng.rand(n) < 0.4 for n in (30, 12)]
    views = [classification_view([rng.rand(len(v)) < 0.7 for v in y], y) for _ in range(2)]
    for key in ("uar", "balanced_accuracy"):
        x, unit, strata, _ = analysis.contributions(views, key)
        assert unit == "item" and strata.tolist() == [0] * 30 + [1] * 12
        for k in range(2):
            assert x[:, k].sum() == pytest.approx(itemview.leaderboard(views[k])[key])
        swap = rng.rand(42) < 0.5
        swapped = []
        for k in range(2):
            columns = dict((c, np.where(swap, views[1 - k].columns[c], views[k].columns[c])
                            if c not in views[k].reference_columns else views[k].columns[c]) for c in views[k].columns)
            swapped.append(ItemView(views[k].strata, views[k].sizes, views[k].items, columns, views[k].scores,
                                    "uar", views[k].reference_columns, views[k].block))
        signs = np.where(swap, -1.0, 1.0)
        expected = (signs * (x[:, 0] - x[:, 1])).sum()
        got = itemview.leaderboard(swapped[0])[key] - itemview.leaderboard(swapped[1])[key]
        assert got == pytest.approx(expected)


# --- the weighted AP and the bootstrap weights -----------------------------------------------------

@pytest.mark.parametrize("seed", range(40))
def test_weighted_average_precision_equals_ap_of_the_repeated_items(seed):
    rng = np.random.RandomState(seed)
    n = 25
    labels = (rng.rand(n) < 0.3).astype(float)
    labels[0] = 1
    confidence = np.round(rng.rand(n), 1)  # ties on purpose
    view = ap_view(labels, confidence, [n])
    weights = [rng.randint(0, 3, size=(6, n)).astype(float)]
    weights[0][:, 0] = 1  # at least one positive drawn
    values = itemview.aggregate(view, weights)["map"]
    for row in range(6):
        drawn = np.repeat(np.arange(n), weights[0][row].astype(int))
        assert values[row] == pytest.approx(average_precision(labels[drawn] > 0, confidence[drawn]))
    # compare.py's draws (bootstrap.Draws) keep each stratum's transpose: the same numbers.
    draws = bootstrap.Draws(weights)
    assert np.array_equal(itemview.aggregate(view, draws)["map"], values)
    assert draws.by_item(0) is draws.by_item(0) and np.array_equal(draws.by_item(0), weights[0].T)
    assert itemview.leaderboard(view)["map"] == average_precision(labels > 0, confidence)
    # Each item drawn once: the weighted path agrees with the leaderboard's.
    assert itemview.aggregate(view, [np.ones((1, n))])["map"][0] == pytest.approx(itemview.leaderboard(view)["map"])


def test_bootstrap_draws_b_minus_one_items_per_block_deterministically():
    view = classification_view([np.ones(7), np.ones(4)], [np.r_[np.ones(3), np.zeros(4)], np.r_[1, 0, 0, 0]])
    first = bootstrap.draw_weights(view, 30, 11)
    again = bootstrap.draw_weights(view, 30, 11)
    other = bootstrap.draw_weights(view, 30, 12)
    assert all(np.array_equal(x, y) for x, y in zip(first, again))
    assert not all(np.array_equal(x, y) for x, y in zip(first, other))
    # Blocks (stratum, class): sizes 3, 4 | 1, 3 -> draws 2, 3 | 1 (a single item is kept), 2.
    for weights, blocks in ((first[0], [(0, 3, 2), (3, 7, 3)]), (first[1], [(0, 1, 1), (1, 4, 2)])):
        for lo, hi, draws in blocks:
            assert np.all(weights[:, lo:hi].sum(axis=1) == draws)


def test_resampled_scores_equal_rescoring_the_drawn_items():
    rng = np.random.RandomState(0)
    view = page_view([rng.rand(6), rng.rand(4)])
    weights = bootstrap.draw_weights(view, 20, 1)
    values = itemview.aggregate(view, weights)["line_iu"]
    x = view.columns["line_iu"]
    for row in range(20):
        means = []
        for (start, end), w in zip(view.bounds, weights):
            drawn = np.repeat(np.arange(start, end), w[row].astype(int))
            means.append(x[drawn].mean())
        assert values[row] == pytest.approx(np.mean(means))


def test_the_report_gives_kemenys_tau_over_every_optimal_order():
    """Two strata that order A and B oppositely and C between them: every one of the 6
    orders is an optimal Kemeny consensus (each pair is ordered one way by one task and the
    other way by the other), so the report gives the range of tau-b over all 6, computed
    here over the permutations, and does not give the tie-broken order's tau alone."""
    from scoring.metaeval import page
    from scoring.metrics.agreement import kendall_tau_b

    counts = {"A": (10, 3), "B": (3, 9), "C": (6, 6)}
    views = [classification_view([np.arange(10) < k for k in counts[name]]) for name in "ABC"]
    a = analysis.analyse("t", list("ABC"), views, options(resamples=50))
    assert a.rank.tolist() == [1, 2, 2]
    taus = [kendall_tau_b(-a.rank, -np.array(p)) for p in itertools.permutations([1, 2, 3])]
    kemeny = a.methods.kemeny
    assert kemeny.exact and kemeny.optimal == 6
    assert kemeny.tau_range == (pytest.approx(min(taus)), pytest.approx(max(taus)))
    report, _ = page.report_html([a], [])
    text = "Kemeny (mean-then-rank): from %.3f to %.3f over its 6 optimal orders" % (min(taus), max(taus))
    assert text in report
    assert "Kemeny (mean-then-rank): %.3f;" % kemeny.tau not in report


def test_a_kemeny_local_optimum_is_said_to_start_from_the_leaderboard():
    """Beyond challenger.KEMENY_EXACT submissions the consensus is a local optimum reached
    from the leaderboard's order: its tau is shown as that, without a range. 22 images, more
    than significance.EXACT_MAX_UNITS: the paired tests draw their sign patterns rather than
    enumerate 2^16 of them for each of the 78 pairs, which the exact tests' own cases pin."""
    from scoring.metaeval import challenger, page

    count = challenger.KEMENY_EXACT + 1
    random = np.random.RandomState(5)
    views = [classification_view([random.rand(11) < 0.5 + 0.02 * k, random.rand(11) < 0.7 - 0.02 * k])
             for k in range(count)]
    a = analysis.analyse("t", ["S%d" % k for k in range(count)], views, options(resamples=20, permutations=100))
    assert not a.methods.kemeny.exact and a.methods.kemeny.optimal is None
    report, _ = page.report_html([a], [])
    tau = dict((m, t) for m, t, _ in a.methods.agreement)["Kemeny (mean-then-rank)"]
    assert "Kemeny (mean-then-rank): %.3f (a local optimum reached from the leaderboard&#x27;s order)" % tau in report
