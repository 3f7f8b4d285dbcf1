"""The cost of the validation gate (one O(nnz) pass) beside the predict it guards.

    NBFAST_BENCH=full pytest benchmarks/test_validation.py --benchmark-columns=median

Compare the medians of ``check_X`` and ``predict_proba`` in the same group: the
gate should be a small fraction of the scoring time.
"""

import pytest

from benchmarks.conftest import ROUNDS, corpus
from nbfast import MultinomialNB
from nbfast._validation import check_X


@pytest.mark.parametrize("what", ["check_X", "predict_proba"])
def test_validation_cost(benchmark, size, dtype, what):
    X, y = corpus(*size, 20, dtype)
    model = MultinomialNB().fit(X, y)
    benchmark.group = f"validation {size[0]}x{size[1]} {dtype}"
    call = (lambda: check_X(X, model, reset=False)) if what == "check_X" else (lambda: model.predict_proba(X))
    benchmark.pedantic(call, rounds=ROUNDS, warmup_rounds=0)
