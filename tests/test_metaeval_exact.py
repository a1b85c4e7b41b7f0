"""Exact comparisons (SPEC 6; metaeval/exact.py): equal rational scores reached by
different floating-point sums share a rank and show no significant difference, in each
track scored by its own scorer; the exact values against their definitions; order keys
against Fractions; the sign-flip test's ties against an enumeration in rationals."""

import io
import itertools
import os
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image
from scoring import runner
from scoring.itemview import AveragePrecision, ItemView, Ratio, Score
from scoring.log import Log
from scoring import bootstrap
from scoring.metaeval import analysis, exact
from scoring.metrics import significance
from scoring.metrics.ranking import area_from_counts, ranked_counts


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def views_of(tmp_path, ref_files, submissions):
    """Each submission (rel path -> text or PIL image) scored by the track scorers against
    ref_files: their per-item views (of the one track)."""
    for rel, content in ref_files.items():
        _put(tmp_path / "ref" / rel, content)
    out = []
    for k, files in enumerate(submissions):
        work = tmp_path / ("in%d" % k)
        work.mkdir()
        os.symlink(str(tmp_path / "ref"), str(work / "ref"))
        for rel, content in files.items():
            _put(work / "res" / rel, content)
        _, results = runner.score_submission(str(work), Log(stream=io.StringIO()))
        out.append(results[0].view)
    return out


def _put(path, content):
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, Image.Image):
        content.save(str(path))
    else:
        path.write_text(content)


def options():
    return analysis.Options(resamples=100, permutations=500)


def assert_tied(views):
    a = analysis.analyse("t", ["A", "B"], views, options())
    values = a.values[a.primary]
    assert values[0] != values[1], "the floats must differ for the case to mean anything"
    assert a.rank.tolist() == [1, 1]
    tests = a.significance.tests[a.primary]
    assert tests.difference.tolist() == [0.0]
    assert tests.p.tolist() == [1.0] and tests.p_adjusted.tolist() == [1.0]
    assert not tests.better().any()
    assert a.methods.winners == [0, 1]
    return a


def test_authentication_equal_uar_from_different_float_sums(tmp_path):
    """Subsets of 32, 75 and 100 images; A right on 0, 39 and 99 of them, B on 16, 48 and
    37: both UAR (a/32 + b/75 + c/100) / 3 = 151/300 exactly, the floats 0.5033333333333333
    and 0.5033333333333334."""
    sizes = (32, 75, 100)
    counts = [(0, 39, 99), (16, 48, 37)]
    assert len(set(sum((Fraction(c, n) for c, n in zip(k, sizes)), Fraction(0)) for k in counts)) == 1
    ref = {"authentication/track.yaml": "track: authentication\ndistances: optional\n"}
    subs = [{}, {}]
    for h, n in enumerate(sizes):
        name = "S%d" % h
        labels = [i % 2 for i in range(n)]
        ref["authentication/%s.csv" % name] = "filename,label\n" + "".join(
            "i%03d.png,%d\n" % (i, y) for i, y in enumerate(labels))
        for k, count in enumerate(counts):
            said = [y if i < count[h] else 1 - y for i, y in enumerate(labels)]
            subs[k]["authentication/%s_labels.csv" % name] = "filename,label\n" + "".join(
                "i%03d.png,%d\n" % (i, y) for i, y in enumerate(said))
    views = views_of(tmp_path, ref, subs)
    assert_tied(views)


def lines_page(line_count, found, colour=False):
    """A 40-pixel-high page with `line_count` horizontal lines; `found` of them drawn (the
    prediction, each line its own colour) or all (the ground-truth mask)."""
    image = np.zeros((8 * line_count + 4, 60, 3 if colour else 1), dtype=np.uint8)
    for line in range(found if colour else line_count):
        image[4 + 8 * line:8 + 8 * line, 5:55] = [40 * (line + 1), 200, 10 * line] if colour else 255
    return Image.fromarray(image if colour else image[:, :, 0])


def test_lines_equal_line_iu_from_different_float_sums(tmp_path):
    """Pages of 3, 4 and 6 lines: A finds 1, 1 and 1 (1/3, 1/4, 1/6), B 0, 3 and 0 (0, 3/4,
    0): both means are 1/4, the floats 0.24999999999999997 and 0.25."""
    ref = {"lines/track.yaml": "track: lines\n"}
    subs = [{}, {}]
    for page, (count, found_a, found_b) in enumerate(((3, 1, 0), (4, 1, 3), (6, 1, 0))):
        ref["lines/m/p%d.png" % page] = lines_page(count, count)
        subs[0]["lines/m/p%d.png" % page] = lines_page(count, found_a, colour=True)
        subs[1]["lines/m/p%d.png" % page] = lines_page(count, found_b, colour=True)
    views = views_of(tmp_path, ref, subs)
    assert views[0].columns["line_iu"].tolist() == pytest.approx([1 / 3.0, 1 / 4.0, 1 / 6.0])
    assert_tied(views)


def test_events_equal_map_from_different_float_sums(tmp_path):
    """Three categories of 8 images, one positive each; A ranks it 1st, 2nd and 6th (AP 1,
    1/2, 1/6), B 2nd, 6th and 1st: both maps are 5/9, the floats differ in the last bit."""
    ref = {"events/track.yaml": "track: events\n"}
    subs = [{}, {}]
    for c, (rank_a, rank_b) in enumerate(((1, 2), (2, 6), (6, 1))):
        ids = ["c%di%d" % (c, i) for i in range(8)]
        ref["events/Cat%d.txt" % c] = "".join("%s %d\n" % (i, j == 0) for j, i in enumerate(ids))
        for k, rank in enumerate((rank_a, rank_b)):
            # the positive (image 0) at `rank`, the negatives around it
            order = [ids[j] for j in range(1, 8)]
            order.insert(rank - 1, ids[0])
            subs[k]["events/Cat%d.txt" % c] = "".join("%s %.2f\n" % (i, 1 - 0.1 * p) for p, i in enumerate(order))
    views = views_of(tmp_path, ref, subs)
    assert_tied(views)


# -- the exact values against their definitions ------------------------------------------

def fraction_ap(labels, confidence, weights=None):
    """AP of SPEC 5 in Fractions, straight from the definition: the items repeated by
    their weights, operating points per distinct confidence."""
    items = []
    for i, (y, c) in enumerate(zip(labels, confidence)):
        items += [(c, int(y))] * (1 if weights is None else int(weights[i]))
    positives = sum(y for _, y in items)
    if positives == 0:
        return Fraction(0)
    points = []
    for value in sorted(set(c for c, _ in items), reverse=True):
        above = [y for c, y in items if c >= value]
        points.append((Fraction(sum(above), positives), Fraction(sum(above), len(above))))
    envelope = [max(p for _, p in points[i:]) for i in range(len(points))]
    area, previous_r, previous_p = Fraction(0), Fraction(0), envelope[0]
    for (r, _), p in zip(points, envelope):
        area += (r - previous_r) * (p + previous_p) / 2
        previous_r, previous_p = r, p
    return area


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5), st.integers(0, 3)), min_size=1, max_size=14))
def test_exact_average_precision_is_the_definition(items):
    labels = np.array([float(y) for y, _, _ in items])
    labels[0] = 1.0
    confidence = np.array([float(c) for _, c, _ in items])
    weights = np.array([w for _, _, w in items])
    view = ItemView(["c"], [len(items)], [str(i) for i in range(len(items))],
                    {"label": labels, "confidence": confidence},
                    [("map", Score(AveragePrecision("label", "confidence"), ranked=True))], "map", ["label"])
    statistic = view.scores["map"].statistic
    assert exact.stratum_value(view, statistic, 0) == fraction_ap(labels, confidence)
    assert float(exact.stratum_value(view, statistic, 0)) == pytest.approx(
        area_from_counts(*ranked_counts(labels > 0, confidence)), abs=1e-12)
    assert exact.stratum_value(view, statistic, 0, weights) == fraction_ap(labels, confidence, weights)


def test_exact_ratio_with_fraction_columns_and_weights():
    """A page column of fractions with its denominators, resampled with draw counts."""
    values = [Fraction(1, 3), Fraction(5, 7), Fraction(0), Fraction(11, 13)]
    view = ItemView(["m"], [4], list("abcd"), {"x": np.array([float(v) for v in values]),
                                               "q": np.array([3.0, 7.0, 1.0, 13.0]), "one": np.ones(4)},
                    [("s", Score(Ratio(("x", "one")), ranked=True))], "s", ["one"], denominators={"x": "q"})
    weights = np.array([2, 0, 1, 3])
    expected = sum(w * v for w, v in zip(weights, values)) / int(weights.sum())
    assert exact.stratum_value(view, view.scores["s"].statistic, 0, weights) == expected
    assert exact.score_value(view, view.scores["s"]) == sum(values) / 4


def test_bounded_denominators_are_recovered():
    values = [Fraction(1, 3), Fraction(2, 7), Fraction(1), Fraction(0), Fraction(5, 11)]
    floats = np.array([float(1 - (1 - v)) for v in values])
    view = ItemView(["s"], [5], list("abcde"), {"hit": floats, "one": np.ones(5)},
                    [("top1", Score(Ratio(("hit", "one")), ranked=True))], "top1", ["one"],
                    denominators={"hit": 12})
    rationals = exact.item_rationals(view, "hit")
    assert [Fraction(int(n), int(d)) for n, d in zip(rationals.numerators, rationals.denominators)] == values
    view = ItemView(["s"], [1], ["a"], {"hit": np.array([0.123456]), "one": np.ones(1)},
                    [("top1", Score(Ratio(("hit", "one")), ranked=True))], "top1", ["one"], denominators={"hit": 7})
    with pytest.raises(ValueError):
        exact.item_rationals(view, "hit")


def test_undeclared_fractions_are_read_as_their_decimals():
    view = ItemView(["s"], [3], list("abc"), {"x": np.array([0.1, 0.2, 0.3]), "one": np.ones(3)},
                    [("s", Score(Ratio(("x", "one")), ranked=True))], "s", ["one"])
    assert exact.score_value(view, view.scores["s"]) == Fraction(1, 5)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(1, 7)), min_size=1, max_size=9))
def test_order_keys_follow_the_fractions(pairs):
    fractions = [Fraction(min(n, d), d) for n, d in pairs]
    # floats reached by another road than the fraction: a sum of a third and the rest
    floats = np.array([float(f - Fraction(1, 3)) + 1 / 3.0 for f in fractions])
    keys = exact.order_keys(floats, lambda i: fractions[i], significance.margin(4))
    for i, j in itertools.combinations(range(len(fractions)), 2):
        assert (keys[i] < keys[j]) == (fractions[i] < fractions[j])
        assert (keys[i] == keys[j]) == (fractions[i] == fractions[j])


def test_competition_ranks_of_equal_rationals_summed_in_another_order():
    first, second = (0.1 + 0.2 + 0.3) / 3, (0.3 + 0.2 + 0.1) / 3
    assert first != second
    keys = exact.order_keys(np.array([first, second, 0.5]),
                            lambda i: [Fraction(1, 5), Fraction(1, 5), Fraction(1, 2)][i], significance.margin(3))
    assert bootstrap.competition_ranks(keys).tolist() == [[2, 2, 1]]


# -- ties in the randomisation test ---------------------------------------------------------

def rational_sign_flip(x, strata=None):
    """Every sign pattern in Fractions: each pair's p (share of patterns with Z*^2 >= Z^2,
    Z the studentized statistic of paired_randomisation) and the max-T step-down."""
    units, k = len(x), len(x[0])
    pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]
    stratum = [0] * units if strata is None else list(strata)
    sizes = dict((h, stratum.count(h)) for h in set(stratum))

    def z2(d):
        t = sum(d, Fraction(0))
        v = Fraction(0)
        for h in sizes:
            part = [d[u] for u in range(units) if stratum[u] == h]
            q, s, n = sum(e * e for e in part), sum(part, Fraction(0)), len(part)
            v += q if strata is None or n == 1 else (n * q - s * s) / (n - 1)
        if t == 0:
            return Fraction(0)
        return float("inf") if v == 0 else t * t / v

    differences = [[x[u][a] - x[u][b] for u in range(units)] for a, b in pairs]
    observed = [z2(d) for d in differences]
    patterns = list(itertools.product((-1, 1), repeat=units))
    flipped = [[z2([s * e for s, e in zip(p, d)]) for d in differences] for p in patterns]
    p_raw = [Fraction(sum(row[j] >= observed[j] for row in flipped), len(patterns)) for j in range(len(pairs))]
    order = sorted(range(len(pairs)), key=lambda j: (-observed[j], j))
    adjusted, running = [0] * len(pairs), Fraction(0)
    for position, j in enumerate(order):
        rest = order[position:]
        share = Fraction(sum(max(row[r] for r in rest) >= observed[j] for row in flipped), len(patterns))
        running = max(running, share)
        adjusted[j] = running
    return p_raw, adjusted


@pytest.mark.parametrize("seed", range(6))
def test_ties_count_exactly_as_an_enumeration_in_rationals(seed):
    """Lattice shares (thirds, sevenths: many patterns tie with the observed statistic),
    stratified: the exact enumeration equals the enumeration in Fractions, p and max-T."""
    rng = np.random.RandomState(seed)
    units, k = 8, 3
    x = [[Fraction(int(rng.randint(0, 4)), 3 if u < 4 else 7) for _ in range(k)] for u in range(units)]
    strata = [0] * 4 + [1] * 4
    floats = np.array([[float(v) for v in row] for row in x])
    provider = significance.ExactUnits(lambda u, j: x[u][j])
    pairs, _, p, p_max, total, exhaustive = significance.paired_randomisation(floats, strata=strata, exact=provider)
    assert exhaustive and total <= 2 ** units  # units where all three agree are left out
    expected_p, expected_max = rational_sign_flip(x, strata)
    assert p.tolist() == [float(v) for v in expected_p]
    assert p_max.tolist() == [float(v) for v in expected_max]


def test_monte_carlo_counts_ties_as_the_rationals_do():
    """The seeded patterns of the Monte Carlo path, re-evaluated in Fractions: (1 + hits) /
    (1 + draws) with the hits counted exactly."""
    units = 40
    x = [[Fraction(u % 3, 3), Fraction((u + 1) % 3, 3) if u % 4 else Fraction(u % 3, 3)] for u in range(units)]
    floats = np.array([[float(v) for v in row] for row in x])
    draws, seed = 300, 9
    _, _, p, _, total, exhaustive = significance.paired_randomisation(
        floats, draws, seed, exact=significance.ExactUnits(lambda u, j: x[u][j]))
    assert not exhaustive and total == draws
    chunks, _, _ = significance.sign_patterns(units, draws, seed)
    d = [x[u][0] - x[u][1] for u in range(units)]
    kept = [u for u in range(units) if x[u][0] != x[u][1]]
    observed = sum(d) ** 2
    hits = 0
    # the same patterns over the units that differ, as paired_randomisation draws them
    chunks, _, _ = significance.sign_patterns(len(kept), draws, seed)
    for block in chunks():
        for signs in block.tolist():
            t = sum(int(s) * d[u] for s, u in zip(signs, kept))
            hits += t * t >= observed
    assert p[0] == (hits + 1.0) / (draws + 1.0)
    assert hits > 10  # the lattice makes ties common: the case tests them


def test_a_specialist_is_found_by_the_centred_statistic():
    """B better than A on every page of one manuscript, equal elsewhere with a spread: the
    uncentred variance counts the manuscript's shift as noise; centred within strata the
    test sees it, as the bootstrap interval does."""
    rng = np.random.RandomState(1)
    pages = 6
    a = [rng.rand(pages) * 0.2 + 0.4 for _ in range(3)]
    b = [a[0] + 0.05 + rng.rand(pages) * 0.01, a[1] + rng.normal(0, 0.04, pages), a[2] + rng.normal(0, 0.04, pages)]
    x = np.zeros((3 * pages, 2))
    for h in range(3):
        x[h * pages:(h + 1) * pages, 0] = a[h] / (3 * pages)
        x[h * pages:(h + 1) * pages, 1] = b[h] / (3 * pages)
    strata = np.repeat(np.arange(3), pages)
    centred = significance.paired_randomisation(x, strata=strata)[2][0]
    pooled = significance.paired_randomisation(x)[2][0]
    assert centred < pooled
