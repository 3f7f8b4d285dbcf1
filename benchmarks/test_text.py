"""Throughput of nbfast.text.HashingVectorizer against scikit-learn's, raw text to CSR
(``nbfast bench --text`` times the same and raw text to labels, side by side).

    pytest benchmarks/test_text.py                       # smoke: 1,000 documents, one round
    NBFAST_BENCH=full pytest benchmarks/test_text.py --benchmark-group-by=param:ngram_range   # by hand
"""

import pytest
from benchmarks.conftest import FULL

from nbfast.datasets import make_text_documents
from nbfast.text import HashingVectorizer

sk_text = pytest.importorskip("sklearn.feature_extraction.text")
pytest.importorskip("pytest_benchmark")

DOCUMENTS, _ = make_text_documents(n_samples=20000 if FULL else 1000, mean_length=40)
ROUNDS = 3 if FULL else 1
IMPLEMENTATIONS = {"nbfast": HashingVectorizer, "sklearn": sk_text.HashingVectorizer}


@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2)], ids=["unigrams", "bigrams"])
@pytest.mark.parametrize("implementation", list(IMPLEMENTATIONS))
def test_hashing_vectorizer(benchmark, implementation, ngram_range):
    vectorizer = IMPLEMENTATIONS[implementation](ngram_range=ngram_range)
    X = benchmark.pedantic(vectorizer.transform, args=(DOCUMENTS,), rounds=ROUNDS, iterations=1)
    if benchmark.stats is not None:  # None with --benchmark-disable
        benchmark.extra_info["documents_per_second"] = len(DOCUMENTS) / benchmark.stats.stats.min
    assert X.shape[0] == len(DOCUMENTS)
