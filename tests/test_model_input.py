"""A block of vectorized rows as a model's input: its own CSR buffers, a scipy matrix, or a dense array."""

import numpy as np
import pytest
import scipy.sparse as sp

import nbfast
from nbfast import _sparse
from nbfast._model_input import model_input, rows_input
from nbfast.datasets import make_documents
from nbfast.readers import Block


def _block(n_samples=60, n_features=20, seed=3):
    X, y = make_documents(n_samples, n_features, 2, mean_length=10, random_state=seed)
    X = sp.csr_array(X)
    block = Block("mem", X.data, X.indices.astype(np.int64), X.indptr.astype(np.int64), y,
                  np.arange(1, n_samples + 1), 0)
    return block, X, y


def test_rows_of_a_model_that_does_not_score_them_become_a_scipy_matrix():
    block, X, y = _block()
    assert isinstance(rows_input(block, nbfast.MultinomialNB().fit(X, y), 20), _sparse.Rows)
    assert sp.issparse(rows_input(block, nbfast.BernoulliNB().fit(X, y), 20))


def test_models_refusing_sparse_input_get_dense_blocks():
    pytest.importorskip("sklearn")
    from sklearn.naive_bayes import GaussianNB

    class DenseOnlyNB(nbfast.MultinomialNB):
        def _takes_sparse(self):
            return False

    block, X, _ = _block()
    assert sp.issparse(model_input(block, nbfast.MultinomialNB(), 20))
    assert sp.issparse(model_input(block, nbfast.MixedNB([("counts", nbfast.MultinomialNB(), [0])]), 20))
    for model in (DenseOnlyNB(), nbfast.MixedNB([("gaussian", GaussianNB(), [0])])):  # scikit-learn's: dense only
        dense = model_input(block, model, 20)
        assert isinstance(dense, np.ndarray)
        np.testing.assert_array_equal(dense, X.toarray())
