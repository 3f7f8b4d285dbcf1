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

from nbfast._kernels._math cimport (
    SCORE_ARGMAX, SCORE_JOINT_LOG_LIKELIHOOD, SCORE_LOG_PROBA, SCORE_PROBA, finish_row, prefetch_range,
)
from nbfast._kernels._openmp cimport ROW_BLOCK
from nbfast._kernels._types cimport floating, integral, table_floating

# What the kernel writes per row.
cpdef enum Output:
    JOINT_LOG_LIKELIHOOD = SCORE_JOINT_LOG_LIKELIHOOD
    LOG_PROBA = SCORE_LOG_PROBA
    PROBA = SCORE_PROBA
    ARGMAX = SCORE_ARGMAX

cdef enum:
    # How many nonzeros ahead the table row is prefetched; the look-ahead runs
    # on into the next rows (CSR stores them contiguously), so a row's first
    # nonzeros are prefetched too.  Enough rows in flight to hide the latency
    # of a table larger than the caches (48 measured best of 8 to 64 at 2^18
    # features and 20 classes).
    PREFETCH_DISTANCE = 48
    # Most classes whose accumulators are kept in registers during one pass over a row.
    MAX_TILE = 20

# 2^-52, the float64 machine epsilon (twice its unit roundoff): argmax_csr's rounding bound.
cdef double FLOAT64_EPSILON = 2.220446049250313e-16


cdef inline void tile_jll(
    const floating *data,
    const integral *indices,
    Py_ssize_t start,
    Py_ssize_t end,
    const table_floating *table,
    Py_ssize_t n_classes,
    bint binarize,
    double threshold,
    bint first,
    Py_ssize_t width,
    Py_ssize_t n_nonzeros,
    double *acc,
) noexcept nogil:
    """acc[0:width] += sum over the row's nonzeros of f(x_k) * table[j_k, 0:width].

    ``table`` points at the tile's first class.  Called with a constant
    ``width`` (at most MAX_TILE), so that once inlined the trip count is fixed
    and the compiler keeps the accumulators in registers.  The first tile of a
    row prefetches whole table rows ahead (up to ``n_nonzeros``, the end of X's
    indices); later tiles find them in cache.  Each class still sums its terms
    in nonzero order, so results do not depend on the tiling.
    """
    cdef Py_ssize_t k, c
    cdef double value
    cdef double t[MAX_TILE]
    cdef const table_floating *row
    for c in range(width):
        t[c] = acc[c]
    for k in range(start, end):
        if first and k + PREFETCH_DISTANCE < n_nonzeros:
            row = table + <Py_ssize_t> indices[k + PREFETCH_DISTANCE] * n_classes
            prefetch_range(row, row + n_classes)
        if binarize:
            if not data[k] > threshold:
                continue
            value = 1.0
        else:
            value = data[k]
        row = table + <Py_ssize_t> indices[k] * n_classes
        for c in range(width):
            t[c] += value * row[c]
    for c in range(width):
        acc[c] = t[c]


cdef inline void row_jll(
    const floating *data,
    const integral *indices,
    Py_ssize_t start,
    Py_ssize_t end,
    const table_floating *table,
    const double *bias,
    Py_ssize_t n_classes,
    bint binarize,
    double threshold,
    Py_ssize_t n_nonzeros,
    double *acc,
) noexcept nogil:
    cdef Py_ssize_t c, c0 = 0
    for c in range(n_classes):
        acc[c] = bias[c]
    # The classes in as few passes over the row as the tile widths allow (up to
    # 20 classes in one pass): constant widths once inlined, so every tile's
    # accumulators stay in registers.
    while c0 + 20 <= n_classes:
        tile_jll(data, indices, start, end, table + c0, n_classes, binarize, threshold, c0 == 0, 20, n_nonzeros,
                 acc + c0)
        c0 += 20
    if c0 + 16 <= n_classes:
        tile_jll(data, indices, start, end, table + c0, n_classes, binarize, threshold, c0 == 0, 16, n_nonzeros,
                 acc + c0)
        c0 += 16
    if c0 + 8 <= n_classes:
        tile_jll(data, indices, start, end, table + c0, n_classes, binarize, threshold, c0 == 0, 8, n_nonzeros,
                 acc + c0)
        c0 += 8
    if c0 + 4 <= n_classes:
        tile_jll(data, indices, start, end, table + c0, n_classes, binarize, threshold, c0 == 0, 4, n_nonzeros,
                 acc + c0)
        c0 += 4
    if c0 + 2 <= n_classes:
        tile_jll(data, indices, start, end, table + c0, n_classes, binarize, threshold, c0 == 0, 2, n_nonzeros,
                 acc + c0)
        c0 += 2
    if c0 < n_classes:
        tile_jll(data, indices, start, end, table + c0, n_classes, binarize, threshold, c0 == 0, 1, n_nonzeros,
                 acc + c0)


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

    if n_samples == 0:
        return
    if data.shape[0] > 0:
        data_ptr = &data[0]
        indices_ptr = &indices[0]
    with nogil, parallel(num_threads=n_threads):
        acc = <double *> malloc(n_classes * sizeof(double))
        for i in prange(n_samples, schedule="dynamic", chunksize=ROW_BLOCK):
            row_jll(data_ptr, indices_ptr, indptr[i], indptr[i + 1], &table[0, 0], &bias[0],
                    n_classes, binarize, threshold, indices.shape[0], acc)
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
                    n_classes, binarize, threshold, indices.shape[0], acc)
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
                        n_classes, binarize, threshold, indices.shape[0], acc)
                finish_row(acc, n_classes, ARGMAX, NULL, &best)
            labels[i] = best
        free(acc)
    return n_again
