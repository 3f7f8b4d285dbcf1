"""BatchFit: a statistics estimator fitted on batches added one at a time, as the command line trains."""

import numpy as np
import pytest
from support.helpers import as_container, data_for, exported, nb_estimator, read_only

from nbfast._kernels.threads import limit_state
from nbfast.naive_bayes._batches import BatchFit

BATCH = 40


def batches(name, container="csr_matrix", dtype=np.float64, index_dtype=None):
    X, y = data_for(name, n_samples=5 * BATCH, n_features=15, n_classes=4)
    X = as_container(X, container, dtype, index_dtype or np.int32)
    return [(X[i:i + BATCH], y[i:i + BATCH]) for i in range(0, X.shape[0], BATCH)], np.unique(y)


def fitted_attributes(model):
    return {name: getattr(model, name) for name in model._saved_attributes() if hasattr(model, name)}


def assert_same_model(model, expected):
    got, wanted = fitted_attributes(model), fitted_attributes(expected)
    assert got.keys() == wanted.keys()
    for name, value in wanted.items():
        np.testing.assert_allclose(np.asarray(got[name], dtype=float), np.asarray(value, dtype=float), rtol=1e-12,
                                   err_msg=name)


#: The estimators whose statistics add up over batches; GaussianNB's later batches read its fitted state.
ADDITIVE = exported(["MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB", "CategoricalNB"])
#: (container, index dtype) of the batches.
LAYOUTS = [("csr_matrix", np.int32), ("csr_array", np.int32), ("csr_matrix", np.int64), ("dense", None)]


@pytest.mark.parametrize("name", ADDITIVE)
@pytest.mark.parametrize(("container", "index_dtype"), LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_batch_fit_is_partial_fit_batch_by_batch(name, container, index_dtype, dtype):
    parts, classes = batches(name, container, dtype, index_dtype)
    fitting = BatchFit(nb_estimator(name), classes)
    for X, y in parts:
        fitting.add(read_only(X), y)
    model = fitting.finish()
    expected = nb_estimator(name)
    for X, y in parts:
        expected.partial_fit(X, y, classes=classes)
    assert_same_model(model, expected)
    X = parts[0][0]
    np.testing.assert_array_equal(model.predict(X), expected.predict(X))


def test_batch_fit_counts_a_class_absent_from_every_batch_as_empty():
    parts, _ = batches("MultinomialNB")
    fitting = BatchFit(nb_estimator("MultinomialNB"), np.arange(5))  # class 4 is in no batch
    for X, y in parts:
        fitting.add(X, y)
    model = fitting.finish()
    np.testing.assert_array_equal(model.classes_, np.arange(5))
    assert model.class_count_[4] == 0


def test_a_refused_batch_leaves_the_estimator_unfitted():
    parts, classes = batches("MultinomialNB")
    model = nb_estimator("MultinomialNB")
    fitting = BatchFit(model, classes)
    fitting.add(*parts[0])
    X, y = parts[1]
    with pytest.raises(ValueError, match="Negative values"):
        fitting.add(-X, y)
    with pytest.raises(ValueError, match="features, but the earlier batches have 15"):
        fitting.add(X[:, :10], y)
    with pytest.raises(ValueError, match=r"label\(s\) \[10, 11, 12, 13\] in y do not exist"):
        fitting.add(X, y + 10)
    assert not hasattr(model, "classes_")
    fitting.add(X, y)  # the batches refused were not counted
    expected = nb_estimator("MultinomialNB").partial_fit(parts[0][0], parts[0][1], classes=classes)
    assert_same_model(fitting.finish(), expected.partial_fit(X, y))


def test_gaussian_nb_is_refused():
    assert not BatchFit.fits(nb_estimator("GaussianNB"))
    with pytest.raises(TypeError, match="GaussianNB does not fit from batches alone"):
        BatchFit(nb_estimator("GaussianNB"), [0, 1])


def test_no_batch_is_an_error():
    with pytest.raises(ValueError, match="no batches to fit on"):
        BatchFit(nb_estimator("MultinomialNB"), [0, 1]).finish()


def test_bad_parameters_are_refused_before_any_batch():
    with pytest.raises(ValueError, match="alpha"):
        BatchFit(nb_estimator("MultinomialNB", alpha=-1.0), [0, 1])


def test_add_counts_with_the_estimators_n_jobs(monkeypatch):
    parts, classes = batches("MultinomialNB")
    model = nb_estimator("MultinomialNB", n_jobs=1)
    seen = []
    accumulate = type(model)._accumulate

    def observed(self, *args, **kwargs):
        seen.append(limit_state())
        return accumulate(self, *args, **kwargs)

    monkeypatch.setattr(type(model), "_accumulate", observed)
    fitting = BatchFit(model, classes)
    fitting.add(*parts[0])
    assert seen[0][0] == 1 and limit_state()[0] is None  # one thread while counting, no limit after


@pytest.mark.parametrize("name", ADDITIVE)
def test_batches_checked_on_other_threads_fit_the_same_model(name):
    """As the command line trains: batches checked by a pool while this thread adds them in order."""
    from concurrent.futures import ThreadPoolExecutor

    parts, classes = batches(name)
    serial, threaded = BatchFit(nb_estimator(name), classes), BatchFit(nb_estimator(name), classes)
    for X, y in parts:
        serial.add(X, y)
    with ThreadPoolExecutor(3) as pool:
        for X, y_index in pool.map(lambda part: threaded.checked(*part), parts):
            threaded.add_checked(X, y_index)
    assert_same_model(threaded.finish(), serial.finish())


def test_checking_a_batch_leaves_the_estimator_and_statistics_as_they_were():
    parts, classes = batches("MultinomialNB")
    estimator = nb_estimator("MultinomialNB")
    fitting = BatchFit(estimator, classes)
    before = dict(vars(estimator))
    fitting.checked(*parts[0])
    assert vars(estimator).keys() == before.keys()
    with pytest.raises(ValueError, match="no batches"):
        fitting.finish()
