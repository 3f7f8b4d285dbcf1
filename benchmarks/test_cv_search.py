"""The CV estimators' search against GridSearchCV's over the base model (5 alphas x 5 folds), in pytest-benchmark.

    pytest benchmarks/test_cv_search.py                      # smoke: 2,000 documents, one round
    NBFAST_BENCH=full pytest benchmarks/test_cv_search.py    # 200,000 documents, by hand

``python benchmarks/cv_search.py`` alternates the searches round by round and prints their ratios.
"""

import pytest

from benchmarks.conftest import FULL, ROUNDS
from benchmarks.cv_search import SIZES, searches
from nbfast.datasets import make_documents

pytest.importorskip("pytest_benchmark")

SEARCHES = ["CV", "GridSearchCV n_jobs=1", "GridSearchCV n_jobs=2"]


@pytest.mark.parametrize("scoring", ["accuracy", "neg_log_loss"])
@pytest.mark.parametrize("estimator", ["MultinomialNB", "ComplementNB", "BernoulliNB", "PoissonNB"])
@pytest.mark.parametrize("search", SEARCHES)
def test_search(benchmark, search, estimator, scoring):
    size = SIZES["full" if FULL else "smoke"]
    X, y = make_documents(*size, random_state=0)
    runs = searches(estimator, scoring)
    run = runs[f"{estimator}CV" if search == "CV" else search]
    benchmark.group = f"{estimator} search, {scoring}, {size[0]}x{size[1]}"
    benchmark.pedantic(run, args=(X, y), rounds=ROUNDS, iterations=1, warmup_rounds=1 if FULL else 0)
