"""Throughput of nbfast.text.HashingVectorizer against scikit-learn's, raw text to CSR
(``nbfast bench --text`` times the same and raw text to labels, side by side).

    PYTHONPATH=. pytest benchmarks/bench_text.py --benchmark-group-by=param:ngram_range
"""

import pytest

from nbfast.datasets import make_text_documents
from nbfast.text import HashingVectorizer

sk_text = pytest.importorskip("sklearn.feature_extraction.text")
pytest.importorskip("pytest_benchmark")

DOCUMENTS, _ = make_text_documents(n_samples=20000, mean_length=40)
IMPLEMENTATIONS = {"nbfast": HashingVectorizer, "sklearn": sk_text.HashingVectorizer}


@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2)], ids=["unigrams", "bigrams"])
@pytest.mark.parametrize("implementation", list(IMPLEMENTATIONS))
def test_hashing_vectorizer(benchmark, implementation, ngram_range):
    vectorizer = IMPLEMENTATIONS[implementation](ngram_range=ngram_range)
    X = benchmark.pedantic(vectorizer.transform, args=(DOCUMENTS,), rounds=3, iterations=1)
    benchmark.extra_info["documents_per_second"] = len(DOCUMENTS) / benchmark.stats.stats.min
    assert X.shape[0] == len(DOCUMENTS)
