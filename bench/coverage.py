"""What the intervals and tests promise, measured: python3 bench/coverage.py [--replicates N]
[--resamples N] [--setting NAME ...].

Test sets are drawn from known generating models at the sizes competitions have, built as
the tracks build their per-item views (the same items, strata, resampling blocks and
Score statistics) and scored by the real aggregation (itemview.aggregate) and the real
intervals (bootstrap.participant_intervals: the participant's page, whose interval is
compare.py's) and paired tests (analysis.paired_tests, compare.py's):

  events          8 categories x 100 images, 5 positives per category (average precision);
                  events-1-positive, -2-, -3-, -20-positives: as many positives;
                  events-ties: confidences to one decimal; events-high: positives
                  separated by 3 SD (map near 0.87); events-large: 50 categories x 2,000
                  images, 10 positives each
  lines           3 manuscripts x 6 pages, heavy-tailed page line IU (a page fails, IU
                  near 0, with probability 0.2)
  lines-rare      the same with failures one page in ten
  authentication  3 subsets x 40 images, labels drawn at random, 95% right on authentic
                  images and 60% on imitations (a class gap)
  authentication-fixed  the same with 20 imitations in every subset of every test set

For each: the share of replicates whose 95% interval holds the expected score (the mean
of the score over test sets of this kind: exact for a mean, from 20,000 test sets for
average precision, 2,000 for events-large), and the share whose prediction interval holds
the score of a second test set drawn independently. For the paired test of line IU: its rejection rate at 0.05
and 0.01 under the weak null (a steady submission against a heavy-tailed one with the
same expected page IU in every manuscript) and its power (the steady one better by 0.1
and 0.2 in expected page IU), beside those of the sign-flip test alone; and the paired
test of map (by category) under the null and with the second submission's positives
scored 0.5 higher.
Each share comes with its Monte Carlo standard error. The full run (docs/organizers.md's
table) is the default: 1,000 replicates of 1,000 resamples.
"""

import argparse
import os
import sys
from collections import OrderedDict

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
    ("events-1-positive", {"positives": 1}),  # no interval from these draws can see which image it is
    ("events-2-positives", {"positives": 2}),
    ("events-3-positives", {"positives": 3}),
    ("events-20-positives", {"positives": 20}),
    ("events-ties", {"decimals": 1}),  # confidences to one decimal: about 40 images share a value
    ("events-high", {"separation": 3.0}),  # map near 0.87: AP's bound at 1 near
    ("events-large", {"categories": 50, "images": 2000, "positives": 10}),
])
TRUTH_DRAWS = {"events-large": 2000}  # test sets averaged for the expected map (else 20,000)


MANUSCRIPTS, PAGES = 3, 6
MEANS = (0.55, 0.65, 0.75)  # expected page IU per manuscript
FAILURE, FAILED = 0.2, 0.1  # a heavy-tailed page fails with this probability, its IU then U(0, 2 x 0.1)
RARE = 0.1  # lines-rare: one page in ten fails (no failure at all in 15% of test sets)


def steady_pages(rng, means=MEANS, concentration=60.0):
    """Page IU ~ Beta with mean means[h] and the given concentration (a steady submission)."""
    return np.concatenate([rng.beta(m * concentration, (1 - m) * concentration, size=PAGES) for m in means])


def heavy_pages(rng, means=MEANS, concentration=60.0, failure=FAILURE):
    """Page IU: with probability `failure` a failed page, IU ~ U(0, 2 FAILED); else Beta about
    a mean set so that the page's expected IU is means[h]."""
    out = []
    for m in means:
        good = (m - failure * FAILED) / (1 - failure)
        values = rng.beta(good * concentration, (1 - good) * concentration, size=PAGES)
        failed = rng.rand(PAGES) < failure
        values[failed] = rng.uniform(0, 2 * FAILED, size=int(failed.sum()))
        out.append(values)
    return np.concatenate(out)


def lines_view(values):
    """The lines track's view of page line IUs: pages within manuscripts, key line_iu the mean
    over pages, then over manuscripts."""
    n = values.shape[0]
    return ItemView(["m%d" % h for h in range(MANUSCRIPTS)], [PAGES] * MANUSCRIPTS, [str(i) for i in range(n)],
                    {"line_iu": values, "one": np.ones(n)},
                    [("line_iu", Score(Ratio(("line_iu", "one")), ranked=True))], "line_iu", ["one"], unit="page")


SUBSETS, SUBSET_IMAGES = 3, 40
RIGHT = {True: 0.60, False: 0.95}  # P(right) on imitations (label 1) and authentic images


def authentication_view(rng, fixed=False):
    """The authentication track's uar: per subset, correct / images; blocks the subsets.
    Labels drawn with probability 1/2, so that the class counts vary between test sets
    (fixed: half of each subset imitations in every test set)."""
    correct, block = [], []
    for h in range(SUBSETS):
        label = np.arange(SUBSET_IMAGES) < SUBSET_IMAGES // 2 if fixed else rng.rand(SUBSET_IMAGES) < 0.5
        right = np.where(label, RIGHT[True], RIGHT[False])
        correct.append((rng.rand(SUBSET_IMAGES) < right).astype(float))
        block.append(np.full(SUBSET_IMAGES, h))
    correct = np.concatenate(correct)
    n = correct.shape[0]
    return ItemView(["s%d" % h for h in range(SUBSETS)], [SUBSET_IMAGES] * SUBSETS, [str(i) for i in range(n)],
                    {"correct": correct, "one": np.ones(n)}, [("uar", Score(Ratio(("correct", "one")), ranked=True))],
                    "uar", ["one"], block=np.concatenate(block), unit="image")


def expected_map(draws=20000, seed=1, setting="events"):
    """The expected mAP of a test set of an events setting, from `draws` test sets."""
    rng = np.random.RandomState(seed)
    arguments = EVENTS[setting]
    return float(np.mean([aggregate(events_view(rng, **arguments))["map"][0] for _ in range(draws)]))


SETTINGS = OrderedDict(
    [(name, (lambda rng, arguments=arguments: events_view(rng, **arguments), None))
     for name, arguments in EVENTS.items()] + [
        ("lines", (lambda rng: lines_view(heavy_pages(rng)), float(np.mean(MEANS)))),
        ("lines-rare", (lambda rng: lines_view(heavy_pages(rng, failure=RARE)), float(np.mean(MEANS)))),
        ("authentication", (authentication_view, (RIGHT[True] + RIGHT[False]) / 2.0)),
        ("authentication-fixed", (lambda rng: authentication_view(rng, True), (RIGHT[True] + RIGHT[False]) / 2.0)),
    ])


# -- measurements -----------------------------------------------------------------------------

def share(hits):
    """(share, its Monte Carlo standard error) of a list of booleans."""
    p = float(np.mean(hits)) if len(hits) else 0.0
    return p, float(np.sqrt(p * (1 - p) / max(len(hits), 1)))


def coverage(name, replicates, resamples, seed=5, truth=None):
    """(coverage of the expected score, coverage of a second test set's score by the
    prediction interval) of the setting's 95% intervals over `replicates` test sets."""
    make, known = SETTINGS[name]
    target = known if known is not None else (truth if truth is not None else expected_map(
        TRUTH_DRAWS.get(name, 20000), setting=name))
    rng = np.random.RandomState(seed)
    expected, predicted = [], []
    for replicate in range(replicates):
        view = make(rng)
        key = view.primary
        (low, high), (p_low, p_high) = bootstrap.participant_intervals(view, key, resamples, seed=replicate)
        expected.append(low <= target <= high)
        other = aggregate(make(rng))[key][0]
        predicted.append(p_low <= other <= p_high)
    return share(expected), share(predicted)


def paired_test(replicates, advantage=0.0, failure=FAILURE, patterns=significance.DEFAULT_PATTERNS, seed=7,
                flips=True):
    """Rejection rates at 0.05 of compare.py's paired test of line IU (analysis.paired_tests)
    and of its sign-flip test alone, a steady submission (its expected page IU raised by
    `advantage`) against a heavy-tailed one: ((test, its MC error), (sign flips alone, its
    MC error)); flips False: the first only."""
    rng = np.random.RandomState(seed)
    guarded, alone = [], []
    for replicate in range(replicates):
        steady = lines_view(steady_pages(rng, [m + advantage for m in MEANS]))
        heavy = lines_view(heavy_pages(rng, failure=failure))
        views = [steady, heavy]
        options = analysis.Options(permutations=patterns, seed=replicate)
        guarded.append(analysis.paired_tests(views, "line_iu", options)[4][0] < 0.05)
        if not flips:
            continue
        x, _, strata, exact_units = analysis.contributions(views, "line_iu")
        alone.append(significance.paired_randomisation(x, patterns, replicate, strata, exact_units)[2][0] < 0.05)
    return share(guarded), share(alone)


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=bootstrap.DEFAULT_RESAMPLES)
    parser.add_argument("--setting", nargs="*", default=sorted(SETTINGS) + ["test"])
    args = parser.parse_args(argv)
    print("setting               expected score covered   second test set covered (prediction)")
    for name in args.setting:
        if name == "test":
            continue
        (e, de), (p, dp) = coverage(name, args.replicates, args.resamples)
        print("%-20s  %.3f +- %.3f            %.3f +- %.3f" % (name, e, de, p, dp), flush=True)
    if "test" in args.setting:
        print("paired test of line_iu at 0.05  compare.py's test    sign flips alone")
        for failure, advantage, label in ((FAILURE, 0.0, "weak null"), (RARE, 0.0, "weak null, rare"),
                                          (FAILURE, 0.1, "power, +0.10"), (FAILURE, 0.2, "power, +0.20")):
            (a, da), (b, db) = paired_test(args.replicates, advantage, failure)
            print("%-30s  %.3f +- %.3f       %.3f +- %.3f" % (label, a, da, b, db), flush=True)
        for advantage, label in ((0.0, "null"), (0.5, "power, separation +0.5")):
            rate, error = map_test(args.replicates, advantage)
            print("paired test of map at 0.05, %s: %.3f +- %.3f" % (label, rate, error), flush=True)


if __name__ == "__main__":
    main()
