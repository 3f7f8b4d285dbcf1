"""The one gate before the kernels.

Every array that reaches a Cython kernel has passed through here: X becomes a
CSR matrix with float32/float64 data, matching int32/int64 indices, contiguous
buffers, indices inside [0, n_features), a valid indptr and finite values, and
no column stored twice in a row (a duplicate is summed, as scipy's ``toarray()``
does, for every estimator alike).  A row's indices may come in any order: the
kernels add a row's entries in the order stored.  The kernels trust all of
this and check nothing.

Fitted state from outside a fit (a model file, scikit-learn, attributes
assigned by hand) passes here too: :func:`rebuild` checks the shapes of the
attributes before setting them (:func:`check_fitted_shapes`) and their
agreement after (:func:`check_fitted_state`).
"""

import numbers
import warnings

import numpy as np

from nbfast import _compat
from nbfast import _sparse as sp
from nbfast._compat import check_classification_targets
from nbfast._kernels import validate as _validate_kernels
from nbfast._kernels.threads import effective_n_threads

FLOAT_DTYPES = (np.float32, np.float64)
INDEX_DTYPES = (np.int32, np.int64)
#: Unsorted rows of CSR X with more columns than this are copied into canonical form without looking for
#: duplicates (the search marks columns in an array of n_features per thread).
MARKED_FEATURES = 2**26
#: The values of the ``missing`` parameter: NaN in X raises, or is a missing value left out.
MISSING = ("error", "ignore")


def _name(estimator):
    return type(estimator).__name__


def check_is_fitted(estimator, attribute="classes_"):
    """Raise NotFittedError unless ``estimator`` has been fitted."""
    if not hasattr(estimator, attribute):
        raise _compat.NotFittedError(
            f"This {_name(estimator)} instance is not fitted yet. Call 'fit' with "
            "appropriate arguments before using this estimator."
        )


def _feature_names(X):
    """Column names of a DataFrame-like X when they are all strings, else None."""
    columns = getattr(X, "columns", None)
    if columns is None:
        return None
    names = np.asarray(columns, dtype=object)
    if names.size and all(isinstance(n, str) for n in names):
        return names
    return None


def _check_feature_names(estimator, X):
    """At predict time: X's column names must agree with those seen at fit."""
    names = _feature_names(X)
    fitted = getattr(estimator, "feature_names_in_", None)
    if fitted is None and names is None:
        return
    if fitted is not None and names is None:
        warnings.warn(
            f"X does not have valid feature names, but {_name(estimator)} was fitted with feature names",
            UserWarning,
        )
    elif fitted is None:
        warnings.warn(
            f"X has feature names, but {_name(estimator)} was fitted without feature names", UserWarning
        )
    elif len(fitted) != len(names) or np.any(fitted != names):
        raise ValueError(
            "The feature names should match those that were passed during fit.\n"
            f"Feature names seen at fit time: {list(fitted)[:10]}\n"
            f"Feature names passed now: {list(names)[:10]}"
        )


def _dense_to_float(X, name):
    """Turn any dense array-like into a 2-D float32/float64 ndarray."""
    dtype_in = getattr(X, "dtype", None)
    if dtype_in is not None and not isinstance(dtype_in, np.dtype):
        X = np.asarray(X)  # pandas extension dtypes
    X = np.asarray(X)
    if X.dtype.kind in "USV":
        raise ValueError(
            "dtype='numeric' is not compatible with arrays of bytes/strings. "
            f"Convert your data to numeric values explicitly instead (got dtype {X.dtype} for {name})."
        )
    if X.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} has dtype {X.dtype}.")
    if X.ndim == 0:
        raise ValueError(f"Expected 2D array, got scalar array instead: {name}={X!r}.")
    if X.ndim == 1:
        raise ValueError(
            f"Expected 2D array, got 1D array instead: {name} has shape {X.shape}. Reshape your data "
            "either using array.reshape(-1, 1) if your data has a single feature or "
            "array.reshape(1, -1) if it contains a single sample."
        )
    if X.ndim > 2:
        raise ValueError(f"Found array with dim {X.ndim}. Expected a 2D array for {name}, got shape {X.shape}.")
    if X.dtype not in FLOAT_DTYPES:
        try:
            X = X.astype(np.float64)  # ints, bools, float16, objects holding numbers
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{name} must hold numbers: {exc}") from None
    return X


def _sparse_to_csr(X, name):
    if X.ndim != 2:
        raise ValueError(f"Expected a 2D sparse matrix for {name}, got {X.ndim} dimension(s).")
    if X.format != "csr":
        X = X.tocsr()
    if X.dtype.kind == "c":
        raise ValueError(f"Complex data not supported: {name} has dtype {X.dtype}.")
    if X.dtype.kind not in "biuf":
        raise ValueError(f"Sparse {name} must hold numbers, got dtype {X.dtype}.")
    return X


def _csr_buffers(X):
    """Contiguous (data, indices, indptr) with float data and one shared index dtype.

    Checks the structure scipy's constructor does not: lengths, indptr's ends and
    monotonicity, and the index dtype.
    """
    data, indices, indptr = X.data, X.indices, X.indptr
    if data.dtype not in FLOAT_DTYPES:
        data = data.astype(np.float64)
    if indices.dtype not in INDEX_DTYPES or indptr.dtype not in INDEX_DTYPES:
        raise ValueError(f"CSR indices must be int32 or int64, got {indices.dtype} and {indptr.dtype}.")
    if indices.dtype != indptr.dtype:
        indices, indptr = indices.astype(np.int64), indptr.astype(np.int64)
    data, indices, indptr = (np.ascontiguousarray(a) for a in (data, indices, indptr))
    n_samples = X.shape[0]
    if indptr.ndim != 1 or indptr.shape[0] != n_samples + 1:
        raise ValueError(f"Malformed CSR: indptr has length {indptr.shape[0]}, expected n_samples + 1 = {n_samples + 1}.")
    if data.shape[0] != indices.shape[0]:
        raise ValueError(f"Malformed CSR: data has {data.shape[0]} entries but indices has {indices.shape[0]}.")
    if indptr[0] != 0:
        raise ValueError(f"Malformed CSR: indptr must start at 0, got {indptr[0]}.")
    if indptr[-1] != indices.shape[0]:
        raise ValueError(
            f"Malformed CSR: indptr ends at {indptr[-1]} but there are {indices.shape[0]} stored entries."
        )
    if _validate_kernels.count_bad_indptr(indptr):
        row = int(np.flatnonzero(np.diff(indptr) < 0)[0])
        raise ValueError(f"Malformed CSR: indptr decreases at row {row} ({indptr[row]} -> {indptr[row + 1]}).")
    return data, indices, indptr


def check_missing(missing):
    """Whether ``missing`` (an estimator's parameter) makes NaN a missing value: "ignore" yes, "error" no."""
    if not isinstance(missing, str) or missing not in MISSING:
        raise ValueError(f"missing must be one of {MISSING}; got {missing!r}.")
    return missing == "ignore"


def _check_values(data, name, input_name, non_negative, n_threads, allow_nan=False):
    """Refuse NaN (unless ``allow_nan``) or infinite values, and negative ones when ``non_negative``."""
    nonfinite, negative = _validate_kernels.count_bad_values(data, n_threads)
    if nonfinite and allow_nan:
        nonfinite = int(np.isinf(data).sum())
        if nonfinite:
            raise ValueError(f"Input {input_name} contains infinity ({nonfinite} infinite value(s)); {name} needs "
                             "finite values or NaN (missing).")
    if nonfinite:
        kind = "NaN" if np.isnan(data).any() else "infinity"
        raise ValueError(f"Input {input_name} contains {kind} ({nonfinite} NaN or infinite value(s)); {name} needs finite values.")
    if non_negative and negative:
        raise ValueError(f"Negative values in data passed to {name} (input {input_name}): {negative} value(s) below 0.")


def check_X(X, estimator, *, reset, non_negative=False, keep_dense=False, allow_nan=False, input_name="X"):
    """Validate X for fit or predict and return it as a CSR matrix ready for the kernels.

    Parameters
    ----------
    X : {array-like, sparse matrix, nbfast._sparse.Rows} of shape (n_samples, n_features)
        Rows (nbfast's own CSR buffers) are checked as a CSR matrix and stay Rows.
    estimator : the estimator being fitted (``reset=True``) or used to predict
        (``reset=False``: X must agree with its ``n_features_in_`` and
        ``feature_names_in_``).  It is never modified here.
    non_negative : bool
        Refuse negative values (count models).
    keep_dense : bool
        Return dense input as a C-contiguous float32/float64 ndarray instead of
        converting it to CSR (for models with dense kernels).
    allow_nan : bool
        Let NaN through (missing values, for ``missing="ignore"``): dense NaN
        becomes a stored CSR entry, never an implicit zero.

    Returns
    -------
    X : scipy.sparse.csr_matrix or csr_array, Rows, or ndarray when ``keep_dense``
        With float32/float64 ``data``, int32/int64 ``indices`` and ``indptr`` of
        one dtype, every buffer C-contiguous.  No copy is made when X already
        is such a CSR matrix (or C-contiguous float ndarray) with no column
        stored twice in a row, sorted or not (scikit-learn's vectorizers return
        unsorted rows); X with a duplicate is copied into canonical form (sorted,
        duplicates summed as ``toarray()`` sums them).
    """
    name = _name(estimator)
    if not reset:
        check_is_fitted(estimator, "n_features_in_")
        _check_feature_names(estimator, X)
    if isinstance(X, sp.Rows):
        pass  # nbfast's own CSR buffers, for a model that scores them as they are: checked as any CSR below
    elif sp.issparse(X):
        X = _sparse_to_csr(X, input_name)
    elif keep_dense:
        X = np.ascontiguousarray(_dense_to_float(X, input_name))
    else:
        X = sp.csr_array(_dense_to_float(X, input_name))
    n_samples, n_features = X.shape
    if n_samples < 1:
        raise ValueError(
            f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is required by {name}."
        )
    if n_features < 1:
        raise ValueError(
            f"Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is required by {name}."
        )
    if not reset:
        if n_features != estimator.n_features_in_:
            raise ValueError(
                f"X has {n_features} features, but {name} is expecting {estimator.n_features_in_} features as input."
            )
    if isinstance(X, np.ndarray):
        _check_values(X.reshape(-1), name, input_name, non_negative, effective_n_threads(X.size), allow_nan)
        return X
    data, indices, indptr = _csr_buffers(X)
    n_threads = effective_n_threads(data.shape[0])
    if _validate_kernels.count_bad_indices(indices, n_features, n_threads):
        bad = indices[(indices < 0) | (indices >= n_features)][0]
        raise ValueError(f"Malformed CSR: column index {bad} is outside [0, {n_features}) for {input_name}.")
    _check_values(data, name, input_name, non_negative, n_threads, allow_nan)
    if data is not X.data or indices is not X.indices or indptr is not X.indptr:
        X = _on_buffers(X, data, indices, indptr)
    if _has_duplicates(indices, indptr, n_features, n_threads):
        X = _summed_duplicates(sp.as_csr(X))
        _check_values(X.data, name, input_name, non_negative, n_threads, allow_nan)  # a sum can overflow
    return X


def _on_buffers(X, data, indices, indptr):
    """CSR X (a scipy matrix or Rows) on these buffers instead of its own."""
    if isinstance(X, sp.Rows):
        return X._replace(data=data, indices=indices, indptr=indptr)
    X = type(X)((data, indices, indptr), shape=X.shape, copy=False)
    X.indices, X.indptr = indices, indptr  # the constructor may downcast the index dtype
    return X


def _has_duplicates(indices, indptr, n_features, n_threads):
    """Whether some row of validated CSR buffers stores a column twice (or may: see MARKED_FEATURES).

    Rows need not be sorted (scikit-learn's vectorizers return unsorted rows): every kernel adds a
    row's entries in any order.  Only a duplicate needs the canonical copy.
    """
    if not _validate_kernels.count_unsorted_rows(indices, indptr, n_threads):
        return False
    if n_features > MARKED_FEATURES:
        return True
    last_row = np.zeros((n_threads, n_features), dtype=np.uint32)  # pages are touched only where marked
    return _validate_kernels.count_rows_with_duplicates(indices, indptr, last_row, n_threads) > 0


def _summed_duplicates(X):
    """A canonical copy of validated CSR X: each row's indices sorted, an entry stored twice summed.

    scipy allows duplicate entries and sums them in ``toarray()``; every
    estimator sees them the same way, as that sum.  Models that are not linear
    in x (GaussianNB's squares, CategoricalNB's codes, BernoulliNB's threshold)
    would otherwise read each duplicate on its own.
    """
    canonical = type(X)((X.data.copy(), X.indices.copy(), X.indptr.copy()), shape=X.shape, copy=False)
    canonical.indices, canonical.indptr = X.indices.copy(), X.indptr.copy()
    canonical.has_sorted_indices = False  # scipy caches these flags on the object: never trust them here
    canonical.has_canonical_format = False
    canonical.sum_duplicates()
    return canonical


def check_labels(labels):
    """``labels`` (y, or the ``classes`` of partial_fit) as an array, refusing a label that ends in NUL.

    numpy's fixed-width string arrays drop trailing NULs: ``np.asarray(["spam", "spam\\x00"])`` holds "spam"
    twice, so the two labels would merge into one class (scikit-learn merges them, or keeps two classes that
    print the same), and no model file could keep them apart.  Rather than guess, such a label is refused with
    a ValueError naming it.  An array of str/bytes given as such has already lost its trailing NULs and is
    taken as it is.
    """
    array = np.asarray(labels)
    if array.dtype.kind == "O" or (array.dtype.kind in "US" and not isinstance(labels, np.ndarray)):
        if array.dtype.kind == "O":
            values = array.ravel().tolist()
        elif array.ndim == 1 and isinstance(labels, list):
            values = labels  # a flat list: its items are the labels
        else:
            values = np.asarray(labels, dtype=object).ravel().tolist()
        label = _label_ending_in_nul(values)
        if label is not None:
            raise ValueError(
                f"The label {label!r} ends in NUL ('\\x00'): numpy's string arrays drop trailing NULs, so it "
                f"would merge with {label.rstrip(label[-1:])!r} and no model file could store it. Strip or "
                "replace the trailing NULs of the labels."
            )
    return array


def _label_ending_in_nul(values):
    """The first str or bytes of the list ``values`` that ends in NUL, or None."""
    try:  # all str (the usual case): one pass in C finds none
        if "\x00\x01" not in "\x01".join(values) + "\x01":
            return None
    except TypeError:
        pass
    for label in values:
        if isinstance(label, (str, bytes)) and label[-1:] in ("\x00", b"\x00"):
            return label
    return None


def check_y_shape(y, n_samples, stacklevel=3):
    """y as a 1-D array of one label per sample (a column vector is raveled with a warning); a label ending in NUL
    is refused (see :func:`check_labels`)."""
    y = check_labels(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please change the shape of y "
            "to (n_samples,), for example using ravel().",
            _compat.DataConversionWarning,
            stacklevel=stacklevel,
        )
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {y.shape} instead.")
    if y.shape[0] != n_samples:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: [{n_samples}, {y.shape[0]}]")
    return y


def check_y(y, n_samples):
    """Validate class labels: 1-D (a column vector is raveled with a warning), one per sample."""
    y = check_y_shape(y, n_samples, stacklevel=4)
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError("Input y contains NaN or infinity.")
    if y.dtype.kind == "O" and any(v is None or (isinstance(v, float) and v != v) for v in y):
        raise ValueError("Input y contains None or NaN.")
    if y.dtype.kind not in "biuSU":  # integer, boolean and string labels are always discrete classes
        check_classification_targets(y)
    return y


def check_sample_weight(sample_weight, n_samples):
    """Return sample weights as a float64 array of shape (n_samples,)."""
    if sample_weight is None:
        return None
    if np.isscalar(sample_weight):
        return np.full(n_samples, float(sample_weight))
    sample_weight = np.asarray(sample_weight)
    if sample_weight.dtype.kind not in "biuf":
        raise ValueError(f"sample_weight must be numeric, got dtype {sample_weight.dtype}.")
    sample_weight = np.ascontiguousarray(sample_weight, dtype=np.float64)
    if sample_weight.ndim != 1:
        raise ValueError("Sample weights must be 1D array or scalar")
    if sample_weight.shape != (n_samples,):
        raise ValueError(f"sample_weight.shape == {sample_weight.shape}, expected {(n_samples,)}!")
    if not np.all(np.isfinite(sample_weight)):
        raise ValueError("Input sample_weight contains NaN or infinity.")
    if np.any(sample_weight < 0):
        raise ValueError("Negative values in sample_weight: weights must be non-negative.")
    if n_samples and not sample_weight.any():
        raise ValueError("Sample weights must contain at least one non-zero number: all sample_weight are 0.")
    return sample_weight


def check_class_prior(prior, n_classes, name="class_prior"):
    """A class prior as a (n_classes,) float64 array: finite, non-negative, summing to 1.

    The one check of every prior nbfast takes (``class_prior``, GaussianNB's
    ``priors``, :func:`nbfast.with_prior`), with scikit-learn's messages and
    tolerance (``np.isclose(sum, 1)``); None stays None.
    """
    if prior is None:
        return None
    try:
        prior = np.asarray(prior, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of {n_classes} probabilities; got {prior!r}.") from None
    if prior.ndim != 1 or prior.shape[0] != n_classes:
        raise ValueError(
            f"Number of priors must match number of classes: {name} has shape {prior.shape}, there are "
            f"{n_classes} classes."
        )
    if not np.all(np.isfinite(prior)) or np.any(prior < 0):
        raise ValueError(f"Priors must be non-negative (and finite); {name} is {prior!r}.")
    if not np.isclose(prior.sum(), 1.0):
        raise ValueError(f"The sum of the priors should be 1 ({name} must sum to 1); {name} sums to {prior.sum()!r}.")
    return prior


# ------------------------------------------------------------------ fitted values
# Checked where a model's tables are loaded or assigned (O(size), never on every prediction).
def check_no_nan(values, name):
    """Refuse NaN in a table a kernel will read (a NaN score silently predicts the first class)."""
    if np.isnan(values).any():
        raise ValueError(f"{name} contains NaN.")


def _within(values, low, high):
    """Whether every value of a float64 array lies in [low, high] (NaN does not): by min and max, without a
    temporary array as large as ``values`` (a memory-mapped table stays unread into private memory)."""
    return values.size == 0 or bool(low <= values.min() and values.max() <= high)


def check_counts(values, name):
    """Refuse counts (sufficient statistics) that are negative, NaN or infinite, or whose total is infinite
    (every sum a model derives from them, a class's total for one, is at most that total)."""
    values = np.asarray(values, dtype=np.float64)
    if not _within(values, 0, np.finfo(np.float64).max):
        raise ValueError(f"{name} must hold finite non-negative counts.")
    if not np.isfinite(values.sum()):
        raise ValueError(f"{name} must hold counts whose sum is finite (it overflows float64).")


def check_log_prior(values, name):
    """Refuse NaN and +inf in log-probabilities added to every score (-inf is a class ruled out)."""
    values = np.asarray(values, dtype=np.float64)
    if np.isnan(values).any() or np.isposinf(values).any():
        raise ValueError(f"{name} must hold log-probabilities (no NaN, no +inf).")


#: The largest magnitude of a scoring-table entry: the log of a ratio of positive float64 numbers lies within
#: about +-1,500 (log(5e-324) - log(1.8e308)), so anything beyond is not a fitted value, and a count of a few
#: units times it would overflow to infinity.
MAX_LOG_MAGNITUDE = 1e4
#: How far from 1 the probabilities of a stored class prior may sum (a prior stored as float16 is that close).
PRIOR_SUM_TOLERANCE = 1e-3


def check_log_probabilities(values, name):
    """Refuse log-probabilities that are not finite numbers in [-MAX_LOG_MAGNITUDE, 0]."""
    if not _within(np.asarray(values, dtype=np.float64), -MAX_LOG_MAGNITUDE, 0):
        raise ValueError(f"{name} must hold finite log-probabilities in [{-MAX_LOG_MAGNITUDE:g}, 0].")


def check_table_values(values, name):
    """Refuse a scoring table (log-probabilities, log-rates or their differences) with an entry that is not
    finite or beyond +-MAX_LOG_MAGNITUDE: one such entry makes a score infinite or NaN for any x that has it."""
    if not _within(np.asarray(values, dtype=np.float64), -MAX_LOG_MAGNITUDE, MAX_LOG_MAGNITUDE):
        raise ValueError(f"{name} must hold finite values within +-{MAX_LOG_MAGNITUDE:g}.")


def check_scoring_bias(values, name):
    """Refuse a per-class bias with NaN or +inf, or -inf for every class (which leaves no class possible)."""
    values = np.asarray(values, dtype=np.float64)
    if np.isnan(values).any() or np.isposinf(values).any() or not np.isfinite(values).any():
        raise ValueError(f"{name} must be finite (or -inf for a class ruled out, not for all of them).")


def check_normalized_log_prior(values, name):
    """Refuse log class probabilities that are NaN or above 0, or whose probabilities do not sum to 1 (within
    PRIOR_SUM_TOLERANCE; -inf is a class ruled out)."""
    values = np.asarray(values, dtype=np.float64)
    if np.isnan(values).any() or (values > 0).any():
        raise ValueError(f"{name} must hold log-probabilities (no NaN, none above 0).")
    total = np.exp(values).sum()
    if not abs(total - 1.0) <= PRIOR_SUM_TOLERANCE:
        raise ValueError(f"{name} must hold the logs of probabilities that sum to 1; they sum to {total:.6g}.")


#: The largest magnitude of a Gaussian mean: the square of the difference of two numbers within it is finite.
MAX_MEAN_MAGNITUDE = 1e150
#: The largest Gaussian variance: the normalizing log(2 pi var) and the square of a deviation stay finite.
MAX_VARIANCE = MAX_MEAN_MAGNITUDE**2


def check_means(values, name):
    """Refuse means that are not finite or beyond +-MAX_MEAN_MAGNITUDE ((x - mean)^2 would overflow)."""
    if not _within(np.asarray(values, dtype=np.float64), -MAX_MEAN_MAGNITUDE, MAX_MEAN_MAGNITUDE):
        raise ValueError(f"{name} must hold finite means within +-{MAX_MEAN_MAGNITUDE:g}.")


def check_variances(values, name):
    """Refuse variances that are not normal positive numbers up to MAX_VARIANCE: a zero or subnormal variance
    makes 1 / variance infinite (and a score NaN where x equals the mean), a huge one log(2 pi variance)."""
    tiny = np.finfo(np.float64).tiny
    if not _within(np.asarray(values, dtype=np.float64), tiny, MAX_VARIANCE):
        raise ValueError(f"{name} must hold positive variances in [{tiny:.3g}, {MAX_VARIANCE:g}].")


def check_number_in_range(value, name, low, high):
    """Refuse ``value`` unless it is a real number (not a bool) in [low, high]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not low <= value <= high:
        raise ValueError(f"{name} must be a number in [{low:g}, {high:g}], got {str(value)[:40]}.")


def check_fitted_state(model):
    """Check that a fitted model's attributes agree with each other.

    Kernels trust the shapes of the tables they are given, so a model rebuilt
    from a file or from another library is checked before it is used: sorted
    unique ``classes_``, an integer ``n_features_in_``, numeric fitted arrays,
    sufficient statistics shaped like ``_init_stats(n_classes, n_features)``,
    and whatever the estimator's ``_validate_fitted`` checks (its parameters
    were checked by :func:`rebuild`, before any attribute was set).

    Raises
    ------
    ValueError
        Naming the first inconsistency found.
    """
    classes = model.classes_
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size == 0:
        raise ValueError(f"classes_ must be a non-empty 1-D array, got {classes!r}.")
    # sorted and unique: each label above the one before (np.unique would import numpy.ma, 10 ms of a start-up)
    if classes.dtype.kind not in "biufUO" or not np.all(classes[1:] > classes[:-1]):
        raise ValueError("classes_ must hold sorted, unique labels.")
    n_features = model.n_features_in_
    if not isinstance(n_features, numbers.Integral) or isinstance(n_features, bool) or n_features < 1:
        raise ValueError(f"n_features_in_ must be a positive integer, got {n_features!r}.")
    names = vars(model).get("feature_names_in_")
    if names is not None and (not isinstance(names, np.ndarray) or names.shape != (n_features,)):
        raise ValueError(f"feature_names_in_ must be an array of {n_features} names.")
    for name in model._saved_attributes():
        value = getattr(model, name)
        arrays = [value] if isinstance(value, np.ndarray) else [v for v in value if isinstance(v, np.ndarray)] \
            if isinstance(value, (list, tuple)) else []
        if name != "classes_" and any(a.dtype.kind not in "biuf" for a in arrays):
            raise ValueError(f"{name} must hold numbers.")
    observed = model._fitted_observed_count()
    if observed is not None:
        if not isinstance(observed, np.ndarray) or observed.shape != (len(classes), n_features) \
                or observed.dtype.kind not in "biuf":
            raise ValueError(f"observed_count_ must be an array of shape {(len(classes), n_features)}.")
        check_counts(observed, "observed_count_")
    model._validate_fitted()


def check_fitted_shapes(cls, fitted):
    """Check fitted attributes (name -> value) against the shapes ``cls._fitted_shapes`` expects.

    Runs before any attribute is set, so that no table derived from them (by a
    setter) is ever allocated from sizes that the arrays actually given do not
    back: an allocation stays proportional to what is there.

    Raises
    ------
    ValueError
        Naming the first attribute of the wrong type or shape.
    """
    classes, n_features = fitted["classes_"], fitted["n_features_in_"]
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size == 0:
        raise ValueError(f"classes_ must be a non-empty 1-D array, got {type(classes).__name__}.")
    if not isinstance(n_features, numbers.Integral) or isinstance(n_features, bool) or n_features < 1:
        raise ValueError(f"n_features_in_ must be a positive integer, got {n_features!r}.")
    shapes = cls._fitted_shapes(fitted, len(classes), int(n_features))
    if "observed_count_" in fitted:
        if not cls._keeps_observed_count:
            raise ValueError(f"{cls.__name__} has no observed_count_.")
        shapes["observed_count_"] = (len(classes), int(n_features))
    for name, expected in shapes.items():
        value = fitted[name]
        if isinstance(expected, list):
            if not isinstance(value, (list, tuple)) or len(value) != len(expected):
                raise ValueError(f"{name} must be a list of {len(expected)} arrays.")
            shapes = [(f"{name}[{j}]", v, s) for j, (v, s) in enumerate(zip(value, expected))]
        else:
            shapes = [(name, value, expected)]
        for where, v, shape in shapes:
            scalar = shape == () and isinstance(v, numbers.Real) and not isinstance(v, bool)
            if not scalar and (not isinstance(v, np.ndarray) or v.shape != shape):
                got = f"shape {v.shape}" if isinstance(v, np.ndarray) else f"type {type(v).__name__}"
                raise ValueError(f"{where} has {got}, expected an array of shape {shape}.")


def rebuild(cls, params, fitted, feature_names=None):
    """A new ``cls`` estimator with these parameters and (when not None) fitted attributes.

    ``fitted`` must hold one of the estimator's saved forms (``cls._saved_form``:
    its ``_fitted_attributes``, or its ``_compact_attributes``); its attributes are
    checked by :func:`check_fitted_shapes`, the parameters by the estimator's
    ``_validate_params``, the attributes are set in the form's order, and the
    result is checked by :func:`check_fitted_state`; nothing is returned half-built.

    Raises
    ------
    ValueError
        If ``fitted`` is none of the saved forms, or names the first inconsistency found.
    """
    model = cls(**params)
    if fitted is not None:
        form = cls._saved_form(fitted)
        if form is None:
            raise ValueError(f"{cls.__name__} needs the fitted attributes {list(cls._fitted_attributes)}, "
                             f"got {sorted(fitted)}.")
        check_fitted_shapes(cls, fitted)
        # the parameters, checked as a fit checks them, are those the tables derive from (see _BaseNB._fit_params)
        model._fit_params = model._validate_params(int(fitted["n_features_in_"]), len(fitted["classes_"]))
        for name in form.attributes:
            setattr(model, name, fitted[name])
        if feature_names is not None:
            model.feature_names_in_ = feature_names
        check_fitted_state(model)
    return model
