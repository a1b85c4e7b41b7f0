"""Ground-truth-free statistics over the pixels of the line maps (track `lines`).

Each submission's predicted foreground is decoded once, packed to bits and kept; the
statistics are then accumulated page by page from two Gram matrices over submissions,
which are sufficient for every pseudo-metric and for every reference-classifier McNemar
test (metrics/pseudo.py, metrics/significance.py):
  G[i, j]  = pixels in the foreground of both i and j;
  GE[i, j] = pixels where both i and j differ from the reference classifier.
With s submissions and the consensus P = (sum_k S_k) / s per pixel:
  sum S_k = G[k, k], sum P S_k = sum_j G[j, k] / s, sum P = trace(G) / s,
  sum P^2 = sum_jk G[j, k] / s^2.
"""

import numpy as np

CHUNK = 1 << 18  # pixels per block of the Gram products (memory bound: s x CHUNK floats)


def unpack(packed):
    shape, bits = packed
    size = int(np.prod(shape))
    return np.unpackbits(bits)[:size]


class PixelGram(object):
    """Accumulates G and GE over pages; reference: a submission index or None (majority vote)."""

    def __init__(self, count, reference=None):
        self.count = count
        self.reference = reference
        self.g = np.zeros((count, count))
        self.ge = np.zeros((count, count))
        self.pixels = 0

    def add_page(self, masks):
        """masks: one flat 0/1 uint8 (or bool) array per submission, same length.

        Only pixels in some submission's foreground can count (elsewhere every S_k and
        the reference are 0). With r the reference, over the pixels:
        GE[i, j] = G[i, j] + n1 - c_i - c_j, n1 = sum r and c_i = sum S_i r, since
        e_i e_j = S_i S_j where r = 0 and (1 - S_i)(1 - S_j) where r = 1.
        Products of blocks of at most 2^18 pixels are exact in float32.
        """
        m = np.stack([np.asarray(x, dtype=np.uint8).ravel() for x in masks])
        if m.shape[0] != self.count:
            raise ValueError("expected %d masks, got %d" % (self.count, m.shape[0]))
        self.pixels += m.shape[1]
        m = m[:, m.any(axis=0)]
        for start in range(0, m.shape[1], CHUNK):
            block = m[:, start:start + CHUNK]
            if self.reference is None:
                ref = block.sum(axis=0, dtype=np.int32) * 2 > self.count
            else:
                ref = block[self.reference].astype(bool)
            f = block.astype(np.float32)
            g = f.dot(f.T).astype(np.float64)
            c = f.dot(ref.astype(np.float32)).astype(np.float64)
            self.g += g
            self.ge += g + float(np.count_nonzero(ref)) - c[:, None] - c[None, :]

    def stats(self):
        """The sufficient statistics of metrics.pseudo.pseudo_metrics."""
        s = float(self.count)
        return {"sum_s": np.diag(self.g).copy(), "sum_ps": self.g.sum(axis=0) / s,
                "sum_p": float(np.trace(self.g)) / s, "sum_p2": float(self.g.sum()) / s ** 2,
                "d": float(self.pixels)}


def gram_from_packed(per_submission, reference=None):
    """per_submission: for each submission {page key: packed mask}; same keys for all.
    Returns (stats, error gram) for analysis.analyse(binary_override=...)."""
    gram = PixelGram(len(per_submission), reference)
    for key in sorted(per_submission[0]):
        gram.add_page([unpack(p[key]) for p in per_submission])
    return gram.stats(), gram.ge


def collect_foregrounds(input_dir, results, log):
    """{track rel: {(manuscript, page): packed mask}} for every lines track of a scored
    submission: the masks its scorer kept while decoding each page (never decoded again)."""
    from .. import runner

    prepared = runner.prepare(input_dir, log)
    return dict((track.rel, result.foregrounds) for (track, _, _, _), result in zip(prepared, results)
                if track.kind == "lines")
