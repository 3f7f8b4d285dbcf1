"""Property-based tests: every estimator against its plain numpy float64 reference,
over random shapes, sparsities, layouts, dtypes, weights and label types."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_categorical import reference as categorical_reference
from test_complement import reference as complement_reference
from test_discrete import reference as discrete_reference
from test_gaussian import reference as gaussian_reference
from test_poisson import reference as poisson_reference

import nbfast

# name -> (what X holds, reference(X, y, X_test, **params) -> {"jll", "log_proba"}, parameter strategy)
ESTIMATORS = {
    "MultinomialNB": ("counts", lambda *a, **k: discrete_reference("multinomial", *a, **k),
                      st.fixed_dictionaries({"alpha": st.sampled_from([0.01, 0.5, 1.0, 2.5])})),
    "BernoulliNB": ("counts", lambda *a, **k: discrete_reference("bernoulli", *a, **k),
                    st.fixed_dictionaries({"alpha": st.sampled_from([0.01, 0.5, 1.0]),
                                           "binarize": st.sampled_from([0.0, 1.5])})),
    "ComplementNB": ("counts", complement_reference,
                     st.fixed_dictionaries({"alpha": st.sampled_from([0.1, 1.0]), "norm": st.booleans()})),
    "PoissonNB": ("counts", poisson_reference,
                  st.fixed_dictionaries({"alpha": st.sampled_from([0.1, 1.0]), "beta": st.sampled_from([0.5, 2.0])})),
    "CategoricalNB": ("categories", categorical_reference,
                      st.fixed_dictionaries({"alpha": st.sampled_from([0.1, 1.0])})),
    "GaussianNB": ("real", gaussian_reference,
                   st.fixed_dictionaries({"var_smoothing": st.sampled_from([1e-9, 1e-3]),
                                          "variance": st.sampled_from(["class_feature", "feature", "class", "global"]),
                                          "ddof": st.just(0)})),
}


@st.composite
def problems(draw, kind):
    n_samples = draw(st.integers(4, 40))
    n_features = draw(st.integers(1, 12))
    n_classes = draw(st.integers(1, 4))
    density = draw(st.floats(0.05, 1.0))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    mask = rng.random((n_samples, n_features)) < density
    if kind == "counts":
        X = rng.poisson(3.0, size=mask.shape) * mask
    elif kind == "categories":
        X = rng.integers(0, 4, size=mask.shape) * mask
    else:
        X = rng.normal(2.0, 1.5, size=mask.shape) * mask
    # every class at least twice, so that per-class variances are defined
    if n_samples >= 2 * n_classes:
        y = np.concatenate([np.repeat(np.arange(n_classes), 2), rng.integers(0, n_classes, n_samples - 2 * n_classes)])
        y = rng.permutation(y)
    else:
        y = np.arange(n_samples) % n_classes
    if draw(st.booleans()):
        y = np.array(["ant", "bee", "cat", "dog"])[y]
    weights = rng.uniform(0.1, 3.0, size=n_samples) if draw(st.booleans()) else None
    layout = draw(st.sampled_from(["dense", "csr32", "csr64", "f32"]))
    return X.astype(np.float64), y, weights, layout


def in_layout(X, layout):
    if layout == "dense":
        return X
    if layout == "f32":
        return sp.csr_array(X.astype(np.float32))
    S = sp.csr_array(X)
    index_dtype = np.int32 if layout == "csr32" else np.int64
    S.indices, S.indptr = S.indices.astype(index_dtype), S.indptr.astype(index_dtype)
    return S


@pytest.mark.parametrize("name", ESTIMATORS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_matches_numpy_reference(name, data):
    kind, reference, parameters = ESTIMATORS[name]
    X, y, weights, layout = data.draw(problems(kind))
    params = data.draw(parameters)
    model = getattr(nbfast, name)(**params).fit(in_layout(X, layout), y, sample_weight=weights)
    reference_params = {k: v for k, v in params.items() if k != "binarize"}
    if name == "BernoulliNB":
        reference_params["binarize"] = params["binarize"]
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = reference(X, y, X, sample_weight=weights, **reference_params)
    # Degenerate models (e.g. ComplementNB, norm=True, one class and one feature: 0/0
    # weights) are undefined; the dense reference and the sparse kernels disagree on 0 * NaN.
    assume(not np.isnan(expected["jll"]).any())
    rtol = 1e-5 if layout == "f32" else (1e-7 if name == "GaussianNB" else 1e-9)
    np.testing.assert_array_equal(model.classes_, expected["classes_"])
    if not (name == "ComplementNB" and len(model.classes_) == 1):
        np.testing.assert_allclose(model.predict_joint_log_proba(in_layout(X, layout)), expected["jll"],
                                   rtol=rtol, atol=rtol * 10)
    np.testing.assert_allclose(model.predict_log_proba(in_layout(X, layout)), expected["log_proba"],
                               rtol=rtol, atol=rtol * 10)
    if np.all(np.isfinite(expected["log_proba"])):
        np.testing.assert_allclose(model.predict_proba(in_layout(X, layout)).sum(axis=1), 1.0,
                                   rtol=1e-6 if name == "GaussianNB" and layout == "f32" else 1e-12)
