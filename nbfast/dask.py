"""Naive Bayes on Dask arrays, beyond one machine (optional extra ``nbfast[dask]``).

:func:`fit` computes each row block's sufficient statistics (a fresh copy of
the estimator ``partial_fit`` on the block, with every class), then merges them
pairwise-in-groups up a tree with :func:`nbfast.merge`: only statistics travel,
never the data.  :func:`predict` and :func:`predict_proba` score every block
with ``map_blocks``; the fitted model enters the graph once.

Blocks may be scipy CSR matrices or dense arrays.  The work runs on Dask's
current scheduler: a ``distributed.Client`` connected to a cluster, if one is
active.
"""

import numpy as np

from nbfast import _compat
from nbfast import _sparse as sp
from nbfast._validation import check_is_fitted
from nbfast.merge import merge
from nbfast.naive_bayes._base import _BaseNB, unique_classes
from nbfast.naive_bayes._capabilities import refuse_unless_incremental

dask = _compat.dask()
da = _compat.dask_array()

__all__ = ["fit", "predict", "predict_proba"]


def _row_blocks(X):
    """X as a 2-D dask array with one block per row range (all columns in each block)."""
    if not isinstance(X, da.Array):
        raise TypeError(f"X must be a dask array, got {type(X).__name__}; wrap it with dask.array.from_array.")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D, got {X.ndim} dimension(s).")
    return X if X.numblocks[1] == 1 else X.rechunk({1: -1})


def _per_block(values, X, name):
    """One piece of ``values`` (labels or weights) per row block of X: delayed blocks or numpy slices."""
    rows = X.chunks[0]
    n_blocks = len(rows)
    known = not any(np.isnan(r) for r in rows)
    if values is None or np.isscalar(values):
        return [values] * n_blocks
    if isinstance(values, da.Array):
        if values.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got shape {values.shape}.")
        if known and values.chunks[0] != rows:
            if np.isnan(values.shape[0]) or values.shape[0] != X.shape[0]:
                raise ValueError(f"Found input variables with inconsistent numbers of samples: "
                                 f"[{X.shape[0]}, {values.shape[0]}] ({name})")
            values = values.rechunk((rows,))
        elif values.numblocks[0] != n_blocks:
            raise ValueError(f"X has unknown block sizes: pass {name} as a dask array with the same row blocks "
                             "as X, or call X.compute_chunk_sizes().")
        return list(values.to_delayed())
    values = np.asarray(values)
    if not known:
        raise ValueError(f"X has unknown block sizes: pass {name} as a dask array with the same row blocks, "
                         "or call X.compute_chunk_sizes().")
    if values.ndim != 1 or values.shape[0] != X.shape[0]:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: [{X.shape[0]}, "
                         f"{values.shape[0] if values.ndim else values!r}] ({name})")
    bounds = np.cumsum((0,) + rows)
    return [values[start:stop] for start, stop in zip(bounds[:-1], bounds[1:])]


def _fresh(estimator):
    """An unfitted estimator with the same parameters."""
    return type(estimator)(**estimator.get_params(deep=False))


def _fit_block(template, X_parts, y_parts, weight_parts, classes):
    """A fresh copy of ``template`` fitted on the row blocks given, joined (several when some weigh nothing)."""
    if len(X_parts) > 1:
        X = sp.vstack(X_parts, format="csr") if sp.issparse(X_parts[0]) else np.concatenate(X_parts)
        y = np.concatenate([np.asarray(part) for part in y_parts])
        weights = None if weight_parts[0] is None else np.concatenate([np.asarray(w) for w in weight_parts])
    else:
        X, y, weights = X_parts[0], y_parts[0], weight_parts[0]
    if X.shape[0] == 0:
        return None
    return _fresh(template).partial_fit(X, y, classes=classes, sample_weight=weights)


def _weighs_nothing(sample_weight):
    return bool(np.size(sample_weight)) and not np.any(np.asarray(sample_weight))


def _groups(weightless):
    """Indices of the row blocks grouped so that no group weighs nothing, unless every block does: a block
    whose weights are all 0 joins the next block (the last ones the block before them).  Such rows still count
    where weights do not apply (CategoricalNB's categories, GaussianNB's epsilon_), as in one fit on all rows."""
    groups, pending = [], []
    for index, nothing in enumerate(weightless):
        pending.append(index)
        if not nothing:
            groups.append(pending)
            pending = []
    if pending:
        if groups:
            groups[-1].extend(pending)
        else:
            groups.append(pending)
    return groups


def _merge_group(models):
    models = [m for m in models if m is not None]
    return merge(models) if models else None


def _block_classes(y):
    return unique_classes(np.asarray(y))


def fit(estimator, X, y, classes=None, sample_weight=None, *, split_every=8):
    """Fit a copy of ``estimator`` on a dask array, block by block, and return it.

    Parameters
    ----------
    estimator : nbfast estimator
        Gives the model and its parameters; it is not modified.
    X : dask.array.Array of shape (n_samples, n_features)
        Blocks are scipy CSR matrices or dense arrays; column blocks are joined.
    y : dask.array.Array or array-like of shape (n_samples,)
        Labels, aligned with X's row blocks (rechunked when needed).
    classes : array-like of shape (n_classes,), default=None
        Every label; computed from y (one extra pass over y) when None.
    sample_weight : dask.array.Array, array-like of shape (n_samples,) or float, default=None
        Weights of the samples.
    split_every : int, default=8
        How many models each node of the reduction tree merges.

    Returns
    -------
    model : estimator
        A fitted, local (in-memory) estimator equal, to rounding, to
        ``estimator.fit(X, y, sample_weight)`` on the whole data.
    """
    if not isinstance(estimator, _BaseNB):
        raise TypeError(f"estimator must be an nbfast Naive Bayes estimator, got {type(estimator).__name__}.")
    refuse_unless_incremental(estimator, "nbfast.dask.fit")
    if split_every < 2:
        raise ValueError(f"split_every must be at least 2, got {split_every}.")
    X = _row_blocks(X)
    y_parts = _per_block(y, X, "y")
    if any(part is None for part in y_parts):
        raise ValueError("y is required.")
    weight_parts = _per_block(sample_weight, X, "sample_weight")
    # one pass over the labels (when classes is None) and the weights (when given per sample)
    label_sets = [dask.delayed(_block_classes)(part) for part in y_parts] if classes is None else []
    per_sample = sample_weight is not None and not np.isscalar(sample_weight)
    weightless = [dask.delayed(_weighs_nothing)(part) for part in weight_parts] if per_sample else []
    computed = dask.compute(*label_sets, *weightless)
    if classes is None:
        classes = unique_classes(np.concatenate(computed[:len(label_sets)]))
    else:
        classes = unique_classes(np.asarray(classes))
    weightless = computed[len(label_sets):] or [False] * len(y_parts)
    template = _fresh(estimator)
    X_parts = X.to_delayed().ravel()
    nodes = [
        dask.delayed(_fit_block)(template, [X_parts[i] for i in group], [y_parts[i] for i in group],
                                 [weight_parts[i] for i in group], classes)
        for group in _groups(weightless)
    ]
    while len(nodes) > 1:
        nodes = [dask.delayed(_merge_group)(nodes[i:i + split_every]) for i in range(0, len(nodes), split_every)]
    model = nodes[0].compute() if nodes else None
    if model is None:
        raise ValueError("Found array with 0 sample(s): X has no rows to fit on.")
    return model


def _predict_block(X, model):
    return model.predict(X)


def _predict_proba_block(X, model):
    return model.predict_proba(X)


def predict(model, X):
    """Predicted labels of a dask array, as a lazy dask array of shape (n_samples,).

    Parameters
    ----------
    model : fitted nbfast estimator
    X : dask.array.Array of shape (n_samples, n_features)

    Returns
    -------
    labels : dask.array.Array of shape (n_samples,), with ``model.classes_``'s dtype
    """
    check_is_fitted(model)
    X = _row_blocks(X)
    return X.map_blocks(_predict_block, dask.delayed(model, pure=True), drop_axis=1,
                        meta=np.empty((0,), dtype=model.classes_.dtype))


def predict_proba(model, X):
    """Class probabilities of a dask array, as a lazy dask array of shape (n_samples, n_classes).

    Parameters
    ----------
    model : fitted nbfast estimator
    X : dask.array.Array of shape (n_samples, n_features)

    Returns
    -------
    proba : dask.array.Array of shape (n_samples, n_classes), float64
    """
    check_is_fitted(model)
    X = _row_blocks(X)
    return X.map_blocks(_predict_proba_block, dask.delayed(model, pure=True),
                        chunks=(X.chunks[0], (len(model.classes_),)), meta=np.empty((0, 0)))
