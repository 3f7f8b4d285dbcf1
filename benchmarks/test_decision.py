"""decide, fuse and shift_prior on many rows (vectorized numpy: time grows with the rows only).

    pytest benchmarks/test_decision.py                      # smoke: 10,000 rows, one round
    NBFAST_BENCH=full pytest benchmarks/test_decision.py    # 1,000,000 rows, by hand
"""

import os

import numpy as np
import pytest

import nbfast

pytest.importorskip("pytest_benchmark")

FULL = os.environ.get("NBFAST_BENCH", "smoke") == "full"
N_SAMPLES = 1_000_000 if FULL else 10_000
ROUNDS = 5 if FULL else 1


@pytest.fixture(params=[2, 20], ids=lambda c: f"{c}classes")
def posteriors(request):
    rng = np.random.default_rng(0)
    n_classes = request.param
    return [rng.dirichlet(np.ones(n_classes), size=N_SAMPLES) for _ in range(2)]


def _loss(n_classes):
    loss = np.random.default_rng(1).uniform(0, 2, size=(n_classes, n_classes))
    np.fill_diagonal(loss, 0)
    return loss


@pytest.mark.parametrize("case", ["decide-01-reject", "decide-loss-reject", "fuse-2", "shift_prior"])
def test_decision_layer(benchmark, case, posteriors):
    proba = posteriors[0]
    n_classes = proba.shape[1]
    prior = np.full(n_classes, 1 / n_classes)
    new_prior = np.linspace(1, 2, n_classes) / np.linspace(1, 2, n_classes).sum()
    calls = {
        "decide-01-reject": lambda: nbfast.decide(proba, reject_cost=0.3),
        "decide-loss-reject": lambda: nbfast.decide(proba, _loss(n_classes), reject_cost=0.3),
        "fuse-2": lambda: nbfast.fuse(posteriors, prior),
        "shift_prior": lambda: nbfast.shift_prior(proba, prior, new_prior),
    }
    benchmark.group = f"{case} {n_classes} classes {N_SAMPLES} rows"
    benchmark.pedantic(calls[case], rounds=ROUNDS, iterations=1)
