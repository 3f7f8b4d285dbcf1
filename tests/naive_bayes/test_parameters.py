"""Parameters are validated as scikit-learn validates them: the same declared constraints, its own
``InvalidParameterError`` (a ValueError) at fit, and an equivalent check without scikit-learn."""

import itertools

import numpy as np
import pytest

import nbfast
import nbfast._compat
from nbfast import _params
from nbfast.datasets import make_documents
from nbfast.naive_bayes import ESTIMATORS

sk_nb = pytest.importorskip("sklearn.naive_bayes")
param_validation = pytest.importorskip("sklearn.utils._param_validation")

#: The estimators scikit-learn has too.
SHARED = ["MultinomialNB", "BernoulliNB", "ComplementNB", "CategoricalNB", "GaussianNB"]
#: The estimators whose parameters nbfast declares.
DECLARED = [*SHARED, "PoissonNB", "MixedNB", "CalibratedNB", "SemiSupervisedNB"]


def _data(name):
    X, y = make_documents(40, 6, 2, mean_length=8, random_state=0)
    X = X.toarray()
    return (np.minimum(X, 3) if name in ("CategoricalNB", "MixedNB") else X), y


def _invalid_values(constraints):
    """One value per constraint that none of ``constraints`` allows, as scikit-learn's own common check makes them."""
    constraints = [param_validation.make_constraint(c) for c in constraints]
    for constraint in constraints:
        try:
            value = param_validation.generate_invalid_param_val(constraint)
        except NotImplementedError:
            continue
        if not any(other.is_satisfied_by(value) for other in constraints):
            yield value
    if not any(c.is_satisfied_by(object()) for c in constraints):
        yield object()


def _cases(source):
    for name in source:
        cls = getattr(sk_nb, name) if source is SHARED else ESTIMATORS[name]
        for param, constraints in cls._parameter_constraints.items():
            for i, value in enumerate(_invalid_values(constraints)):
                yield pytest.param(name, param, value, id=f"{name}-{param}-{i}")


@pytest.mark.parametrize("name", SHARED)
def test_constraints_are_scikit_learns(name):
    ours, theirs = ESTIMATORS[name]._parameter_constraints, getattr(sk_nb, name)._parameter_constraints

    def described(constraints):
        return [str(param_validation.make_constraint(c)) for c in constraints]

    for param, constraints in theirs.items():
        assert described(ours[param]) == described(constraints), param
    assert set(ours) == set(ESTIMATORS[name]._get_param_names())


@pytest.mark.parametrize("name", DECLARED)
def test_every_parameter_is_declared(name):
    assert set(ESTIMATORS[name]._parameter_constraints) == set(ESTIMATORS[name]._get_param_names())


@pytest.mark.parametrize("name, param, value", list(_cases(SHARED)))
def test_an_invalid_parameter_raises_what_scikit_learn_raises(name, param, value):
    X, y = _data(name)
    with pytest.raises(Exception) as theirs:
        getattr(sk_nb, name)(**{param: value}).fit(X, y)
    model = ESTIMATORS[name](**{param: value})
    with pytest.raises(type(theirs.value), match=f"'{param}' parameter of {name}"):
        model.fit(X, y)
    with pytest.raises(type(theirs.value), match=f"'{param}' parameter of {name}"):
        model.partial_fit(X, y, classes=[0, 1])
    assert not hasattr(model, "classes_")


@pytest.mark.parametrize("name, param, value", list(_cases(DECLARED)))
def test_an_invalid_parameter_of_nbfast_is_refused_at_fit(name, param, value):
    X, y = _data(name)
    model = ESTIMATORS[name](**{param: value})
    with pytest.raises(param_validation.InvalidParameterError, match=f"'{param}' parameter of {name} must be"):
        model.fit(X, y)
    assert not hasattr(model, "classes_")


@pytest.mark.parametrize("name, params", [
    *[(name, {"alpha": np.inf}) for name in ("MultinomialNB", "BernoulliNB", "ComplementNB", "CategoricalNB",
                                             "PoissonNB")],
    ("PoissonNB", {"beta": np.inf}),
    *[(name, {param: value}) for name in ("MultinomialNB", "BernoulliNB", "ComplementNB", "CategoricalNB")
      for param, value in itertools.product(("fit_prior", "force_alpha"), ("yes", 1, None, object()))],
    *[("ComplementNB", {"norm": value}) for value in ("yes", 1, None, object())],
    ("BernoulliNB", {"binarize": -1.0}),
])
def test_values_scikit_learn_refuses_are_refused(name, params):
    X, y = _data(name)
    with pytest.raises(ValueError, match=f"'{next(iter(params))}' parameter of {name}"):
        ESTIMATORS[name](**params).fit(X, y)


@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB"])
def test_an_infinite_alpha_in_an_array_is_refused(name):
    X, y = _data(name)
    alpha = np.ones(X.shape[1])
    alpha[2] = np.inf
    with pytest.raises(ValueError, match="alpha must be finite"):
        ESTIMATORS[name](alpha=alpha).fit(X, y)


def test_parameters_that_scoring_reads_are_checked_before_scoring():
    X, y = _data("BernoulliNB")
    model = nbfast.BernoulliNB().fit(X, y)
    model.set_params(binarize=-1.0)
    with pytest.raises(param_validation.InvalidParameterError, match="'binarize' parameter"):
        model.predict(X)


PROBES = [0, 1, 2, -1, 0.5, -0.5, 1.5, np.inf, -np.inf, np.nan, True, False, np.bool_(True), np.int64(3),
          np.float32(0.25), None, "error", "ignore", "feature", "yes", "", [1, 2], (1,), np.ones(3), [], {}, object()]


@pytest.mark.parametrize("name", DECLARED)
def test_nbfasts_checks_refuse_what_scikit_learns_refuse(name):
    """Each declared constraint, as nbfast checks it (also without scikit-learn), accepts what scikit-learn's
    validator accepts of the constraints scikit-learn's tools see, with the same message (but a refined one: nbfast's
    own rule, tested in tests/test_params.py)."""
    cls = ESTIMATORS[name]
    ours = _params.declared(cls)
    for param, constraints in cls._parameter_constraints.items():
        refined = any(isinstance(c, _params.Refined) for c in ours[param])
        for value in PROBES:
            try:
                param_validation.validate_parameter_constraints({param: constraints}, {param: value}, name)
                expected = None
            except param_validation.InvalidParameterError as error:
                expected = error
            try:
                _params.check_values(ours, {param: value}, name)
            except ValueError as error:
                assert isinstance(error, TypeError)
                assert refined or (expected is not None and str(error) == str(expected)), (param, value, error)
            else:
                assert refined or expected is None, (param, value)


@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB", "ComplementNB", "CategoricalNB", "PoissonNB"])
@pytest.mark.parametrize("method", ["fit", "partial_fit"])
def test_the_alpha_too_small_warning_is_issued_once_per_fit(name, method):
    X, y = _data(name)
    model = ESTIMATORS[name](alpha=0.0, force_alpha=False)
    fit = getattr(model, method)
    kwargs = {"classes": [0, 1]} if method == "partial_fit" else {}
    for _ in range(2):  # the first call and a later one (partial_fit continues)
        with pytest.warns(UserWarning, match="alpha too small") as record:
            fit(X, y, **kwargs)
        assert len([w for w in record if "alpha too small" in str(w.message)]) == 1
        model.predict_proba(X)
    if name != "PoissonNB":
        with pytest.warns(UserWarning, match="alpha too small") as record:
            getattr(getattr(sk_nb, name)(alpha=0.0, force_alpha=False), method)(X, y, **kwargs)
        assert len([w for w in record if "alpha too small" in str(w.message)]) == 1


SMOOTHED = ["MultinomialNB", "BernoulliNB", "ComplementNB", "CategoricalNB", "PoissonNB"]


@pytest.mark.parametrize("name", SMOOTHED)
def test_alpha_is_checked_once_per_fit_and_never_to_predict(name, monkeypatch):
    """The checked alpha travels from the fit's one check to the tables, which derive on first use."""
    X, y = _data(name)
    cls = ESTIMATORS[name]
    calls = []
    check_alpha = cls._check_alpha

    def counted(self, *args, **kwargs):
        calls.append(self.alpha)
        return check_alpha(self, *args, **kwargs)

    monkeypatch.setattr(cls, "_check_alpha", counted)
    model = cls(alpha=0.5).fit(X, y)
    assert len(calls) == 1
    model.predict_proba(X), model.feature_log_prob_
    assert len(calls) == 1
    for n_calls in (2, 3):  # partial_fit checks its parameters at every call; its tables derive on first use
        model.partial_fit(X, y, classes=[0, 1])
        model.predict(X)
        assert len(calls) == n_calls
    nbfast.merge([model, model])
    assert len(calls) == 4  # a merge derives the parameters of a new model: one check


@pytest.mark.parametrize("name, changed", [
    ("MultinomialNB", {"alpha": 7.0}), ("BernoulliNB", {"alpha": 7.0}), ("CategoricalNB", {"alpha": 7.0}),
    ("ComplementNB", {"alpha": 7.0, "norm": True}), ("PoissonNB", {"alpha": 7.0, "beta": 3.0}),
])
def test_tables_derived_after_a_fit_use_that_fit_s_parameters(name, changed):
    """partial_fit leaves the tables to the first prediction: set_params in between changes nothing until the
    next fit, as in scikit-learn, where partial_fit computes them at once."""
    X, y = _data(name)
    expected = ESTIMATORS[name](alpha=0.5).partial_fit(X, y, classes=[0, 1]).predict_proba(X)
    model = ESTIMATORS[name](alpha=0.5).partial_fit(X, y, classes=[0, 1])
    model.set_params(**changed)
    np.testing.assert_array_equal(model.predict_proba(X), expected)
    refit = ESTIMATORS[name](**changed).fit(X, y).predict_proba(X)
    np.testing.assert_array_equal(model.fit(X, y).predict_proba(X), refit)
