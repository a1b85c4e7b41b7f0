"""Ground-truth-free evaluation of binary classifiers against their consensus.

Fedorchuk and Lamiroy, "Binary Classifier Evaluation Without Ground Truth" (ICAPR 2017),
section IV-A (hal-01680358). The
paper numbers only equation (1); the formulas below are cited by subsection.
Everything is computed from sufficient statistics so that pixels are summed once.
"""

import numpy as np


def consensus(predictions):
    """P(delta_i) = sum_k S_k(delta_i) / s (section IV-A): the share of the s classifiers
    (rows of `predictions`, 0/1) that put item i in the positive class."""
    return np.asarray(predictions, dtype=float).mean(axis=0)


def sufficient_stats(predictions, p):
    """Per classifier: sum S_k, sum P S_k; and the consensus sums sum P, sum P^2, d."""
    s = np.asarray(predictions, dtype=float)
    p = np.asarray(p, dtype=float)
    return {"sum_s": s.sum(axis=1), "sum_ps": s.dot(p), "sum_p": float(p.sum()),
            "sum_p2": float(p.dot(p)), "d": float(p.size)}


def pseudo_metrics(stats):
    """Pseudo precision, recall, F-measure, NRM, NCC and PSNR per classifier (section IV-A).

    Pr(S_k) = sum P S_k / sum S_k and Rc(S_k) = sum P S_k / sum P (IV-A.1); F their harmonic
    mean. NR_FN = 1 - sum P S_k / sum P; NR_FP = sum (1 - P) S_k / sum (1 - P);
    NRM = (NR_FN + NR_FP) / 2, lower is better (IV-A.2; the paper prints sum P as the
    denominator of NR_FP, which makes it no rate; the false-positive rate's denominator
    is the consensus negatives, sum (1 - P), as in the ground-truth NRM). NCC: the Pearson
    correlation of S_k and P (IV-A.3). PSNR = -ln(sum (S_k - P)^2 / d) (IV-A.4), with
    S_k^2 = S_k: sum (S_k - P)^2 = sum S_k - 2 sum P S_k + sum P^2.
    A ratio with a zero denominator is 0; PSNR of a perfect match is capped at -ln(1e-12).
    Returns a dict name -> array over classifiers.
    """
    sum_s = np.asarray(stats["sum_s"], dtype=float)
    sum_ps = np.asarray(stats["sum_ps"], dtype=float)
    sum_p, sum_p2, d = stats["sum_p"], stats["sum_p2"], stats["d"]

    def ratio(num, den):
        num = np.asarray(num, dtype=float)
        den = np.broadcast_to(np.asarray(den, dtype=float), num.shape)
        out = np.zeros(num.shape)
        np.divide(num, den, out=out, where=den > 0)
        return out

    precision = ratio(sum_ps, sum_s)
    recall = ratio(sum_ps, sum_p)
    f = ratio(2 * precision * recall, precision + recall)
    nr_fn = 1.0 - recall if sum_p > 0 else np.zeros_like(recall)
    nr_fp = ratio(sum_s - sum_ps, d - sum_p)
    nrm = (nr_fn + nr_fp) / 2.0
    mean_s = sum_s / d
    mean_p = sum_p / d
    cov = sum_ps - d * mean_s * mean_p
    var_s = sum_s - d * mean_s ** 2
    var_p = sum_p2 - d * mean_p ** 2
    ncc = ratio(cov, np.sqrt(np.maximum(var_s * var_p, 0.0)))
    mse = np.maximum((sum_s - 2 * sum_ps + sum_p2) / d, 1e-12)
    psnr = -np.log(mse)
    return {"precision": precision, "recall": recall, "f_measure": f, "nrm": nrm, "ncc": ncc, "psnr": psnr}

