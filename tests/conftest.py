"""Shared fixtures: corpora in every input layout, and thread control."""

import numpy as np
import pytest
import scipy.sparse as sp

from nbfast.datasets import make_documents

FLOAT_DTYPES = [np.float64, np.float32]
INDEX_DTYPES = [np.int32, np.int64]
CONTAINERS = ["csr_matrix", "csr_array", "dense"]


def as_container(X, container, dtype=np.float64, index_dtype=np.int32):
    """X (scipy sparse) in the requested layout: csr_matrix, csr_array or dense ndarray."""
    X = sp.csr_array(X).astype(dtype)
    if container == "dense":
        return X.toarray()
    X.indices = X.indices.astype(index_dtype)
    X.indptr = X.indptr.astype(index_dtype)
    return sp.csr_matrix(X) if container == "csr_matrix" else X


def read_only(X):
    """A copy of X whose buffers are read-only, like a memory-mapped file."""
    X = X.copy()
    arrays = [X] if isinstance(X, np.ndarray) else [X.data, X.indices, X.indptr]
    for a in arrays:
        a.flags.writeable = False
    return X


def tolerance(dtype):
    """Agreement expected with scikit-learn and the float64 reference."""
    return 1e-9 if dtype == np.float64 else 1e-5


@pytest.fixture(params=[2, 7, 120], ids=lambda c: f"{c}classes")
def corpus(request):
    n_classes = request.param
    X, y = make_documents(
        n_samples=600, n_features=300, n_classes=n_classes, mean_length=30, class_separation=0.3, random_state=n_classes
    )
    return X, y


@pytest.fixture
def n_threads_limit():
    """Context manager factory limiting the OpenMP threads of the kernels."""
    threadpoolctl = pytest.importorskip("threadpoolctl")

    def limit(n):
        return threadpoolctl.threadpool_limits(limits=n, user_api="openmp")

    return limit


#: Every Naive Bayes estimator of the family; tests parametrized over it skip those not in this build.
NB_FAMILY = ["MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB", "CategoricalNB", "GaussianNB"]


def nb_estimator(name, **params):
    """A new nbfast estimator by class name; skips the test when this build does not have it."""
    import nbfast

    cls = getattr(nbfast, name, None)
    if cls is None:
        pytest.skip(f"nbfast.{name} is not in this build")
    return cls(**params)

