"""DiscriminativeNB at the edges of float64: finite weights, or one ValueError naming the cause, never NaN."""

import warnings

import numpy as np
import pytest

import nbfast
from nbfast.datasets import make_documents


@pytest.fixture(scope="module")
def data():
    return make_documents(200, 50, 3, mean_length=20, random_state=0)


def assert_finite(model, X):
    assert np.all(np.isfinite(model.coef_)) and np.all(np.isfinite(model.intercept_))
    assert np.all(np.isfinite(model.predict_proba(X)))


@pytest.mark.parametrize("scale", [2e19, 1e30, 1e37])
def test_large_float32_values_stay_finite(data, scale):
    X = data[0].astype(np.float32) * np.float32(scale)  # their squares pass float32's range, not float64's
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning standing in for a failed fit
        model = nbfast.DiscriminativeNB().fit(X, data[1])
    assert_finite(model, X)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda X, y: ((X * 1e200, y), {}, {}), "rescale X"),
        (lambda X, y: ((X, y), {"C": 5e-324}, {}), "C=5e-324 is too small"),
        (lambda X, y: ((X, y), {}, {"sample_weight": np.full(X.shape[0], 1e308)}), "sample weights sum"),
    ],
    ids=["X-1e200", "C-5e-324", "sample-weight-1e308"],
)
def test_overflowing_inputs_are_refused_and_leave_the_model(data, change, message):
    model = nbfast.DiscriminativeNB().fit(*data)
    coef = model.coef_.copy()
    args, params, kwargs = change(*data)
    with pytest.raises(ValueError, match=message):
        model.set_params(**params).fit(*args, **kwargs)
    np.testing.assert_array_equal(model.coef_, coef)
    assert_finite(model, data[0])
