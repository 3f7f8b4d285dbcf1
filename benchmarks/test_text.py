"""Throughput of nbfast.text's vectorizers against scikit-learn's, raw text to CSR (HashingVectorizer.transform,
CountVectorizer and TfidfVectorizer fit_transform and transform), and of make_pipeline(TfidfVectorizer(),
MultinomialNB() or ComplementNB()) raw text to labels, train + predict (``nbfast bench --text`` times the same,
side by side).

    pytest benchmarks/test_text.py                       # smoke: 1,000 documents, one round
    NBFAST_BENCH=full pytest benchmarks/test_text.py --benchmark-group-by=param:ngram_range   # by hand
"""

import pytest

import nbfast
from benchmarks.conftest import FULL
from nbfast.datasets import make_text_documents
from nbfast.text import CountVectorizer, HashingVectorizer, TfidfVectorizer

sk_text = pytest.importorskip("sklearn.feature_extraction.text")
pytest.importorskip("pytest_benchmark")

DOCUMENTS, LABELS = make_text_documents(n_samples=20000 if FULL else 1000, mean_length=40)
ROUNDS = 3 if FULL else 1
IMPLEMENTATIONS = {"nbfast": HashingVectorizer, "sklearn": sk_text.HashingVectorizer}


@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2)], ids=["unigrams", "bigrams"])
@pytest.mark.parametrize("implementation", list(IMPLEMENTATIONS))
def test_hashing_vectorizer(benchmark, implementation, ngram_range):
    vectorizer = IMPLEMENTATIONS[implementation](ngram_range=ngram_range)
    X = _timed(benchmark, vectorizer.transform, DOCUMENTS)
    assert X.shape[0] == len(DOCUMENTS)


VOCABULARY = {
    "nbfast": {"CountVectorizer": CountVectorizer, "TfidfVectorizer": TfidfVectorizer},
    "sklearn": {"CountVectorizer": sk_text.CountVectorizer, "TfidfVectorizer": sk_text.TfidfVectorizer},
}


def _timed(benchmark, func, *args):
    result = benchmark.pedantic(func, args=args, rounds=ROUNDS, iterations=1)
    if benchmark.stats is not None:  # None with --benchmark-disable
        benchmark.extra_info["documents_per_second"] = len(DOCUMENTS) / benchmark.stats.stats.min
    return result


@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2)], ids=["unigrams", "bigrams"])
@pytest.mark.parametrize("operation", ["fit_transform", "transform"])
@pytest.mark.parametrize("name", ["CountVectorizer", "TfidfVectorizer"])
@pytest.mark.parametrize("implementation", list(VOCABULARY))
def test_vocabulary_vectorizer(benchmark, implementation, name, operation, ngram_range):
    vectorizer = VOCABULARY[implementation][name](ngram_range=ngram_range)
    if operation == "transform":
        vectorizer.fit(DOCUMENTS)
    X = _timed(benchmark, getattr(vectorizer, operation), DOCUMENTS)
    assert X.shape[0] == len(DOCUMENTS)


@pytest.mark.parametrize("estimator", ["MultinomialNB", "ComplementNB"])
@pytest.mark.parametrize("implementation", list(VOCABULARY))
def test_tfidf_pipeline_train_predict(benchmark, implementation, estimator):
    """Raw text to labels: make_pipeline(TfidfVectorizer(), estimator()).fit(documents, y).predict(documents)."""
    make_pipeline = pytest.importorskip("sklearn.pipeline").make_pipeline
    estimators = nbfast if implementation == "nbfast" else pytest.importorskip("sklearn.naive_bayes")
    vectorizer = VOCABULARY[implementation]["TfidfVectorizer"]

    def train_predict():
        return make_pipeline(vectorizer(), getattr(estimators, estimator)()).fit(DOCUMENTS, LABELS).predict(DOCUMENTS)

    assert len(_timed(benchmark, train_predict)) == len(DOCUMENTS)
