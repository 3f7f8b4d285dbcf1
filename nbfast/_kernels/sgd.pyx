"""Stochastic gradient descent on the softmax log-loss of a linear model, penalized toward an anchor.

The weights are kept as W = A + sigma * V: A the anchor (fixed), V the deviation and sigma a scalar.  A step
on row x_i of class y_i, with learning rate eta and penalty lambda (the gradient of lambda/2 ||W - A||^2),

    W <- W - eta (lambda (W - A) + s_i x_i^T r_i),    r_ic = softmax(z_i)_c - [c == y_i],

shrinks every weight's deviation, which is one multiplication of sigma by (1 - eta lambda), and moves only
the weights of the row's features: V[j, :] -= eta s_i x_ij r_i / sigma (Shalev-Shwartz et al.'s and Bottou's
scaled-vector trick).  A step therefore costs O(nnz(x_i) x n_classes), whatever the number of features; V is
multiplied back into sigma when sigma falls below RESCALE_BELOW (a pass over V, about once in millions of steps).
The learning rate falls linearly from its first value to zero over the planned steps, as fastText's does.

The rows are visited in the order given, by one thread: the result does not depend on the number of threads.
"""
from libc.math cimport log

from nbfast._kernels._math cimport exp_shifted_sum, row_max
from nbfast._kernels._types cimport floating, integral

from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

cdef double RESCALE_BELOW = 1e-9


def sgd_epoch_csr(
    const floating[::1] data,
    const integral[::1] indices,
    const integral[::1] indptr,
    const int64_t[::1] order,
    const int64_t[::1] y,
    const double[::1] sample_weight,
    const double[:, ::1] anchor,
    double[:, ::1] deviation,
    double[::1] intercept,
    const double[::1] anchor_intercept,
    double[::1] state,
    bint use_anchor,
    bint penalize_intercept,
    double lam,
    double eta0,
    Py_ssize_t step,
    Py_ssize_t n_steps,
):
    """One pass of SGD over the rows ``order`` of X; returns the weighted loss summed over the rows visited.

    ``anchor`` and ``deviation`` are (n_features, n_classes), row-major: the weights are
    ``anchor + state[0] * deviation`` (``anchor`` unread when ``use_anchor`` is false: zero).  ``state[0]``
    (sigma) is updated in place; ``intercept`` too, pulled toward ``anchor_intercept`` when
    ``penalize_intercept``.  The k-th row visited (counting from ``step``) has learning rate
    ``eta0 * (1 - k / n_steps)``; the caller keeps ``eta0 * lam < 1``.  The loss of a row is taken before its
    step.
    """
    cdef Py_ssize_t n_rows = order.shape[0]
    cdef Py_ssize_t n_classes = deviation.shape[1]
    cdef Py_ssize_t n_features = deviation.shape[0]
    cdef Py_ssize_t t, i, k, c, j, start, end, label
    cdef double sigma = state[0], eta, s, m, norm, value, factor, total = 0.0
    cdef double *z
    cdef double *p
    cdef const double *a_row
    cdef double *v_row

    z = <double *> malloc(2 * n_classes * sizeof(double))
    if z == NULL:
        raise MemoryError()
    p = z + n_classes
    with nogil:
        for t in range(n_rows):
            i = order[t]
            eta = eta0 * (1.0 - <double> (step + t) / <double> n_steps)
            start, end = indptr[i], indptr[i + 1]
            s = sample_weight[i]
            label = y[i]
            for c in range(n_classes):
                z[c] = intercept[c]
            for k in range(start, end):
                j = indices[k]
                value = data[k]
                v_row = &deviation[j, 0]
                if use_anchor:
                    a_row = &anchor[j, 0]
                    for c in range(n_classes):
                        z[c] += value * (a_row[c] + sigma * v_row[c])
                else:
                    for c in range(n_classes):
                        z[c] += value * sigma * v_row[c]
            # the penalty's step: every deviation shrinks (the intercept's too when it is penalized)
            sigma *= 1.0 - eta * lam
            if penalize_intercept:
                for c in range(n_classes):
                    intercept[c] -= eta * lam * (intercept[c] - anchor_intercept[c])
            if s != 0.0:
                m = row_max(z, n_classes)
                norm = exp_shifted_sum(z, m, p, n_classes)
                total += s * (m + log(norm) - z[label])
                for c in range(n_classes):
                    p[c] = eta * s * (p[c] / norm)
                p[label] -= eta * s
                for c in range(n_classes):
                    intercept[c] -= p[c]
                factor = 1.0 / sigma
                for k in range(start, end):
                    value = data[k] * factor
                    v_row = &deviation[indices[k], 0]
                    for c in range(n_classes):
                        v_row[c] -= value * p[c]
            if sigma < RESCALE_BELOW:
                for j in range(n_features):
                    v_row = &deviation[j, 0]
                    for c in range(n_classes):
                        v_row[c] *= sigma
                sigma = 1.0
    free(z)
    state[0] = sigma
    return total
