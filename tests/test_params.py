"""nbfast._params: the one way estimators and vectorizers declare and check their parameters, with and without
scikit-learn, once per call."""

import json
import numbers
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import nbfast
from nbfast import _params
from nbfast.naive_bayes import ESTIMATORS
from nbfast.text import VECTORIZERS, TfidfTransformer

CLASSES = {**ESTIMATORS, **VECTORIZERS, "TfidfTransformer": TfidfTransformer}
DOCUMENTS = ["the quick brown fox", "jumps over the lazy dog", "the dog"]


class BadType:
    """A value of a type no parameter takes (but those that take any object)."""

    def __repr__(self):
        return "BadType()"


def _fit_calls(cls):
    """The calls that check every parameter of a ``cls`` instance: (name, call(model))."""
    if cls in VECTORIZERS.values():
        return [("fit", lambda m: m.fit(DOCUMENTS)), ("fit_transform", lambda m: m.fit_transform(DOCUMENTS))]
    if cls is TfidfTransformer:
        return [("fit", lambda m: m.fit(np.ones((3, 4))))]
    X, y = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0], [2.0, 1.0, 0.0], [1.0, 1.0, 1.0]]), np.array([0, 1, 0, 1])
    calls = [("fit", lambda m: m.fit(X, y))]
    if hasattr(cls, "partial_fit"):
        calls.append(("partial_fit", lambda m: m.partial_fit(X, y, classes=[0, 1])))
    return calls


def _bad_values(constraints):
    """Values that none of ``constraints`` allows: one of a foreign type, and one of the right type outside
    each interval or list of options."""
    candidates = [BadType()]
    for constraint in constraints:
        if isinstance(constraint, _params.StrOptions):
            candidates.append("not " + " or ".join(sorted(constraint.options)))
        elif isinstance(constraint, _params.Interval) and constraint.type is numbers.Integral:
            candidates.append(constraint.left - 1 if constraint.left is not None else constraint.right + 1)
        elif isinstance(constraint, _params.Interval) and constraint.left is not None:
            candidates.append(constraint.left - 1e-6)
    return [v for v in candidates if not any(_params._satisfies(c, v) for c in constraints)]


def refusals():
    """{(class, parameter, value, call): the message} of every bad value of every declared parameter of every
    estimator and vectorizer, each at every call that checks it; asserts each is one InvalidParameterError (a
    ValueError and a TypeError) naming the class, the parameter and the value, before the model changes."""
    seen = {}
    for name, cls in CLASSES.items():
        for param, constraints in _params.declared(cls).items():
            for value in _bad_values(constraints):
                for call_name, call in _fit_calls(cls):
                    model = cls(**{param: value})
                    try:
                        call(model)
                    except ValueError as error:
                        assert isinstance(error, TypeError) and type(error).__name__ == "InvalidParameterError", error
                        assert str(error).startswith(f"The {param!r} parameter of {name} must be "), error
                        assert str(error).endswith(f"Got {value!r} instead."), error
                        seen[name, param, repr(value), call_name] = str(error)
                    else:
                        raise AssertionError(f"{name}({param}={value!r}).{call_name} was not refused")
                    assert not any(key.endswith("_") and not key.startswith("_") for key in vars(model)), name
    return seen


def test_every_parameter_of_every_class_is_declared():
    for name, cls in CLASSES.items():
        assert set(_params.declared(cls)) == set(cls._get_param_names()), name


def test_a_bad_value_of_every_parameter_is_one_clear_error():
    seen = refusals()
    params = {(name, param) for name, param, _, _ in seen}
    # every parameter but those that take any object (checked with what they make: an estimator, a label)
    anything = {(name, param) for name, cls in CLASSES.items() for param, allowed in _params.declared(cls).items()
                if object in allowed}
    assert params | anything == {(name, param) for name, cls in CLASSES.items() for param in cls._get_param_names()}


def test_without_scikit_learn_the_same_values_are_refused_with_the_same_messages():
    pytest.importorskip("sklearn")
    with_sklearn = refusals()
    code = textwrap.dedent(
        f"""
        import json, sys

        class BlockSklearn:
            def find_spec(self, name, path=None, target=None):
                if name == "sklearn" or name.startswith("sklearn."):
                    raise ImportError("scikit-learn is blocked for this test")

        sys.meta_path.insert(0, BlockSklearn())
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import test_params

        seen = test_params.refusals()
        assert not any(m == "sklearn" or m.startswith("sklearn.") for m in sys.modules)
        print(json.dumps(sorted([list(key), test_params._ordered(message)] for key, message in seen.items())))
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]

    assert json.loads(result.stdout) == sorted([list(key), _ordered(message)] for key, message in with_sklearn.items())


def _ordered(message):
    """The message with the options it lists in sorted order (a set's order changes from process to process)."""
    return re.sub(r"\{([^{}]*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message)


# ----------------------------------------------------------------------------- checked once per call
def _counting(cls, param):
    """A subclass of ``cls`` whose ``param`` constraint counts the values it checks (in ``checked``)."""
    allowed = _params.declared(cls)[param]
    checked = []

    def test(value):
        checked.append(value)
        return any(_params._satisfies(c, value) for c in allowed)

    refined = _params.Refined(test, "what it was", sklearn="no_validation")
    counted = type(cls.__name__, (cls,), {"_parameter_constraints": _params.declare(
        {**_params.declared(cls), param: [refined]})})
    return counted, checked


X6, Y6 = np.ones((6, 3)), [0, 1] * 3


@pytest.mark.parametrize("name, param, call, checks", [
    ("MultinomialNB", "alpha", lambda m: m.fit(X6, Y6), 1),
    ("MultinomialNB", "alpha", lambda m: m.partial_fit(X6, Y6, classes=[0, 1]), 1),
    ("CategoricalNB", "max_categories", lambda m: m.fit(X6, Y6), 1),
    ("GaussianNB", "var_smoothing", lambda m: m.fit(X6, Y6), 1),
    ("CalibratedNB", "cv", lambda m: m.set_params(cv=2).fit(X6, Y6), 1),
    ("MultinomialNBCV", "alphas", lambda m: m.set_params(cv=2).fit(X6, Y6), 1),
    ("CountVectorizer", "min_df", lambda m: m.fit(DOCUMENTS), 1),
    ("CountVectorizer", "min_df", lambda m: m.fit_transform(DOCUMENTS), 1),
    ("TfidfVectorizer", "min_df", lambda m: m.fit(DOCUMENTS), 1),
    ("TfidfVectorizer", "min_df", lambda m: m.fit_transform(DOCUMENTS), 1),
    ("TfidfVectorizer", "min_df", lambda m: m.fit(DOCUMENTS).transform(DOCUMENTS), 2),
    ("HashingVectorizer", "n_features", lambda m: m.fit_transform(DOCUMENTS), 1),
    ("HashingVectorizer", "n_features", lambda m: m.partial_fit(DOCUMENTS), 1),
    ("TfidfTransformer", "norm", lambda m: m.fit_transform(np.ones((3, 4))), 1),
])
def test_parameters_are_checked_once_per_call(name, param, call, checks):
    cls, checked = _counting(CLASSES[name], param)
    call(cls())
    assert len(checked) == checks, checked


def test_the_parts_of_a_model_are_checked_in_their_own_calls():
    X, y = np.ones((6, 3)), [0, 1] * 3
    with pytest.raises(ValueError, match="'alpha' parameter of MultinomialNB"):
        nbfast.CalibratedNB(nbfast.MultinomialNB(alpha=-1.0), cv=2).fit(X, y)
    with pytest.raises(ValueError, match="'alpha' parameter of MultinomialNB"):
        nbfast.MixedNB([("counts", nbfast.MultinomialNB(alpha=-1.0), [0, 1, 2])]).fit(X, y)


def test_n_jobs_is_checked_before_predictions_and_the_parameters_scoring_reads():
    model = nbfast.BernoulliNB().fit(np.ones((4, 3)), [0, 1, 0, 1])
    model.set_params(n_jobs=0)
    with pytest.raises(ValueError, match="'n_jobs' parameter of BernoulliNB"):
        model.predict(np.ones((2, 3)))
    model.set_params(n_jobs=None, binarize=-1.0)
    with pytest.raises(ValueError, match="'binarize' parameter of BernoulliNB"):
        model.predict(np.ones((2, 3)))
    model.set_params(binarize=0.0, alpha=-1.0)  # only fit reads alpha
    model.predict(np.ones((2, 3)))


# ----------------------------------------------------------------------------- the constraints
@pytest.mark.parametrize("constraint, good, bad, described", [
    (_params.Interval(numbers.Integral, 1, None, closed="left"), [1, np.int64(7), True], [0, 1.0, None],
     "an int in the range [1, inf)"),
    (_params.Interval(numbers.Real, 0, 1, closed="neither"), [0.5, np.float32(0.1)], [0, 1.0, np.nan, "0.5"],
     "a float in the range (0.0, 1.0)"),
    (_params.Interval(numbers.Real, 0, None, closed="left"), [0, 1e308], [np.inf, -1e-300, np.nan],
     "a float in the range [0.0, inf)"),
    (_params.Interval(_params.RealNotInt, 0, 1, closed="both"), [0.0, 1.0], [0, 1, 1.5], "a float in the range [0.0, 1.0]"),
    (_params.StrOptions({"a"}), ["a"], ["b", 1, None], "a str among {'a'}"),
    (_params.Options(numbers.Integral, {0, 1}), [0, 1], [2, "0"], "a int among {0, 1}"),
    (_params.HasMethods(["split", "get_n_splits"]), [], [[], "s"],
     "an object implementing 'split' and 'get_n_splits'"),
    (_params.Refined(lambda v: v == 3, "three", sklearn=int), [3], [4], "three"),
    ("boolean", [True, np.bool_(False)], [1, "yes", None], f"an instance of 'bool' or an instance of 'numpy.{np.bool_.__name__}'"),  # bool_ before numpy 2
    ("array-like", [[1], np.ones(2), ()], [1, "ab", None], "an array-like"),
    (callable, [len, lambda: 0], ["len", None], "a callable"),
    (None, [None], [0, ""], "None"),
    (dict, [{}], [[]], "an instance of 'dict'"),
])
def test_each_constraint_accepts_what_it_says(constraint, good, bad, described):
    assert all(_params._satisfies(constraint, value) for value in good)
    assert not any(_params._satisfies(constraint, value) for value in bad)
    assert _params._describe(constraint) == described


def test_a_refused_value_names_every_constraint():
    constraints = {"n_jobs": _params.N_JOBS["n_jobs"]}
    with pytest.raises(ValueError, match=r"^The 'n_jobs' parameter of Thing must be None, an int in the range "
                                         r"\[1, inf\) or an int in the range \(-inf, -1\]. Got 0 instead.$"):
        _params.check_values(constraints, {"n_jobs": 0}, "Thing")
    _params.check_values(constraints, {"n_jobs": -1, "other": object()}, "Thing")  # undeclared: not checked


def test_scikit_learn_sees_its_own_constraint_objects():
    validation = pytest.importorskip("sklearn.utils._param_validation")
    seen = nbfast.text.HashingVectorizer._parameter_constraints
    assert seen["dtype"] == "no_validation" and seen["ngram_range"] == [tuple]
    assert isinstance(seen["n_features"][0], validation.Interval) and seen["n_features"][0].right == 2**31 - 1
    assert isinstance(nbfast.text.CountVectorizer._parameter_constraints["max_df"][0].type, type)
    assert nbfast.text.CountVectorizer._parameter_constraints["max_df"][0].type is validation.RealNotInt


def test_a_refined_constraint_may_word_its_own_error():
    from nbfast.text._params import ANALYSIS

    constraints = {"ngram_range": ANALYSIS["ngram_range"]}
    with pytest.raises(ValueError, match=r"^Invalid value for ngram_range=\(2, 1\) lower boundary larger than the "
                                         r"upper boundary.$"):
        _params.check_values(constraints, {"ngram_range": (2, 1)}, "V")
    for value in [(1, 2, 3), [1, 2], (0, 1), (1, True)]:
        with pytest.raises(ValueError, match=r"^The 'ngram_range' parameter of V must be a tuple \(min_n, max_n\)"):
            _params.check_values(constraints, {"ngram_range": value}, "V")
    _params.check_values(constraints, {"ngram_range": (3, 3)}, "V")
