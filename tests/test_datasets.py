"""The guide-table sampler of make_documents is exactly numpy's binary search."""

import numpy as np
import pytest

from nbfast.datasets import _guide_table, make_documents, sample_from_cdf


@pytest.mark.parametrize("n", [1, 2, 7, 300, 4096])
def test_sample_from_cdf_equals_searchsorted(n):
    rng = np.random.default_rng(n)
    p = rng.random(n) ** 8  # uneven, some probabilities nearly zero
    p[rng.random(n) < 0.2] = 0.0  # flat runs in the cdf
    p[0] += 1e-3
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    guide, n_buckets = _guide_table(cdf)
    # random values, values exactly on the cdf and on bucket edges, and 0
    u = np.concatenate([rng.random(5000), cdf[:-1], np.arange(n_buckets) / n_buckets, [0.0, np.nextafter(1.0, 0)]])
    u = u[u < 1.0]  # the sampler takes u in [0, 1), like Generator.random
    np.testing.assert_array_equal(sample_from_cdf(cdf, guide, n_buckets, u), np.searchsorted(cdf, u, side="right"))


def test_make_documents_is_seeded():
    X1, y1 = make_documents(300, 500, 4, random_state=3)
    X2, y2 = make_documents(300, 500, 4, random_state=3)
    np.testing.assert_array_equal(y1, y2)
    assert (X1 != X2).nnz == 0 and X1.has_canonical_format
    assert X1.shape == (300, 500) and X1.indices.max() < 500 and X1.sum() >= 300
