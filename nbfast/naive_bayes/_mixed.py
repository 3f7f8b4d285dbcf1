"""MixedNB: one Naive Bayes model over heterogeneous column groups.

Each part is a Naive Bayes estimator fitted on its own columns (for example
word counts with MultinomialNB, numeric columns with GaussianNB, codes with
CategoricalNB); all parts share one class prior, and since the column groups
are independent given the class, the joint log-likelihood is

    log p(y) + sum over parts k of [jll_k(x_k, y) - log prior_k(y)].
"""

import copy
import numbers

import numpy as np

from nbfast import _compat
from nbfast import _sparse as sp
from nbfast._compat import _BaseComposition, clone
from nbfast._params import N_JOBS, StrOptions, checks_parameters, declare
from nbfast._validation import (
    MISSING,
    _check_feature_names,
    _dense_to_float,
    _feature_names,
    check_class_prior,
    check_counts,
    check_is_fitted,
    check_labels,
    check_log_prior,
    check_missing,
    check_normalized_log_prior,
    check_sample_weight,
    check_X,
    check_y,
)
from nbfast.naive_bayes._base import _BaseNB, encode_labels, unique_classes
from nbfast.naive_bayes._counts import check_statistics
from nbfast.naive_bayes._discrete import MultinomialNB
from nbfast.naive_bayes._locking import serialized
from nbfast.naive_bayes._merging import check_mergeable
from nbfast.naive_bayes._sklearn import is_scikit_learn_naive_bayes
from nbfast.naive_bayes._terms import class_log_prior, scores_from_joint_log_likelihood


class _ScikitLearnPart:
    """The class-prior hooks of the estimator contract for a scikit-learn Naive Bayes part.

    scikit-learn's discrete models keep ``class_log_prior_`` (ComplementNB adds
    it only with a single class), its GaussianNB keeps ``class_prior_``.
    """

    def __init__(self, estimator):
        self.estimator = estimator
        self._naive_bayes = _compat.sklearn_module_if_loaded("naive_bayes")

    def _is(self, name):
        return isinstance(self.estimator, vars(self._naive_bayes)[name])

    def _log_prior(self):
        if self._is("GaussianNB"):
            with np.errstate(divide="ignore"):
                return np.log(self.estimator.class_prior_)
        return np.asarray(self.estimator.class_log_prior_, dtype=np.float64)

    def _set_log_prior(self, log_prior):
        if self._is("GaussianNB"):
            self.estimator.class_prior_ = np.exp(log_prior)
        else:
            self.estimator.class_log_prior_ = np.array(log_prior, dtype=np.float64)

    def _added_log_prior(self):
        log_prior = self._log_prior()
        if self._is("ComplementNB") and len(log_prior) > 1:
            return np.zeros_like(log_prior)
        return log_prior

    def _takes_sparse(self):
        return _compat.sklearn_module("utils", "tags").get_tags(self.estimator).input_tags.sparse


def _contract(estimator):
    """The part itself (an nbfast estimator), or the adapter of a scikit-learn one."""
    return estimator if isinstance(estimator, _BaseNB) else _ScikitLearnPart(estimator)


def _resolve_columns(columns, n_features, feature_names, name):
    """Column indices (intp) selected by a slice, integer(s), boolean mask or column name(s)."""
    if isinstance(columns, slice):
        index = np.arange(n_features)[columns]
    else:
        spec = np.asarray([columns] if isinstance(columns, (str, numbers.Integral)) else columns)
        if spec.ndim != 1:
            raise ValueError(f"Columns of part {name!r} must be 1-D; got shape {spec.shape}.")
        if spec.dtype.kind == "b":
            if spec.shape[0] != n_features:
                raise ValueError(
                    f"Boolean mask of part {name!r} has {spec.shape[0]} entries, X has {n_features} columns."
                )
            index = np.flatnonzero(spec)
        elif spec.dtype.kind in "iu":
            if np.any(spec >= n_features) or np.any(spec < -n_features):
                raise ValueError(
                    f"Columns of part {name!r} are out of range for X with {n_features} columns: {spec!r}."
                )
            index = np.where(spec < 0, spec + n_features, spec)
        elif spec.dtype.kind in "UO" and all(isinstance(c, str) for c in spec):
            if feature_names is None:
                raise ValueError(
                    f"Part {name!r} selects columns by name: X must be a pandas DataFrame with string column names."
                )
            position = {column: i for i, column in enumerate(feature_names)}
            missing = [c for c in spec if c not in position]
            if missing:
                raise ValueError(f"Columns {missing[:10]} of part {name!r} are not columns of X.")
            index = np.array([position[c] for c in spec])
        else:
            raise ValueError(
                f"Columns of part {name!r} must be a slice, integers, a boolean mask or column names; got {columns!r}."
            )
    if index.shape[0] == 0:
        raise ValueError(f"Part {name!r} selects no column.")
    return index.astype(np.intp)


def _select(X, index):
    """The columns ``index`` of X (validated: CSR, 2-D float ndarray, or a DataFrame)."""
    if index.shape[0] == X.shape[1] and np.array_equal(index, np.arange(X.shape[1])):
        columns = slice(None)
    elif np.all(np.diff(index) == 1):
        columns = slice(index[0], index[-1] + 1)  # a view for dense X
    else:
        columns = index
    if hasattr(X, "iloc"):
        return _dense_to_float(X.iloc[:, columns], "X")
    return X[:, columns]


class MixedNB(_BaseComposition, _BaseNB):
    """Naive Bayes over heterogeneous columns, one part per column group.

    In the style of scikit-learn's ColumnTransformer: each part is
    ``(name, estimator, columns)``; the estimator (any nbfast Naive Bayes
    estimator, or any estimator with ``predict_joint_log_proba`` and a class
    prior) is fitted on its columns, and all parts share one class prior (set
    by ``fit_prior`` and ``class_prior`` here; each part's own prior is
    replaced by it).  Columns that no part selects are ignored.  The joint
    log-likelihood is

        log prior(y) + sum_k [part_k.predict_joint_log_proba(X_k) - log prior_k(y)].

    Parameters
    ----------
    estimators : list of (str, estimator, columns) tuples, default=None
        ``columns`` is a slice, an integer or array of integers, a boolean mask
        over the columns, or a column name or list of names (X must then be a
        pandas DataFrame).  None is a single MultinomialNB over all columns.
    fit_prior : bool, default=True
        Whether to learn the class prior; if False a uniform prior is used.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes (sum to 1); not adjusted to the data.
    missing : {"error", "ignore"}, default="error"
        What NaN in X is, passed to every part that takes ``missing``
        (GaussianNB, CategoricalNB, BernoulliNB) when the model is first
        fitted: with "ignore", a missing value is left out of its part's
        statistics and of the row's joint log-likelihood.  NaN in the columns
        of a part without the parameter is an error there.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    class_count_ : ndarray of shape (n_classes,)
        Number of samples (weighted) seen for each class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log of the shared class prior.
    estimators_ : list of estimators
        The fitted parts, in the order of ``estimators``.
    named_estimators_ : dict
        The fitted parts by name.
    columns_ : list of ndarray of int
        The column indices of each part.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (``n_features_in_``,)
        Names of features seen during fit, when X has string column names.

    Notes
    -----
    A ``partial_fit`` that raises leaves the model unchanged: every part takes
    the batch on a copy, and the copies are installed once all have taken it.

    Each part scores its columns with its own kernels; ``predict`` then sums
    the parts' (n_samples, n_classes) joint log-likelihoods, so unlike the
    single estimators it does build such an array.

    Examples
    --------
    >>> import numpy as np
    >>> from nbfast import BernoulliNB, MixedNB, MultinomialNB
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randint(3, size=(20, 6))
    >>> y = np.arange(20) % 2
    >>> model = MixedNB([("counts", MultinomialNB(), slice(0, 4)), ("flags", BernoulliNB(), [4, 5])])
    >>> model.fit(X, y).predict(X[:3]).shape
    (3,)
    """

    _fitted_attributes = (
        "classes_", "n_features_in_", "class_count_", "class_log_prior_", "columns_", "estimators_",
    )
    _float64_attributes = ("class_log_prior_",)

    _composite = True
    _parameter_constraints = declare({"estimators": [list, None], "fit_prior": ["boolean"],
                              "class_prior": ["array-like", None], "missing": [StrOptions(set(MISSING))],
                              **N_JOBS})
    _scoring_params = ("missing",)

    def __init__(self, estimators=None, *, fit_prior=True, class_prior=None, missing="error", n_jobs=None):
        self.estimators = estimators
        self.n_jobs = n_jobs
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.missing = missing

    # ------------------------------------------------------------- parts
    def _parts(self):
        """The validated ``(name, estimator, columns)`` list."""
        if self.estimators is None:
            return [("multinomialnb", MultinomialNB(), slice(None))]
        try:
            parts = [tuple(part) for part in self.estimators]
        except TypeError:
            raise ValueError(
                f"estimators must be a list of (name, estimator, columns); got {self.estimators!r}."
            ) from None
        if not parts:
            raise ValueError("estimators must not be empty.")
        names = []
        for part in parts:
            if len(part) != 3 or not isinstance(part[0], str):
                raise ValueError(
                    f"Each part must be a (name, estimator, columns) tuple with a string name; got {part!r}."
                )
            name, estimator, _ = part
            if "__" in name or name in self._get_param_names():
                raise ValueError(f"Part name {name!r} must not contain '__' nor be a parameter name of MixedNB.")
            if not (isinstance(estimator, _BaseNB) or is_scikit_learn_naive_bayes(estimator)):
                raise TypeError(
                    f"Part {name!r} ({type(estimator).__name__}) must be an nbfast or scikit-learn Naive Bayes "
                    "estimator (with fit, partial_fit and predict_joint_log_proba)."
                )
            names.append(name)
        if len(set(names)) != len(names):
            raise ValueError(f"Part names must be unique; got {names}.")
        return parts

    @property
    def _estimators(self):
        """(name, estimator) of the parts, for the nested parameters; ``estimators`` itself when it is not parts."""
        try:
            return [(name, estimator) for name, estimator, _ in self.estimators]
        except (TypeError, ValueError):
            return self.estimators

    @_estimators.setter
    def _estimators(self, value):
        self.estimators = [(name, estimator, columns) for (name, estimator), (_, _, columns) in zip(value, self.estimators)]

    def _child_estimators(self):
        """The fitted parts as (name, estimator), in the order of ``estimators_``.

        The hook for persistence and interop: a fitted MixedNB is rebuilt by
        setting ``_fitted_attributes`` and then ``estimators_`` to the list of
        these (rebuilt) parts, on a MixedNB constructed with the same ``estimators``.
        """
        check_is_fitted(self)
        return [(name, estimator) for (name, _, _), estimator in zip(self._parts(), self.estimators_)]

    @property
    def named_estimators_(self):
        """The fitted parts by name."""
        return dict(self._child_estimators()) if hasattr(self, "estimators_") else self.estimators_

    def get_params(self, deep=True):
        """Parameters of MixedNB and, with ``deep``, of its parts as ``name__param``."""
        return self._get_params("_estimators", deep=deep)

    def set_params(self, **params):
        """Set parameters; a part is replaced by ``name=estimator`` and tuned by ``name__param=value``."""
        return self._set_params("_estimators", **params)

    # ----------------------------------------------------------- fitting
    def _check_X(self, X, reset):
        """Check shape and feature names; keep X's container (parts validate their columns).

        Sparse X goes through the full gate first: its columns are selected by
        scipy, which must never see a malformed matrix.
        """
        if sp.issparse(X):
            return check_X(X, self, reset=reset, allow_nan=self._ignores_missing())
        if not reset:
            check_is_fitted(self, "n_features_in_")
            _check_feature_names(self, X)
        if not hasattr(X, "iloc"):
            X = _dense_to_float(X, "X")
        for count, what in zip(X.shape, ("sample", "feature")):
            if count < 1:
                raise ValueError(
                    f"Found array with 0 {what}(s) (shape={X.shape}) while a minimum of 1 is required by "
                    f"{type(self).__name__}."
                )
        if not reset and X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting {self.n_features_in_} "
                "features as input."
            )
        return X

    @checks_parameters()
    def fit(self, X, y, sample_weight=None):
        """Fit every part on its columns, with one shared class prior.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
        """
        return self._fit(X, y, None, sample_weight, partial=False)

    @serialized
    @checks_parameters()
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Incremental fit of every part on a batch.

        Calls on one model from several threads run one at a time (a lock per model), so that no batch is lost.

        Parameters
        ----------
        X : {array-like, sparse matrix, DataFrame} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            All the classes; required on the first call.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
            A call that raises leaves it unchanged.
        """
        return self._fit(X, y, classes, sample_weight, partial=True)

    def _fit(self, X, y, classes, sample_weight, partial):
        first = not (partial and hasattr(self, "classes_"))
        parts = self._parts()
        feature_names = _feature_names(X)
        X = self._check_X(X, reset=first)
        y = check_y(y, X.shape[0])
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        if first:
            if partial and classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit.")
            classes = unique_classes(check_labels(classes) if partial else y)
            columns = [_resolve_columns(c, X.shape[1], feature_names, name) for name, _, c in parts]
            estimators = [self._with_missing(clone(estimator)) for _, estimator, _ in parts]
            class_count = np.zeros(len(classes))
        else:
            if classes is not None and not np.array_equal(self.classes_, unique_classes(check_labels(classes))):
                raise ValueError(
                    f"`classes={classes!r}` is not the same as on last call to partial_fit, was: {self.classes_!r}"
                )
            classes, columns, class_count = self.classes_, self.columns_, self.class_count_.copy()
            if any(isinstance(e, _BaseNB) and type(e)._takes_missing and e.missing != self.missing
                   for e in self.estimators_):
                raise ValueError(f"missing={self.missing!r} differs from the parts' since the first fit: refit the "
                                 "model (fit) to change it.")
            # Every part is updated on a copy, installed once all have taken the batch: a part that raises leaves
            # self's as they were.  An nbfast part never writes its fitted arrays in place (a batch's statistics
            # replace them), so a shallow copy is enough; others are copied whole.
            estimators = [copy.copy(e) if isinstance(e, _BaseNB) else copy.deepcopy(e) for e in self.estimators_]
        params = self._validate_params(X.shape[1], len(classes))
        y_index = encode_labels(classes, y)
        X_parts = [_select(X, index) for index in columns]
        weights = {} if sample_weight is None else {"sample_weight": sample_weight}
        for estimator, X_part in zip(estimators, X_parts):
            if partial:
                estimator.partial_fit(X_part, y, classes=classes, **weights)
            else:
                estimator.fit(X_part, y, **weights)
        class_count += np.bincount(y_index, weights=sample_weight, minlength=len(classes))
        self._commit_parts(classes, X.shape[1], feature_names, class_count, columns, estimators, params)
        return self

    def _validate_params(self, n_features, n_classes):
        params = super()._validate_params(n_features, n_classes)
        return {**params, "class_prior": check_class_prior(self.class_prior, n_classes)}

    def _ignores_missing(self):
        return check_missing(self.missing)

    def _with_missing(self, estimator):
        """A (cloned) part with the model's ``missing``, when it takes the parameter."""
        if isinstance(estimator, _BaseNB) and type(estimator)._takes_missing:
            estimator.set_params(missing=self.missing)
        return estimator

    def _commit_parts(self, classes, n_features, feature_names, class_count, columns, estimators, params):
        """Install the fitted parts and the shared prior: the only place fit mutates self."""
        self._commit({"class_count_": class_count}, classes, n_features, feature_names, params)
        self.columns_ = columns
        self.estimators_ = estimators
        for estimator in estimators:
            _contract(estimator)._set_log_prior(self.class_log_prior_)

    @classmethod
    def _merge(cls, models):
        """The model of the union of the shards: each part merged with the same part of the other models (by its
        own rule), the class counts summed."""
        check_mergeable(cls, models)
        first = models[0]
        shards = list(zip(*(model.estimators_ for model in models)))
        if not all(isinstance(part, _BaseNB) for shard in shards for part in shard):
            raise TypeError("MixedNB models merge only when every part is an nbfast estimator; a scikit-learn part "
                            "keeps no statistics nbfast can merge.")
        merged = clone(first)
        with np.errstate(over="ignore"):  # an overflow is refused below
            class_count = np.sum([np.asarray(model.class_count_, dtype=np.float64) for model in models], axis=0)
        check_statistics({"class_count_": class_count})
        estimators = [type(shard[0])._merge(list(shard)) for shard in shards]
        params = merged._validate_params(first.n_features_in_, len(first.classes_))
        merged._commit_parts(first.classes_.copy(), first.n_features_in_, getattr(first, "feature_names_in_", None),
                             class_count, [index.copy() for index in first.columns_], estimators, params)
        return merged

    def _update_params(self, params):
        # The shared prior follows the discrete models' rules (fit_prior, class_prior).
        self.class_log_prior_ = class_log_prior(self.class_count_, params["class_prior"], self.fit_prior)

    @classmethod
    def _fitted_shapes(cls, fitted, n_classes, n_features):
        return {"class_count_": (n_classes,), "class_log_prior_": (n_classes,)}

    def _validate_fitted(self):
        """The parts (rebuilt and checked on their own) against the whole: columns, features and classes."""
        super()._validate_fitted()
        columns, estimators = self.columns_, self.estimators_
        if not isinstance(columns, list) or not isinstance(estimators, list) or len(columns) != len(estimators) \
                or len(estimators) != len(self._parts()):
            raise ValueError("columns_ and estimators_ must be lists with one entry per part.")
        for index, estimator in zip(columns, estimators):
            if not isinstance(index, np.ndarray) or index.ndim != 1 or index.dtype.kind not in "iu" or index.size == 0 \
                    or index.min() < 0 or index.max() >= self.n_features_in_:
                raise ValueError(
                    f"columns_ must hold non-empty arrays of column indices in [0, {self.n_features_in_})."
                )
            check_is_fitted(estimator)
            if estimator.n_features_in_ != index.size or not np.array_equal(estimator.classes_, self.classes_):
                raise ValueError("a part of MixedNB does not match its columns or the model's classes_.")
        check_counts(self.class_count_, "class_count_")
        check_log_prior(self.class_log_prior_, "class_log_prior_")

    def _set_log_prior(self, log_prior):
        """The shared prior, and every part's."""
        super()._set_log_prior(log_prior)
        for estimator in self.estimators_:
            _contract(estimator)._set_log_prior(log_prior)

    # -------------------------------------------------------- predicting
    def _joint_log_likelihood(self, X):
        log_prior = self.class_log_prior_
        if np.shape(log_prior) != np.shape(self.classes_):
            raise ValueError(f"the class prior has shape {np.shape(log_prior)}, classes_ {np.shape(self.classes_)}: "
                             "a fitted attribute was assigned with the wrong shape.")
        jll = np.tile(log_prior, (X.shape[0], 1))
        with np.errstate(invalid="ignore"):  # -inf - -inf where the prior is 0: reset below
            for estimator, index in zip(self.estimators_, self.columns_):
                jll += estimator.predict_joint_log_proba(_select(X, index))
                jll -= _contract(estimator)._added_log_prior()
        jll[:, np.isneginf(log_prior)] = -np.inf
        return jll

    def _score(self, X, mode):
        return scores_from_joint_log_likelihood(self._joint_log_likelihood(X), mode)

    def _nbfast_parts(self, refusal):
        """(name, estimator, columns) of the fitted parts, all nbfast estimators (TypeError naming ``refusal``)."""
        for (name, estimator), index in zip(self._child_estimators(), self.columns_):
            if not isinstance(estimator, _BaseNB):
                raise TypeError(f"Part {name!r} ({type(estimator).__name__}) is not an nbfast estimator: {refusal}.")
            yield name, estimator, index

    def _pair_terms(self, X, first, second):
        """Each part's terms on its columns; the constant is the shared prior plus each part's baseline."""
        with np.errstate(invalid="ignore"):
            constant = self.class_log_prior_[first] - self.class_log_prior_[second]
        rows, columns, values = [], [], []
        for _, estimator, index in self._nbfast_parts("no per-feature terms"):
            X_part = estimator._check_X(_select(X, index), reset=False)
            terms, part_constant = estimator._pair_terms(X_part, first, second)
            part_prior = estimator._added_log_prior()
            with np.errstate(invalid="ignore"):
                constant += part_constant - (part_prior[first] - part_prior[second])
            terms = sp.coo_array(terms)
            rows.append(terms.row)
            columns.append(index[terms.col])
            values.append(terms.data)
        # a column in several parts gets the sum of their terms
        terms = sp.coo_array((np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))),
                             shape=(X.shape[0], self.n_features_in_))
        return terms.tocsr(), constant

    def _feature_scores(self):
        """The parts' scores side by side, on X's columns (category -1: a part's term is the feature itself)."""
        scores, features, categories = [], [], []
        for _, estimator, index in self._nbfast_parts("no feature scores"):
            part_scores, feature, category = estimator._feature_scores()
            scores.append(part_scores)
            features.append(index[feature])
            categories.append(np.full(len(feature), -1) if category is None else category)
        categories = np.concatenate(categories)
        return np.hstack(scores), np.concatenate(features), None if np.all(categories < 0) else categories

    def _linear_export(self):
        """(coef, intercept) summing the parts' exports; each part keeps its own exact relation."""
        check_is_fitted(self)
        coef = np.zeros((len(self.classes_), self.n_features_in_))
        intercept = self.class_log_prior_.copy()
        for name, estimator, index in self._nbfast_parts("no linear export"):
            if estimator._linear_in_binarized_x():
                raise ValueError(
                    f"Part {name!r} ({type(estimator).__name__}) is linear in its binarized columns only, "
                    "not in X: export the parts separately."
                )
            part_coef, part_intercept = estimator.to_linear()
            np.add.at(coef, (slice(None), index), part_coef)
            with np.errstate(invalid="ignore"):
                intercept += part_intercept - estimator._added_log_prior()
        intercept[np.isneginf(self.class_log_prior_)] = -np.inf
        return coef, intercept

    def _takes_sparse(self):
        try:
            parts = self._parts()
        except (TypeError, ValueError):  # refused at fit
            return True
        return all(_contract(estimator)._takes_sparse() for _, estimator, _ in parts)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        get_tags = _compat.sklearn_module("utils", "tags").get_tags

        try:
            part_tags = [get_tags(estimator) for _, estimator, _ in self._parts()]
        except (TypeError, ValueError):
            return tags
        tags.input_tags.positive_only = any(t.input_tags.positive_only for t in part_tags)
        return tags

    def _check_stored_values(self):
        """Its class prior (each part checks its own values as it is read)."""
        check_normalized_log_prior(self.class_log_prior_, "class_log_prior_")
