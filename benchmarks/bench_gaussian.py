"""GaussianNB against scikit-learn, dense and sparse (scikit-learn gets the dense copy).

    PYTHONPATH=. pytest benchmarks/bench_gaussian.py --benchmark-group-by=param:case,func
"""

import numpy as np
import pytest
import scipy.sparse as sp

import nbfast

sk_nb = pytest.importorskip("sklearn.naive_bayes")
IMPLEMENTATIONS = {"nbfast": nbfast.GaussianNB, "sklearn": sk_nb.GaussianNB}


def _data(case):
    rng = np.random.default_rng(0)
    if case == "dense":
        return rng.normal(size=(100_000, 50)), rng.integers(0, 5, 100_000)
    X = sp.random(5_000, 1_000, density=0.01, format="csr", random_state=0)
    return X, rng.integers(0, 10, 5_000)


@pytest.fixture(scope="module", params=["dense", "sparse"])
def case(request):
    return request.param, *_data(request.param)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_fit(benchmark, case, impl):
    name, X, y = case
    X = X.toarray() if impl == "sklearn" and sp.issparse(X) else X
    benchmark(IMPLEMENTATIONS[impl]().fit, X, y)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("method", ["predict", "predict_proba"])
def test_predict(benchmark, case, impl, method):
    name, X, y = case
    X = X.toarray() if impl == "sklearn" and sp.issparse(X) else X
    model = IMPLEMENTATIONS[impl]().fit(X, y)
    benchmark(getattr(model, method), X)
