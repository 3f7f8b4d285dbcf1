"""The estimator contract, declared once: what every nbfast Naive Bayes estimator
provides, and the fit / partial_fit protocol and predict family built on it.

A subclass provides the model, through the hooks of :class:`_BaseNB` (each
abstract or with a documented default):

- statistics: ``_init_stats``, ``_accumulate``, ``_update_params`` (and
  ``_stat_names``, ``_fitted_attributes``); statistics of softly labelled rows,
  ``_soft_label_accumulator``, and the log prior of the parameters,
  ``_log_parameter_prior`` (``nbfast.SemiSupervisedNB``);
- parameters: ``_validate_params`` (at fit and on every rebuilt model) and
  ``_validate_scoring_params`` (the parameters scoring reads, again before
  every prediction: ``set_params`` may change them after fit);
- scoring: ``_linear_terms`` for models whose joint log-likelihood is linear in
  f(x), or an override of ``_score``;
- the class prior: ``_log_prior``, ``_set_log_prior``, ``_uses_class_prior``
  (``nbfast.with_prior``, ``MixedNB``);
- export as a linear model: ``_linear_export``, ``_linear_in_binarized_x``
  (``nbfast.to_linear``);
- merging of shard models: ``_merge`` and ``_merge_stats`` (``nbfast.merge``,
  ``nbfast.dask``);
- explanation: ``_pair_terms`` (the per-feature terms of the difference of two
  classes' joint log-likelihoods, ``nbfast.explain``) and ``_feature_scores``
  (how much each feature raises a class's log-odds, ``nbfast.top_features``);
- the fitted state: ``_fitted_shapes`` (the shapes of the fitted arrays, checked
  before a model is rebuilt from them) and ``_validate_fitted`` (persistence,
  interop: the attributes against each other); every prediction checks the
  shapes of the tables it hands a kernel (:func:`check_scoring_table`); which
  attributes describe it: ``_fitted_attributes`` (scikit-learn's),
  ``_compact_attributes`` and ``_saved_attributes`` (a compact model's, what a
  model file stores);
- derived tables: ``_build_tables`` (what ``fit`` prepares for predictions),
  kept by ``_derived`` outside the estimator until ``_forget_derived``.

Concurrency: any number of threads may predict with one fitted model at once.
``fit``, ``partial_fit`` or ``set_params`` while another thread predicts with
the same model is not supported: it never crashes (fit replaces the arrays a
prediction reads rather than writing into them, and each prediction checks the
shapes of what it reads), but that prediction may use a mix of the two states
or raise ValueError; tables derived from such a mix are forgotten when the
refit ends.  Refit a copy and swap it in instead.

Operations on fitted models (decision, linear, merge, interop, persistence,
Dask, the command line) call these hooks; none of them inspects an estimator
to learn which it has.
"""

import copy
import numbers
import warnings
import weakref
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from nbfast._compat import BaseEstimator, ClassifierMixin
from nbfast._kernels import compact, scoring, tables
from nbfast._kernels.explain import pair_terms_csr
from nbfast._kernels.scoring import Output
from nbfast._kernels.threads import effective_n_threads
from nbfast._validation import (
    _feature_names,
    check_counts,
    check_is_fitted,
    check_sample_weight,
    check_X,
    check_y,
)
from nbfast.naive_bayes._compact import CompactTable
from nbfast.naive_bayes._params import check_parameters, declare
from nbfast.naive_bayes._sklearn import to_sklearn

#: Integer labels spanning at most this many values (or as many as there are
#: labels) are counted and looked up in a table instead of sorted and searched.
_DENSE_LABEL_RANGE = 1 << 16


def fresh_copy(value):
    """A writable C-contiguous float64 copy of a fitted statistic, to add a batch into."""
    return np.array(value, dtype=np.float64, order="C", copy=True)


def _label_offsets(y):
    """(y - lowest as intp, lowest, highest) for integer labels of a small enough range, else None."""
    y = np.asarray(y)
    if y.dtype.kind not in "iu" or y.size == 0:
        return None
    lowest, highest = int(y.min()), int(y.max())
    if highest - lowest >= max(_DENSE_LABEL_RANGE, y.size) or highest > np.iinfo(np.intp).max:
        return None
    return y.astype(np.intp) - lowest, lowest, highest


def encode_labels(classes, y):
    """Index of each label of ``y`` in the sorted ``classes``; unknown labels raise."""
    offsets = _label_offsets(y) if classes.dtype.kind in "iu" else None
    if offsets is not None:
        # One table lookup per label: lookup[v - lowest] is the index of class v, or -1.
        offset, lowest, highest = offsets
        lookup = np.full(highest - lowest + 1, -1, dtype=np.intp)
        inside = (classes >= lowest) & (classes <= highest)
        lookup[(classes[inside] - lowest).astype(np.intp)] = np.flatnonzero(inside)
        index = lookup[offset]
        unknown = index < 0
    else:
        try:
            index = np.searchsorted(classes, y)
        except TypeError as exc:
            raise ValueError(f"Labels in y cannot be compared with the known classes {classes!r}: {exc}") from None
        index = np.clip(index, 0, len(classes) - 1)
        unknown = classes[index] != y
    if np.any(unknown):
        missing = np.unique(np.asarray(y)[unknown])
        raise ValueError(
            f"The target label(s) {missing[:10].tolist()} in y do not exist in the initial classes "
            f"{classes.tolist()}; pass every class in `classes=` on the first call to partial_fit."
        )
    return index.astype(np.intp, copy=False)


def unique_classes(y):
    """Sorted unique labels of y, refusing a mix of types (for example str and int)."""
    y = np.asarray(y)
    offsets = _label_offsets(y)
    if offsets is not None:  # counting instead of sorting
        offset, lowest, _ = offsets
        return (np.flatnonzero(np.bincount(offset)) + lowest).astype(y.dtype)
    try:
        return np.unique(y)
    except TypeError as exc:
        raise ValueError(f"Mix of label input types in y: {exc}") from None


#: Each model's float32 scoring table, kept outside the estimators: predicting
#: does not change an estimator's state, and pickles do not carry the cache.
_SINGLE_PRECISION_CACHE = weakref.WeakKeyDictionary()
#: Each model's tables derived from its statistics (:meth:`_BaseNB._derived`), kept outside the estimators
#: for the same reasons.
_DERIVED_CACHE = weakref.WeakKeyDictionary()


class SinglePrecisionTable(NamedTuple):
    """A float32 scoring table and the bounds that certify argmaxes read from it (see ``scoring.argmax_csr``)."""

    table: np.ndarray  # (n_features, n_classes) float32, each row centered
    error_per_unit: float  # >= |table - (float64 table - row offset)| everywhere
    magnitude_per_unit: float  # >= |float64 table| + |table| everywhere


def single_precision_table(table):
    """The float32 copy of a (n_features, n_classes) scoring table, centered per feature, or None.

    Adding an offset to every class of feature j adds the same sum_j f(x_j) * offset_j
    to every class's joint log-likelihood, which changes neither the posterior nor
    the argmax.  Centering each row on its mean over the classes leaves small
    entries, which float32 rounds to about 1e-7 (not 1e-6 for log-probabilities
    near -10).  None when the table has infinite entries (alpha=0): those are
    scored in float64.
    """
    single = np.empty(table.shape, dtype=np.float32)
    largest = tables.single_precision(np.ascontiguousarray(table, dtype=np.float64), single,
                                      effective_n_threads(table.size))
    if largest is None:
        return None
    largest_single, largest_table = largest
    # float32 rounding of the centered entries (2^-24 relative), and of their float64 subtraction
    # (2^-53), with a factor of 2 to spare
    return SinglePrecisionTable(single, 2.0**-23 * largest_single, largest_table + largest_single)


def held_nbytes(model):
    """Bytes of the distinct arrays a model holds: its attributes (nested estimators included) and, for an
    nbfast estimator, the tables derived from them and kept outside it.  Works on any estimator."""
    bases = {}

    def walk(value):
        if isinstance(value, np.ndarray):
            while isinstance(value.base, np.ndarray):
                value = value.base
            bases[id(value)] = value.nbytes
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            walk(list(value.values()))
        elif hasattr(value, "get_params") and hasattr(value, "__dict__"):  # an estimator, of any library
            walk(list(vars(value).values()))
            if isinstance(value, _BaseNB):
                walk(_DERIVED_CACHE.get(value, {}))
                walk(_SINGLE_PRECISION_CACHE.get(value, ()))

    walk(model)
    return sum(bases.values())


#: Tables derived from a model's fitted table for missing values (missing="ignore"), kept outside the estimators
#: as the float32 tables are.
_MISSING_ROWS_CACHE = weakref.WeakKeyDictionary()


def with_missing_rows(model, table, missing_rows):
    """``table`` (n_rows, n_classes) with ``missing_rows()`` (n_features, n_classes) stacked under it, built once
    per fitted table: a missing x_j becomes an entry of value 1 in column n_rows + j, whose row takes back the
    term of feature j that the bias holds.  ``table`` is never modified in place, so it keys the cache."""
    cached = _MISSING_ROWS_CACHE.get(model)
    if cached is None or cached[0]() is not table:
        cached = (weakref.ref(table), np.ascontiguousarray(np.vstack([table, missing_rows()])))
        _MISSING_ROWS_CACHE[model] = cached
    return cached[1]


def split_missing(X):
    """(X with its NaN entries stored as 0, the (n_samples, n_features) CSR indicator of those entries) for
    validated CSR ``X``: both on X's indices and indptr, nothing densified."""
    missing = np.isnan(X.data)
    observed = type(X)((np.where(missing, 0.0, X.data).astype(X.dtype), X.indices, X.indptr), shape=X.shape)
    indicator = type(X)((missing.astype(np.float64), X.indices, X.indptr), shape=X.shape)
    for matrix in (observed, indicator):
        matrix.indices, matrix.indptr = X.indices, X.indptr  # scipy may downcast them
    return observed, indicator


def missing_as_columns(X, binarize, threshold):
    """Validated CSR ``X`` as the (n_samples, 2 n_features) matrix that a table from :func:`with_missing_rows`
    scores: f(x) of each observed entry in its column j, 1 for a NaN entry in column n_features + j."""
    missing = np.isnan(X.data)
    values = (X.data > threshold).astype(np.float64) if binarize else X.data
    data = np.where(missing, 1.0, values).astype(X.dtype, copy=False)
    indices = np.where(missing, X.indices.astype(np.int64) + X.shape[1], X.indices)
    matrix = sp.csr_array((data, indices, X.indptr.astype(np.int64)), shape=(X.shape[0], 2 * X.shape[1]), copy=False)
    matrix.indices, matrix.indptr = indices, X.indptr.astype(np.int64)
    return matrix


def log_normalize(log_scores, *, log=False):
    """Rows of unnormalized log-scores to posteriors (or log-posteriors), by a stable logsumexp.

    ``log_scores`` (float64, modified in place) may hold -inf (a class ruled out).
    A row in which every class is -inf has no posterior: it becomes NaN, with a
    RuntimeWarning.
    """
    row_max = log_scores.max(axis=1, keepdims=True)
    impossible = ~np.isfinite(row_max[:, 0])
    if np.any(impossible):
        warnings.warn(
            f"{int(impossible.sum())} row(s) give probability 0 to every class (contradictory evidence); "
            "their posteriors are NaN.",
            RuntimeWarning,
            stacklevel=3,
        )
        row_max[impossible] = np.nan
    log_scores -= row_max
    scores = np.exp(log_scores)
    total = scores.sum(axis=1, keepdims=True)
    if log:
        log_scores -= np.log(total)
        return log_scores
    scores /= total
    return scores


def class_log_prior(class_count, class_prior, fit_prior):
    """log P(y): the given ``class_prior`` (already checked), else the class frequencies (``fit_prior``), else uniform.

    A class not seen yet has log prior -inf when the prior is fitted.
    """
    with np.errstate(divide="ignore"):
        if class_prior is not None:
            return np.log(class_prior)
        if fit_prior:
            return np.log(class_count) - np.log(class_count.sum())
    return np.full(len(class_count), -np.log(len(class_count)))


def pair_terms(X, table, bias, first, second, *, binarize=False, threshold=0.0, square=None):
    """Terms of jll[i, first[i]] - jll[i, second[i]] for validated CSR X under an additive model.

    The model is ``jll[c] = bias[c] + sum_j f(x_j) table[j, c] + x_j^2 square[j, c]``
    (see ``nbfast._kernels.explain``): returns the term of every stored entry,
    (X.nnz,) in X's order, and the bias difference (n_samples,).
    """
    terms = np.empty(X.nnz)
    table = np.ascontiguousarray(table.toarray() if isinstance(table, CompactTable) else table, dtype=np.float64)
    square = np.empty((0, 0)) if square is None else np.ascontiguousarray(square, dtype=np.float64)
    first, second = (np.ascontiguousarray(c, dtype=np.intp) for c in (first, second))
    pair_terms_csr(X.data, X.indices, X.indptr, table, square, binarize, threshold, first, second, terms,
                   effective_n_threads(X.nnz))
    bias = np.asarray(bias, dtype=np.float64)
    with np.errstate(invalid="ignore"):  # two classes of prior 0: -inf - -inf
        return terms, bias[first] - bias[second]


def terms_matrix(X, terms):
    """The terms of X's stored entries as a CSR array of X's shape, on X's indices and indptr."""
    matrix = sp.csr_array((terms, X.indices, X.indptr), shape=X.shape, copy=False)
    matrix.indices, matrix.indptr = X.indices, X.indptr  # scipy may downcast them
    return matrix


def contrast(table):
    """Each row of ``table`` (n_classes, n_terms) minus the mean of the other rows (two rows or more).

    For two classes, the exact difference of their terms: how much each term
    raises one class's log-odds against the other.
    """
    table = np.asarray(table, dtype=np.float64)
    n_classes = table.shape[0]
    if n_classes == 2:
        return np.stack([table[0] - table[1], table[1] - table[0]])
    with np.errstate(invalid="ignore"):
        return table - (table.sum(axis=0) - table) / (n_classes - 1)


def _same_value(a, b):
    """Equality of two parameter values that may be arrays (alpha, class_prior) or lists of estimators with their
    columns (MixedNB's parts, equal when of the same classes and parameters); 1 equals 1.0, not True."""
    if isinstance(a, BaseEstimator) or isinstance(b, BaseEstimator):
        return type(a) is type(b) and _same_value(a.get_params(deep=False), b.get_params(deep=False))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b) and any(
            isinstance(v, (BaseEstimator, list, tuple, slice, str)) for v in (*a, *b)):
        return all(_same_value(u, v) for u, v in zip(a, b))
    if any(isinstance(v, (np.ndarray, list, tuple)) for v in (a, b)):
        try:
            return np.array_equal(np.asarray(a), np.asarray(b))
        except (TypeError, ValueError):
            return False
    try:
        return bool(a == b) and isinstance(a, bool) == isinstance(b, bool)
    except (TypeError, ValueError):
        return False


def check_fitted_state(model):
    """Check that a fitted model's attributes agree with each other.

    Kernels trust the shapes of the tables they are given, so a model rebuilt
    from a file or from another library is checked before it is used: sorted
    unique ``classes_``, an integer ``n_features_in_``, numeric fitted arrays,
    the parameters (the estimator's own ``_validate_params``), sufficient
    statistics shaped like ``_init_stats(n_classes, n_features)``, and whatever
    the estimator's :meth:`_BaseNB._validate_fitted` checks.

    Raises
    ------
    ValueError
        Naming the first inconsistency found.
    """
    classes = model.classes_
    if not isinstance(classes, np.ndarray) or classes.ndim != 1 or classes.size == 0:
        raise ValueError(f"classes_ must be a non-empty 1-D array, got {classes!r}.")
    if classes.dtype.kind not in "biufUO" or not np.array_equal(np.unique(classes), classes):
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
    observed = vars(model).get("observed_count_")
    if observed is not None:
        if not isinstance(observed, np.ndarray) or observed.shape != (len(classes), n_features) \
                or observed.dtype.kind not in "biuf":
            raise ValueError(f"observed_count_ must be an array of shape {(len(classes), n_features)}.")
        check_counts(observed, "observed_count_")
    model._validate_params(n_features, len(classes))
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


def check_scoring_table(table, bias, n_rows, n_classes, log_prior):
    """Check what the linear scoring kernel will read: a (n_rows, n_classes) table (2-D, or a CompactTable
    derived from checked statistics), a (n_classes,) bias.

    O(1): shapes only, on the very arrays handed to the kernel, so that an
    assigned attribute of the wrong shape (or a model refitted by another
    thread meanwhile) is a ValueError and never a read out of bounds.  The
    log prior the bias derives from must have a value per class too (a single
    value would broadcast).
    """
    if np.shape(log_prior) != (n_classes,):
        raise ValueError(f"the class prior has shape {np.shape(log_prior)}, classes_ ({n_classes},): a fitted "
                         "attribute was assigned with the wrong shape.")
    if not isinstance(table, (np.ndarray, CompactTable)) or table.shape != (n_rows, n_classes) or \
            np.shape(bias) != (n_classes,):
        raise ValueError(
            f"the model's scoring table (features x classes) has shape {np.shape(table)} and its bias "
            f"{np.shape(bias)}; X and classes_ need ({n_rows}, {n_classes}) and ({n_classes},): a fitted attribute "
            "was assigned with the wrong shape (or the model was refitted while predicting)."
        )


def rebuild(cls, params, fitted, feature_names=None):
    """A new ``cls`` estimator with these parameters and (when not None) fitted attributes.

    The fitted attributes are checked by :func:`check_fitted_shapes`, set in the
    order of ``cls._fitted_attributes`` (or of ``cls._compact_attributes``, when
    ``fitted`` holds those), and the result is checked by
    :func:`check_fitted_state`; nothing is returned half-built.
    """
    model = cls(**params)
    if fitted is not None:
        check_fitted_shapes(cls, fitted)
        if "observed_count_" in fitted:  # before the attributes whose setters derive statistics from it
            model.observed_count_ = fitted["observed_count_"]
        compact = bool(cls._compact_attributes) and set(fitted) == set(cls._compact_attributes)
        for name in cls._compact_attributes if compact else cls._fitted_attributes:
            setattr(model, name, fitted[name])
        if feature_names is not None:
            model.feature_names_in_ = feature_names
        check_fitted_state(model)
    return model


def _score_compact(X, table, bias, binarize, threshold, mode, n_threads):
    """``mode``'s output for validated CSR X under a CompactTable: float64 throughout (the table is small)."""
    n_samples, n_classes = X.shape[0], bias.shape[0]
    none = np.empty(0)
    labels = np.empty(n_samples if mode == Output.ARGMAX else 0, dtype=np.int64)
    out = np.empty((0, 0) if mode == Output.ARGMAX else (n_samples, n_classes))
    compact.score_compact(
        X.data, X.indices, X.indptr, table.indptr, table.classes, table.deviation,
        np.ascontiguousarray(table.default, dtype=np.float64),
        none if table.scale is None else np.ascontiguousarray(table.scale, dtype=np.float64),
        none if table.base is None else np.ascontiguousarray(table.base, dtype=np.float64),
        bias, binarize, threshold, mode, out, labels, n_threads,
    )
    return labels if mode == Output.ARGMAX else out


def scores_from_joint_log_likelihood(jll, mode):
    """What ``mode`` asks for, from joint log-likelihoods computed outside the kernel (float64, may hold -inf)."""
    if mode == Output.JOINT_LOG_LIKELIHOOD:
        return jll
    if mode == Output.ARGMAX:
        return jll.argmax(axis=1)
    return log_normalize(jll, log=mode == Output.LOG_PROBA)


class _BaseNB(ClassifierMixin, BaseEstimator):
    """Naive Bayes estimator: fit protocol and predict family.

    Attributes set by every subclass at fit: ``classes_``, ``n_features_in_`` and,
    when X has string column names, ``feature_names_in_``.
    """

    #: Count models refuse negative values in X.
    _non_negative = False
    #: Names of the fitted sufficient statistics that partial_fit keeps adding to.
    _stat_names = ()
    #: Attributes that fully determine a fitted model, in an order in which
    #: setting them (``setattr``) rebuilds a working model: persistence, interop
    #: with scikit-learn and merging restore models through these.
    #: ``feature_names_in_`` is handled separately (it is optional).
    _fitted_attributes = ("classes_", "n_features_in_")
    #: The same for a model in compact form (see :meth:`_saved_attributes`), or empty when the
    #: estimator has none: its statistics without the dense scikit-learn attributes.
    _compact_attributes = ()
    #: Composite estimators are built from other estimators (MixedNB): the command line cannot make one.
    _composite = False
    #: Whether the model learns batch by batch (``partial_fit``); one that is not is fitted on all rows at once.
    _incremental = True
    #: Name of the class-prior hyperparameter (scikit-learn's GaussianNB calls it ``priors``).
    _prior_param = "class_prior"
    #: Whether models fitted with ``missing="ignore"`` keep ``observed_count_`` (n_classes, n_features), the
    #: weighted number of observed values of each feature per class: a statistic (partial_fit, merge) and an
    #: optional fitted attribute (persistence), absent from models fitted without missing values.
    _keeps_observed_count = False
    #: Whether the estimator takes ``missing`` ("error" or "ignore"): MixedNB passes its own to such parts.
    _takes_missing = False
    #: What each parameter may be, in scikit-learn's language (see :mod:`nbfast.naive_bayes._params`).
    _parameter_constraints = declare({})
    #: The parameters that scoring reads: checked again before every prediction (set_params may change them).
    _scoring_params = ()

    # --------------------------------------------------------- statistics
    def _validate_params(self, n_features, n_classes):
        """Check hyperparameters against the data's shape; raise before any state changes.

        Subclasses check every parameter here, ``_validate_scoring_params`` included.
        """
        check_parameters(self)
        self._validate_scoring_params()

    def _validate_scoring_params(self):
        """Check the parameters that scoring reads, ``_scoring_params`` (cheap: called before every prediction)."""
        check_parameters(self, self._scoring_params)

    def _ignores_missing(self):
        """Whether NaN in X is a missing value, left out of fit and of each row's score (``missing="ignore"``).

        The default, False, is for estimators without the ``missing`` parameter: NaN raises.
        """
        return False

    def _check_X(self, X, reset):
        """Validate X (fit and predict); subclasses may transform it further."""
        return check_X(X, self, reset=reset, non_negative=self._non_negative, allow_nan=self._ignores_missing())

    def _observed_count(self):
        """Weighted number of observed values of each feature per class, (n_classes, n_features) read-only:
        ``observed_count_`` of a model fitted with missing values, else the class count of every feature."""
        observed = vars(self).get("observed_count_")
        if observed is not None:
            return observed
        class_count = np.asarray(self.class_count_, dtype=np.float64)
        return np.broadcast_to(class_count[:, None], (class_count.shape[0], self.n_features_in_))

    def _fitted_stat_names(self):
        """``_stat_names`` and, in a model that holds it, ``observed_count_``."""
        return self._stat_names + (("observed_count_",) if "observed_count_" in vars(self) else ())

    def _init_stats(self, n_classes, n_features):
        """Return a dict of zeroed sufficient statistics."""
        raise NotImplementedError

    def _accumulate(self, stats, X, y_index, sample_weight):
        """Add the statistics of (X, y) into ``stats`` in place."""
        raise NotImplementedError

    def _update_params(self):
        """Recompute the model's parameters from its statistics."""
        raise NotImplementedError

    @classmethod
    def _fitted_shapes(cls, fitted, n_classes, n_features):
        """{name: shape} of the fitted arrays of a model with this many classes and features.

        A list of shapes stands for a list of arrays.  ``fitted`` holds the
        attributes about to be set (for shapes that depend on their values); an
        attribute not listed is checked by :meth:`_validate_fitted` only.
        """
        return {}

    def _log_parameter_prior(self):
        """log p(parameters), up to a constant, under the prior of which the fitted parameters are the MAP
        (maximum a posteriori) estimate: the prior their smoothing stands for.

        Semi-supervised EM adds it to the log-likelihood it increases.  The default, 0.0, is for models
        whose parameters are not smoothed estimates.
        """
        return 0.0

    def _soft_label_accumulator(self, X):
        """A function ``accumulate(stats, class_weight)`` adding the statistics of the rows of ``X`` to ``stats``
        (a dict from ``_init_stats``), row i counting for every class c with weight ``class_weight[i, c]``.

        ``X`` is validated by ``_check_X``; ``class_weight`` is (n_samples, n_classes) float64, C-contiguous
        (a labelled row is a one-hot row times its sample weight).  Semi-supervised EM
        (:class:`nbfast.SemiSupervisedNB`) asks for the function once per fit and calls it once per
        iteration, so whatever X needs for it (the count models transpose it) is prepared here, once.
        The default raises TypeError: the model does not learn from soft labels.
        """
        raise TypeError(f"{type(self).__name__} does not learn from soft labels (class posteriors): "
                        "semi-supervised EM supports MultinomialNB, ComplementNB, BernoulliNB and PoissonNB.")

    def _validate_fitted(self):
        """Check the fitted attributes a kernel will trust (shapes, dtypes) against each other.

        Called on every model rebuilt from attributes (:func:`rebuild`). The default
        checks that the sufficient statistics in ``_fitted_attributes`` have the
        shapes ``_init_stats`` gives; subclasses add the checks of their tables.
        """
        if not self._stat_names:  # composites: their parts are checked as they are rebuilt
            return
        n_classes, n_features = len(self.classes_), self.n_features_in_
        for name, expected in self._init_stats(n_classes, n_features).items():
            if name in self._fitted_attributes and isinstance(expected, np.ndarray):
                value = getattr(self, name)
                if np.shape(value) != expected.shape:
                    raise ValueError(f"{name} has shape {np.shape(value)}, expected {expected.shape}.")

    def _saved_attributes(self):
        """The attributes that fully determine this fitted model: ``_fitted_attributes``, or
        ``_compact_attributes`` for a model in compact form (model files of format version 2 store those)."""
        return type(self)._fitted_attributes

    # ------------------------------------------------------- derived tables
    def _build_tables(self):
        """Build the tables predictions need: ``fit`` calls it (``partial_fit`` and merging leave it to the
        first prediction).  The default builds nothing."""

    def _derived(self, name, build):
        """The value ``build()`` derived from this model's state, built on first use and kept until
        :meth:`_forget_derived`, outside the estimator (predicting does not change its state, pickles do
        not carry it)."""
        entries = _DERIVED_CACHE.get(self)
        if entries is None:
            entries = _DERIVED_CACHE[self] = {}
        value = entries.get(name)
        if value is None:
            value = entries[name] = build()
        return value

    def _forget_derived(self):
        """Drop the derived values (the state they came from changed)."""
        _DERIVED_CACHE.pop(self, None)

    # ------------------------------------------------------------ scoring
    def _linear_terms(self):
        """(table (n_features, n_classes), bias (n_classes,), binarize, threshold) of the default ``_score``.

        The table is a dense array or a :class:`~nbfast.naive_bayes._compact.CompactTable`.
        Models whose joint log-likelihood is not linear in (binarized) x
        override ``_score`` instead and leave this raising.
        """
        raise NotImplementedError(f"{type(self).__name__} is not scored through a linear table.")

    # ---------------------------------------------------------- the prior
    def _log_prior(self):
        """The fitted log class prior (n_classes,)."""
        return np.asarray(self.class_log_prior_, dtype=np.float64)

    def _set_log_prior(self, log_prior):
        """Replace the fitted class prior (a fitted copy deployed on new class frequencies)."""
        self.class_log_prior_ = np.array(log_prior, dtype=np.float64)

    def _uses_class_prior(self):
        """Whether the joint log-likelihood adds the class prior (ComplementNB's does not, as in scikit-learn)."""
        return True

    def _added_log_prior(self):
        """The log prior this model adds to its joint log-likelihood (zeros when it adds none)."""
        log_prior = self._log_prior()
        return log_prior if self._uses_class_prior() else np.zeros_like(log_prior)

    # ----------------------------------------------------- linear export
    def _linear_export(self):
        """(coef (n_classes, n_features), intercept (n_classes,)) of the joint log-likelihood; see ``to_linear``.

        The default reads ``_linear_terms``; a model that is not linear in x
        raises TypeError (or ValueError for a configuration that is not).
        """
        try:
            table, bias = self._linear_terms()[:2]
        except NotImplementedError:
            raise TypeError(
                f"{type(self).__name__}'s joint log-likelihood is not linear in x: it cannot be exported as "
                "(coef, intercept)."
            ) from None
        if isinstance(table, CompactTable):
            table = table.toarray()
        return table.T, bias

    def _linear_in_binarized_x(self):
        """Whether ``_linear_export`` is linear in binarized x rather than in x (BernoulliNB with ``binarize``)."""
        return False

    # -------------------------------------------------------- explanation
    def _pair_terms(self, X, first, second):
        """Per-feature terms of jll[i, first[i]] - jll[i, second[i]], for X as ``_check_X`` returned it.

        Naive Bayes log-likelihoods are sums over the features, so the
        difference splits exactly into the difference at the all-zero row
        (the priors included) and, for each stored entry x_ij, the change of
        the difference when x_ij goes from 0 to its value.  The default reads
        ``_linear_terms`` and computes the terms by a kernel over the CSR rows.

        Parameters
        ----------
        X : validated input
        first, second : ndarray of shape (n_samples,)
            Class indices of each row.

        Returns
        -------
        terms : sparse array of shape (n_samples, n_features)
            CSR; entry (i, j) is the term of x_ij (stored entries of X only).
        constant : ndarray of shape (n_samples,)
            The difference at the all-zero row.
        """
        try:
            table, bias, binarize, threshold = self._linear_terms()
        except NotImplementedError:
            raise TypeError(f"{type(self).__name__} does not split its joint log-likelihood into per-feature "
                            "terms.") from None
        terms, constant = pair_terms(X, table, bias, first, second, binarize=binarize, threshold=threshold)
        return terms_matrix(X, terms), constant

    def _feature_scores(self):
        """How much each term raises each class's log-odds against the other classes (two classes or more).

        The default contrasts the coefficients of ``_linear_export``: each
        class's per-feature term minus the mean of the other classes' (for two
        classes, the exact per-feature term of their log-odds).

        Returns
        -------
        scores : ndarray of shape (n_classes, n_terms)
        feature : ndarray of shape (n_terms,)
            The feature (column of X) of each term.
        category : ndarray of shape (n_terms,) or None
            The value of the feature each term stands for (CategoricalNB's
            categories; -1 where a term is the feature itself), or None when
            every term is the feature itself.
        """
        coef = np.asarray(self._linear_export()[0], dtype=np.float64)
        return contrast(coef), np.arange(coef.shape[1]), None

    # ------------------------------------------------------------ merging
    @classmethod
    def _merge_stats(cls, models):
        """{statistic: merged value} of compatible ``models``: by default the sum of every ``_stat_names`` entry.

        A statistic may be an array or a list of arrays (one per feature).
        """
        merged = {}
        for name in cls._stat_names:
            values = [getattr(model, name) for model in models]
            if isinstance(values[0], (list, tuple)):
                merged[name] = [np.sum([np.asarray(v[j], dtype=np.float64) for v in values], axis=0)
                                for j in range(len(values[0]))]
            else:
                merged[name] = np.sum([np.asarray(v, dtype=np.float64) for v in values], axis=0)
        if any("observed_count_" in vars(model) for model in models):
            merged["observed_count_"] = np.sum([model._observed_count() for model in models], axis=0)
        return merged

    @classmethod
    def _complement_stats(cls, whole, part):
        """{statistic: value} of the data of ``whole`` without the rows of ``part`` (a model fitted on a subset of
        them, with the same classes), or None when statistics do not subtract (then the rows are refitted).

        Out-of-fold scoring (:class:`nbfast.CalibratedNB`) uses it so as not to refit a model per fold.
        """
        return None

    @classmethod
    def _merge(cls, models):
        """The model fitted on the union of the (disjoint) shards of ``models``, all of this class and fitted.

        The default checks that the models agree (parameters, classes, features),
        sets :meth:`_merge_stats` on a copy of the first and derives the
        parameters; estimators whose shards may differ further (GaussianNB unites
        classes) override it.
        """
        cls._check_mergeable(models)
        merged = copy.deepcopy(models[0])
        for name, value in cls._merge_stats(models).items():
            setattr(merged, name, value)
        merged._update_params()
        return merged

    @classmethod
    def _check_mergeable(cls, models):
        first, name = models[0], cls.__name__
        params = first.get_params(deep=False)
        for position, model in enumerate(models[1:], start=1):
            other = model.get_params(deep=False)
            differing = sorted(k for k in params if not _same_value(params[k], other[k]))
            if differing:
                shown = ", ".join(f"{k}={params[k]!r} vs {other[k]!r}" for k in differing)
                raise ValueError(f"Cannot merge {name} models with different parameters: model 0 and model "
                                 f"{position} differ in {shown}.")
            if model.n_features_in_ != first.n_features_in_:
                raise ValueError(f"Cannot merge {name} models fitted on different numbers of features: model 0 has "
                                 f"{first.n_features_in_}, model {position} has {model.n_features_in_}.")
            if not np.array_equal(model.classes_, first.classes_):
                raise ValueError(f"Cannot merge {name} models with different classes_: model 0 has "
                                 f"{first.classes_.tolist()}, model {position} has {model.classes_.tolist()}; pass "
                                 "the same `classes=` to partial_fit on every shard.")
            names, other_names = (vars(m).get("feature_names_in_") for m in (first, model))
            if (names is None) != (other_names is None) or (
                    names is not None and not np.array_equal(names, other_names)):
                raise ValueError(f"Cannot merge {name} models fitted with different feature names "
                                 f"(model 0 and model {position}).")

    # ---------------------------------------------------------------- fitting
    def fit(self, X, y, sample_weight=None):
        """Fit the model to X, y.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors.
        y : array-like of shape (n_samples,)
            Target values (any sortable label type: ints, strings, ...).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights applied to individual samples (1. for unweighted).

        Returns
        -------
        self : object
            The fitted estimator. A call that raises leaves it unchanged (scikit-learn's may
            leave ``classes_`` of the failed call behind).
        """
        check_parameters(self)
        feature_names = _feature_names(X)
        X = self._check_X(X, reset=True)
        y = check_y(y, X.shape[0])
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        classes = unique_classes(y)
        self._validate_params(X.shape[1], len(classes))
        stats = self._init_stats(len(classes), X.shape[1])
        self._accumulate(stats, X, encode_labels(classes, y), sample_weight)
        self._commit(stats, classes, X.shape[1], feature_names)
        self._build_tables()
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Incremental fit on a batch of samples.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors.
        y : array-like of shape (n_samples,)
            Target values; every label must be one of ``classes``.
        classes : array-like of shape (n_classes,), default=None
            All the classes that can appear in y. Required on the first call,
            optional (but must agree) afterwards.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights applied to individual samples (1. for unweighted).

        Returns
        -------
        self : object
            The updated estimator. A call that raises leaves it unchanged.
        """
        first_call = not hasattr(self, "classes_")
        check_parameters(self)
        feature_names = _feature_names(X)
        X = self._check_X(X, reset=first_call)
        y = check_y(y, X.shape[0])
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        if first_call:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit.")
            classes = unique_classes(np.asarray(classes))
            self._validate_params(X.shape[1], len(classes))
            stats = self._init_stats(len(classes), X.shape[1])
        else:
            if classes is not None and not np.array_equal(self.classes_, unique_classes(np.asarray(classes))):
                raise ValueError(
                    f"`classes={classes!r}` is not the same as on last call to partial_fit, was: {self.classes_!r}"
                )
            classes = self.classes_
            self._validate_params(X.shape[1], len(classes))
            stats = self._current_stats()
        y_index = encode_labels(classes, y)
        self._accumulate(stats, X, y_index, sample_weight)
        if first_call:
            self._commit(stats, classes, X.shape[1], feature_names)
        else:
            for name, value in stats.items():  # _accumulate may have replaced (grown) a statistic
                setattr(self, name, value)
            self._derive_params()
        return self

    def _current_stats(self):
        """Copies of the fitted statistics for the next batch to add into: a prediction in another thread may be
        reading the fitted arrays, so they are never written in place (partial_fit swaps the references at the end).
        """
        return {name: fresh_copy(getattr(self, name)) for name in self._fitted_stat_names()}

    def _commit(self, stats, classes, n_features, feature_names):
        """Install fresh statistics and derive the parameters: the only place fit mutates self."""
        self.classes_ = classes
        self.n_features_in_ = n_features
        if feature_names is not None:
            self.feature_names_in_ = feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        if "observed_count_" not in stats:  # left by an earlier fit with missing values
            vars(self).pop("observed_count_", None)
        for name, value in stats.items():
            setattr(self, name, value)
        self._derive_params()

    def _derive_params(self):
        """Derive the parameters from the statistics just installed, then forget the derived tables once more: a
        prediction in another thread may have derived one from a part of the new state meanwhile."""
        self._update_params()
        self._forget_derived()

    # -------------------------------------------------------------- predicting
    def _score_outside_the_linear_form(self, X, mode):
        """The scores when the linear terms cannot give them exactly (an infinite weight), else None."""
        return None

    def _score(self, X, mode):
        """Run the fused kernel in ``mode`` on validated CSR X."""
        exact = self._score_outside_the_linear_form(X, mode)
        if exact is not None:
            return exact
        return self._score_linear(X, mode, *self._linear_terms())

    def _score_linear(self, X, mode, table, bias, binarize, threshold):
        """Run the fused kernel in ``mode`` on validated CSR X, with this (n_features, n_classes) table and bias."""
        bias = np.ascontiguousarray(bias, dtype=np.float64)
        check_scoring_table(table, bias, X.shape[1], len(self.classes_), self._log_prior())
        n_samples = X.shape[0]
        n_threads = effective_n_threads(X.nnz + n_samples * table.shape[1])
        if isinstance(table, CompactTable):
            return _score_compact(X, table, bias, binarize, threshold, mode, n_threads)
        # the float32 table serves every argmax, and the posteriors of float32 input only
        wants_single = mode == Output.ARGMAX or (X.dtype == np.float32 and mode != Output.JOINT_LOG_LIKELIHOOD)
        single = self._single_precision(table) if wants_single else None
        if mode == Output.ARGMAX:
            labels = np.empty(n_samples, dtype=np.int64)
            if single is None:
                scoring.score_csr(X.data, X.indices, X.indptr, table, bias, binarize, threshold, mode,
                                  np.empty((0, 0)), labels, n_threads)
            else:  # the float32 table, certified row by row: the same labels as the float64 table
                scoring.argmax_csr(X.data, X.indices, X.indptr, single.table, table, bias, binarize, threshold,
                                   single.error_per_unit, single.magnitude_per_unit, labels, n_threads)
            return labels
        if single is not None:
            table = single.table
        out = np.empty((n_samples, table.shape[1]))
        scoring.score_csr(X.data, X.indices, X.indptr, table, bias, binarize, threshold, mode, out,
                          np.empty(0, dtype=np.int64), n_threads)
        return out

    def _single_precision(self, table):
        """The float32 scoring table (:func:`single_precision_table`), or None.

        Half the bytes of the float64 table to gather per nonzero: every argmax
        (certified, so labels are those of the float64 table) and the posteriors
        of float32 input.  Built on the first prediction and kept until the
        model's table changes (the tables are never modified in place:
        ``feature_log_prob_`` is read-only).  Joint log-likelihoods are always
        computed from the float64 table.
        """
        cached = _SINGLE_PRECISION_CACHE.get(self)
        if cached is None or cached[0]() is not table:  # a weak reference: a replaced table is freed
            cached = (weakref.ref(table), single_precision_table(table))
            _SINGLE_PRECISION_CACHE[self] = cached
        return cached[1]

    def _predict_input(self, X):
        """X checked for scoring, after the parameters that scoring reads."""
        check_is_fitted(self)
        self._validate_scoring_params()
        return self._check_X(X, reset=False)

    def predict_joint_log_proba(self, X):
        """Joint log probability log P(x, y) = log P(y) + log P(x|y) of each sample and class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        C : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        return self._score(self._predict_input(X), Output.JOINT_LOG_LIKELIHOOD)

    def predict(self, X):
        """Most probable class of each sample.

        The argmax is taken inside the kernel: no (n_samples, n_classes) array is built.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        C : ndarray of shape (n_samples,)
        """
        X = self._predict_input(X)
        classes = self.classes_  # read once, before scoring: a refit in another thread may replace it
        class_index = self._score(X, Output.ARGMAX)
        if class_index.size and class_index.max() >= len(classes):
            raise ValueError("the model's classes changed while predicting (it was refitted in another thread).")
        return classes[class_index]

    def predict_log_proba(self, X):
        """Log of the posterior probability of each class, normalized by a stable logsumexp.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        C : ndarray of shape (n_samples, n_classes)
        """
        return self._score(self._predict_input(X), Output.LOG_PROBA)

    def predict_proba(self, X):
        """Posterior probability of each class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        C : ndarray of shape (n_samples, n_classes)
            Rows sum to 1; columns in the order of ``classes_``.
        """
        return self._score(self._predict_input(X), Output.PROBA)

    def to_sklearn(self):
        """The scikit-learn equivalent of this fitted model: same class name, parameters and fitted attributes.

        Returns
        -------
        estimator : sklearn.naive_bayes estimator
            A copy: the two models share no memory.
        """
        check_is_fitted(self)
        return to_sklearn(self)

    def to_linear(self):
        """The joint log-likelihood as a linear model: see :func:`nbfast.to_linear`.

        Returns
        -------
        coef : ndarray of shape (n_classes, n_features)
        intercept : ndarray of shape (n_classes,)
        """
        check_is_fitted(self)
        coef, intercept = self._linear_export()
        return np.array(coef, dtype=np.float64, order="C"), np.array(intercept, dtype=np.float64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = self._non_negative
        try:
            tags.input_tags.allow_nan = self._ignores_missing()
        except ValueError:  # an invalid ``missing``: refused at fit
            tags.input_tags.allow_nan = False
        tags.classifier_tags.poor_score = True
        return tags
