"""Parameters of estimators and vectorizers: declared once, checked once per call, without scikit-learn.

A class declares ``_parameter_constraints = declare({...})`` in scikit-learn's language: per parameter, a list
of what it may be, any one of them enough:

- ``None``; a type (any instance of it); the builtin ``callable`` (any callable);
- ``"boolean"`` (bool or numpy.bool), ``"array-like"``, ``"cv_object"`` (what scikit-learn's ``check_cv``
  takes);
- :class:`Interval`, :class:`Options`, :class:`StrOptions`, :class:`HasMethods`;
- :class:`Refined`: nbfast's stricter rule (a numpy dtype, an ``ngram_range``), which scikit-learn's tools see
  as the constraint scikit-learn declares for it.

:func:`check_parameters` checks an object's parameters against its class's declaration and raises
``InvalidParameterError`` (a ValueError and a TypeError; scikit-learn's own class once scikit-learn is imported)
with scikit-learn's message: ``The 'alpha' parameter of MultinomialNB must be a float in the range [0.0, inf) or
an array-like. Got -1.0 instead.``  It never imports scikit-learn (predictions check parameters too).  Once
scikit-learn is imported, ``_parameter_constraints`` reads as scikit-learn's own constraint objects, for its
tools (``check_estimator``'s ``check_param_validation``).

Public methods check parameters on the way in with the decorator :func:`checks_parameters` (all of them:
``fit``, ``partial_fit``, ``transform``) or :func:`uses_n_jobs` (``n_jobs`` only: predictions, which check the
parameters scoring reads themselves).  Either checks once per call: a method that the call runs on the same
object (``fit_transform`` runs ``fit``, ``fit`` runs ``_validate_params``) finds them checked.  Both then run
the method on the threads ``n_jobs`` allows: None keeps nbfast's policy
(:func:`nbfast._kernels.threads.effective_n_threads`), a positive int allows at most that many threads, -1 one
per CPU this process may use, -2 one fewer, and so on; results do not depend on it.
"""

import functools
import math
import numbers
import threading

import numpy as np

from nbfast import _compat
from nbfast._kernels.threads import n_jobs_limit


class RealNotInt(numbers.Real):
    """Reals that are not ints (1.0 but not 1), for :class:`Interval` (scikit-learn's ``RealNotInt``)."""


RealNotInt.register(float)


class Interval:
    """Numbers of ``type`` (Integral, Real or RealNotInt) between ``left`` and ``right`` (None: unbounded),
    ``closed`` on which sides ("left", "right", "both" or "neither")."""

    def __init__(self, type, left, right, *, closed):
        if type not in (numbers.Integral, numbers.Real, RealNotInt):
            raise ValueError(f"type must be numbers.Integral, numbers.Real or RealNotInt, got {type!r}.")
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"closed must be 'left', 'right', 'both' or 'neither', got {closed!r}.")
        self.type, self.left, self.right, self.closed = type, left, right, closed

    def is_satisfied_by(self, value):
        if not isinstance(value, self.type) or (not isinstance(value, numbers.Integral) and math.isnan(value)):
            return False
        left = -math.inf if self.left is None else self.left  # (so [0, inf) refuses inf, as scikit-learn's)
        right = math.inf if self.right is None else self.right
        above = value >= left if self.closed in ("left", "both") else value > left
        below = value <= right if self.closed in ("right", "both") else value < right
        return bool(above and below)

    def __str__(self):
        integral = self.type is numbers.Integral
        opening = "[" if self.closed in ("left", "both") else "("
        closing = "]" if self.closed in ("right", "both") else ")"
        left = "-inf" if self.left is None else self.left if integral else float(self.left)
        right = "inf" if self.right is None else self.right if integral else float(self.right)
        return f"{'an int' if integral else 'a float'} in the range {opening}{left}, {right}{closing}"


class Options:
    """Values of ``type`` among ``options``."""

    def __init__(self, type, options):
        self.type, self.options = type, set(options)

    def is_satisfied_by(self, value):
        return isinstance(value, self.type) and value in self.options

    def __str__(self):
        return f"a {_type_name(self.type)} among {{{', '.join(repr(o) for o in self.options)}}}"


class StrOptions(Options):
    """Strings among ``options``."""

    def __init__(self, options):
        super().__init__(str, options)


class HasMethods:
    """Objects with every method of ``methods`` (a name or a list of names)."""

    def __init__(self, methods):
        self.methods = [methods] if isinstance(methods, str) else list(methods)

    def is_satisfied_by(self, value):
        return all(callable(getattr(value, method, None)) for method in self.methods)

    def __str__(self):
        names = [repr(m) for m in self.methods]
        return f"an object implementing {names[0] if len(names) == 1 else ', '.join(names[:-1]) + ' and ' + names[-1]}"


class Refined:
    """Values for which ``test(value)`` is true, described as ``description``: nbfast's rule where scikit-learn
    checks less (or later).  scikit-learn's tools see ``sklearn``, the constraint scikit-learn declares for the
    parameter (``"no_validation"``: none).  ``explain(value)``, when given, words the error for a refused value
    that scikit-learn refuses with a message of its own (None: the usual message)."""

    def __init__(self, test, description, *, sklearn, explain=None):
        self.test, self.description, self.sklearn, self.explain = test, description, sklearn, explain

    def is_satisfied_by(self, value):
        return bool(self.test(value))

    def __str__(self):
        return self.description


def _type_name(cls):
    if cls is numbers.Real or cls is numbers.Integral:
        return "float" if cls is numbers.Real else "int"
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def _test_of(constraint):
    """A function of a value: whether ``constraint`` allows it."""
    if constraint is None:
        return lambda value: value is None
    if constraint is callable:
        return callable
    if isinstance(constraint, str):
        return _NAMED[constraint][0]
    if isinstance(constraint, type):
        return lambda value: isinstance(value, constraint)
    return constraint.is_satisfied_by


def _satisfies(constraint, value):
    return _test_of(constraint)(value)


def _describe(constraint):
    if constraint is None:
        return "None"
    if constraint is callable:
        return "a callable"
    if isinstance(constraint, str):
        return _NAMED[constraint][1]
    if isinstance(constraint, type):
        return f"an instance of {_type_name(constraint)!r}"
    return str(constraint)


def _is_cv(value):
    """What scikit-learn's check_cv takes: a number of folds, a splitter, an iterable of splits or None."""
    return value is None or (isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 2) \
        or (hasattr(value, "split") and hasattr(value, "get_n_splits")) \
        or (hasattr(value, "__iter__") and not isinstance(value, str))


#: The constraints named by a string: (test, description).
_NAMED = {
    "boolean": (lambda value: isinstance(value, (bool, np.bool_)),
                f"an instance of 'bool' or an instance of {_type_name(np.bool_)!r}"),
    "array-like": (lambda value: (hasattr(value, "__len__") or hasattr(value, "shape") or hasattr(value, "__array__"))
                   and not np.isscalar(value), "an array-like"),
    "cv_object": (_is_cv, "an int in the range [2, inf), an object implementing 'split' and 'get_n_splits', an "
                          "iterable or None"),
}

#: The constraint of ``n_jobs``, for a class's declaration (``{**N_JOBS, ...}``).
N_JOBS = {"n_jobs": [None, Interval(numbers.Integral, 1, None, closed="left"),
                     Interval(numbers.Integral, None, -1, closed="right")]}

#: Parameters that say how a model computes, not what it computes: they do not keep shards from merging and are
#: not carried to scikit-learn, whose estimators lack them.
RUNTIME_PARAMS = frozenset(N_JOBS)


def _as_sklearn(allowed, validation):
    """A parameter's constraints as scikit-learn's objects (``"no_validation"`` for a rule it does not check)."""

    def convert(constraint):
        if isinstance(constraint, Refined):
            return convert(constraint.sklearn)
        if isinstance(constraint, Interval):
            kind = validation.RealNotInt if constraint.type is RealNotInt else constraint.type
            return validation.Interval(kind, constraint.left, constraint.right, closed=constraint.closed)
        if isinstance(constraint, StrOptions):
            return validation.StrOptions(constraint.options)
        if isinstance(constraint, Options):
            return validation.Options(constraint.type, constraint.options)
        if isinstance(constraint, HasMethods):
            return validation.HasMethods(constraint.methods)
        return constraint

    converted = [convert(c) for c in allowed]
    return "no_validation" if "no_validation" in converted else converted


class declare:
    """``_parameter_constraints`` of a class: nbfast's constraints (``constraints``), read as scikit-learn's
    once scikit-learn is imported."""

    def __init__(self, constraints):
        self.constraints = dict(constraints)
        self._sklearn = None

    def __get__(self, instance, owner=None):
        validation = _compat.sklearn_module_if_loaded("utils._param_validation")
        if validation is None:
            return self.constraints
        if self._sklearn is None:
            self._sklearn = {name: _as_sklearn(allowed, validation) for name, allowed in self.constraints.items()}
        return self._sklearn


def declared(cls):
    """The constraints ``cls`` declares (on itself or a parent), as nbfast's objects (a subclass may declare a
    plain dict)."""
    for klass in cls.__mro__:
        constraints = vars(klass).get("_parameter_constraints")
        if constraints is not None:
            return constraints.constraints if isinstance(constraints, declare) else constraints
    return {}


@functools.cache
def _declaration(cls):
    """(parameter names, constraints, their tests) of ``cls``, read once per class (``get_params`` reads the
    names from ``__init__``'s signature at every call: most of the time of a check)."""
    constraints = declared(cls)
    tests = {name: [_test_of(c) for c in allowed] for name, allowed in constraints.items() if allowed != "no_validation"}
    return tuple(cls._get_param_names()), constraints, tests


# Per thread, {id(object): the names checked on the way into the call now running on it (ALL: every one)}.
_checked = threading.local()
ALL = None
_UNCHECKED = object()


def _already_checked(estimator, names):
    covered = getattr(_checked, "names", {}).get(id(estimator), _UNCHECKED)
    if covered is _UNCHECKED:
        return False
    return covered is ALL or (names is not ALL and set(names) <= set(covered))


def check_parameters(estimator, names=ALL):
    """Check the parameters ``names`` (default: all) of ``estimator`` against its class's declaration; nothing
    to do for those checked on the way into the call running on it (:func:`checks_parameters`).

    Raises
    ------
    InvalidParameterError
        A ValueError and TypeError naming the parameter, what it may be and the value given.
    """
    if _already_checked(estimator, names):
        return
    all_names, constraints, tests = _declaration(type(estimator))
    if names is ALL:
        params = {name: getattr(estimator, name) for name in all_names}
    else:  # a model pickled before a parameter existed lacks it
        params = {name: getattr(estimator, name) for name in names if hasattr(estimator, name)}
    check_values(constraints, params, type(estimator).__name__, tests)


def check_values(constraints, params, caller_name, tests=None):
    """Check ``params`` (name -> value) against ``constraints`` (name -> list of constraints, or
    ``"no_validation"``; a name without constraints is not checked), as scikit-learn's
    ``validate_parameter_constraints`` does: InvalidParameterError for the first value no constraint allows.
    ``tests``: the constraints' tests, made once (by default, made here)."""
    for name, value in params.items():
        allowed = constraints.get(name, "no_validation")
        if allowed == "no_validation":
            continue
        for test in (tests[name] if tests is not None else map(_test_of, allowed)):
            if test(value):
                break
        else:
            raise _refusal(name, allowed, value, caller_name)


def _refusal(name, allowed, value, caller_name):
    """The error for a ``value`` of parameter ``name`` that no constraint of ``allowed`` allows."""
    for constraint in allowed:
        explained = constraint.explain(value) if isinstance(constraint, Refined) and constraint.explain else None
        if explained is not None:
            return _compat.InvalidParameterError(explained)
    described = [_describe(c) for c in allowed]
    expected = described[0] if len(described) == 1 else f"{', '.join(described[:-1])} or {described[-1]}"
    return _compat.InvalidParameterError(
        f"The {name!r} parameter of {caller_name} must be {expected}. Got {value!r} instead.")


def checks_parameters(names=ALL):
    """Decorator of a public method: check the parameters ``names`` (default: all) once on the way in (the methods
    the call runs on the same object find them checked), then run it on the threads ``n_jobs`` allows."""

    def decorate(method):
        @functools.wraps(method)
        def checked(self, *args, **kwargs):
            if _already_checked(self, names):
                return method(self, *args, **kwargs)
            check_parameters(self, names)
            entered = _checked.__dict__.setdefault("names", {})
            outer = entered.get(id(self), _UNCHECKED)
            entered[id(self)] = names
            try:
                with n_jobs_limit(getattr(self, "n_jobs", None)):
                    return method(self, *args, **kwargs)
            finally:
                if outer is _UNCHECKED:
                    del entered[id(self)]
                else:
                    entered[id(self)] = outer

        return checked

    return decorate


#: Decorator of a method that checks ``n_jobs`` alone, then runs on the threads it allows (see above).
uses_n_jobs = checks_parameters(tuple(N_JOBS))
