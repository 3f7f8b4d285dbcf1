"""Models to tagged JSON plus a list of arrays, and back: the model description in a file's header.

Models are described generically through the estimator contract: parameters
come from ``get_params(deep=False)`` and the fitted state from the attributes
named by ``_saved_attributes()`` (``_fitted_attributes``, or for a model in
compact form ``_compact_attributes``: format version 2), read back as the saved
form ``_saved_form`` names and set in its order.  Values may be None,
bools, numbers, strings, numpy scalars and arrays, lists, tuples, dicts with
string keys, and nbfast estimators (fitted or not) nested anywhere inside them:
a composite model such as MixedNB contributes its parts by holding them in a
parameter or a fitted attribute.  On load, classes are looked up in the
registry (:data:`nbfast.naive_bayes.ESTIMATORS`), never imported by name, and
the rebuilt model is checked (:func:`nbfast._validation.check_fitted_state`, then
its stored values by the estimator's ``_check_stored_values``) before it is returned.
"""

import numbers

import numpy as np

from nbfast._params import check_parameters
from nbfast._validation import rebuild
from nbfast.persist._container import (
    ModelFormatError,
    _allowed_dtype,
    _is_count,
    is_storable_number,
    parse_dtype,
)

# The estimators (their registry, their base class, the checks of their fitted values) are imported when a
# model is encoded or decoded, not with this module: a vectorizer's parameters are read from a model file's
# header without them, so `nbfast predict` starts reading its input while they load.


def _registry():
    """The estimator registry, by class name."""
    from nbfast.naive_bayes import ESTIMATORS

    return ESTIMATORS


def _is_estimator(value):
    from nbfast.naive_bayes._base import _BaseNB

    return isinstance(value, _BaseNB)


#: The entries of a model description (a model, or one nested in another).  ``fit_params``, present only when a
#: ``set_params`` changed them after the fit: the values at the fit of the parameters its fitted state derives
#: from (they take effect at the next fit), which the loaded model derives its tables with.
_MODEL_KEYS = {"class", "params", "fit_params", "fitted", "feature_names_in_"}


def _is_fitted(model):
    names = model._saved_attributes()
    present = [hasattr(model, name) for name in names]
    if any(present) and not all(present):
        missing = [n for n, p in zip(names, present) if not p]
        raise ValueError(f"{type(model).__name__} is partially fitted: it lacks {missing}.")
    return all(present)


def _stored_attributes(model):
    """The fitted attributes a file holds for ``model``: ``_saved_attributes()`` (``_fitted_attributes``, or a
    compact model's), and ``observed_count_`` when the model was fitted with missing values (never compact)."""
    return model._saved_attributes() + (("observed_count_",) if model._fitted_observed_count() is not None else ())


def _stored_size(value):
    """Number of array entries in a fitted model's attributes, its fitted parts' included."""
    if isinstance(value, np.ndarray):
        return value.size
    if isinstance(value, (list, tuple)):
        return sum(_stored_size(v) for v in value)
    if _is_estimator(value) and _is_fitted(value):
        return sum(_stored_size(getattr(value, name)) for name in _stored_attributes(value))
    return 0


def _check_size(fitted, per_feature):
    """Every Naive Bayes model has parameters per (class, feature), a compact one at least a pointer per
    feature: the arrays actually stored bound n_features_in_ before any shape is built from it.

    ``per_feature`` asks for one entry per feature only: a compact model, or a composite, whose parts may be
    compact (each part was decoded, and checked against what it stores, before the composite)."""
    classes, n_features = fitted.get("classes_"), fitted.get("n_features_in_")
    if isinstance(classes, np.ndarray) and isinstance(n_features, numbers.Integral) and not isinstance(
            n_features, bool):  # a plain int, or a wrapped numpy integer
        n_features = int(n_features)
        if _stored_size(list(fitted.values())) < (n_features if per_feature else len(classes) * n_features):
            raise ValueError(f"{len(classes)} classes and n_features_in_={n_features} do not fit the stored arrays.")


class _Encoder:
    """Turns a model into tagged JSON plus a list of arrays."""

    def __init__(self):
        self.arrays = []

    def model(self, model, where):
        cls = type(model)
        from nbfast.naive_bayes._stored import changed_since_fit
        from nbfast.persist._values import check_loaded_values

        if _registry().get(cls.__name__) is not cls:
            raise TypeError(f"cannot save {where}: {cls.__module__}.{cls.__qualname__} is not an nbfast estimator.")
        spec = {
            "class": cls.__name__,
            "params": {k: self.value(v, f"{where}.{k}") for k, v in model.get_params(deep=False).items()},
            "fitted": None,
        }
        if _is_fitted(model):
            try:
                check_parameters(model)  # a fitted model's parameters are checked on load
                check_loaded_values(model)
            except ValueError as exc:
                raise ValueError(f"cannot save {where}: {exc} A model file holding it would not load.") from None
            spec["fitted"] = {n: self.value(getattr(model, n), f"{where}.{n}") for n in _stored_attributes(model)}
            fit_params = changed_since_fit(model)
            if fit_params:
                spec["fit_params"] = {k: self.value(v, f"{where}.{k} at its fit") for k, v in fit_params.items()}
            names = vars(model).get("feature_names_in_")
            if names is not None:
                spec["feature_names_in_"] = self.value(names, f"{where}.feature_names_in_")
        return spec

    @staticmethod
    def number(value, where):
        """A number as the header stores it: refused unless a reader can read it back (finite, int64/uint64)."""
        if not isinstance(value, (int, float)) or is_storable_number(value):
            return value  # a numpy bool or string scalar's item
        raise ValueError(f"cannot save {where}={str(value)[:40]}: a model file holds finite numbers, and integers "
                         "within the range of int64 and uint64.")

    def value(self, value, where):
        if value is None or (isinstance(value, (bool, str)) and not isinstance(value, np.generic)):
            return value
        if isinstance(value, np.generic):
            if not _allowed_dtype(value.dtype):
                raise TypeError(f"cannot save {where}: numpy scalars of dtype {value.dtype} are not supported.")
            return {"__scalar__": value.dtype.str, "value": self.number(value.item(), where)}
        if isinstance(value, (numbers.Integral, float)):
            return self.number(int(value) if isinstance(value, numbers.Integral) else float(value), where)
        if isinstance(value, np.ndarray):
            return self.array(value, where)
        if isinstance(value, list):
            return [self.value(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, tuple):
            return {"__tuple__": [self.value(v, f"{where}[{i}]") for i, v in enumerate(value)]}
        if isinstance(value, slice):  # MixedNB column selections
            return {"__slice__": [self.value(v, f"{where}.{a}") for a, v in
                                  (("start", value.start), ("stop", value.stop), ("step", value.step))]}
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                raise TypeError(f"cannot save {where}: dict keys must be strings.")
            return {"__dict__": {k: self.value(v, f"{where}[{k!r}]") for k, v in value.items()}}
        if _is_estimator(value):
            return {"__estimator__": self.model(value, where)}
        raise TypeError(f"cannot save {where}: values of type {type(value).__name__} are not supported.")

    def array(self, array, where):
        ref = {"__ndarray__": len(self.arrays)}
        if array.dtype == object:
            flat = array.ravel().tolist()
            if not all(isinstance(v, str) for v in flat):
                raise TypeError(f"cannot save {where}: object arrays may only hold strings.")
            if any(v.endswith("\x00") for v in flat):  # numpy's string arrays drop trailing NULs: "a\x00" is "a"
                raise ValueError(f"cannot save {where}: a string ends in NUL ('\\x00'), which the file's string "
                                 "arrays do not keep (it would read back as another label); rename it.")
            array = np.array(flat, dtype=np.str_).reshape(array.shape) if flat else np.empty(array.shape, "<U1")
            ref["object"] = True
        if not _allowed_dtype(array.dtype):
            raise TypeError(f"cannot save {where}: arrays of dtype {array.dtype} are not supported.")
        array = array.astype(array.dtype.newbyteorder("<"), copy=False)
        order = "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"
        self.arrays.append((np.asarray(array, order=order), order))
        return ref


class _Decoder:
    """Turns tagged JSON plus the file's arrays back into values and models."""

    def __init__(self, arrays):
        self.arrays = arrays
        self.used = set()

    def model(self, spec):
        if not isinstance(spec, dict) or not isinstance(spec.get("params"), dict):
            raise ModelFormatError("invalid model description.")
        unknown = set(spec) - _MODEL_KEYS
        if unknown:
            raise ModelFormatError(f"invalid model description: unknown entries {sorted(unknown)[:5]}.")
        from nbfast.persist._values import as_float64, check_loaded_values

        allowed = _registry()
        cls = allowed.get(spec.get("class")) if isinstance(spec.get("class"), str) else None
        if cls is None:
            raise ModelFormatError(
                f"unknown estimator class {spec.get('class')!r}: model files may only name nbfast's estimators "
                f"({', '.join(sorted(allowed))})."
            )
        unknown = set(spec["params"]) - set(cls._get_param_names())
        if unknown:
            raise ModelFormatError(f"{cls.__name__} has no parameters {sorted(unknown)}.")
        params = {k: self.value(v) for k, v in spec["params"].items()}
        fit_params = self.fit_params(spec, cls)
        fitted = spec.get("fitted")
        if fitted is not None:
            form = cls._saved_form(fitted) if isinstance(fitted, dict) else None
            if form is None:
                have = sorted(fitted) if isinstance(fitted, dict) else fitted
                raise ModelFormatError(
                    f"{cls.__name__} needs the fitted attributes {list(cls._fitted_attributes)}, the file has {have}."
                )
            fitted = as_float64(cls, {k: self.value(v) for k, v in fitted.items()})
            if not form.compact and cls._older_layout is not None:  # a file saved before an attribute changed
                fitted = cls._older_layout(fitted)
            _check_size(fitted, form.compact or cls._composite)
        names = spec.get("feature_names_in_")
        # rebuilt with the parameters of its fit, then given those set since (they take effect at the next fit)
        model = rebuild(cls, {**params, **fit_params}, fitted, None if names is None else self.value(names))
        if fit_params:
            model.set_params(**{name: params[name] for name in fit_params if name in params})
            check_parameters(model)  # those set since the fit, as rebuild checked the others
        if fitted is not None:
            check_loaded_values(model)
        return model

    def fit_params(self, spec, cls):
        """The ``fit_params`` of a model description: parameters of ``cls``, of a fitted model."""
        fit_params = spec.get("fit_params", {})
        if not isinstance(fit_params, dict) or (fit_params and spec.get("fitted") is None):
            raise ModelFormatError("invalid model description: fit_params must be a dict, of a fitted model.")
        unknown = set(fit_params) - set(cls._get_param_names())
        if unknown:
            raise ModelFormatError(f"{cls.__name__} has no parameters {sorted(unknown)} (in fit_params).")
        return {k: self.value(v) for k, v in fit_params.items()}

    def value(self, value):
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict) and len(value) >= 1:
            if "__ndarray__" in value:
                return self.array(value)
            if set(value) == {"__scalar__", "value"}:
                return self.scalar(value["__scalar__"], value["value"])
            if set(value) == {"__tuple__"} and isinstance(value["__tuple__"], list):
                return tuple(self.value(v) for v in value["__tuple__"])
            if set(value) == {"__slice__"} and isinstance(value["__slice__"], list) and len(value["__slice__"]) == 3:
                bounds = [self.value(v) for v in value["__slice__"]]
                if all(b is None or (isinstance(b, int) and not isinstance(b, bool)) for b in bounds):
                    return slice(*bounds)
            if set(value) == {"__dict__"} and isinstance(value["__dict__"], dict):
                return {k: self.value(v) for k, v in value["__dict__"].items()}
            if set(value) == {"__estimator__"}:
                return self.model(value["__estimator__"])
        raise ModelFormatError(f"invalid value {value!r} in the model description.")

    def array(self, ref):
        index = ref["__ndarray__"]
        if not _is_count(index) or index >= len(self.arrays) or index in self.used or set(ref) - {"__ndarray__", "object"}:
            raise ModelFormatError(f"invalid array reference {ref!r}.")
        self.used.add(index)
        array = self.arrays[index]
        if ref.get("object"):
            if array.dtype.kind != "U":
                raise ModelFormatError("invalid array reference: only string arrays can be restored as objects.")
            return array.astype(object)
        return array

    @staticmethod
    def scalar(dtype, value):
        """The numpy scalar ``dtype.type(value)``, refused unless ``value`` is of the dtype's kind and
        representable in it (an int64 of 2**64, a float32 of 1e300)."""
        dtype = parse_dtype(dtype)
        kinds = {"b": bool, "i": int, "u": int, "f": (int, float), "U": str}
        if dtype is not None and isinstance(value, kinds[dtype.kind]):
            if dtype.kind in "iu":
                limits = np.iinfo(dtype)
                if not isinstance(value, bool) and limits.min <= value <= limits.max:
                    return dtype.type(value)
            else:
                with np.errstate(over="ignore"):
                    scalar = dtype.type(value)
                if dtype.kind != "f" or np.isfinite(scalar):
                    return scalar
        raise ModelFormatError(f"invalid numpy scalar {str(dtype)[:20]!r}: {str(value)[:40]}.")


def _is_plain(value):
    """None, a bool, number or string, or a list or tuple of them."""
    if isinstance(value, (list, tuple)):
        return all(_is_plain(v) for v in value)
    return value is None or (isinstance(value, (bool, int, float, str)) and not isinstance(value, np.generic))
