"""fit, partial_fit, predict and predict_proba of every nbfast estimator and its
scikit-learn counterpart on the same corpus, grouped so that each pair is compared.

    pytest benchmarks/                                   # smoke: tiny, one round
    NBFAST_BENCH=full pytest benchmarks/ --benchmark-json=bench.json   # by hand
"""

import numpy as np
import pytest

from benchmarks.conftest import FULL, ROUNDS, corpus
from nbfast.cli.bench import estimators as bench
from nbfast.cli.bench._harness import sklearn_estimator
from nbfast.cli.bench.estimators import BENCHED, corpus_for, operation_calls

pytest.importorskip("pytest_benchmark")

#: Written out (checked against nbfast.cli.bench below): a case that disappears fails instead of shrinking the suite.
ESTIMATORS = ["BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB", "PoissonNB"]
NBFAST_ONLY = ["PoissonNB"]  # scikit-learn has no counterpart
OPERATIONS = ["fit", "fit+predict", "partial_fit", "predict", "predict_proba"]
CASES = [(estimator, library) for estimator in ESTIMATORS for library in ("nbfast", "scikit-learn")
         if library == "nbfast" or estimator not in NBFAST_ONLY]
BATCH_SIZE = 100_000 if FULL else 500


def test_every_estimator_and_operation_is_benchmarked():
    assert sorted(BENCHED) == ESTIMATORS
    assert list(bench.OPERATIONS) == OPERATIONS
    assert [name for name in ESTIMATORS if sklearn_estimator(name) is None] == NBFAST_ONLY


@pytest.mark.parametrize("operation", OPERATIONS)
@pytest.mark.parametrize("estimator, library", CASES)
def test_operation(benchmark, estimator, operation, library, size, n_classes, dtype):
    cls = BENCHED[estimator] if library == "nbfast" else sklearn_estimator(estimator)
    X, y = corpus(*size, n_classes, dtype)
    X = corpus_for(estimator, X)
    func = operation_calls(cls, operation, X, y, np.unique(y), BATCH_SIZE)
    benchmark.group = f"{estimator} {operation} {dtype} {n_classes} classes {size[0]}x{size[1]}"
    benchmark.extra_info.update(nnz=int(X.size if isinstance(X, np.ndarray) else X.nnz), library=library)
    benchmark.pedantic(func, rounds=ROUNDS, iterations=1, warmup_rounds=1 if FULL else 0)
