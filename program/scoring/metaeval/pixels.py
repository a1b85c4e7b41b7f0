"""Ground-truth-free statistics over pixel decisions (a track whose result keeps packed
predicted foregrounds per page, such as the line maps).

Each submission's predicted foreground is decoded once, packed to bits and kept; the
statistics are accumulated page by page from products linear in the number s of
submissions (metrics/pseudo.py): with S the (s x pixels) 0/1 matrix, v = sum_k S_k the
count of submissions per pixel and the consensus P = v / s,
  sum S_k = S_k . 1,  sum P S_k = S_k . v / s,  sum P = sum v / s,  sum P^2 = v . v / s^2.
The pseudo-metrics are sums over pixels; the reference-classifier test is not: pixels of
one line are not independent, so its unit is the page. Per page, e_k = pixels where
submission k differs from the reference r = sum S_k + sum r - 2 S_k . r, and of two
submissions the one with the smaller e_k agrees more with the reference on that page
(equal e: neither).
"""

import numpy as np

CHUNK = 1 << 18  # pixels per block of the products (memory bound: s x CHUNK floats)


def unpack(packed):
    shape, bits = packed
    size = int(np.prod(shape))
    return np.unpackbits(bits)[:size]


class PixelSums(object):
    """Accumulates the sums over pages; reference: a submission index or None (majority vote)."""

    def __init__(self, count, reference=None):
        self.count = count
        self.reference = reference
        self.sum_s = np.zeros(count)
        self.sum_vs = np.zeros(count)
        self.sum_v = 0.0
        self.sum_v2 = 0.0
        self.pixels = 0
        self.page_errors = []

    def add_page(self, masks):
        """masks: one flat 0/1 uint8 (or bool) array per submission, same length. Only
        pixels in some submission's foreground count (elsewhere every S_k and r are 0).
        Products of blocks of at most 2^18 pixels are exact in float32."""
        m = np.stack([np.asarray(x, dtype=np.uint8).ravel() for x in masks])
        if m.shape[0] != self.count:
            raise ValueError("expected %d masks, got %d" % (self.count, m.shape[0]))
        self.pixels += m.shape[1]
        m = m[:, m.any(axis=0)]
        errors = np.zeros(self.count)
        for start in range(0, m.shape[1], CHUNK):
            block = m[:, start:start + CHUNK]
            votes = block.sum(axis=0, dtype=np.int32)
            if self.reference is None:
                ref = votes * 2 > self.count
            else:
                ref = block[self.reference].astype(bool)
            f = block.astype(np.float32)
            ones = f.sum(axis=1, dtype=np.float64)
            self.sum_s += ones
            self.sum_vs += f.dot(votes.astype(np.float32)).astype(np.float64)
            self.sum_v += float(votes.sum())
            self.sum_v2 += float(np.dot(votes.astype(np.float64), votes))
            errors += ones + float(np.count_nonzero(ref)) - 2 * f.dot(ref.astype(np.float32)).astype(np.float64)
        self.page_errors.append(errors)

    def stats(self):
        """The sufficient statistics of metrics.pseudo.pseudo_metrics."""
        s = float(self.count)
        return {"sum_s": self.sum_s.copy(), "sum_ps": self.sum_vs / s, "sum_p": self.sum_v / s,
                "sum_p2": self.sum_v2 / s ** 2, "d": float(self.pixels)}

    def page_agreement(self):
        """n_agree[i, j]: pages where i differs from the reference on fewer pixels than j."""
        errors = np.stack(self.page_errors, axis=1) if self.page_errors else np.zeros((self.count, 0))
        return np.stack([np.count_nonzero(errors[i][None, :] < errors, axis=1) for i in range(self.count)])


def from_packed(per_submission, reference=None):
    """per_submission: for each submission {page key: packed mask}; same keys for all.
    Returns (sufficient statistics, page-level n_agree)."""
    sums = PixelSums(len(per_submission), reference)
    for key in sorted(per_submission[0]):
        sums.add_page([unpack(p[key]) for p in per_submission])
    return sums.stats(), sums.page_agreement()
