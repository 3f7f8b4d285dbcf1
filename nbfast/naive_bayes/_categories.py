"""The stacked layout of CategoricalNB's statistics and tables: feature j owns ``n_categories_[j] + 1``
consecutive columns, its categories then one "unseen" slot."""

from typing import NamedTuple

import numpy as np

from nbfast import _sparse as sp
from nbfast.naive_bayes._counts import DenseCounts


def column_starts(n_categories):
    """First column of each feature in the stacked layout (categories, then the unseen slot)."""
    starts = np.zeros(len(n_categories), dtype=np.int64)
    np.cumsum(n_categories[:-1] + 1, out=starts[1:])
    return starts


def seen_columns(n_categories):
    """(feature, category, column) of every category column, the unseen slots left out."""
    feature = np.repeat(np.arange(len(n_categories)), n_categories)
    category = np.arange(feature.shape[0]) - np.repeat(np.cumsum(n_categories) - n_categories, n_categories)
    return feature, category, column_starts(n_categories)[feature] + category


def moved_columns(counts, old, new):
    """Counts of the category columns of layout ``old`` (n_categories) moved to layout ``new`` (the slots hold
    nothing)."""
    feature, category, old_columns = seen_columns(old)
    return counts.moved_columns(old_columns, column_starts(new)[feature] + category, int(np.sum(new + 1)))


def dense_counts(counts, class_count, n_categories):
    """Stacked dense counts (n_classes, columns) of compact ones: category 0's are N_c - sum_v>0 N_cjv."""
    dense = counts.toarray()
    starts = column_starts(n_categories)
    dense[:, starts] = np.maximum(class_count[:, None] - np.add.reduceat(dense, starts, axis=1), 0.0)
    return dense


def densified(class_count, n_categories):
    """How compact counts of this layout become dense ones (:func:`~nbfast.naive_bayes._counts.resettled`)."""
    return lambda counts: DenseCounts(dense_counts(counts, class_count, n_categories))


def check_n_categories(n_categories, n_features):
    """``n_categories`` as int64, refused unless it holds ``n_features`` counts >= 1 whose layout fits int64.

    The stacked layout has sum(n_categories + 1) columns, at most
    n_features * (max + 1): bounding that (exactly, in Python integers) keeps
    every start and column index of the kernels below 2**63.
    """
    n_categories = np.asarray(n_categories)
    if n_categories.dtype.kind not in "iu" or n_categories.shape != (n_features,) or n_features < 1:
        raise ValueError(
            f"n_categories_ must be an integer array of shape ({n_features},); got {n_categories.dtype} "
            f"{n_categories.shape}."
        )
    if n_categories.min() < 1 or n_features * (int(n_categories.max()) + 1) >= 2**63:
        raise ValueError(f"n_categories_ must hold counts >= 1 (and not too large); got {n_categories.min()} to "
                         f"{n_categories.max()}.")
    return np.ascontiguousarray(n_categories, dtype=np.int64)


def check_blocks(blocks, n_classes, n_categories, name):
    """Refuse per-feature blocks whose shapes are not (n_classes, n_categories[j]), before any allocation."""
    if not isinstance(blocks, (list, tuple)) or len(blocks) != len(n_categories):
        raise ValueError(f"{name} must be a list of {len(n_categories)} arrays, one per feature.")
    for j, (block, n) in enumerate(zip(blocks, n_categories)):
        if np.shape(block) != (n_classes, n):
            raise ValueError(f"{name}[{j}] has shape {np.shape(block)}, expected {(n_classes, int(n))}.")


class DenseTables(NamedTuple):
    """A dense model's tables: the stacked log-probabilities (n_classes, columns), the scoring table of their
    differences from category 0 (columns, n_classes), its bias sum_j log p(x_j = 0 | c), and whether every
    log-probability is finite."""

    log_prob: np.ndarray
    delta_table: np.ndarray
    log_zero_sum: np.ndarray
    finite: bool


def csr_on(data, indices, indptr, shape):
    """A CSR array on exactly these buffers (scipy's constructor may downcast the indices)."""
    X = sp.csr_array((data, indices, indptr), shape=shape, copy=False)
    X.indices, X.indptr = indices, indptr
    return X
