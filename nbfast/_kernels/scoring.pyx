"""Joint log-likelihood of CSR rows under a linear Naive Bayes model, fused with
logsumexp, exp or argmax so that no N x C temporary is ever built.

For row x the joint log-likelihood of class c is

    jll[c] = bias[c] + sum_j f(x_j) * table[j, c]

where f(x) = x, or f(x) = [x > threshold] when ``binarize``.  ``table`` is
(n_features, n_classes), row-major: each nonzero reads one contiguous row.  It
is float64, or float32 (half the bytes to gather) when the caller chose to
score in single precision; accumulation is always float64.
"""
from cython.parallel cimport parallel, prange
from libc.math cimport INFINITY, fabs
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from nbfast._kernels._linear cimport Prefetch, prefetch_plan, row_jll
from nbfast._kernels._math cimport SCORE_ARGMAX, SCORE_JOINT_LOG_LIKELIHOOD, SCORE_LOG_PROBA, SCORE_PROBA, finish_row
from nbfast._kernels._openmp cimport ROW_BLOCK
from nbfast._kernels._types cimport floating, integral, table_floating

# What the kernel writes per row.
cpdef enum Output:
    JOINT_LOG_LIKELIHOOD = SCORE_JOINT_LOG_LIKELIHOOD
    LOG_PROBA = SCORE_LOG_PROBA
    PROBA = SCORE_PROBA
    ARGMAX = SCORE_ARGMAX

# 2^-52, the float64 machine epsilon (twice its unit roundoff): argmax_csr's rounding bound.
cdef double FLOAT64_EPSILON = 2.220446049250313e-16


def score_csr(
    const floating[::1] data,
    const integral[::1] indices,
    const integral[::1] indptr,
    const table_floating[:, ::1] table,
    const double[::1] bias,
    bint binarize,
    double threshold,
    int mode,
    double[:, ::1] out,
    int64_t[::1] labels,
    int n_threads,
    Py_ssize_t block_width=0,
):
    """Score every row of a CSR matrix.

    ``mode`` selects the output: JOINT_LOG_LIKELIHOOD, LOG_PROBA or PROBA write
    ``out`` (n_samples, n_classes); ARGMAX writes only ``labels`` (n_samples,),
    the first class of maximal joint log-likelihood.

    With ``block_width`` > 0, ``table`` and ``bias`` hold several models side
    by side, ``block_width`` columns each: each row is read once for all of
    them, and each block's output is what this function gives for that block
    alone (its sums are the same, in the same order); ARGMAX then writes
    ``labels`` (n_samples * n_blocks,), row by row.
    """
    cdef Py_ssize_t n_samples = indptr.shape[0] - 1
    cdef Py_ssize_t n_classes = table.shape[1]
    cdef Py_ssize_t width = block_width if block_width > 0 else n_classes
    cdef Py_ssize_t n_blocks = n_classes // width
    cdef Py_ssize_t i, b
    cdef double *acc
    cdef const floating *data_ptr = NULL
    cdef const integral *indices_ptr = NULL

    cdef Prefetch prefetch = prefetch_plan(&table[0, 0], table.shape[0], n_classes * sizeof(table_floating),
                                           indices.shape[0])

    if n_samples == 0:
        return
    if data.shape[0] > 0:
        data_ptr = &data[0]
        indices_ptr = &indices[0]
    with nogil, parallel(num_threads=n_threads):
        acc = <double *> malloc(n_classes * sizeof(double))
        for i in prange(n_samples, schedule="dynamic", chunksize=ROW_BLOCK):
            row_jll(data_ptr, indices_ptr, indptr[i], indptr[i + 1], &table[0, 0], &bias[0],
                    n_classes, binarize, threshold, prefetch, acc)
            for b in range(n_blocks):
                finish_row(acc + b * width, width, mode, NULL if mode == ARGMAX else &out[i, b * width],
                           &labels[i * n_blocks + b] if mode == ARGMAX else NULL)
        free(acc)


def argmax_csr(
    const floating[::1] data,
    const integral[::1] indices,
    const integral[::1] indptr,
    const float[:, ::1] table,
    const double[:, ::1] exact_table,
    const double[::1] bias,
    bint binarize,
    double threshold,
    double error_per_unit,
    double magnitude_per_unit,
    int64_t[::1] labels,
    int n_threads,
):
    """The argmax of every row's joint log-likelihood under ``exact_table``, mostly read from ``table``.

    ``table`` is ``exact_table`` in float32, each row j shifted by an offset
    (which adds a per-row constant to every class: the argmax does not change),
    with |table - (exact_table - offset)| <= ``error_per_unit`` everywhere and
    ``magnitude_per_unit`` >= |exact_table| + |table| everywhere.  A row scored
    with ``table`` (half the bytes to gather) then differs from its exact scores
    minus a constant by at most, with w = sum_k |f(x_k)| over its n nonzeros,

        B = w * error_per_unit + (n + 2) * 2^-52 * (w * magnitude_per_unit + max_c |bias[c]|)

    (the float32 rounding of the table, then the float64 rounding of both sums
    of n + 1 terms).  When its two best classes are more than 2 B apart, the best
    one is the exact argmax; otherwise the row is scored again with
    ``exact_table``.  So ``labels`` is exactly what ARGMAX of :func:`score_csr`
    with ``exact_table`` gives.  Returns the number of rows scored again.
    """
    cdef Py_ssize_t n_samples = indptr.shape[0] - 1
    cdef Py_ssize_t n_classes = table.shape[1]
    cdef Py_ssize_t i, k, c, n_again = 0
    cdef int64_t best
    cdef double *acc
    cdef double top, second, weight, bound, max_abs_bias = 0.0
    cdef const floating *data_ptr = NULL
    cdef const integral *indices_ptr = NULL

    cdef Prefetch prefetch = prefetch_plan(&table[0, 0], table.shape[0], n_classes * sizeof(float), indices.shape[0])
    cdef Prefetch no_prefetch = prefetch_plan(&exact_table[0, 0], 0, n_classes * sizeof(double), 0)  # none

    if n_samples == 0:
        return 0
    if data.shape[0] > 0:
        data_ptr = &data[0]
        indices_ptr = &indices[0]
    for c in range(n_classes):
        max_abs_bias = max(max_abs_bias, fabs(bias[c]))
    with nogil, parallel(num_threads=n_threads):
        acc = <double *> malloc(n_classes * sizeof(double))
        for i in prange(n_samples, schedule="dynamic", chunksize=ROW_BLOCK):
            row_jll(data_ptr, indices_ptr, indptr[i], indptr[i + 1], &table[0, 0], &bias[0],
                    n_classes, binarize, threshold, prefetch, acc)
            best = 0
            top = acc[0]
            second = -INFINITY
            for c in range(1, n_classes):
                if acc[c] > top:
                    second = top
                    top = acc[c]
                    best = c
                elif acc[c] > second:
                    second = acc[c]
            weight = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                if binarize:
                    weight = weight + (1.0 if data_ptr[k] > threshold else 0.0)
                else:
                    weight = weight + fabs(data_ptr[k])
            bound = weight * error_per_unit + (indptr[i + 1] - indptr[i] + 2) * FLOAT64_EPSILON * (
                weight * magnitude_per_unit + max_abs_bias)
            if not top - second > 2.0 * bound:
                n_again += 1
                row_jll(data_ptr, indices_ptr, indptr[i], indptr[i + 1], &exact_table[0, 0], &bias[0],
                        n_classes, binarize, threshold, no_prefetch, acc)  # a few rows
                finish_row(acc, n_classes, ARGMAX, NULL, &best)
            labels[i] = best
        free(acc)
    return n_again
