"""Pixel statistics accumulated page by page equal the direct formulas on the flattened
masks; the reference-classifier counts are per page (pixels are not independent)."""

import numpy as np
import pytest
from scoring.metaeval import pixels
from scoring.metrics import pseudo
from scoring import runs


@pytest.mark.parametrize("reference", [None, 2])
def test_pixel_sums_equal_direct_computation(reference, monkeypatch):
    monkeypatch.setattr(pixels, "CHUNK", 7)  # several blocks per page
    rng = np.random.RandomState(4)
    truth = [rng.rand(5, 6) < 0.4, rng.rand(3, 9) < 0.3, rng.rand(4, 4) < 0.5]
    subs = [[np.where(rng.rand(*t.shape) < rate, ~t, t) for t in truth] for rate in (0.1, 0.2, 0.3, 0.45)]
    packed = [dict(((0, k), runs.packed_mask(runs.encode(m))) for k, m in enumerate(pages)) for pages in subs]
    stats, n_agree = pixels.from_packed(packed, reference)
    flat = np.stack([np.concatenate([m.ravel() for m in pages]) for pages in subs]).astype(float)
    p = pseudo.consensus(flat)
    direct = pseudo.sufficient_stats(flat, p)
    for key in ("sum_s", "sum_ps", "sum_p", "sum_p2", "d"):
        assert stats[key] == pytest.approx(direct[key])
    # Per page: the pixels where each submission differs from the reference, counted directly.
    errors = []
    for k in range(3):
        page = np.stack([s[k].ravel() for s in subs]).astype(int)
        ref = page.sum(axis=0) * 2 > 4 if reference is None else page[reference] > 0
        errors.append([int(np.count_nonzero(page[i] != ref)) for i in range(4)])
    errors = np.array(errors)
    for i in range(4):
        for j in range(4):
            if i != j:
                assert n_agree[i, j] == np.count_nonzero(errors[:, i] < errors[:, j])
