"""Declared parameter constraints, checked the way scikit-learn checks its own.

Each estimator declares ``_parameter_constraints = declare({...})`` in
scikit-learn's language: a list per parameter of what it may be (an
:class:`Interval`, :class:`StrOptions` or :class:`Options`, ``"array-like"``,
``"boolean"``, ``"cv_object"``, ``None`` or a type).  The checks below accept
the same values as scikit-learn's.  When a value is refused and scikit-learn is imported, its own
``validate_parameter_constraints`` raises its ``InvalidParameterError`` with its
message; before that, nbfast's ``InvalidParameterError`` with the same message,
an error of the same kinds (ValueError and TypeError).
Once scikit-learn is imported, ``_parameter_constraints`` reads as scikit-learn's
own constraint objects, for its tools (``check_param_validation``).  Checking
never imports scikit-learn: predictions check parameters too.
"""

import numbers

import numpy as np

from nbfast import _compat


class Interval:
    """Numbers of ``type`` between ``left`` and ``right`` (None: unbounded), ``closed`` on which sides."""

    def __init__(self, type, left, right, *, closed):
        self.type, self.left, self.right, self.closed = type, left, right, closed

    def is_satisfied_by(self, value):
        if not isinstance(value, self.type) or np.isnan(value):
            return False
        left = -np.inf if self.left is None else self.left
        right = np.inf if self.right is None else self.right
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

def _satisfies(constraint, value):
    if constraint is None:
        return value is None
    if constraint == "boolean":
        return isinstance(value, (bool, np.bool_))
    if constraint == "array-like":
        return (hasattr(value, "__len__") or hasattr(value, "shape") or hasattr(value, "__array__")) and \
            not np.isscalar(value)
    if constraint == "cv_object":  # what scikit-learn's check_cv takes: folds, a splitter, splits or None
        return value is None or (isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 2) \
            or (hasattr(value, "split") and hasattr(value, "get_n_splits")) \
            or (hasattr(value, "__iter__") and not isinstance(value, str))
    if isinstance(constraint, type):
        return isinstance(value, constraint)
    return constraint.is_satisfied_by(value)

def _type_name(cls):
    if cls is numbers.Real or cls is numbers.Integral:
        return "float" if cls is numbers.Real else "int"
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"

def _describe(constraint):
    if constraint is None:
        return "None"
    if isinstance(constraint, type):
        return f"an instance of {_type_name(constraint)!r}"
    if constraint == "boolean":
        return f"an instance of 'bool' or an instance of {_type_name(np.bool_)!r}"
    if constraint == "cv_object":
        return ("an int in the range [2, inf), an object implementing 'split' and 'get_n_splits', an iterable "
                "or None")
    return "an array-like" if constraint == "array-like" else str(constraint)

def _refused(constraints, params):
    """The first parameter whose value no constraint allows, or None."""
    for name, allowed in constraints.items():
        if name in params and not any(_satisfies(c, params[name]) for c in allowed):
            return name
    return None


def _raise(name, allowed, value, caller_name):
    described = [_describe(c) for c in allowed]
    expected = described[0] if len(described) == 1 else f"{', '.join(described[:-1])} or {described[-1]}"
    raise _compat.InvalidParameterError(f"The {name!r} parameter of {caller_name} must be {expected}. Got {value!r} instead.")


def _as_sklearn(constraints, validation):
    """The same constraints as scikit-learn's objects (those already scikit-learn's pass through)."""

    def convert(constraint):
        if isinstance(constraint, Interval):
            return validation.Interval(constraint.type, constraint.left, constraint.right, closed=constraint.closed)
        if isinstance(constraint, StrOptions):
            return validation.StrOptions(constraint.options)
        if isinstance(constraint, Options):
            return validation.Options(constraint.type, constraint.options)
        return constraint

    return {name: [convert(c) for c in allowed] for name, allowed in constraints.items()}


class declare:
    """``_parameter_constraints`` of a class: nbfast's constraints, read as scikit-learn's once it is imported."""

    def __init__(self, constraints):
        self.constraints = dict(constraints)
        self._sklearn = None

    def __get__(self, instance, owner=None):
        validation = _compat.sklearn_module_if_loaded("utils._param_validation")
        if validation is None:
            return self.constraints
        if self._sklearn is None:
            self._sklearn = _as_sklearn(self.constraints, validation)
        return self._sklearn



def check_parameters(estimator, names=None):
    """Check the parameters ``names`` (default: all) of ``estimator`` against its class's ``_parameter_constraints``.

    Raises
    ------
    InvalidParameterError
        A ValueError (and TypeError) naming the parameter, what it must be and the value given.
    """
    constraints = type(estimator)._parameter_constraints
    if names is not None:
        constraints = {name: constraints[name] for name in names}
        params = {name: getattr(estimator, name) for name in names}
    else:
        params = estimator.get_params(deep=False)
    refused = _refused(constraints, params)
    if refused is None:
        return
    validation = _compat.sklearn_module_if_loaded("utils._param_validation")
    if validation is not None:  # scikit-learn's error and message (nobody can catch its class before importing it)
        validation.validate_parameter_constraints(_as_sklearn(constraints, validation), params, type(estimator).__name__)
    _raise(refused, constraints[refused], params[refused], type(estimator).__name__)
