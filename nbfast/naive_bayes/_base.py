"""The estimator contract, declared once: what every nbfast Naive Bayes estimator provides, and the fit /
partial_fit protocol and predict family built on it.

Three abstract classes, each adding a layer of the contract (``ABCMeta``: a subclass that leaves an abstract
hook out cannot be instantiated):

- :class:`_BaseNB`, every estimator: ``fit``, ``_score`` (the fused kernel's output in a given mode for
  validated X) and ``_check_stored_values`` (the values a model file may hold: each estimator states its own,
  so none is left unchecked) are abstract; the predict family, the class prior (``_log_prior``,
  ``_set_log_prior``, ``_uses_class_prior``: ``nbfast.with_prior``, ``MixedNB``), parameter checks
  (``_validate_params``, once per fit and on every rebuilt model, returns the checked values that
  ``_update_params`` and the derived tables read: ``_fitted_params``; the parameters scoring reads,
  ``_scoring_params``, before every prediction: ``set_params`` may change them after fit), the fitted state
  (``_fitted_shapes``, ``_validate_fitted``, ``_saved_attributes``, ``_saved_form``: model files, interop,
  :func:`rebuild`), merging (``_merge``: ``nbfast.merge``, ``nbfast.dask``) and explanation
  (``_feature_scores``: ``nbfast.top_features``) have defaults.
- :class:`_StatisticsNB`, estimators fitted from sufficient statistics that add up over rows: ``_init_stats``,
  ``_accumulate`` and ``_update_params`` are abstract; fit, partial_fit and merging (``_merge_stats``) are
  built on them, and soft labels (``_soft_label_accumulator``, ``_log_parameter_prior``:
  ``nbfast.SemiSupervisedNB``) are optional.
- :class:`_LinearNB`, estimators whose joint log-likelihood is linear in (possibly binarized) x: the abstract
  ``_linear_terms`` gives the scoring table and bias, from which ``_score``, the export as a linear model
  (``_linear_export``: ``nbfast.to_linear``) and the per-feature terms (``_pair_terms``: ``nbfast.explain``)
  follow.

What an estimator can do is declared by class attributes, never discovered: ``_linear`` (scored through
``_linear_terms``), ``_keeps_observed_count`` (the optional ``observed_count_`` statistic), ``_takes_missing``,
``_non_negative``, ``_composite``, the attribute lists ``_stat_names``, ``_fitted_attributes``,
``_compact_attributes`` and ``_float64_attributes``.  Which representation the statistics and tables have (dense
or compact) is known to :mod:`nbfast.naive_bayes._counts` and :mod:`nbfast.naive_bayes._tables` only.

Derived tables (what predictions read, derived from the statistics) belong to the model: ``_derived`` builds
one on first use into the dict ``_derived_tables``, which ``_forget_derived`` replaces; neither pickles,
copies nor ``get_params`` carry it (a copy derives its own).

Concurrency: any number of threads may predict with one fitted model at once, and ``partial_fit`` calls on
one model from several threads run one at a time (a per-instance lock: no batch is lost).  ``fit``,
``partial_fit`` or ``set_params`` while another thread predicts with the same model never crashes (fit
replaces the arrays a prediction reads rather than writing into them, and each prediction checks the shapes
of what it reads), but that prediction may use a mix of the two states or raise ValueError; tables derived
from such a mix are forgotten when the refit ends.  Refit a copy and swap it in instead.

Operations on fitted models (decision, linear, merge, interop, persistence, Dask, the command line) call
these hooks; none of them inspects an estimator to learn which it has.
"""

import copy
from abc import ABCMeta, abstractmethod

import numpy as np

from nbfast._compat import BaseEstimator, ClassifierMixin
from nbfast._kernels.scoring import Output
from nbfast._kernels.threads import effective_n_threads
from nbfast._params import check_parameters, checks_parameters, declare, uses_n_jobs
from nbfast._validation import _feature_names, check_is_fitted, check_labels, check_sample_weight, check_X, check_y
from nbfast.naive_bayes._counts import check_statistics, for_next_batch
from nbfast.naive_bayes._labels import encode_labels, unique_classes
from nbfast.naive_bayes._locking import serialized
from nbfast.naive_bayes._merging import check_mergeable
from nbfast.naive_bayes._sklearn import to_sklearn
from nbfast.naive_bayes._stored import OBSERVED_COUNT, saved_form
from nbfast.naive_bayes._tables import as_table, check_scoring_table
from nbfast.naive_bayes._terms import contrast, pair_terms, terms_matrix


class _BaseNB(ClassifierMixin, BaseEstimator, metaclass=ABCMeta):
    """Naive Bayes estimator: the contract every estimator meets, and the predict family.

    Attributes set by every subclass at fit: ``classes_``, ``n_features_in_`` and,
    when X has string column names, ``feature_names_in_``.
    """

    #: Whether the joint log-likelihood is linear in (possibly binarized) x, through ``_linear_terms``
    #: (:class:`_LinearNB`): such a model has a scoring table of a row per column of its input.
    _linear = False
    #: Count models refuse negative values in X.
    _non_negative = False
    #: Whether partial_fit and the predictions take nbfast's CSR buffers (``_sparse.Rows``) as they are: X checked
    #: by ``_check_X``, counted and scored by the kernels alone (the command line gives others a scipy matrix).
    _reads_rows = False
    #: Names of the fitted sufficient statistics that partial_fit keeps adding to.
    _stat_names = ()
    #: Attributes that fully determine a fitted model, in an order in which setting them (``setattr``) rebuilds a
    #: working model: persistence, interop with scikit-learn and merging restore models through these.
    #: ``feature_names_in_`` is handled separately (it is optional).
    _fitted_attributes = ("classes_", "n_features_in_")
    #: The same for a model in compact form (see :meth:`_saved_attributes`), or empty when the
    #: estimator has none: its statistics without the dense scikit-learn attributes.
    _compact_attributes = ()
    #: Fitted attributes read as float64 whatever numeric dtype a model file stores them in (a table of another
    #: dtype would make the scores of that dtype, or fail to add to them).
    _float64_attributes = ()
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
    #: What each parameter may be, in scikit-learn's language (see :mod:`nbfast._params`).
    _parameter_constraints = declare({})
    #: The parameters that scoring reads: checked again before every prediction (set_params may change them).
    _scoring_params = ()
    #: The tables derived from the fitted state (:meth:`_derived`); None until the first is derived.
    _derived_tables = None
    #: The last fit's parameters as :meth:`_validate_params` returned them, by name (see :meth:`_fitted_params`).
    _fit_params = None

    # ------------------------------------------------------------ the contract
    @abstractmethod
    def fit(self, X, y, sample_weight=None):
        """Fit the model to X, y; a call that raises leaves the model unchanged."""

    @abstractmethod
    def _score(self, X, mode):
        """``mode``'s output (an ``Output``) for X as ``_check_X`` returned it: joint log-likelihoods, posteriors,
        log-posteriors (n_samples, n_classes) or the index of the most probable class (n_samples,)."""

    @abstractmethod
    def _check_stored_values(self):
        """Refuse (ValueError naming the attribute) stored values that no fit produces, on every model read from a
        file and before one is saved: a file comes from a stranger.  A composite's parts check their own."""

    # -------------------------------------------------------------- parameters
    def _validate_params(self, n_features, n_classes):
        """Check every parameter, against its declared constraints (unless checked on the way into this call:
        :func:`nbfast._params.checks_parameters`) and the data's shape; raise before any state changes.

        Returns the checked values the fitted parameters derive from (a dict the fit passes to :meth:`_commit`):
        a parameter is checked once per fit.  Subclasses add the checks that need the shape of the data.
        """
        check_parameters(self)
        return {}

    def _fitted_params(self):
        """The checked parameters the tables derived on first use read: the last fit's (as in scikit-learn, a
        ``set_params`` takes effect at the next fit), or, fitted attributes set by hand, its own, checked once."""
        params = self._fit_params
        if params is None:
            params = self._fit_params = self._validate_params(self.n_features_in_, len(self.classes_))
        return params

    def _ignores_missing(self):
        """Whether NaN in X is a missing value, left out of fit and of each row's score (``missing="ignore"``).

        The default, False, is for estimators without the ``missing`` parameter: NaN raises.
        """
        return False

    def _check_X(self, X, reset):
        """Validate X (fit and predict); subclasses may transform it further."""
        return check_X(X, self, reset=reset, non_negative=self._non_negative, allow_nan=self._ignores_missing())

    # ---------------------------------------------------------- fitted state
    def _fitted_observed_count(self):
        """``observed_count_`` of a model fitted with missing values, else None (the attribute is optional)."""
        return self.__dict__.get(OBSERVED_COUNT)

    @classmethod
    def _fitted_shapes(cls, fitted, n_classes, n_features):
        """{name: shape} of the fitted arrays of a model with this many classes and features.

        A list of shapes stands for a list of arrays.  ``fitted`` holds the attributes about to be set (for shapes
        that depend on their values); an attribute not listed is checked by :meth:`_validate_fitted` only.
        """
        return {}

    def _validate_fitted(self):
        """Check the fitted attributes a kernel will trust (shapes, dtypes) against each other.

        Called on every model rebuilt from attributes (:func:`rebuild`); the default checks nothing more
        (a composite's parts are checked as they are rebuilt).
        """

    #: The saved form (:class:`~nbfast.naive_bayes._stored.SavedForm`) whose attributes are the given names, or None.
    _saved_form = classmethod(saved_form)
    #: None, or a function turning the fitted attributes of a file saved in an older layout into the current one.
    _older_layout = None

    def _saved_attributes(self):
        """The attributes that fully determine this fitted model: ``_fitted_attributes``, or
        ``_compact_attributes`` for a model in compact form (what its model file stores)."""
        return type(self)._fitted_attributes

    def _commit(self, stats, classes, n_features, feature_names, params):
        """Install fresh statistics and derive the parameters with ``params`` (what :meth:`_validate_params`
        returned): the only place fit mutates self."""
        self.classes_ = classes
        self.n_features_in_ = n_features
        if feature_names is not None:
            self.feature_names_in_ = feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        if OBSERVED_COUNT not in stats:  # left by an earlier fit with missing values
            self.__dict__.pop(OBSERVED_COUNT, None)
        for name, value in stats.items():
            setattr(self, name, value)
        self._derive_params(params)

    def _derive_params(self, params):
        """Derive the fitted parameters from the statistics just installed and ``params``, then forget the derived
        tables again: a prediction in another thread may have derived one from a part of the new state meanwhile."""
        self._fit_params = params
        self._update_params(params)
        self._forget_derived()

    def _update_params(self, params):
        """Recompute the model's parameters from its statistics (installed by :meth:`_commit`) and ``params``."""

    # -------------------------------------------------------- derived tables
    def _build_tables(self):
        """Build the tables predictions need: ``fit`` calls it (``partial_fit`` and merging leave it to the
        first prediction).  The default builds nothing."""

    def _derived(self, name, build):
        """The value ``build()`` derived from this model's state, built on first use and kept until
        :meth:`_forget_derived` (which the fit protocol and every setter of a fitted attribute call)."""
        tables = self._derived_tables
        if tables is None:
            tables = self._derived_tables = {}
        value = tables.get(name)
        if value is None:
            value = tables[name] = build()
        return value

    def _derived_from(self, name, table, build):
        """``build()`` derived from ``table``, kept while the model scores with that very table (tables are never
        modified in place: a new one is a new array)."""
        built = self._derived(name, lambda: (table, build()))
        if built[0] is not table:
            built = self._derived_tables[name] = (table, build())
        return built[1]

    def _forget_derived(self):
        """Drop the derived tables (the state they came from changed): replaced, not cleared, so that a
        prediction in another thread keeps the ones it is reading."""
        self._derived_tables = {}

    def __getstate__(self):
        state = dict(super().__getstate__())
        if "_derived_tables" in state:  # a copy derives its own tables, on first use
            state["_derived_tables"] = {}
        return state

    # --------------------------------------------------------------- the prior
    def _log_prior(self):
        """The fitted log class prior (n_classes,)."""
        return np.asarray(self.class_log_prior_, dtype=np.float64)

    def _set_log_prior(self, log_prior):
        """Replace the fitted class prior (a fitted copy deployed on new class frequencies)."""
        self.class_log_prior_ = np.array(log_prior, dtype=np.float64)

    def _set_prior_param(self, prior):
        """Set the class-prior hyperparameter, ``_prior_param``, to ``prior``: a later refit keeps the new prior."""
        self.set_params(**{self._prior_param: prior})

    def _uses_class_prior(self):
        """Whether the joint log-likelihood adds the class prior (ComplementNB's does not, as in scikit-learn)."""
        return True

    def _added_log_prior(self):
        """The log prior this model adds to its joint log-likelihood (zeros when it adds none)."""
        log_prior = self._log_prior()
        return log_prior if self._uses_class_prior() else np.zeros_like(log_prior)

    # ------------------------------------------------ linear export, explanation
    def _linear_export(self):
        """(coef (n_classes, n_features), intercept (n_classes,)) of the joint log-likelihood (see ``to_linear``);
        TypeError for a model that is not linear in x (ValueError for a configuration that is not)."""
        raise TypeError(f"{type(self).__name__}'s joint log-likelihood is not linear in x: it cannot be exported "
                        "as (coef, intercept).")

    def _linear_in_binarized_x(self):
        """Whether ``_linear_export`` is linear in binarized x rather than in x (BernoulliNB with ``binarize``)."""
        return False

    def _pair_terms(self, X, first, second):
        """Per-feature terms of jll[i, first[i]] - jll[i, second[i]] (class indices of each row), for X as
        ``_check_X`` returned it: (terms, CSR of X's shape with the term of each stored entry x_ij: the change
        of the difference when x_ij goes from 0 to its value; constant (n_samples,): the difference at the
        all-zero row, the priors included).  Naive Bayes log-likelihoods are sums over the features, so the
        difference splits exactly into these."""
        raise TypeError(f"{type(self).__name__} does not split its joint log-likelihood into per-feature terms.")

    def _feature_scores(self):
        """How much each term raises each class's log-odds against the other classes (two classes or more).

        The default contrasts the coefficients of ``_linear_export``: each class's per-feature term minus the mean
        of the other classes' (for two classes, the exact per-feature term of their log-odds).

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

    # ------------------------------------------------------------------ merging
    @classmethod
    def _complement_stats(cls, whole, part):
        """{statistic: value} of the data of ``whole`` without the rows of ``part`` (a model fitted on a subset of
        them, with the same classes), or None when statistics do not subtract (then the rows are refitted).

        Out-of-fold scoring (:class:`nbfast.CalibratedNB`) uses it so as not to refit a model per fold.
        """
        return None

    @classmethod
    def _merge(cls, models):
        """The model fitted on the union of the (disjoint) shards of ``models``, all of this class and fitted."""
        raise TypeError(f"{cls.__name__} models cannot be merged.")

    # -------------------------------------------------------------- predicting
    def _predict_input(self, X):
        """X checked for scoring, after the parameters that scoring reads."""
        check_is_fitted(self)
        check_parameters(self, self._scoring_params)
        return self._check_X(X, reset=False)

    @uses_n_jobs
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
        classes, class_index = self._predict_index(X)
        return classes[class_index]

    @uses_n_jobs
    def _predict_index(self, X):
        """(``classes_``, each sample's most probable class as an index in it): :meth:`predict` before the labels
        are gathered, for callers that map each class to something once (the command line's CSV fields)."""
        X = self._predict_input(X)
        classes = self.classes_  # read once, before scoring: a refit in another thread may replace it
        class_index = self._score(X, Output.ARGMAX)
        if class_index.size and class_index.max() >= len(classes):
            raise ValueError("the model's classes changed while predicting (it was refitted in another thread).")
        return classes, class_index

    @uses_n_jobs
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

    @uses_n_jobs
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

    def _takes_sparse(self):
        """Whether the model takes sparse X (every nbfast estimator does; a composite, when all its parts do)."""
        return True

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._takes_sparse()
        tags.input_tags.positive_only = self._non_negative
        try:
            tags.input_tags.allow_nan = self._ignores_missing()
        except ValueError:  # an invalid ``missing``: refused at fit
            tags.input_tags.allow_nan = False
        tags.classifier_tags.poor_score = True
        return tags


class _StatisticsNB(_BaseNB):
    """An estimator fitted from sufficient statistics that add up over rows: fit, partial_fit and merging are
    built on ``_init_stats``, ``_accumulate`` and ``_update_params``."""

    #: Whether a batch's ``_accumulate`` reads the statistics alone, never the fitted state, so that batches
    #: can be counted into one set of statistics before any parameter is derived (BatchFit).
    _additive_stats = True

    @abstractmethod
    def _init_stats(self, n_classes, n_features):
        """Return a dict of zeroed sufficient statistics."""

    @abstractmethod
    def _accumulate(self, stats, X, y_index, sample_weight, rows=None):
        """Add the statistics of (X, y) into ``stats`` (in place, or by replacing an entry); with ``rows`` (valid
        row indices), those of these rows only (``y_index`` and ``sample_weight`` keep a value per row of X)."""

    @abstractmethod
    def _update_params(self, params):
        """Recompute the model's parameters from its statistics and ``params`` (from ``_validate_params``)."""

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

        Called on every model rebuilt from attributes (:func:`rebuild`). Checks that the sufficient
        statistics in ``_fitted_attributes`` have the shapes ``_init_stats`` gives; subclasses add the
        checks of their tables.
        """
        n_classes, n_features = len(self.classes_), self.n_features_in_
        for name, expected in self._init_stats(n_classes, n_features).items():
            if name in self._fitted_attributes and isinstance(expected, np.ndarray):
                value = getattr(self, name)
                if np.shape(value) != expected.shape:
                    raise ValueError(f"{name} has shape {np.shape(value)}, expected {expected.shape}.")

    def _observed_count(self):
        """Weighted number of observed values of each feature per class, (n_classes, n_features) read-only:
        ``observed_count_`` of a model fitted with missing values, else the class count of every feature."""
        observed = self._fitted_observed_count()
        if observed is not None:
            return observed
        class_count = np.asarray(self.class_count_, dtype=np.float64)
        return np.broadcast_to(class_count[:, None], (class_count.shape[0], self.n_features_in_))

    def _fitted_stat_names(self):
        """``_stat_names`` and, in a model that holds it, ``observed_count_``."""
        return self._stat_names + ((OBSERVED_COUNT,) if self._fitted_observed_count() is not None else ())

    def _current_stats(self):
        """The fitted statistics for the next batch to add into: a prediction in another thread may be reading
        the fitted arrays, so they are never written in place (partial_fit swaps the references at the end).
        """
        return {name: for_next_batch(getattr(self, name)) for name in self._fitted_stat_names()}

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
        if any(model._fitted_observed_count() is not None for model in models):
            merged[OBSERVED_COUNT] = np.sum([model._observed_count() for model in models], axis=0)
        return merged

    @classmethod
    def _merge(cls, models):
        """The model fitted on the union of the (disjoint) shards of ``models``, all of this class and fitted.

        The default checks that the models agree (parameters, classes, features), sets :meth:`_merge_stats` on a
        copy of the first and derives the parameters; estimators whose shards may differ further (GaussianNB
        unites classes) override it.
        """
        check_mergeable(cls, models)
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below
            stats = cls._merge_stats(models)
        check_statistics(stats)
        merged = copy.deepcopy(models[0])
        for name, value in stats.items():
            setattr(merged, name, value)
        merged._derive_params(merged._validate_params(merged.n_features_in_, len(merged.classes_)))
        return merged

    # ---------------------------------------------------------------- fitting
    @checks_parameters()
    def fit(self, X, y, sample_weight=None):
        """Fit the model to X, y.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors.
        y : array-like of shape (n_samples,)
            Target values (any sortable label type: ints, strings, ...); a label ending in NUL is refused
            (numpy's string arrays drop trailing NULs: ``"spam\\x00"`` would merge with ``"spam"``).
        sample_weight : array-like of shape (n_samples,), default=None
            Weights applied to individual samples (1. for unweighted).

        Returns
        -------
        self : object
            The fitted estimator. A call that raises leaves it unchanged (scikit-learn's may
            leave ``classes_`` of the failed call behind).
        """
        feature_names = _feature_names(X)
        X = self._check_X(X, reset=True)
        y = check_y(y, X.shape[0])
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        classes = unique_classes(y)
        self._fit_checked(X, encode_labels(classes, y), classes, sample_weight, feature_names)
        self._build_tables()
        return self

    def _fit_checked(self, X, y_index, classes, sample_weight, feature_names=None, rows=None):
        """``fit`` on X as ``_check_X(X, reset=True)`` returned it, ``y_index`` the row's index into ``classes``
        (sorted, unique): what a cross-validated search calls on the rows of an X it checked once, or on the
        subset ``rows`` of them (valid row indices; counted in place where the model can).  The tables of
        predictions are left to the first one.  Returns self."""
        params = self._validate_params(X.shape[1], len(classes))
        stats = self._init_stats(len(classes), X.shape[1])
        self._accumulate(stats, X, y_index, sample_weight, rows)
        return self._fit_statistics(stats, classes, X.shape[1], params, feature_names)

    def _fit_statistics(self, stats, classes, n_features, params, feature_names=None):
        """``fit`` from the statistics of its rows, counted elsewhere (a cross-validated search counts every
        fold at once), and ``params`` from :meth:`_validate_params`: the statistics are checked, then installed."""
        check_statistics(stats)
        self._commit(stats, classes, n_features, feature_names, params)
        return self

    @serialized
    @checks_parameters()
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Incremental fit on a batch of samples; calls from several threads run one at a time (no batch lost).

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
        feature_names = _feature_names(X)
        X = self._check_X(X, reset=first_call)
        y = check_y(y, X.shape[0])
        sample_weight = check_sample_weight(sample_weight, X.shape[0])
        if first_call:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit.")
            classes = unique_classes(check_labels(classes))
            params = self._validate_params(X.shape[1], len(classes))
            stats = self._init_stats(len(classes), X.shape[1])
        else:
            if classes is not None and not np.array_equal(self.classes_, unique_classes(check_labels(classes))):
                raise ValueError(
                    f"`classes={classes!r}` is not the same as on last call to partial_fit, was: {self.classes_!r}"
                )
            classes = self.classes_
            params = self._validate_params(X.shape[1], len(classes))
            stats = self._current_stats()
        y_index = encode_labels(classes, y)
        self._accumulate(stats, X, y_index, sample_weight)
        check_statistics(stats)  # before any of them is installed: a refused batch leaves the model as it was
        if first_call:
            self._commit(stats, classes, X.shape[1], feature_names, params)
        else:
            for name, value in stats.items():  # _accumulate may have replaced (grown) a statistic
                setattr(self, name, value)
            self._derive_params(params)
        return self


class _LinearNB(_BaseNB):
    """An estimator whose joint log-likelihood is linear in f(x) (x, or x binarized):
    jll = bias + f(X) @ table, with the table and bias of ``_linear_terms``.  Independent of how the table is
    fitted: the count models combine it with :class:`_StatisticsNB`, ``DiscriminativeNB`` fits it by an
    optimizer."""

    _linear = True

    @abstractmethod
    def _linear_terms(self):
        """(table (n_features, n_classes), bias (n_classes,), binarize, threshold) of the scoring kernel: a dense
        table or a :class:`~nbfast.naive_bayes._tables.CompactTable`; the bias includes the class prior."""

    def _score_outside_the_linear_form(self, X, mode):
        """The scores when the linear terms cannot give them exactly (an infinite weight), else None."""
        return None

    def _score(self, X, mode):
        exact = self._score_outside_the_linear_form(X, mode)
        if exact is not None:
            return exact
        return self._score_linear(X, mode, *self._linear_terms())

    def _score_linear(self, X, mode, table, bias, binarize, threshold):
        """Run the fused kernel in ``mode`` on validated CSR X, with this (n_rows, n_classes) table and bias."""
        bias = np.ascontiguousarray(bias, dtype=np.float64)
        check_scoring_table(table, bias, X.shape[1], len(self.classes_), self._log_prior())
        n_threads = effective_n_threads(X.nnz + X.shape[0] * table.shape[1])
        return as_table(table).score(X, bias, binarize, threshold, mode, n_threads)

    def _with_missing_rows(self, table, missing_rows):
        """``table`` (n_rows, n_classes) with ``missing_rows()`` (n_features, n_classes) stacked under it, built
        once per table: a missing x_j becomes an entry of value 1 in column n_rows + j, whose row takes back the
        term of feature j that the bias holds."""
        return self._derived_from("missing_rows", table,
                                  lambda: np.ascontiguousarray(np.vstack([table, missing_rows()])))

    def _linear_export(self):
        table, bias = self._linear_terms()[:2]
        return as_table(table).toarray().T, bias

    def _pair_terms(self, X, first, second):
        table, bias, binarize, threshold = self._linear_terms()
        terms, constant = pair_terms(X, table, bias, first, second, binarize=binarize, threshold=threshold)
        return terms_matrix(X, terms), constant
