"""make_documents: seeded, shaped and typed as asked, with class-dependent vocabularies."""

import numpy as np
import pytest
import scipy.sparse as sp

from nbfast.datasets import _guide_table, make_documents, sample_from_cdf


def test_same_seed_same_corpus_and_other_seed_differs():
    X1, y1 = make_documents(500, 200, 4, random_state=3)
    X2, y2 = make_documents(500, 200, 4, random_state=3)
    X3, _ = make_documents(500, 200, 4, random_state=4)
    assert (X1 != X2).nnz == 0 and np.array_equal(y1, y2)
    assert (X1 != X3).nnz > 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("sparse_format", ["csr_matrix", "csr_array"])
def test_types_and_shape(dtype, index_dtype, sparse_format):
    X, y = make_documents(300, 100, 3, dtype=dtype, index_dtype=index_dtype, sparse_format=sparse_format)
    assert X.shape == (300, 100) and y.shape == (300,)
    assert X.dtype == dtype and X.indices.dtype == index_dtype and X.indptr.dtype == index_dtype
    assert isinstance(X, sp.csr_matrix if sparse_format == "csr_matrix" else sp.csr_array)
    assert X.has_canonical_format
    assert np.all(X.data >= 1) and np.all(X.data == np.round(X.data))
    assert set(np.unique(y)) <= {0, 1, 2}


def test_lengths_zipf_and_class_weights():
    X, y = make_documents(4000, 1000, 2, mean_length=50, class_weights=[0.9, 0.1], random_state=0)
    lengths = np.asarray(X.sum(axis=1)).ravel()
    assert lengths.min() >= 1 and abs(lengths.mean() - 50) < 2
    assert abs(np.mean(y == 0) - 0.9) < 0.03
    word_totals = np.sort(np.asarray(X.sum(axis=0)).ravel())[::-1]
    assert word_totals[0] > 20 * word_totals[100]  # heavy-tailed word frequencies


def test_class_separation_controls_difficulty():
    from nbfast import MultinomialNB

    accuracies = []
    for separation in (0.0, 0.3):
        X, y = make_documents(2000, 500, 4, class_separation=separation, random_state=1)
        model = MultinomialNB().fit(X[:1000], y[:1000])
        accuracies.append(np.mean(model.predict(X[1000:]) == y[1000:]))
    assert accuracies[0] < 0.4 < 0.9 < accuracies[1]


def test_bad_arguments():
    with pytest.raises(ValueError, match="class_separation"):
        make_documents(10, 10, 2, class_separation=2.0)
    with pytest.raises(ValueError, match="positive"):
        make_documents(0, 10, 2)
    with pytest.raises(ValueError, match="sparse_format"):
        make_documents(10, 10, 2, sparse_format="coo")

# ---------------- the guide-table sampler of make_documents is exactly numpy's binary search


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
