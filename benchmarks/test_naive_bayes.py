"""fit, partial_fit, predict and predict_proba of every nbfast estimator and its
scikit-learn counterpart on the same corpus, grouped so that each pair is compared.

    pytest benchmarks/                                   # smoke: tiny, one round
    NBFAST_BENCH=full pytest benchmarks/ --benchmark-json=bench.json   # by hand
"""

import numpy as np
import pytest

from benchmarks.conftest import FULL, ROUNDS, corpus
from nbfast.cli.bench import OPERATIONS, corpus_for, nbfast_estimators, operation_calls, sklearn_estimator

pytest.importorskip("pytest_benchmark")

ESTIMATORS = sorted(nbfast_estimators())
LIBRARIES = ["nbfast", "scikit-learn"]
BATCH_SIZE = 100_000 if FULL else 500


@pytest.mark.parametrize("library", LIBRARIES)
@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_operation(benchmark, estimator, operation, library, size, n_classes, dtype):
    cls = nbfast_estimators()[estimator] if library == "nbfast" else sklearn_estimator(estimator)
    if cls is None:
        pytest.skip(f"scikit-learn has no {estimator}")
    X, y = corpus(*size, n_classes, dtype)
    X = corpus_for(estimator, X)
    func = operation_calls(cls, operation, X, y, np.unique(y), BATCH_SIZE)
    benchmark.group = f"{estimator} {operation} {dtype} {n_classes} classes {size[0]}x{size[1]}"
    benchmark.extra_info.update(nnz=int(X.size if isinstance(X, np.ndarray) else X.nnz), library=library)
    benchmark.pedantic(func, rounds=ROUNDS, iterations=1, warmup_rounds=1 if FULL else 0)
