"""Corpora for the benchmark suites.

``NBFAST_BENCH=smoke`` (the default) runs every case once on a tiny corpus, a quick
check that CI can afford; ``NBFAST_BENCH=full`` runs the real sizes by hand.
"""

import functools
import os

import numpy as np
import pytest

from nbfast.datasets import make_documents

MODE = os.environ.get("NBFAST_BENCH", "smoke")
if MODE not in ("smoke", "full"):
    raise pytest.UsageError(f"NBFAST_BENCH must be 'smoke' or 'full', got {MODE!r}")
FULL = MODE == "full"

#: (n_samples, n_features) of the corpora.
SIZES = [(100_000, 2**18), (1_000_000, 2**18)] if FULL else [(2_000, 2**12)]
N_CLASSES = [2, 20, 200]
DTYPES = ["float64", "float32"]
#: Timed rounds per case (each after one warm-up round in full mode).
ROUNDS = 5 if FULL else 1


@functools.lru_cache(maxsize=4)
def corpus(n_samples, n_features, n_classes, dtype):
    """A seeded make_documents corpus, generated once per session."""
    if dtype != "float64":
        X, y = corpus(n_samples, n_features, n_classes, "float64")
        return X.astype(dtype), y
    return make_documents(n_samples, n_features, n_classes, random_state=0)


@pytest.fixture(params=SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def size(request):
    return request.param


@pytest.fixture(params=N_CLASSES, ids=lambda c: f"{c}classes")
def n_classes(request):
    return request.param


@pytest.fixture(params=DTYPES)
def dtype(request):
    return np.dtype(request.param).name
