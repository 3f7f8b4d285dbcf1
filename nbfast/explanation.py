"""Why a Naive Bayes model decides as it does: its log-odds split exactly into per-feature terms.

A Naive Bayes joint log-likelihood is a sum over the features, so the
difference between two classes' is too:

- :func:`top_features`: for every class, the features that most raise its
  log-odds against the other classes (the model's own per-feature terms; no
  data needed);
- :func:`explain`: for each row, the predicted class, the runner-up, and the
  features whose terms contribute most to the difference of their joint
  log-likelihoods.  The terms are computed by a kernel over the CSR rows
  (nothing is densified) and, with the prior and baseline terms, sum to that
  difference.
"""

import numpy as np

from nbfast import _sparse as sp
from nbfast._kernels.scoring import Output
from nbfast._validation import check_is_fitted
from nbfast.naive_bayes._base import _BaseNB
from nbfast.naive_bayes._count import _BaseDiscreteNB
from nbfast.naive_bayes._wrapper import _WrapperNB

_UNNAMED = "the features have no names: their column indices are shown"


def _check_model(model, what):
    if not isinstance(model, _BaseNB):
        raise TypeError(f"{what} needs a fitted nbfast Naive Bayes estimator, got {type(model).__name__}.")
    check_is_fitted(model)
    if len(model.classes_) < 2:
        raise ValueError(f"{what} compares classes, and this {type(model).__name__} knows a single class "
                         f"({model.classes_[0]!r}).")


def _feature_names(model, feature_names):
    """The names of the model's features (an object array), or None when they have none."""
    n_features = model.n_features_in_
    if feature_names is None:
        feature_names = vars(model).get("feature_names_in_")
        if feature_names is None:
            return None
    names = np.asarray(feature_names, dtype=object)
    if names.shape != (n_features,):
        raise ValueError(f"feature_names must hold one name per feature ({n_features}); got shape {names.shape}.")
    return names


def _name(names, feature, category=None):
    name = f"feature {feature}" if names is None else str(names[feature])
    return name if category is None or category < 0 else f"{name}={category}"


def _label(value):
    return value.item() if isinstance(value, np.generic) else value


# --------------------------------------------------------------- top features
class TopFeatures:
    """The features that most raise each class's log-odds: see :func:`top_features`.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    features : ndarray of shape (n_classes, n)
        Column of X of each class's top terms, best first.
    categories : ndarray of shape (n_classes, n) or None
        The category of each term (CategoricalNB), None when a term is a feature.
    scores : ndarray of shape (n_classes, n)
        How much each term raises the class's log-odds against the other classes.
    names : ndarray of shape (n_classes, n)
        The terms' names (``"feature 17"`` for unnamed features).
    named : bool
        Whether the features have names.
    """

    def __init__(self, classes, features, categories, scores, names, named):
        self.classes, self.features, self.categories = classes, features, categories
        self.scores, self.names, self.named = scores, names, named

    def __getitem__(self, label):
        """[(name, score), ...] of one class, best first."""
        classes = self.classes.tolist()  # Python values: a label of another type is simply not equal (numpy < 2 warns)
        if label not in classes:
            raise KeyError(label)
        c = classes.index(label)
        return list(zip(self.names[c].tolist(), self.scores[c].tolist()))

    def to_dict(self):
        """``{"named": bool, "classes": {class: [{"feature", "category", "name", "score"}, ...]}}`` as JSON values."""
        top = {}
        for c, label in enumerate(self.classes):
            top[str(_label(label))] = [
                {"feature": int(j),
                 "category": None if self.categories is None or self.categories[c, k] < 0 else int(self.categories[c, k]),
                 "name": str(self.names[c, k]), "score": float(self.scores[c, k])}
                for k, j in enumerate(self.features[c])
            ]
        return {"named": self.named, "classes": top}

    def text(self):
        """One block per class: rank, score and name of each term."""
        lines = []
        for c, label in enumerate(self.classes):
            lines.append(f"{_label(label)!r}:")
            lines += [f"  {k + 1:>3}. {score:+10.4f}  {name}"
                      for k, (name, score) in enumerate(zip(self.names[c], self.scores[c]))]
        return "\n".join(lines)

    def __repr__(self):
        note = "" if self.named else f"\n({_UNNAMED})"
        return f"TopFeatures(n_classes={len(self.classes)}, n={self.features.shape[1]}){note}\n{self.text()}"


def _top_columns(scores, n):
    """Indices of the n largest scores of each row, best first (ties: lowest index first; NaN last)."""
    scores = np.where(np.isnan(scores), -np.inf, scores)
    n = min(n, scores.shape[1])
    top = np.empty((scores.shape[0], n), dtype=np.intp)
    for c, row in enumerate(scores):
        threshold = np.partition(row, row.shape[0] - n)[row.shape[0] - n]
        candidates = np.flatnonzero(row >= threshold)  # every tie at the threshold, to order them by index
        top[c] = candidates[np.argsort(-row[candidates], kind="stable")[:n]]
    return top


def _compact_top(table, n):
    """(features, scores), each (n_classes, n), of ``_top_columns(contrast(table.toarray().T), n)`` computed from
    a CompactTable's stored entries, in memory of the order of what the table holds.

    Feature j's value for class c is T[j, c] = v_c(j) + deviation (v_c(j) = default[c] + scale[c] base[j], the
    deviation 0 where (j, c) is not stored) and its score T[j, c] - (S_j - T[j, c]) / (n_classes - 1), S_j the
    sum of row j.  The features that class c does not store score v_c(j) n_classes / (n_classes - 1) - S_j /
    (n_classes - 1): without a per-class scale, one order of the features (by base[j] n_classes - S_j) ranks
    them for every class, so a class's top n among them are within its first n + (its stored entries).
    """
    n_features, n_classes = table.shape
    n = min(n, n_features)
    default = np.asarray(table.default, dtype=np.float64)
    base = None if table.base is None else np.asarray(table.base, dtype=np.float64)
    scale = np.ones(n_classes) if table.scale is None else np.broadcast_to(
        np.asarray(table.scale, dtype=np.float64), (n_classes,))
    indptr, classes = np.asarray(table.indptr), np.asarray(table.classes)
    deviation = np.asarray(table.deviation, dtype=np.float64)
    feature_of = np.repeat(np.arange(n_features), np.diff(indptr))

    def implicit(c, j):
        return default[c] if base is None else default[c] + base[j] * scale[c]

    with np.errstate(invalid="ignore", over="ignore"):
        row_sum = np.bincount(feature_of, weights=deviation, minlength=n_features) + np.sum(default)
        if base is not None:
            row_sum += base * np.sum(scale)

        def score(c, j, value):
            return value - (row_sum[j] - value) / (n_classes - 1)

        shared_order = None
        if base is None or table.scale is None:
            key = row_sum * -1.0 if base is None else base * n_classes - row_sum
            shared_order = np.argsort(np.where(np.isnan(key), -np.inf, -key), kind="stable")
        by_class = np.argsort(classes, kind="stable")
        bounds = np.concatenate([[0], np.cumsum(np.bincount(classes, minlength=n_classes))])
        features = np.empty((n_classes, n), dtype=np.intp)
        scores = np.empty((n_classes, n))
        for c in range(n_classes):
            entries = by_class[bounds[c]:bounds[c + 1]]
            stored = feature_of[entries]
            if shared_order is not None:
                order = shared_order[:n + stored.shape[0]]
            else:
                key = implicit(c, np.arange(n_features)) * n_classes - row_sum
                order = _top_columns(key[None, :], n + stored.shape[0])[0]
            unstored = order[~np.isin(order, stored)][:n]
            candidates = np.concatenate([stored, unstored])
            values = np.concatenate([score(c, stored, implicit(c, stored) + deviation[entries]),
                                     score(c, unstored, implicit(c, unstored))])
            ranked = np.where(np.isnan(values), -np.inf, values)
            best = np.lexsort((candidates, -ranked))[:n]
            features[c], scores[c] = candidates[best], values[best]
    return features, scores


def top_features(model, n=20, feature_names=None):
    """For every class, the features that most raise its log-odds against the other classes.

    The score of feature j for class c is:

    - for the models linear in x (MultinomialNB, ComplementNB, BernoulliNB,
      PoissonNB, MixedNB of those): the exact per-feature term of
      :func:`nbfast.to_linear`, ``coef[c, j]``, minus its mean over the other
      classes: with two classes, how much one unit of feature j (its presence
      for BernoulliNB) raises the log-odds of c against the other;
    - for CategoricalNB: the same for each category v of each feature (the
      linear model on the one-hot encoding), named ``"name=v"``;
    - for GaussianNB: the per-feature log-likelihood ratio of class c against
      each other class, in expectation over class c's distribution (the
      Kullback-Leibler divergence of the two normals), averaged over the other
      classes.

    Parameters
    ----------
    model : fitted nbfast estimator
        With two classes or more.
    n : int, default=20
        Features listed per class.
    feature_names : array-like of shape (n_features,), default=None
        Names of the features (for example a vocabulary's
        ``get_feature_names_out()``); default: the model's
        ``feature_names_in_``, else the column indices (hashed features have
        no names).

    Returns
    -------
    top : TopFeatures
        ``top[label]`` is [(name, score), ...] best first; ``to_dict()``, ``text()``.

    Examples
    --------
    >>> import numpy as np
    >>> import nbfast
    >>> X = np.array([[3, 0, 1], [0, 3, 1], [2, 0, 1], [0, 2, 1]])
    >>> model = nbfast.MultinomialNB().fit(X, ["cats", "dogs", "cats", "dogs"])
    >>> top = nbfast.top_features(model, n=1, feature_names=["meow", "woof", "the"])
    >>> top["cats"][0][0], top["dogs"][0][0]
    ('meow', 'woof')
    """
    _check_model(model, "top_features")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}.")
    names = _feature_names(model, feature_names)
    scored = model
    while isinstance(scored, _WrapperNB):  # a CV search, a calibration: the terms are those of its fitted model
        scored = scored.estimator_
    compact = scored._compact_feature_table() if isinstance(scored, _BaseDiscreteNB) else None
    if compact is not None:  # never the dense (n_classes, n_features) scores: hashed text has 2**20 features
        features, top_scores = _compact_top(compact, int(n))
        categories = None
    else:
        scores, feature, category = scored._feature_scores()
        top = _top_columns(scores, int(n))
        features, top_scores = feature[top], np.take_along_axis(scores, top, axis=1)
        categories = None if category is None else category[top]
    labels = np.array([[_name(names, j, None if categories is None else categories[c, k])
                        for k, j in enumerate(row)] for c, row in enumerate(features)], dtype=object)
    labels = labels.reshape(features.shape)
    return TopFeatures(model.classes_, features, categories, top_scores, labels, names is not None)


# ------------------------------------------------------------------ explain
class Explanation:
    """Why each row got its class: see :func:`explain`.

    For every row i, exactly (to rounding)::

        difference[i] = prior[i] + baseline[i] + terms[i].sum()
                      = prior[i] + baseline[i] + contributions[i].sum() + rest[i]

    Attributes
    ----------
    predicted, runner_up : ndarray of shape (n_samples,)
        The predicted class and the class of next highest joint log-likelihood.
    difference : ndarray of shape (n_samples,)
        jll(predicted) - jll(runner-up), the log of their posterior odds.
    prior : ndarray of shape (n_samples,)
        The difference of the log priors the model adds.
    baseline : ndarray of shape (n_samples,)
        The rest of the difference at the all-zero row (BernoulliNB's absent
        features, PoissonNB's rates, CategoricalNB's category 0, GaussianNB's
        normalization and means).
    terms : scipy.sparse.csr_array of shape (n_samples, n_features)
        Entry (i, j): how much x_ij changes the difference (against x_ij = 0);
        only X's stored entries.
    features : ndarray of shape (n_samples, n)
        The columns of the largest terms in absolute value, largest first
        (-1 pads a row with fewer nonzero terms).
    contributions : ndarray of shape (n_samples, n)
        Their terms (0 for padding).
    names : ndarray of shape (n_samples, n)
        Their names ("" for padding).
    rest : ndarray of shape (n_samples,)
        The sum of the row's other terms.
    n_rest : ndarray of shape (n_samples,)
        How many other nonzero terms.
    named : bool
    """

    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __len__(self):
        return len(self.predicted)

    def row(self, i):
        """Row i as JSON values."""
        shown = self.features[i] >= 0
        return {
            "predicted": _label(self.predicted[i]),
            "runner_up": _label(self.runner_up[i]),
            "difference": float(self.difference[i]),
            "prior": float(self.prior[i]),
            "baseline": float(self.baseline[i]),
            "features": [{"feature": int(j), "name": str(name), "contribution": float(c)} for j, name, c in
                         zip(self.features[i][shown], self.names[i][shown], self.contributions[i][shown])],
            "rest": float(self.rest[i]),
            "n_rest": int(self.n_rest[i]),
        }

    def to_dict(self):
        """``{"named": bool, "rows": [row(0), row(1), ...]}``."""
        return {"named": self.named, "rows": [self.row(i) for i in range(len(self))]}

    def text(self, i, *, label=None):
        """Row i as readable lines (``label`` names the row; default ``row i``)."""
        row = self.row(i)
        lines = [f"{label or f'row {i}'}: predicted {row['predicted']!r} over {row['runner_up']!r}, "
                 f"log-odds {row['difference']:+.4f}",
                 f"  {row['prior']:+10.4f}  prior",
                 f"  {row['baseline']:+10.4f}  baseline (every feature 0)"]
        lines += [f"  {f['contribution']:+10.4f}  {f['name']}" for f in row["features"]]
        if row["n_rest"]:
            lines.append(f"  {row['rest']:+10.4f}  the other {row['n_rest']} features")
        return "\n".join(lines)

    def __repr__(self):
        shown = [self.text(i) for i in range(min(len(self), 3))]
        more = [f"... ({len(self) - 3} more rows)"] if len(self) > 3 else []
        note = [] if self.named else [f"({_UNNAMED})"]
        return "\n".join([f"Explanation(n_samples={len(self)}, n={self.features.shape[1]})"] + note + shown + more)


def _canonical(terms):
    """The terms with each column once per row (X may store a column twice); never modifies X's arrays."""
    if terms.has_canonical_format:
        return terms
    terms = terms.copy()
    terms.sum_duplicates()
    return terms


def _largest_terms(terms, n):
    """Per row: the n terms of largest absolute value (columns, values), the rest's sum and count."""
    n_rows = terms.shape[0]
    row_of = np.repeat(np.arange(n_rows), np.diff(terms.indptr))
    data, indices = terms.data, terms.indices
    magnitude = np.abs(data)
    magnitude[np.isnan(magnitude)] = np.inf
    order = np.lexsort((indices, -magnitude, row_of))
    order = order[data[order] != 0]
    rows = row_of[order]
    rank = np.arange(order.shape[0]) - np.searchsorted(rows, rows, side="left")
    shown = rank < n
    features = np.full((n_rows, n), -1, dtype=np.intp)
    contributions = np.zeros((n_rows, n))
    features[rows[shown], rank[shown]] = indices[order[shown]]
    contributions[rows[shown], rank[shown]] = data[order[shown]]
    total = np.bincount(row_of, weights=data, minlength=n_rows)
    rest = total - contributions.sum(axis=1)
    n_rest = np.bincount(rows[~shown], minlength=n_rows)
    return features, contributions, rest, n_rest


def explain(model, X, n=10, *, feature_names=None):
    """For each row: predicted class, runner-up, and the features that decide between them.

    The difference of the two classes' joint log-likelihoods (their log
    posterior odds) splits exactly into the prior term, a baseline (the
    difference for a row of zeros) and one term per stored entry of the row:
    how much that feature's value moves the difference (against the value 0).
    The terms are computed by a kernel over the CSR rows; X is never densified
    (dense input is made CSR, its zeros left out).

    Parameters
    ----------
    model : fitted nbfast estimator
        With two classes or more.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    n : int, default=10
        Terms listed per row, largest in absolute value first.
    feature_names : array-like of shape (n_features,), default=None
        As for :func:`top_features`.

    Returns
    -------
    explanation : Explanation
        ``explanation.row(i)``, ``text(i)``, ``to_dict()``; ``terms`` holds
        every term.

    Examples
    --------
    >>> import numpy as np
    >>> import nbfast
    >>> X = np.array([[3, 0, 1], [0, 3, 1], [2, 0, 1], [0, 2, 1]])
    >>> model = nbfast.MultinomialNB().fit(X, ["cats", "dogs", "cats", "dogs"])
    >>> e = nbfast.explain(model, [[2, 0, 1]], n=2, feature_names=["meow", "woof", "the"])
    >>> e.row(0)["predicted"], e.row(0)["features"][0]["name"]
    ('cats', 'meow')
    >>> bool(np.isclose(e.prior[0] + e.baseline[0] + e.terms.sum(), e.difference[0]))
    True
    """
    _check_model(model, "explain")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}.")
    names = _feature_names(model, feature_names)
    X = model._predict_input(X)
    jll = model._score(X, Output.JOINT_LOG_LIKELIHOOD)
    rows = np.arange(jll.shape[0])
    first = np.argmax(jll, axis=1)
    others = jll.copy()
    others[rows, first] = -np.inf
    second = np.argmax(others, axis=1)
    with np.errstate(invalid="ignore"):
        difference = jll[rows, first] - jll[rows, second]
        terms, constant = model._pair_terms(X, first, second)
        log_prior = model._added_log_prior()
        prior = log_prior[first] - log_prior[second]
        baseline = constant - prior
    terms = _canonical(sp.csr_array(terms))
    features, contributions, rest, n_rest = _largest_terms(terms, int(n))
    shown = features >= 0
    labels = np.full(features.shape, "", dtype=object)
    labels[shown] = [_name(names, j) for j in features[shown]]
    classes = model.classes_
    return Explanation(
        predicted=classes[first], runner_up=classes[second], difference=difference, prior=prior, baseline=baseline,
        terms=terms, features=features, contributions=contributions, names=labels, rest=rest, n_rest=n_rest,
        named=names is not None,
    )
