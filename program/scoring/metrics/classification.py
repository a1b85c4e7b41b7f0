"""Binary classification metrics from confusion counts (pure numpy, no I/O).

Source: the evaluation rules of the ICDAR 2026 FalsID competition (binary labels per
subset, ranked by the mean of the subsets' accuracies). The positive
class is imitation (1). A ratio whose denominator is 0 is defined as 0 here; callers
report why.
"""

import numpy as np


def confusion_counts(y_true, y_pred):
    """(tp, fn, fp, tn) with 1 = imitation as the positive class.

    tp: imitation called imitation; fn: imitation called authentic (an imitation
    accepted as authentic); fp: authentic called imitation (an authentic rejected as
    imitation); tn: authentic called authentic.
    """
    y_true = np.asarray(y_true, dtype=bool)
    y_pred = np.asarray(y_pred, dtype=bool)
    tp = int(np.count_nonzero(y_true & y_pred))
    fn = int(np.count_nonzero(y_true & ~y_pred))
    fp = int(np.count_nonzero(~y_true & y_pred))
    tn = int(np.count_nonzero(~y_true & ~y_pred))
    return tp, fn, fp, tn


def safe_ratio(numerator, denominator):
    """numerator / denominator, 0 when the denominator is 0."""
    return float(numerator) / denominator if denominator else 0.0


def binary_rates(tp, fn, fp, tn):
    """accuracy (TP+TN)/N, precision TP/(TP+FP), recall TP/(TP+FN), specificity TN/(TN+FP),
    and balanced accuracy (recall + specificity)/2; each 0 where its denominator is 0."""
    recall = safe_ratio(tp, tp + fn)
    specificity = safe_ratio(tn, tn + fp)
    return {
        "accuracy": safe_ratio(tp + tn, tp + tn + fp + fn),
        "precision": safe_ratio(tp, tp + fp),
        "recall": recall,
        "specificity": specificity,
        "balanced_accuracy": (recall + specificity) / 2.0,
    }


def undefined_rates(tp, fn, fp, tn):
    """Names of the rates whose denominator is 0, with the reason, for the report."""
    reasons = []
    if tp + tn + fp + fn == 0:
        reasons.append(("accuracy", "the subset has no image"))
    if tp + fp == 0:
        reasons.append(("precision", "nothing was called imitation (TP + FP = 0)"))
    if tp + fn == 0:
        reasons.append(("recall", "the ground truth has no imitation (TP + FN = 0)"))
    if tn + fp == 0:
        reasons.append(("specificity", "the ground truth has no authentic image (TN + FP = 0)"))
    return reasons
