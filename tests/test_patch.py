"""patch_sklearn / unpatch_sklearn: sklearn.naive_bayes and sklearn.feature_extraction.text hand out nbfast's
estimators and vectorizers."""

import pickle
import sys
import threading
import time

import numpy as np
import pytest
from support.helpers import exported

import nbfast
import nbfast.text
from nbfast.datasets import make_documents, make_text_documents
from nbfast.naive_bayes import ESTIMATORS

SKLEARN_NAMES = ("BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB")
VECTORIZER_NAMES = ("CountVectorizer", "HashingVectorizer", "TfidfTransformer", "TfidfVectorizer")

sk_nb = pytest.importorskip("sklearn.naive_bayes")
sk_text = pytest.importorskip("sklearn.feature_extraction.text")

#: Every scikit-learn estimator nbfast stands in for.
PATCHED = exported(["BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB"])
ORIGINALS = {name: getattr(sk_nb, name) for name in PATCHED}
TEXT_ORIGINALS = {name: getattr(sk_text, name) for name in VECTORIZER_NAMES}


@pytest.fixture(autouse=True)
def restore_sklearn():
    yield
    nbfast.unpatch_sklearn()
    for module, originals in ((sk_nb, ORIGINALS), (sk_text, TEXT_ORIGINALS)):
        for name, original in originals.items():
            setattr(module, name, original)


def test_patch_replaces_every_estimator_and_vectorizer_nbfast_provides():
    assert list(SKLEARN_NAMES) == PATCHED
    assert sorted(nbfast.text.__all__) == list(VECTORIZER_NAMES)
    assert nbfast.patch_sklearn() == tuple(sorted(PATCHED + list(VECTORIZER_NAMES)))
    for name in PATCHED:
        assert getattr(sk_nb, name) is getattr(nbfast, name)
    for name in VECTORIZER_NAMES:
        assert getattr(sk_text, name) is getattr(nbfast.text, name)


def test_text_false_keeps_scikit_learns_vectorizers():
    nbfast.patch_sklearn()
    assert nbfast.patch_sklearn(text=False) == tuple(PATCHED)
    for name, original in TEXT_ORIGINALS.items():
        assert getattr(sk_text, name) is original
    assert sk_nb.MultinomialNB is nbfast.MultinomialNB


def _pipeline_script():
    """What an existing script does: a text pipeline and a grid search, with the classes imported by name."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.model_selection import GridSearchCV
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    documents, y = make_text_documents(n_samples=300, n_classes=3, random_state=0)
    pipeline = make_pipeline(TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True), MultinomialNB())
    search = GridSearchCV(pipeline, {"multinomialnb__alpha": [0.01, 0.1, 1.0]}, cv=3).fit(documents, y)
    return search, documents


def test_a_patched_pipeline_script_gives_scikit_learns_results_on_nbfast():
    expected, documents = _pipeline_script()
    nbfast.patch_sklearn()
    search, _ = _pipeline_script()
    vectorizer, model = search.best_estimator_
    assert isinstance(vectorizer, nbfast.text.TfidfVectorizer)
    assert isinstance(model, nbfast.MultinomialNB)
    assert search.best_params_ == expected.best_params_
    np.testing.assert_allclose(search.cv_results_["mean_test_score"], expected.cv_results_["mean_test_score"],
                               rtol=1e-12)
    np.testing.assert_array_equal(search.predict(documents), expected.predict(documents))
    np.testing.assert_allclose(search.predict_proba(documents), expected.predict_proba(documents), rtol=1e-9)
    again = pickle.loads(pickle.dumps(search.best_estimator_))  # fitted pipelines pickle while patched
    np.testing.assert_array_equal(again.predict(documents), search.predict(documents))


def test_conversions_to_and_from_scikit_learn_use_its_own_classes_while_patched():
    X, y = make_documents(100, 30, 3, random_state=0)
    theirs = ORIGINALS["MultinomialNB"]().fit(X, y)
    ours = nbfast.MultinomialNB().fit(X, y)
    nbfast.patch_sklearn()
    assert type(ours.to_sklearn()) is ORIGINALS["MultinomialNB"]
    assert type(nbfast.from_sklearn(theirs)) is nbfast.MultinomialNB
    analyzer = sk_text.CountVectorizer(analyzer="char_wb", ngram_range=(2, 3)).build_analyzer()
    assert analyzer("ab") == TEXT_ORIGINALS["CountVectorizer"](analyzer="char_wb", ngram_range=(2, 3)).build_analyzer()("ab")


def test_patched_code_runs_on_nbfast():
    X, y = make_documents(200, 50, 3, random_state=0)
    expected = ORIGINALS["MultinomialNB"]().fit(X, y).predict_proba(X)
    nbfast.patch_sklearn()
    from sklearn.naive_bayes import MultinomialNB  # what user code does, after patching

    model = MultinomialNB(alpha=1.0).fit(X, y)
    assert isinstance(model, nbfast.MultinomialNB)
    np.testing.assert_allclose(model.predict_proba(X), expected, rtol=1e-12)


def test_patching_twice_then_unpatching_restores_the_originals():
    nbfast.patch_sklearn()
    nbfast.patch_sklearn()
    assert sk_nb.ComplementNB is nbfast.ComplementNB
    nbfast.unpatch_sklearn()
    for name, original in ORIGINALS.items():
        assert getattr(sk_nb, name) is original
    nbfast.unpatch_sklearn()  # harmless when not patched
    assert sk_nb.MultinomialNB is ORIGINALS["MultinomialNB"]


def test_an_estimator_added_to_nbfast_later_is_patched(monkeypatch):
    class GaussianNB:
        """Stands in for an nbfast GaussianNB."""

    monkeypatch.setitem(ESTIMATORS, "GaussianNB", GaussianNB)
    assert "GaussianNB" in nbfast.patch_sklearn()
    assert sk_nb.GaussianNB is GaussianNB
    nbfast.unpatch_sklearn()
    assert sk_nb.GaussianNB is ORIGINALS["GaussianNB"]


def test_patching_and_unpatching_from_several_threads_at_once_restores_the_originals():
    """A patch during a restore once recorded nbfast's class as scikit-learn's original, for good."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    stop, errors = threading.Event(), []

    def repeat(call):
        while not stop.is_set():
            try:
                call()
            except Exception as exc:  # noqa: BLE001 - any error fails the test below
                errors.append(exc)

    threads = [threading.Thread(target=repeat, args=(call,)) for call in
               (nbfast.patch_sklearn, nbfast.unpatch_sklearn, lambda: nbfast.patch_sklearn(text=False))]
    try:
        for thread in threads:
            thread.start()
        time.sleep(1.0)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
        sys.setswitchinterval(interval)
    nbfast.unpatch_sklearn()
    assert not errors, errors[:3]
    assert all(getattr(sk_nb, name) is original for name, original in ORIGINALS.items())
    assert all(getattr(sk_text, name) is original for name, original in TEXT_ORIGINALS.items())
