"""Pixel statistics from Gram matrices equal the direct formulas on the flattened masks."""

import numpy as np
import pytest
from scoring.metaeval import pixels
from scoring.metrics.segmentation import pack_mask
from scoring.metrics import pseudo, significance


@pytest.mark.parametrize("reference", [None, 2])
def test_pixel_gram_equals_direct_computation(reference, monkeypatch):
    monkeypatch.setattr(pixels, "CHUNK", 7)  # several blocks per page
    rng = np.random.RandomState(4)
    truth = [rng.rand(5, 6) < 0.4, rng.rand(3, 9) < 0.3]
    subs = [[np.where(rng.rand(*t.shape) < rate, ~t, t) for t in truth] for rate in (0.1, 0.2, 0.3, 0.45)]
    packed = [dict(((0, k), pack_mask(m)) for k, m in enumerate(pages)) for pages in subs]
    stats, gram = pixels.gram_from_packed(packed, reference)
    flat = np.stack([np.concatenate([m.ravel() for m in pages]) for pages in subs]).astype(float)
    p = pseudo.consensus(flat)
    direct = pseudo.sufficient_stats(flat, p)
    for key in ("sum_s", "sum_ps"):
        assert stats[key] == pytest.approx(direct[key])
    for key in ("sum_p", "sum_p2", "d"):
        assert stats[key] == pytest.approx(direct[key])
    ref = p > 0.5 if reference is None else flat[reference] > 0
    n_agree, pvalues = significance.reference_pvalues_from_gram(gram)
    for i in range(4):
        for j in range(4):
            if i != j:
                n_ij, n_ji, p_ij = significance.reference_mcnemar(flat[i], flat[j], ref)
                assert (n_agree[i, j], n_agree[j, i]) == (n_ij, n_ji)
                assert pvalues[i, j] == pytest.approx(p_ij)
