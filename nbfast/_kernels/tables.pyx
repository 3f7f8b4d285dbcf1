"""Dense tables of the count models, built in parallel in the scoring layout (n_features, n_classes).

Work is split into fixed blocks of FEATURE_BLOCK features, independent of the
number of threads.  Sums over the features (per class) are compensated
(Kahan) within a block, and the blocks' partial sums are combined in block
order, compensated too: they are accurate to a few units in the last place
whatever the number of features (a plain running sum of 2^20 terms is not),
and bit-identical for any number of threads.
"""
from cython.parallel cimport parallel, prange
from libc.math cimport exp, log, log1p
from libc.stdlib cimport free, malloc

import numpy as np

from nbfast._kernels._math cimport EXP_FAST_MIN, exp_fast, kahan_add, log_fast_valid, log_minus

cdef enum:
    FEATURE_BLOCK = 512

# What column_sums adds up.
cpdef enum Terms:
    VALUES = 0  # table[j, c]
    EXPONENTIALS = 1  # exp(table[j, c])
    LOG_COMPLEMENTS = 2  # log(1 - exp(table[j, c])); also writes table[j, c] minus it to ``out``


cdef inline Py_ssize_t n_blocks(Py_ssize_t n_features) noexcept nogil:
    return (n_features + FEATURE_BLOCK - 1) // FEATURE_BLOCK


cdef object combine_blocks(double[:, ::1] partial, double[:, ::1] compensation):
    """The blocks' partial sums (rows) added in block order, compensated: one sum per class."""
    cdef Py_ssize_t b, c
    cdef Py_ssize_t n_classes = partial.shape[1]
    sums_array = np.zeros(n_classes)
    cdef double[::1] sums = sums_array
    cdef double[::1] error = np.zeros(n_classes)
    for b in range(partial.shape[0]):
        for c in range(n_classes):
            kahan_add(&sums[c], &error[c], partial[b, c] - compensation[b, c])
    return sums_array


def smoothed_log_table(
    const double[:, ::1] counts,
    const double[::1] alpha,
    const double[::1] denominator,
    double alpha_weight,
    double[:, ::1] out,
    int n_threads,
):
    """out[j, c] = log(counts[c, j] + alpha[j]) - log(denominator[c] + alpha_weight * alpha[j]).

    ``alpha`` of length 1 is every feature's; ``counts`` is (n_classes,
    n_features), ``out`` (n_features, n_classes).
    """
    cdef Py_ssize_t n_classes = counts.shape[0], n_features = counts.shape[1]
    cdef Py_ssize_t b, j, c, end
    cdef bint per_feature = alpha.shape[0] > 1
    cdef bint shift_per_feature = per_feature and alpha_weight != 0
    cdef bint fast
    cdef double value
    shifts_array = np.log(np.asarray(denominator) + alpha_weight * alpha[0])
    cdef double[::1] shifts = shifts_array
    cdef double *row_shifts
    cdef int failed = 0
    cdef int *failed_flag = &failed  # written through a pointer: shared by the threads
    with nogil, parallel(num_threads=n_threads):
        row_shifts = <double *> malloc(n_classes * sizeof(double)) if shift_per_feature else NULL  # only then used
        if shift_per_feature and row_shifts == NULL:
            failed_flag[0] = 1
        for b in prange(n_blocks(n_features), schedule="dynamic"):
            if shift_per_feature and row_shifts == NULL:  # no scratch: block left undone, MemoryError raised
                continue
            end = min((b + 1) * FEATURE_BLOCK, n_features)
            fast = True
            for c in range(n_classes):  # the block transposed: counts' rows read in order
                for j in range(b * FEATURE_BLOCK, end):
                    value = counts[c, j] + alpha[j if per_feature else 0]
                    fast = fast and log_fast_valid(value)
                    out[j, c] = value
            for j in range(b * FEATURE_BLOCK, end):
                if shift_per_feature:
                    for c in range(n_classes):
                        row_shifts[c] = log(denominator[c] + alpha_weight * alpha[j])
                log_minus(&out[j, 0], row_shifts if shift_per_feature else &shifts[0], n_classes, fast)
        free(row_shifts)
    if failed:
        raise MemoryError(f"nbfast: cannot allocate the per-thread shifts ({n_classes} doubles)")


def column_sums(const double[:, ::1] table, int terms, int n_threads, double[:, ::1] out=None):
    """sum_j of ``terms`` of table[j, c] for every class c, compensated.

    LOG_COMPLEMENTS (BernoulliNB, table = log theta) sums log(1 - theta) and
    writes log theta - log(1 - theta) to ``out`` (another array of the same shape).
    """
    cdef Py_ssize_t n_features = table.shape[0], n_classes = table.shape[1]
    cdef Py_ssize_t b, j, c, end
    cdef double *row
    cdef int failed = 0
    cdef int *failed_flag = &failed  # written through a pointer: shared by the threads
    partial_array = np.zeros((n_blocks(n_features), n_classes))
    compensation_array = np.zeros((n_blocks(n_features), n_classes))
    cdef double[:, ::1] partial = partial_array
    cdef double[:, ::1] compensation = compensation_array
    if terms == LOG_COMPLEMENTS and (out is None or out.shape[0] != n_features or out.shape[1] != n_classes):
        raise ValueError("LOG_COMPLEMENTS needs an output table of the table's shape.")
    with nogil, parallel(num_threads=n_threads):
        row = <double *> malloc(n_classes * sizeof(double))
        if row == NULL:
            failed_flag[0] = 1
        for b in prange(n_blocks(n_features), schedule="dynamic"):
            if row == NULL:  # this thread has no scratch: its blocks are left undone, and MemoryError raised
                continue
            end = min((b + 1) * FEATURE_BLOCK, n_features)
            for j in range(b * FEATURE_BLOCK, end):
                if terms == VALUES:
                    for c in range(n_classes):
                        row[c] = table[j, c]
                else:
                    for c in range(n_classes):  # no call, no branch: vectorizes
                        row[c] = exp_fast(table[j, c])
                    for c in range(n_classes):
                        if not (table[j, c] >= EXP_FAST_MIN and table[j, c] <= 0.0):  # out of exp_fast's range
                            row[c] = exp(table[j, c])
                        if terms == LOG_COMPLEMENTS:
                            row[c] = log1p(-row[c])
                            out[j, c] = table[j, c] - row[c]
                for c in range(n_classes):
                    kahan_add(&partial[b, c], &compensation[b, c], row[c])
        free(row)
    if failed:
        raise MemoryError(f"nbfast: cannot allocate the per-thread terms ({n_classes} doubles)")
    return combine_blocks(partial, compensation)


def complement_table(
    const double[:, ::1] counts,
    const double[::1] feature_all,
    const double[::1] alpha,
    bint norm,
    double[:, ::1] out,
    int n_threads,
):
    """ComplementNB's weights into ``out`` (n_features, n_classes).

    w[j, c] = log(W[j, c] / S[c]) with W = feature_all[j] + alpha[j] - counts[c, j] and S[c] = sum_j W[j, c];
    ``out`` is -w, or w / sum_j w[j, c] when ``norm``.
    """
    cdef Py_ssize_t n_classes = counts.shape[0], n_features = counts.shape[1]
    cdef Py_ssize_t b, j, c, end
    cdef bint per_feature = alpha.shape[0] > 1
    cdef bint fast
    cdef double a
    with nogil:
        for b in prange(n_blocks(n_features), schedule="dynamic", num_threads=n_threads):
            end = min((b + 1) * FEATURE_BLOCK, n_features)
            for c in range(n_classes):
                for j in range(b * FEATURE_BLOCK, end):
                    a = alpha[j if per_feature else 0]
                    out[j, c] = feature_all[j] + a - counts[c, j]
    cdef double[::1] totals = column_sums(out, VALUES, n_threads)
    cdef double[::1] norms = totals
    cdef double[::1] zeros = np.zeros(n_classes)
    with nogil:
        for b in prange(n_blocks(n_features), schedule="dynamic", num_threads=n_threads):
            end = min((b + 1) * FEATURE_BLOCK, n_features)
            fast = True
            for j in range(b * FEATURE_BLOCK, end):
                for c in range(n_classes):
                    out[j, c] = out[j, c] / totals[c]
                    fast = fast and log_fast_valid(out[j, c])
            for j in range(b * FEATURE_BLOCK, end):
                log_minus(&out[j, 0], &zeros[0], n_classes, fast)
    if norm:
        norms = column_sums(out, VALUES, n_threads)
    with nogil:
        for j in prange(n_features, schedule="dynamic", chunksize=FEATURE_BLOCK, num_threads=n_threads):
            for c in range(n_classes):
                out[j, c] = out[j, c] / norms[c] if norm else -out[j, c]
