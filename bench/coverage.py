"""What the intervals and tests promise, measured: python3 bench/coverage.py [--replicates N]
[--resamples N] [--only TEXT ...] [--no-tests].

Test sets are drawn from known generating models at the sizes competitions have, built as
the tracks build their per-item views (the same items, strata, resampling blocks and
Score statistics) and scored by the real aggregation (itemview.aggregate) and the real
intervals (bootstrap.participant_intervals: the participant's page, whose interval is
compare.py's) and paired tests (analysis.paired_tests, compare.py's; a pair given no
p-value is not a rejection):

  events          8 categories x 100 images, 5 positives per category (average precision);
                  events-1-positive, -2-, -3-, -20-positives: as many positives;
                  events-ties: confidences to one decimal; events-high: positives
                  separated by 3 SD (map near 0.87); events-large: 50 categories x 2,000
                  images, 10 positives each
  lines: ...      3 manuscripts of 6 or 10 pages, page line IU of one of FAMILIES (pages
                  that fail one page in 5, 8 or 10; skewed Betas; Pareto losses; pages of
                  1 to 8 lines)
  authentication  3 subsets x 40 images, labels drawn at random, 95% right on authentic
                  images and 60% on imitations (a class gap); -fixed: half imitations in
                  every subset of every test set; -few-imitations: 10% imitations;
                  -unequal: subsets of 10, 40 and 120 images

For each: the share of replicates whose 95% interval holds the expected score (the mean
of the score over test sets of this kind: exact for a mean, from 20,000 test sets for
average precision), and the share whose prediction interval holds the score of a second
test set drawn independently, with their mean widths. The paired test: its rejection
rate at 0.05 and 0.01 under the weak null (lines: a steady submission against one of the
family with the same expected page IU in every manuscript; authentication: the class gap
against a submission right as often on both classes) and its power (the steady one 0.1
and 0.2 better, the even one 0.05), with the share of pairs given no p-value; events:
the paired test of map (by category) under the null and with the second submission's
positives scored 0.5 higher.
Each share comes with its Monte Carlo standard error. The full run (docs/compare-methods.md's
table, "Measured") is the default: 300 replicates of 1,000 resamples per setting.
"""

import argparse
from collections import OrderedDict
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "program"))

from scoring import bootstrap  # noqa: E402
from scoring.itemview import AveragePrecision, ItemView, Ratio, Score, aggregate  # noqa: E402
from scoring.metaeval import analysis  # noqa: E402
from scoring.metrics import significance  # noqa: E402

# -- generating models ------------------------------------------------------------------------

CATEGORIES, IMAGES, POSITIVES, SEPARATION = 8, 100, 5, 1.5


def events_view(rng, categories=CATEGORIES, images=IMAGES, positives=POSITIVES, separation=SEPARATION,
                decimals=2):
    """Per category, 5 positives of 100 images; confidence N(1.5 label, 1), rounded to 2
    decimals (ties, as submissions write them). The events track's view: strata the
    categories, blocks (category, true class)."""
    labels = np.zeros((categories, images))
    labels[:, :positives] = 1
    confidence = np.round(labels * separation + rng.randn(categories, images), decimals)
    block = 2 * np.repeat(np.arange(categories), images) + labels.ravel().astype(int)
    n = categories * images
    return ItemView(["c%d" % h for h in range(categories)], [images] * categories, [str(i) for i in range(n)],
                    {"label": labels.ravel(), "confidence": confidence.ravel()},
                    [("map", Score(AveragePrecision("label", "confidence"), ranked=True))], "map", ["label"],
                    block=block, unit="image")


#: The events settings: name -> events_view's arguments but the generator.
EVENTS = OrderedDict([
    ("events", {}),
    ("events-1-positive", {"positives": 1}),  # one positive: its variance bounded, not drawn
    ("events-2-positives", {"positives": 2}),
    ("events-3-positives", {"positives": 3}),
    ("events-20-positives", {"positives": 20}),
    ("events-ties", {"decimals": 1}),  # confidences to one decimal: about 40 images share a value
    ("events-high", {"separation": 3.0}),  # map near 0.87: AP's bound at 1 near
    ("events-large", {"categories": 50, "images": 2000, "positives": 10}),
])
TRUTH_DRAWS = {"events-large": 2000}  # test sets averaged for the expected map (else 20,000)


PAGES = 6  # pages per manuscript (3 manuscripts: MEANS)
MEANS = (0.55, 0.65, 0.75)  # expected page IU per manuscript


def steady_pages(rng, means=MEANS, pages=PAGES, concentration=60.0):
    """Page IU ~ Beta with mean means[h] and the given concentration (a steady submission)."""
    return np.concatenate([rng.beta(m * concentration, (1 - m) * concentration, size=pages) for m in means])


def _failures(rate, failed_high):
    """Pages fail with probability `rate`, a failed page's IU U(0, failed_high); the other
    pages Beta(concentration 60) about a mean set so that the page's expected IU is m."""
    def draw(rng, m, size):
        good = (m - rate * failed_high / 2.0) / (1 - rate)
        values = rng.beta(good * 60.0, (1 - good) * 60.0, size=size)
        failed = rng.rand(size) < rate
        values[failed] = rng.uniform(0, failed_high, size=int(failed.sum()))
        return values
    return draw


def _beta(concentration):
    """Beta with mean m and a low concentration: skewed left for m near 1, right near 0."""
    def draw(rng, m, size):
        return rng.beta(m * concentration, (1 - m) * concentration, size=size)
    return draw


def _pareto_loss(scale, shape):
    """IU = max(0, top - scale x Lomax(shape)): mostly near the top, a heavy tail of losses
    clipped at 0; `top` solved numerically so that the expected IU is m."""
    def draw(rng, m, size):
        return np.maximum(0.0, _loss_top(m, scale, shape) - scale * rng.pareto(shape, size=size))
    return draw


_TOPS = {}


def _loss_top(m, scale, shape, draws=400000):
    """The top of _pareto_loss whose expected IU is m (bisection on a fixed sample)."""
    key = (m, scale, shape)
    if key not in _TOPS:
        loss = scale * np.random.RandomState(3).pareto(shape, size=draws)
        low, high = m, m + 10 * scale
        for _ in range(60):
            middle = (low + high) / 2
            low, high = (middle, high) if np.mean(np.maximum(0.0, middle - loss)) < m else (low, middle)
        _TOPS[key] = (low + high) / 2
    return _TOPS[key]


def _few_lines(most):
    """A page of L lines, L uniform in 1..most, each line found with probability m: the page's
    line IU k / L (discrete, heavy-tailed where pages hold few lines)."""
    def draw(rng, m, size):
        lines = rng.randint(1, most + 1, size=size)
        return rng.binomial(lines, m) / lines.astype(float)
    return draw


#: name -> (draw(rng, m, pages), expected page IU per manuscript)
FAMILIES = OrderedDict([
    ("fail 1/5, failed U(0, 0.2)", (_failures(0.2, 0.2), MEANS)),
    ("fail 1/8, failed U(0, 0.2)", (_failures(0.125, 0.2), MEANS)),
    ("fail 1/10, failed U(0, 0.2)", (_failures(0.1, 0.2), MEANS)),
    ("fail 1/5, failed U(0, 0.02)", (_failures(0.2, 0.02), MEANS)),
    ("fail 1/8, failed U(0, 0.02)", (_failures(0.125, 0.02), MEANS)),
    ("fail 1/5, manuscripts 0.30/0.55/0.80", (_failures(0.2, 0.2), (0.30, 0.55, 0.80))),
    ("Beta(conc 2), means 0.80/0.85/0.90", (_beta(2.0), (0.80, 0.85, 0.90))),
    ("Beta(conc 2), means 0.10/0.15/0.20", (_beta(2.0), (0.10, 0.15, 0.20))),
    ("Beta(conc 1), means 0.55/0.65/0.75", (_beta(1.0), MEANS)),
    ("Pareto loss (shape 1.5, scale 0.05)", (_pareto_loss(0.05, 1.5), MEANS)),
    ("Pareto loss (shape 1.1, scale 0.02)", (_pareto_loss(0.02, 1.1), (0.75, 0.80, 0.85))),
    ("1-8 lines per page", (_few_lines(8), MEANS)),
])


def family_pages(rng, family, pages=PAGES):
    """One test set's page IUs of a submission of the family, manuscript after manuscript."""
    draw, means = FAMILIES[family]
    return np.concatenate([draw(rng, m, pages) for m in means])


def lines_view(values, pages=PAGES):
    """The lines track's view of page line IUs: pages within manuscripts, key line_iu the mean
    over pages, then over manuscripts."""
    n = values.shape[0]
    strata = n // pages
    return ItemView(["m%d" % h for h in range(strata)], [pages] * strata, [str(i) for i in range(n)],
                    {"line_iu": values, "one": np.ones(n)},
                    [("line_iu", Score(Ratio(("line_iu", "one")), ranked=True))], "line_iu", ["one"], unit="page")


RIGHT = {True: 0.60, False: 0.95}  # P(right) on imitations (label 1) and authentic images

#: name -> (images per subset, share of imitations, fixed class counts)
AUTHENTICATION = OrderedDict([
    ("authentication", ((40, 40, 40), 0.5, False)),
    ("authentication-fixed", ((40, 40, 40), 0.5, True)),
    ("authentication-few-imitations", ((40, 40, 40), 0.1, False)),
    ("authentication-unequal", ((10, 40, 120), 0.5, False)),
])


def authentication_views(rng, setting="authentication", rights=(RIGHT,)):
    """The authentication track's uar of submissions on one test set: per subset, correct /
    images; blocks the subsets. Labels drawn with the setting's share of imitations, so
    that the class counts vary between test sets (fixed: that share of each subset
    imitations in every test set); rights: per submission P(right) on imitations (True)
    and authentic images (False), answers drawn independently."""
    sizes, imitations, fixed = AUTHENTICATION[setting]
    correct, block = [[] for _ in rights], []
    for h, size in enumerate(sizes):
        label = np.arange(size) < int(round(size * imitations)) if fixed else rng.rand(size) < imitations
        for k, right in enumerate(rights):
            chance = np.where(label, right[True], right[False])
            correct[k].append((rng.rand(size) < chance).astype(float))
        block.append(np.full(size, h))
    n = int(sum(sizes))
    return [ItemView(["s%d" % h for h in range(len(sizes))], list(sizes), [str(i) for i in range(n)],
                     {"correct": np.concatenate(c), "one": np.ones(n)},
                     [("uar", Score(Ratio(("correct", "one")), ranked=True))], "uar", ["one"],
                     block=np.concatenate(block), unit="image") for c in correct]


def authentication_view(rng, setting="authentication"):
    """One submission with the class gap RIGHT (authentication_views)."""
    return authentication_views(rng, setting)[0]


def expected_uar(setting, right=None):
    """The expected uar of a submission right with probabilities `right` in the setting."""
    _, imitations, _ = AUTHENTICATION[setting]
    right = right or RIGHT
    return imitations * right[True] + (1 - imitations) * right[False]


def expected_map(draws=20000, seed=1, setting="events"):
    """The expected mAP of a test set of an events setting, from `draws` test sets."""
    rng = np.random.RandomState(seed)
    arguments = EVENTS[setting]
    return float(np.mean([aggregate(events_view(rng, **arguments))["map"][0] for _ in range(draws)]))


def _lines_setting(family, pages):
    return (lambda rng: lines_view(family_pages(rng, family, pages), pages), float(np.mean(FAMILIES[family][1])))


SETTINGS = OrderedDict((name, (lambda rng, arguments=arguments: events_view(rng, **arguments), None))
                       for name, arguments in EVENTS.items())
for _family in FAMILIES:
    for _pages in (PAGES, 10):
        SETTINGS["lines: %s, 3 x %d pages" % (_family, _pages)] = _lines_setting(_family, _pages)
for _name in AUTHENTICATION:
    SETTINGS[_name] = ((lambda name: lambda rng: authentication_view(rng, name))(_name), expected_uar(_name))
#: the lines setting of the issue: failures one page in five at 3 x 6 pages
LINES = "lines: fail 1/5, failed U(0, 0.2), 3 x 6 pages"


# -- measurements -----------------------------------------------------------------------------

def share(hits):
    """(share, its Monte Carlo standard error) of a list of booleans."""
    p = float(np.mean(hits)) if len(hits) else 0.0
    return p, float(np.sqrt(p * (1 - p) / max(len(hits), 1)))


def coverage(name, replicates, resamples, seed=5, truth=None):
    """(coverage of the expected score, coverage of a second test set's score by the
    prediction interval, mean width of the interval, of the prediction interval) of the
    setting's 95% intervals over `replicates` test sets; the coverages with their MC SE."""
    make, known = SETTINGS[name]
    target = known if known is not None else (truth if truth is not None else expected_map(
        TRUTH_DRAWS.get(name, 20000), setting=name))
    rng = np.random.RandomState(seed)
    expected, predicted, widths, predicted_widths = [], [], [], []
    for replicate in range(replicates):
        view = make(rng)
        key = view.primary
        (low, high), (p_low, p_high) = bootstrap.participant_intervals(view, key, resamples, seed=replicate)
        expected.append(low <= target <= high)
        other = aggregate(make(rng))[key][0]
        predicted.append(p_low <= other <= p_high)
        widths.append(high - low)
        predicted_widths.append(p_high - p_low)
    return share(expected), share(predicted), float(np.mean(widths)), float(np.mean(predicted_widths))


def _rejects(views, key, replicate, patterns):
    """(p < 0.05, p < 0.01, no p-value given) of compare.py's paired test of the first two views."""
    p = analysis.paired_tests(views, key, analysis.Options(permutations=patterns, seed=replicate))[4][0]
    return (not np.isnan(p) and p < 0.05), (not np.isnan(p) and p < 0.01), bool(np.isnan(p))


def paired_test(replicates, advantage=0.0, family=None, pages=PAGES, patterns=significance.DEFAULT_PATTERNS, seed=7):
    """compare.py's paired test of line IU (analysis.paired_tests), a steady submission (page
    IU Beta, concentration 60) against one of the family (FAMILIES; the first by default)
    with the same expected page IU in every manuscript, the steady one's moved by
    `advantage` (0: the weak null; down where up would pass 0.97). Returns the shares of
    replicates with p < 0.05, with p < 0.01 and with no p-value given, each (share, MC SE)."""
    family = family or next(iter(FAMILIES))
    means = FAMILIES[family][1]
    towards = 1 if max(means) + advantage < 0.97 else -1
    rng = np.random.RandomState(seed)
    out = []
    for replicate in range(replicates):
        steady = lines_view(steady_pages(rng, [m + towards * advantage for m in means], pages), pages)
        other = lines_view(family_pages(rng, family, pages), pages)
        out.append(_rejects([steady, other], "line_iu", replicate, patterns))
    return tuple(share([row[k] for row in out]) for k in range(3))


def authentication_test(replicates, advantage=0.0, setting="authentication", patterns=significance.DEFAULT_PATTERNS,
                        seed=13):
    """compare.py's paired test of uar between a submission with the class gap (RIGHT) and
    one right with the same probability on both classes, equal expected uar in the setting
    (the second's raised by `advantage`: power). Shares as paired_test's."""
    rng = np.random.RandomState(seed)
    level = expected_uar(setting) + advantage
    out = []
    for replicate in range(replicates):
        views = authentication_views(rng, setting, (RIGHT, {True: level, False: level}))
        out.append(_rejects(views, "uar", replicate, patterns))
    return tuple(share([row[k] for row in out]) for k in range(3))


def map_test(replicates, advantage=0.0, patterns=significance.DEFAULT_PATTERNS, seed=11):
    """Rejection rate at 0.05 of compare.py's paired test of map (by category: the sign
    flips alone) between two submissions of the events setting sharing part of their
    confidence noise, the second's positives raised by `advantage` (0: the null)."""
    rng = np.random.RandomState(seed)
    rejected = []
    labels = np.zeros((CATEGORIES, IMAGES))
    labels[:, :POSITIVES] = 1
    block = 2 * np.repeat(np.arange(CATEGORIES), IMAGES) + labels.ravel().astype(int)
    for replicate in range(replicates):
        common = 0.7 * rng.randn(CATEGORIES, IMAGES)
        views = []
        for separation in (SEPARATION, SEPARATION + advantage):
            confidence = np.round(labels * separation + common + 0.7 * rng.randn(CATEGORIES, IMAGES), 2)
            views.append(ItemView(["c%d" % h for h in range(CATEGORIES)], [IMAGES] * CATEGORIES,
                                  [str(i) for i in range(CATEGORIES * IMAGES)],
                                  {"label": labels.ravel(), "confidence": confidence.ravel()},
                                  [("map", Score(AveragePrecision("label", "confidence"), ranked=True))], "map",
                                  ["label"], block=block, unit="image"))
        options = analysis.Options(permutations=patterns, seed=replicate)
        rejected.append(analysis.paired_tests(views, "map", options)[4][0] < 0.05)
    return share(rejected)


def _cell(measured):
    return "%.3f +- %.3f" % measured


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=300)
    parser.add_argument("--resamples", type=int, default=bootstrap.DEFAULT_RESAMPLES)
    parser.add_argument("--only", nargs="*", default=[""], help="the settings whose name holds one of these texts")
    parser.add_argument("--no-tests", action="store_true", help="the intervals only")
    args = parser.parse_args(argv)
    r = args.replicates
    print("| setting | interval holds the expected score (mean width) | prediction interval holds a 2nd test set's "
          "score (width) | test at 0.05 under the weak null (0.01) | power (no p-value given) |")
    print("|---|---|---|---|---|")
    for name in SETTINGS:
        if not any(text in name for text in args.only):
            continue
        expected, predicted, width, predicted_width = coverage(name, r, args.resamples)
        if args.no_tests or (name in EVENTS and name != "events"):  # map's test: the events setting's
            level = power = ""
        elif name == "events":
            tests = [(map_test(r), None), (map_test(r, 0.5), None)]
            level = "%s (map)" % _cell(tests[0][0])
            power = "%s (positives +0.5)" % _cell(tests[1][0])
        else:
            if name in AUTHENTICATION:
                null, strong = authentication_test(r, 0.0, name), authentication_test(r, 0.05, name)
                power = "%s at +0.05 (%.3f)" % (_cell(strong[0]), strong[2][0])
            else:
                family, pages = name[len("lines: "):].rsplit(", 3 x ", 1)
                pages = int(pages.split()[0])
                null = paired_test(r, 0.0, family, pages)
                power = "; ".join("%s at %+.2f (%.3f)" % (_cell(t[0]), advantage, t[2][0]) for advantage, t in (
                    (advantage, paired_test(r, advantage, family, pages)) for advantage in (0.1, 0.2)))
            level = "%s (%s)" % (_cell(null[0]), _cell(null[1]))
        print("| %s | %s (%.3f) | %s (%.3f) | %s | %s |" % (name, _cell(expected), width, _cell(predicted),
                                                        predicted_width, level, power), flush=True)


if __name__ == "__main__":
    main()
