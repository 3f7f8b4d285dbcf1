"""``n_jobs`` on the vectorizers: checked like their other parameters, the thread count it gives the tokenizer
kernels, results that do not depend on it, and model files that keep it."""

import numpy as np
import pytest

import nbfast
from nbfast._kernels import threads
from nbfast.datasets import make_text_documents
from nbfast.persist import load_vectorizer
from nbfast.text import CountVectorizer, HashingVectorizer, TfidfVectorizer, _common

VECTORIZERS = [CountVectorizer, TfidfVectorizer, HashingVectorizer]


@pytest.fixture(scope="module")
def documents():
    return make_text_documents(600, 3, random_state=0)


@pytest.fixture
def observed(monkeypatch):
    """The thread count of each batch the tokenizer kernels read (a thread per code point allowed)."""
    monkeypatch.setattr(_common, "MIN_CODE_POINTS_PER_THREAD", 1)
    seen = []
    prepare = _common.prepare_documents

    def spy(*args):
        batch = prepare(*args)
        seen.append(batch.n_threads)
        return batch

    monkeypatch.setattr(_common, "prepare_documents", spy)
    return seen


@pytest.mark.parametrize("cls", VECTORIZERS)
@pytest.mark.parametrize("n_jobs", [1, 3, -1])
def test_n_jobs_sets_the_threads_of_the_tokenizer(cls, n_jobs, documents, observed):
    vectorizer = cls(n_jobs=n_jobs).fit(documents[0])
    vectorizer.transform(documents[0])
    assert observed and set(observed) == {threads.threads_for_n_jobs(n_jobs)}


@pytest.mark.parametrize("cls", VECTORIZERS)
def test_results_are_identical_for_n_jobs_1_2_3_and_4(cls, documents, monkeypatch):
    monkeypatch.setattr(_common, "MIN_CODE_POINTS_PER_THREAD", 1)
    monkeypatch.setattr(threads, "MIN_WORK_PER_THREAD", 1)
    results = [cls(n_jobs=n, ngram_range=(1, 2), batch_size=100).fit_transform(documents[0]) for n in (1, 2, 3, 4)]
    for other in results[1:]:
        assert other.shape == results[0].shape and (other != results[0]).nnz == 0
        np.testing.assert_array_equal(other.indices, results[0].indices)
        np.testing.assert_array_equal(other.data, results[0].data)


@pytest.mark.parametrize("cls", VECTORIZERS)
@pytest.mark.parametrize("value", [0, 2.0, "4"])
def test_a_bad_n_jobs_is_one_clear_error_before_any_work(cls, value, documents, observed):
    for call in (lambda: cls(n_jobs=value).fit(documents[0]), lambda: cls(n_jobs=value).fit_transform(documents[0])):
        with pytest.raises((ValueError, TypeError), match="n_jobs"):
            call()
    fitted = cls().fit(documents[0]).set_params(n_jobs=value)
    observed.clear()
    with pytest.raises((ValueError, TypeError), match="n_jobs"):
        fitted.transform(documents[0])
    assert observed == []


def test_a_model_file_keeps_the_vectorizers_n_jobs(documents, tmp_path):
    vectorizer = TfidfVectorizer(n_jobs=2).fit(documents[0])
    model = nbfast.MultinomialNB().fit(vectorizer.transform(documents[0]), documents[1])
    nbfast.save(model, tmp_path / "m.nbf", vectorizer=vectorizer)
    assert load_vectorizer(tmp_path / "m.nbf").n_jobs == 2
