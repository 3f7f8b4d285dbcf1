"""GaussianNB against scikit-learn, dense and sparse (scikit-learn gets the dense copy).

    pytest benchmarks/test_gaussian.py                   # smoke: small data, one round
    NBFAST_BENCH=full pytest benchmarks/test_gaussian.py --benchmark-group-by=param:case,func   # by hand
"""

import numpy as np
import pytest
import scipy.sparse as sp

import nbfast
from benchmarks.conftest import FULL, ROUNDS

sk_nb = pytest.importorskip("sklearn.naive_bayes")
pytest.importorskip("pytest_benchmark")
IMPLEMENTATIONS = {"nbfast": nbfast.GaussianNB, "sklearn": sk_nb.GaussianNB}
N_DENSE, N_SPARSE = (100_000, 5_000) if FULL else (2_000, 500)


def _data(case):
    rng = np.random.default_rng(0)
    if case == "dense":
        return rng.normal(size=(N_DENSE, 50)), rng.integers(0, 5, N_DENSE)
    X = sp.random(N_SPARSE, 1_000, density=0.01, format="csr", random_state=0)
    return X, rng.integers(0, 10, N_SPARSE)


@pytest.fixture(scope="module", params=["dense", "sparse"])
def case(request):
    return request.param, *_data(request.param)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
def test_fit(benchmark, case, impl):
    name, X, y = case
    X = X.toarray() if impl == "sklearn" and sp.issparse(X) else X
    benchmark.pedantic(IMPLEMENTATIONS[impl]().fit, args=(X, y), rounds=ROUNDS)


@pytest.mark.parametrize("impl", IMPLEMENTATIONS)
@pytest.mark.parametrize("method", ["predict", "predict_proba"])
def test_predict(benchmark, case, impl, method):
    name, X, y = case
    X = X.toarray() if impl == "sklearn" and sp.issparse(X) else X
    model = IMPLEMENTATIONS[impl]().fit(X, y)
    benchmark.pedantic(getattr(model, method), args=(X,), rounds=ROUNDS)
