"""Shared test helpers: inputs in every layout, numpy references, data for any estimator."""

import numpy as np
import pytest
import scipy.sparse as sp

from nbfast.datasets import make_documents

FLOAT_DTYPES = [np.float64, np.float32]


def sklearn_older_than(version):
    """Whether the installed scikit-learn is older than ``version`` ("1.9"): nbfast behaves as scikit-learn 1.9,
    and an older one (the newest on Python 3.10 is 1.7) differs where scikit-learn itself changed since."""
    from sklearn import __version__

    installed = tuple(int(part) for part in __version__.split(".")[:2])
    return installed < tuple(int(part) for part in version.split("."))

INDEX_DTYPES = [np.int32, np.int64]
CONTAINERS = ["csr_matrix", "csr_array", "dense"]


def as_container(X, container, dtype=np.float64, index_dtype=np.int32):
    """X (scipy sparse) in the requested layout: csr_matrix, csr_array or dense ndarray."""
    X = sp.csr_array(X).astype(dtype)
    if container == "dense":
        return X.toarray()
    X.indices = X.indices.astype(index_dtype)
    X.indptr = X.indptr.astype(index_dtype)
    return sp.csr_matrix(X) if container == "csr_matrix" else X


def read_only(X):
    """A copy of X whose buffers are read-only, like a memory-mapped file."""
    X = X.copy()
    arrays = [X] if isinstance(X, np.ndarray) else [X.data, X.indices, X.indptr]
    for a in arrays:
        a.flags.writeable = False
    return X


def logsumexp_reference(a):
    """Row-wise log(sum(exp(a))), the plain numpy way."""
    m = a.max(axis=1, keepdims=True)
    return m + np.log(np.exp(a - m).sum(axis=1, keepdims=True))


def split(X, y):
    """First half for training (X, y), second half of X for testing."""
    half = X.shape[0] // 2
    return X[:half], y[:half], X[half:]


def rebuild(model):
    """A fresh estimator of the same class, rebuilt by setting ``model._fitted_attributes`` in order."""
    clone = type(model)(**model.get_params())
    for name in model._fitted_attributes:
        setattr(clone, name, getattr(model, name))
    return clone


def tolerance(dtype):
    """Agreement expected with scikit-learn and the float64 reference."""
    return 1e-12 if dtype == np.float64 else 1e-5


# ------------------------------------------------- any estimator, any label type
LABEL_KINDS = ["int", "str", "object", "float", "bool"]
#: What marks an unlabelled row (-1 in integer labels) in labels of each kind; bool labels cannot mark one.
UNLABELED = {"int": -1, "str": "", "object": "", "float": -2.0}


def labels_of_kind(y, kind):
    """Integer labels y recast as another label type (bool keeps two classes).

    Unlabelled rows (y == -1) become ``UNLABELED[kind]``; bool labels have no such mark, so there they
    become labelled rows (False).
    """
    labelled = y >= 0
    classes = np.where(labelled, y, 1)
    names = np.array([f"class {i}" for i in range(y.max() + 1)])
    recast = {
        "int": y,
        "str": names[classes],
        "object": names.astype(object)[classes],
        "float": classes * 2.0 - 1.0,
        "bool": classes % 2 == 0,
    }[kind]
    return recast if labelled.all() or kind == "bool" else np.where(labelled, recast, UNLABELED[kind])


def estimator_params(name, labels):
    """Parameters an estimator needs to be fitted on ``data_for(name)`` with labels of kind ``labels``."""
    if name == "SemiSupervisedNB" and labels in UNLABELED:
        return {"unlabeled": UNLABELED[labels]}
    return {}


def data_for(estimator_name, n_samples=120, n_features=12, n_classes=3, seed=0):
    """(X, y) suited to an estimator: categories, real values or counts."""
    if estimator_name.endswith("NBCV"):  # a search over the smoothing of the estimator it names
        return data_for(estimator_name.removesuffix("CV"), n_samples, n_features, n_classes, seed)
    rng = np.random.default_rng(seed)
    y = np.arange(n_samples) % n_classes
    if estimator_name == "CategoricalNB":
        return (rng.integers(0, 3, size=(n_samples, n_features)) + (y[:, None] > 0)).astype(np.float64), y
    if estimator_name == "GaussianNB":
        return rng.normal(size=(n_samples, n_features)) + y[:, None], y
    if estimator_name in ("MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB", "MixedNB", "CalibratedNB",
                          "DiscriminativeNB"):
        return make_documents(n_samples, n_features, n_classes, mean_length=20, random_state=seed)
    if estimator_name == "SemiSupervisedNB":  # every class labelled in the first rows, two thirds of the rows unlabelled
        X, y = make_documents(n_samples, n_features, n_classes, mean_length=20, random_state=seed)
        return X, np.where((np.arange(n_samples) < 2 * n_classes) | (np.arange(n_samples) % 3 == 0), y, -1)
    raise ValueError(f"no data recipe for {estimator_name}: add one to support.helpers.data_for")


def exported(names, module="nbfast"):
    """``names`` (hard-coded by the test), after checking that ``module`` has each of them.

    Parametrizations are written out, never filtered by ``hasattr`` nor read from
    the code under test: a name that disappears stops the collection instead of
    quietly dropping its cases.
    """
    import importlib

    found = importlib.import_module(module)
    missing = [name for name in names if not hasattr(found, name)]
    if missing:
        raise AssertionError(f"{module} has no {', '.join(missing)}: the tests parametrized over it would shrink")
    return list(names)


#: Every Naive Bayes estimator of the family.
NB_FAMILY = exported(["MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB", "CategoricalNB", "GaussianNB"])
#: Every public estimator (sorted): the family and MixedNB, which combines them.
#: The family and the composites built of it.
ALL_ESTIMATORS = sorted(NB_FAMILY + exported(["MixedNB", "CalibratedNB", "SemiSupervisedNB", "DiscriminativeNB"]) + exported(
    ["MultinomialNBCV", "BernoulliNBCV", "ComplementNBCV", "PoissonNBCV", "CategoricalNBCV"]))


def assert_same_figures(chunked, whole):
    """Two evaluations' ``to_dict()`` figures are equal; the sums of floats over rows (the log-loss, the
    calibration error and the bins' mean confidence) to rounding, since they depend on how rows were chunked."""
    chunked, whole = dict(chunked), dict(whole)
    for key in ("log_loss", "expected_calibration_error"):
        assert chunked.pop(key) == pytest.approx(whole.pop(key), rel=1e-12), key
    chunked["reliability"], whole["reliability"] = dict(chunked["reliability"]), dict(whole["reliability"])
    confidence = (chunked["reliability"].pop("confidence"), whole["reliability"].pop("confidence"))
    np.testing.assert_allclose(np.array(confidence[0], dtype=float), np.array(confidence[1], dtype=float), rtol=1e-12)
    assert chunked == whole


def nb_estimator(name, **params):
    """A new nbfast estimator by class name."""
    import nbfast

    return getattr(nbfast, name)(**params)
