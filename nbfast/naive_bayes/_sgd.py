"""The stochastic solver of DiscriminativeNB: epochs of SGD over the rows, started from Naive Bayes.

It minimizes the objective of :mod:`._discriminative` (the weighted softmax
log-loss plus ``||W - W_anchor||^2 / (2 C)``), one row at a time, the rows
shuffled anew each epoch by a fixed seed, in the kernel
:func:`nbfast._kernels.sgd.sgd_epoch_csr`: a step reads and writes the rows of
the weights of the features present in the row only, the penalty applied to
all weights at once through a scalar (a step costs O(nnz(x_i) x n_classes), an
epoch about what one L-BFGS evaluation costs, and no O(n_features x n_classes)
vector work per step).  The learning rate falls linearly to zero over the
epochs (fastText's schedule), from ``learning_rate`` divided by the rows' mean
weighted squared norm: unit-norm tf-idf rows take steps of ``learning_rate``.
"""

from dataclasses import dataclass

import numpy as np

from nbfast._kernels.sgd import sgd_epoch_csr

#: The seed of the rows' order: a fit is deterministic, and the same on any number of threads.
SEED = 0


@dataclass
class Result:
    x: np.ndarray
    n_iter: int
    losses: list


def minimize(X, y_index, sample_weight, n_classes, C, x0, anchor, penalize_intercept, *, epochs, learning_rate):
    """SGD from x0 = [W (n_features, n_classes) flattened, b]; returns the weights after ``epochs`` epochs.

    ``sample_weight`` is float64 and positive in total; X a canonical CSR matrix."""
    n_samples, n_features = X.shape
    n_weights = n_features * n_classes
    mean_weight = sample_weight.sum() / n_samples
    weight = sample_weight / mean_weight  # the objective times n / sum(s): the same minimizer, steps of scale 1
    lam = 1.0 / (C * n_samples)  # n steps make one 1/C: the penalty's share of each step
    squared_norms = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
    mean_norm = float(np.dot(weight, squared_norms)) / n_samples
    eta0 = learning_rate / mean_norm if mean_norm > 0 else learning_rate
    eta0 = min(eta0, 0.5 / lam)  # the penalty's shrinking stays a contraction
    use_anchor = bool(np.any(anchor[:n_weights]))
    anchor_table = anchor[:n_weights].reshape(n_features, n_classes) if use_anchor \
        else np.zeros((1, n_classes))
    deviation = (x0[:n_weights] - anchor[:n_weights]).reshape(n_features, n_classes).copy()
    intercept = x0[n_weights:].copy()
    anchor_intercept = np.ascontiguousarray(anchor[n_weights:])
    state = np.ones(1)
    rng = np.random.default_rng(SEED)
    n_steps = epochs * n_samples
    losses = []
    for epoch in range(epochs):
        order = rng.permutation(n_samples).astype(np.int64)
        losses.append(sgd_epoch_csr(X.data, X.indices, X.indptr, order, y_index, weight, anchor_table, deviation,
                                    intercept, anchor_intercept, state, use_anchor, penalize_intercept, lam, eta0,
                                    epoch * n_samples, n_steps) / n_samples)
    weights = deviation.ravel() * state[0]
    if use_anchor:
        weights += anchor[:n_weights]
    return Result(np.concatenate([weights, intercept]), epochs, losses)
