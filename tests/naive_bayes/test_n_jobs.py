"""``n_jobs`` on the estimators: checked like any parameter, the thread count it gives the kernels, and results
that do not depend on it."""

import pickle
from pathlib import Path

import numpy as np
import pytest

import nbfast
from nbfast._compat import clone
from nbfast._kernels import threads
from nbfast.datasets import make_documents
from nbfast.naive_bayes import ESTIMATORS, _counts, _tables

ALL = sorted(ESTIMATORS)


@pytest.fixture
def data():
    return make_documents(2000, 200, 4, random_state=0)


@pytest.fixture
def observed(monkeypatch):
    """The thread counts the counting and scoring kernels were given, in call order (every count used as given:
    no call is too small for threads here)."""
    monkeypatch.setattr(threads, "MIN_WORK_PER_THREAD", 1)
    seen = {"count": [], "score": []}

    def spy(name, kernel):
        def call(*args):
            seen[name].append(args[-1])
            return kernel(*args)
        return call

    monkeypatch.setattr(_counts, "add_class_counts", spy("count", _counts.add_class_counts))
    for table in (_tables.DenseTable, _tables.CompactTable):  # score(self, X, ..., n_threads)
        monkeypatch.setattr(table, "score", spy("score", table.score))
    return seen


def _made(name, **params):
    try:
        return ESTIMATORS[name](**params)
    except TypeError:  # an estimator that needs its parts given
        pytest.skip(f"{name} has no default construction")


@pytest.mark.parametrize("name", ALL)
def test_every_estimator_takes_n_jobs_and_keeps_it_through_clone(name):
    model = _made(name, n_jobs=3)
    assert model.get_params()["n_jobs"] == 3
    assert clone(model).n_jobs == 3
    assert _made(name).n_jobs is None


@pytest.mark.parametrize("n_jobs", [1, 2, 3, -1, -2, None])
def test_n_jobs_sets_the_threads_of_fit_and_predict(n_jobs, data, observed):
    X, y = data
    model = nbfast.MultinomialNB(n_jobs=n_jobs).fit(X, y)
    model.predict(X)
    model.predict_proba(X)
    if n_jobs is None:
        expected = threads.effective_n_threads()
    else:
        expected = threads.threads_for_n_jobs(n_jobs)
    assert observed["count"] == [expected] and observed["score"] == [expected, expected]
    if n_jobs is not None and n_jobs < 0:
        assert expected == max(1, threads.available_cpus() + 1 + n_jobs)


def test_set_params_changes_the_threads_of_the_next_call(data, observed):
    X, y = data
    model = nbfast.MultinomialNB(n_jobs=1).fit(X, y)
    model.predict(X)
    model.set_params(n_jobs=3).predict(X)
    assert observed["score"] == [1, 3]


def test_n_jobs_overrides_threadpoolctl_and_none_leaves_it_in_force(data, observed):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    X, y = data
    with threadpoolctl.threadpool_limits(limits=1, user_api="openmp"):
        nbfast.MultinomialNB().fit(X, y).predict(X)
        nbfast.MultinomialNB(n_jobs=3).fit(X, y).predict(X)
    if threads.openmp_enabled():
        assert observed["count"] == [1, 3] and observed["score"] == [1, 3]


def test_threadpoolctl_limits_the_kernels(data, observed):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    if not threads.openmp_enabled():
        pytest.skip("a serial build runs one thread")
    X, y = data
    assert any(module["user_api"] == "openmp" for module in threadpoolctl.threadpool_info())
    for n in (1, 3):
        with threadpoolctl.threadpool_limits(limits=n, user_api="openmp"):
            assert threads.effective_n_threads() == n
            nbfast.MultinomialNB().fit(X, y).predict(X)
    assert observed["count"] == [1, 3] and observed["score"] == [1, 3]


def test_a_composite_passes_its_n_jobs_to_the_parts_kernels(data, observed):
    X, y = data
    nbfast.CalibratedNB(nbfast.MultinomialNB(), cv=2, n_jobs=3).fit(X, y).predict(X)
    assert set(observed["count"]) == {3} and set(observed["score"]) == {3}


@pytest.mark.parametrize("name", ALL)
def test_results_are_identical_for_n_jobs_1_2_3_and_4(name, data, monkeypatch):
    monkeypatch.setattr(threads, "MIN_WORK_PER_THREAD", 1)
    X, y = data
    results = []
    for n_jobs in (1, 2, 3, 4):
        model = _made(name, n_jobs=n_jobs).fit(X, y)
        results.append((model.predict(X), model.predict_proba(X), model.predict_joint_log_proba(X)))
    for other in results[1:]:
        for a, b in zip(results[0], other):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("value", [0, 1.5, "2", [2]])
@pytest.mark.parametrize("name", ["MultinomialNB", "GaussianNB", "CalibratedNB", "MultinomialNBCV"])
def test_a_bad_n_jobs_is_one_clear_error_before_any_work(name, value, data, observed):
    X, y = data
    with pytest.raises((ValueError, TypeError), match="n_jobs"):
        _made(name, n_jobs=value).fit(X, y)
    fitted = _made(name).fit(X, y)
    observed["count"].clear(), observed["score"].clear()
    fitted.set_params(n_jobs=value)
    for method in (fitted.predict, fitted.predict_proba):
        with pytest.raises((ValueError, TypeError), match="n_jobs"):
            method(X)
    assert observed == {"count": [], "score": []}


def test_models_of_different_n_jobs_merge_and_convert_to_scikit_learn(data):
    X, y = data
    a = nbfast.MultinomialNB(n_jobs=1).partial_fit(X[:1000], y[:1000], classes=np.unique(y))
    b = nbfast.MultinomialNB(n_jobs=2).partial_fit(X[1000:], y[1000:], classes=np.unique(y))
    whole = nbfast.MultinomialNB().fit(X, y)
    np.testing.assert_allclose(nbfast.merge([a, b]).feature_log_prob_, whole.feature_log_prob_)
    pytest.importorskip("sklearn")
    assert "n_jobs" not in nbfast.MultinomialNB(n_jobs=2).fit(X, y).to_sklearn().get_params()


def test_model_files_keep_n_jobs_and_files_without_it_load(data, tmp_path):
    X, y = data
    nbfast.save(nbfast.MultinomialNB(n_jobs=2).fit(X, y), tmp_path / "m.nbf")
    assert nbfast.load(tmp_path / "m.nbf").n_jobs == 2
    old = nbfast.load(Path(__file__).parent.parent / "data" / "MultinomialNB-str.nbf")  # made before n_jobs
    assert old.n_jobs is None


def test_a_model_pickled_without_n_jobs_still_predicts(data):
    X, y = data
    model = nbfast.MultinomialNB().fit(X, y)
    del model.n_jobs  # as a pickle made before the parameter existed
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(model)).predict(X), model.predict(X))
