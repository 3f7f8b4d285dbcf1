"""Every optional dependency in one place: flags, named loaders, and the estimator base classes.

nbfast needs only numpy and scipy.  scikit-learn, Dask, tqdm, threadpoolctl,
matplotlib, pandas, pyarrow, polars and PySpark are optional; no other module of nbfast names them.  A
feature that needs one calls its loader here (:func:`sklearn_class`,
:func:`dask_array`, :func:`tqdm`, ...), which imports it on first use or raises
:class:`MissingDependency` naming the extra to install.

scikit-learn is never imported by ``import nbfast``: it takes longer to import
than numpy and scipy together.  Yet with scikit-learn installed, nbfast's
estimators are scikit-learn estimators (``isinstance(model,
sklearn.base.BaseEstimator)``, clone, Pipeline, GridSearchCV, tags, the HTML
display).  Both hold because the bases nbfast's classes inherit from,
:class:`BaseEstimator`, :class:`ClassifierMixin` and :class:`_BaseComposition`,
change what they derive from when scikit-learn is imported:

- until then, they derive from light stand-ins (``get_params``, ``set_params``,
  ``repr``, ``score``), enough to fit, predict, save and load;
- the moment anything imports ``sklearn`` (the user, or nbfast itself in a fit
  step that uses scikit-learn), a hook on the import system runs
  :func:`_adopt_scikit_learn`: each base's ``__bases__`` becomes scikit-learn's
  class, Python recomputes every subclass's method order, and scikit-learn's
  ``__init_subclass__`` hooks (metadata routing) are replayed on the classes
  created before.

``NotFittedError``, ``DataConversionWarning``, ``ConvergenceWarning`` and ``InvalidParameterError`` are read as attributes of this
module where they are raised (``raise _compat.NotFittedError(...)``): they are
scikit-learn's own classes once it is imported (nobody can catch those before),
light stand-ins until then.

Nothing can observe the stand-ins through scikit-learn: scikit-learn's functions
exist only once it is imported, and by then the bases are scikit-learn's.
"""

import copy
import functools
import importlib
import importlib.util
import inspect
import sys
import threading

import numpy as np


def _installed(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


SKLEARN_INSTALLED = _installed("sklearn")
DASK_INSTALLED = _installed("dask")
TQDM_INSTALLED = _installed("tqdm")
THREADPOOLCTL_INSTALLED = _installed("threadpoolctl")
MATPLOTLIB_INSTALLED = _installed("matplotlib")
PANDAS_INSTALLED = _installed("pandas")
PYSPARK_INSTALLED = _installed("pyspark")
PYARROW_INSTALLED = _installed("pyarrow")


class MissingDependency(ImportError):
    """An optional dependency that a feature needs is not installed; the message says how to install it."""


def _require(module, extra, purpose):
    """Import an optional dependency of ``purpose``, or raise :class:`MissingDependency` naming the extra."""
    try:
        return importlib.import_module(module)
    except ImportError:
        package = module.partition(".")[0]
        raise MissingDependency(f"{purpose} needs {package}, which is not installed: pip install 'nbfast[{extra}]'") from None


def _optional(module):
    """The module when it can be imported, else None."""
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


# ---- named loaders ------------------------------------------------------------------------------------------------


def sklearn_module(name, purpose, extra="sklearn"):
    """``sklearn.<name>`` (for example ``"naive_bayes"``, ``"pipeline"``), or MissingDependency for ``purpose``."""
    return _require(f"sklearn.{name}", extra, purpose)


#: scikit-learn's own classes that :func:`nbfast.patch_sklearn` replaced with nbfast's, by (module, class name):
#: what :func:`sklearn_class` gives back while the patch is on.
PATCHED_ORIGINALS = {}


def sklearn_class(module, name, purpose, extra="sklearn"):
    """scikit-learn's own class ``sklearn.<module>.<name>`` (None if it has no such class), also while
    :func:`nbfast.patch_sklearn` serves nbfast's class under that name; MissingDependency without scikit-learn."""
    loaded = sklearn_module(module, purpose, extra)
    original = PATCHED_ORIGINALS.get((loaded.__name__, name), vars(loaded).get(name))
    return original if isinstance(original, type) else None


def sklearn_module_if_installed(name):
    """``sklearn.<name>``, or None without scikit-learn."""
    return _optional(f"sklearn.{name}") if SKLEARN_INSTALLED else None


def sklearn_module_if_loaded(name):
    """``sklearn.<name>`` when scikit-learn is already imported, else None (never imports it).

    For questions only scikit-learn's own objects can raise: an object cannot be a
    scikit-learn estimator, nor can scikit-learn's configuration have been set,
    before scikit-learn is imported.
    """
    return sklearn_module_if_installed(name) if "sklearn" in sys.modules else None


@functools.cache  # read once: parsing the metadata costs milliseconds, and every pickle or copy of a model asks
def sklearn_version():
    """The installed scikit-learn's version string, or None (read from its metadata, without importing it)."""
    import importlib.metadata  # here: importing it costs tens of milliseconds that `import nbfast` need not pay

    try:
        return importlib.metadata.version("scikit-learn")
    except importlib.metadata.PackageNotFoundError:
        return None


def dask(purpose="nbfast.dask"):
    """The ``dask`` module, or MissingDependency."""
    return _require("dask", "dask", purpose)


def dask_array(purpose="nbfast.dask"):
    """The ``dask.array`` module, or MissingDependency."""
    return _require("dask.array", "dask", purpose)


def pyarrow(name=None, purpose="nbfast.spark", extra="spark"):
    """``pyarrow``, or ``pyarrow.<name>`` (``"parquet"``), or MissingDependency naming ``extra``."""
    return _require("pyarrow" if name is None else f"pyarrow.{name}", extra, purpose)


def pyspark(name=None, purpose="nbfast.spark"):
    """``pyspark`` (``TaskContext``), or ``pyspark.<name>`` (``"sql"``, ``"sql.functions"``, ``"sql.types"``,
    ``"ml.functions"``), or MissingDependency naming the extra ``spark``."""
    return _require("pyspark" if name is None else f"pyspark.{name}", "spark", purpose)


def tqdm_if_installed():
    """The ``tqdm`` module, or None."""
    return _optional("tqdm") if TQDM_INSTALLED else None


def threadpoolctl(purpose):
    """The ``threadpoolctl`` module, or MissingDependency."""
    return _require("threadpoolctl", "bench", purpose)


def threadpoolctl_if_installed():
    """The ``threadpoolctl`` module, or None."""
    return _optional("threadpoolctl") if THREADPOOLCTL_INSTALLED else None


def as_arrow(X):
    """X as a pyarrow Array or ChunkedArray when it is one, or a column that holds one: a pandas Series or Index
    backed by Arrow (``string[pyarrow]``, ``ArrowDtype``), a polars Series; else None.  Imports pyarrow only for
    an X that comes from one of those libraries."""
    library = type(X).__module__.partition(".")[0]
    if library == "pandas":
        dtype = getattr(X, "dtype", None)
        if not (getattr(dtype, "storage", None) in ("pyarrow", "pyarrow_numpy") or hasattr(dtype, "pyarrow_dtype")):
            return None  # a column of Python objects
        X = X.array.__arrow_array__()
    elif library == "polars":
        if not hasattr(X, "to_arrow"):
            return None
        X = X.to_arrow()
    elif library != "pyarrow":
        return None
    pa = pyarrow(purpose="reading Arrow data", extra="arrow")
    return X if isinstance(X, (pa.Array, pa.ChunkedArray)) else None


def pyplot(purpose):
    """matplotlib.pyplot on the non-interactive Agg backend (files only), or MissingDependency."""
    _require("matplotlib", "plot", purpose).use("Agg")
    return importlib.import_module("matplotlib.pyplot")


# ---- scikit-learn's functions, imported on first call ---------------------------------------------------------------


def clone(estimator):
    """An unfitted copy with the same parameters: scikit-learn's ``clone`` once scikit-learn is imported.

    Before, no scikit-learn estimator can exist, and nbfast's are copied the same
    way: parameters that are estimators cloned, the others deep-copied.
    """
    base = sklearn_module_if_loaded("base")
    if base is not None:
        return base.clone(estimator)
    if isinstance(estimator, (list, tuple, set, frozenset)):
        return type(estimator)(clone(item) for item in estimator)
    if not hasattr(estimator, "get_params") or isinstance(estimator, type):
        return copy.deepcopy(estimator)
    return type(estimator)(**{name: clone(value) for name, value in estimator.get_params(deep=False).items()})


def check_classification_targets(y):
    """Refuse targets a classifier cannot learn from: scikit-learn's check when installed (its probe of float
    labels beyond int64, cast to int to compare, warns of the cast before refusing them: not said here)."""
    if SKLEARN_INSTALLED:
        with np.errstate(invalid="ignore", over="ignore"):
            return sklearn_module("utils.multiclass", "fit").check_classification_targets(y)
    y = np.asarray(y)
    if y.dtype.kind == "f" and not np.all(np.mod(y, 1) == 0):
        raise ValueError("Unknown label type: continuous. Classification needs discrete class labels.")


def get_config():
    """scikit-learn's configuration, or {} while scikit-learn is not imported (nobody can have set it)."""
    sklearn = sklearn_module_if_loaded("_config")
    return sklearn.get_config() if sklearn is not None else {}


# ---- the stand-ins used until scikit-learn is imported ------------------------------------------------------------


class _StandaloneEstimator:
    """Parameter handling in the scikit-learn convention (get_params/set_params), without scikit-learn."""

    @classmethod
    def _get_param_names(cls):
        signature = inspect.signature(cls.__init__)
        return sorted(name for name, p in signature.parameters.items() if name != "self" and p.kind != p.VAR_KEYWORD)

    def get_params(self, deep=True):
        # as scikit-learn's BaseEstimator: with deep, a parameter that is an estimator adds its own parameters
        # as "name__param" (recursively), before the parameter itself
        out = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{key}", item) for key, item in value.get_params().items())
            out[name] = value
        return out

    def set_params(self, **params):
        # as scikit-learn's BaseEstimator: "name__param" goes to the estimator held in "name", after every
        # parameter of this one is set (so set_params(estimator=e, estimator__alpha=1) sets e's alpha)
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested = {}
        for key, value in params.items():
            name, delimiter, sub_key = key.partition("__")
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {type(self).__name__}. "
                    f"Valid parameters are: {self._get_param_names()!r}."
                )
            if delimiter:
                nested.setdefault(name, {})[sub_key] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params(deep=False).items())  # nested ones show inside
        return f"{type(self).__name__}({args})"

    def __getstate__(self):
        # scikit-learn's BaseEstimator records its version in a pickle and warns on a mismatch when loading one
        state = self.__dict__.copy()
        version = sklearn_version()
        if version is not None:
            state["_sklearn_version"] = version
        return state

    def __setstate__(self, state):
        state = dict(state)
        state.pop("_sklearn_version", None)  # what scikit-learn's BaseEstimator.__setstate__ reads, not an attribute
        self.__dict__.update(state)


class _StandaloneClassifier:
    """Mean accuracy as the default score."""

    _estimator_type = "classifier"

    def score(self, X, y, sample_weight=None):
        return float(np.average(self.predict(X) == np.asarray(y), weights=sample_weight))


class _StandaloneComposition:
    """Nested parameters ``name__param`` of named parts, as scikit-learn's _BaseComposition."""

    def _get_params(self, attr, deep=True):
        out = super().get_params(deep=deep)
        for name, estimator in (getattr(self, attr) or []) if deep else []:
            out[name] = estimator
            out.update({f"{name}__{key}": value for key, value in estimator.get_params(deep=True).items()})
        return out

    def _set_params(self, attr, **params):
        named = dict(getattr(self, attr) or [])
        replaced = {key: params.pop(key) for key in list(params) if key in named}
        if replaced:
            setattr(self, attr, [(name, replaced.get(name, estimator)) for name, estimator in named.items()])
        for key in list(params):
            name, _, param = key.partition("__")
            if param and name in named:
                named[name].set_params(**{param: params.pop(key)})
        return super().set_params(**params)


# ---- the bases nbfast's classes inherit (their own bodies stay empty: every method comes from the base) ------------


class BaseEstimator(_StandaloneEstimator):
    """Base of nbfast's estimators: scikit-learn's ``BaseEstimator`` once scikit-learn is imported."""


class ClassifierMixin(_StandaloneClassifier):
    """Mixin of nbfast's classifiers: scikit-learn's ``ClassifierMixin`` once scikit-learn is imported."""


class _BaseComposition(_StandaloneComposition, BaseEstimator):
    """Base of estimators made of named parts: scikit-learn's ``_BaseComposition`` once it is imported."""


class _StandIns:
    """The exceptions nbfast raises until scikit-learn is imported, under scikit-learn's names."""

    class NotFittedError(ValueError, AttributeError):
        """Raised when an estimator is used before it is fitted."""

    class DataConversionWarning(UserWarning):
        """An implicit conversion of the data."""

    class ConvergenceWarning(UserWarning):
        """An iterative solver stopped before it converged."""

    class InvalidParameterError(ValueError, TypeError):
        """A parameter has a type or value its constraints do not allow (both a ValueError and a TypeError)."""


# name -> scikit-learn's module holding the class: its class once it is imported (no one can catch it before),
# the stand-in of the same name until then.
_EXCEPTIONS = {
    "NotFittedError": "exceptions",
    "DataConversionWarning": "exceptions",
    "ConvergenceWarning": "exceptions",
    "InvalidParameterError": "utils._param_validation",
}


def __getattr__(name):
    # _compat.NotFittedError, read where it is raised or caught (an import by name would fix it too early)
    if name in _EXCEPTIONS:
        loaded = sklearn_module_if_loaded(_EXCEPTIONS[name])
        return getattr(_StandIns if loaded is None else loaded, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _adopt_scikit_learn():
    """Make the bases above derive from scikit-learn's classes (see the module docstring); idempotent."""
    if BaseEstimator.__bases__[0] is not _StandaloneEstimator:
        return
    base = importlib.import_module("sklearn.base")
    metaestimators = importlib.import_module("sklearn.utils.metaestimators")
    BaseEstimator.__bases__ = (base.BaseEstimator,)
    ClassifierMixin.__bases__ = (base.ClassifierMixin,)
    _BaseComposition.__bases__ = (metaestimators._BaseComposition, BaseEstimator)
    # A class runs its bases' __init_subclass__ when it is created; replay scikit-learn's (metadata routing's
    # set_*_request methods) on every class created before, parents before children.
    classes, todo = set(), [BaseEstimator, ClassifierMixin]
    while todo:
        cls = todo.pop()
        if cls not in classes:
            classes.add(cls)
            todo.extend(cls.__subclasses__())
    for cls in sorted(classes, key=lambda c: len(c.__mro__)):
        super(cls, cls).__init_subclass__()


class _ScikitLearnImportHook:
    """Runs :func:`_adopt_scikit_learn` right after the ``sklearn`` package is imported, by whoever imports it.

    A meta path finder (``find_spec`` is all the import system calls); not derived from
    ``importlib.abc.MetaPathFinder``, whose import costs more than `import nbfast` may.
    """

    def __init__(self):
        self._searching = threading.local()  # this thread is inside its own search (the finders below it)

    def find_spec(self, fullname, path, target=None):
        # Other code may only look for scikit-learn (importlib.util.find_spec), never executing the spec it gets:
        # the hook stays in place until the package has run.
        if fullname != "sklearn" or getattr(self._searching, "active", False):
            return None
        self._searching.active = True
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            self._searching.active = False
        if spec is None or spec.loader is None:
            return spec
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            _adopt_scikit_learn()

        spec.loader.exec_module = exec_module
        return spec


if "sklearn" in sys.modules:
    _adopt_scikit_learn()
elif SKLEARN_INSTALLED:
    sys.meta_path.insert(0, _ScikitLearnImportHook())
