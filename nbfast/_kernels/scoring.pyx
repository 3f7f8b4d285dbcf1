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
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from nbfast._kernels._math cimport (
    SCORE_ARGMAX, SCORE_JOINT_LOG_LIKELIHOOD, SCORE_LOG_PROBA, SCORE_PROBA, finish_row, prefetch_range,
)
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
):
    """Score every row of a CSR matrix.

    ``mode`` selects the output: JOINT_LOG_LIKELIHOOD, LOG_PROBA or PROBA write
    ``out`` (n_samples, n_classes); ARGMAX writes only ``labels`` (n_samples,),
    the first class of maximal joint log-likelihood.
    """
    cdef Py_ssize_t n_samples = indptr.shape[0] - 1
    cdef Py_ssize_t n_classes = table.shape[1]
    cdef Py_ssize_t i
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
        for i in prange(n_samples, schedule="guided"):
            row_jll(data_ptr, indices_ptr, indptr[i], indptr[i + 1], &table[0, 0], &bias[0],
                    n_classes, binarize, threshold, indices.shape[0], acc)
            finish_row(acc, n_classes, mode, NULL if mode == ARGMAX else &out[i, 0], &labels[i] if mode == ARGMAX else NULL)
        free(acc)
