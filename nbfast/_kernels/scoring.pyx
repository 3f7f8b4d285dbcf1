"""Joint log-likelihood of CSR rows under a linear Naive Bayes model, fused with
logsumexp, exp or argmax so that no N x C temporary is ever built.

For row x the joint log-likelihood of class c is

    jll[c] = bias[c] + sum_j f(x_j) * table[j, c]

where f(x) = x, or f(x) = [x > threshold] when ``binarize``.  ``table`` is
(n_features, n_classes) float64, row-major: each nonzero reads one contiguous
row.  X's values may be float32; sums are always float64.
"""
from cython.parallel cimport parallel, prange
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc

from nbfast._kernels._linear cimport Prefetch, prefetch_plan, row_jll
from nbfast._kernels._math cimport (
    SCORE_ARGMAX,
    SCORE_JOINT_LOG_LIKELIHOOD,
    SCORE_LOG_PROBA,
    SCORE_PROBA,
    finish_row,
    prefetch_range,
)
from nbfast._kernels._openmp cimport ROW_BLOCK
from nbfast._kernels._types cimport floating, integral

cdef enum:
    # Listed rows lie scattered through X, too far apart for the hardware prefetcher: the data and indices of
    # the row this many places ahead in the list are prefetched in software.
    ROW_PREFETCH_DISTANCE = 2

# What the kernel writes per row.
cpdef enum Output:
    JOINT_LOG_LIKELIHOOD = SCORE_JOINT_LOG_LIKELIHOOD
    LOG_PROBA = SCORE_LOG_PROBA
    PROBA = SCORE_PROBA
    ARGMAX = SCORE_ARGMAX


def score_csr(
    const floating[::1] data,
    const integral[::1] indices,
    const integral[::1] indptr,
    const double[:, ::1] table,
    const double[::1] bias,
    bint binarize,
    double threshold,
    int mode,
    double[:, ::1] out,
    int64_t[::1] labels,
    int n_threads,
    Py_ssize_t block_width=0,
    const Py_ssize_t[::1] rows=None,
):
    """Score every row of a CSR matrix, or the rows listed in ``rows``.

    ``mode`` selects the output: JOINT_LOG_LIKELIHOOD, LOG_PROBA or PROBA write
    ``out`` (n_samples, n_classes); ARGMAX writes only ``labels`` (n_samples,),
    the first class of maximal joint log-likelihood.

    With ``block_width`` > 0, ``table`` and ``bias`` hold several models side
    by side, ``block_width`` columns each: each row is read once for all of
    them, and each block's output is what this function gives for that block
    alone (its sums are the same, in the same order); ARGMAX then writes
    ``labels`` (n_samples * n_blocks,), row by row.

    With ``rows``, output row i is the score of row ``rows[i]`` of the
    matrix: a subset scored in place, without a copy of its rows.
    """
    cdef bint listed = rows is not None
    cdef Py_ssize_t n_samples = rows.shape[0] if listed else indptr.shape[0] - 1
    cdef Py_ssize_t n_classes = table.shape[1]
    cdef Py_ssize_t width = block_width if block_width > 0 else n_classes
    cdef Py_ssize_t n_blocks = n_classes // width
    cdef Py_ssize_t i, r, b, ahead
    cdef double *acc
    cdef int failed = 0
    cdef int *failed_flag = &failed  # written through a pointer: shared by the threads
    cdef const floating *data_ptr = NULL
    cdef const integral *indices_ptr = NULL
    cdef Prefetch prefetch = prefetch_plan(&table[0, 0], table.shape[0], n_classes * sizeof(double),
                                           indices.shape[0])

    if n_samples == 0:
        return
    if data.shape[0] > 0:
        data_ptr = &data[0]
        indices_ptr = &indices[0]
    with nogil, parallel(num_threads=n_threads):
        acc = <double *> malloc(n_classes * sizeof(double))
        if acc == NULL:
            failed_flag[0] = 1
        for i in prange(n_samples, schedule="dynamic", chunksize=ROW_BLOCK):
            if acc == NULL:  # this thread has no scratch: its rows are left undone, and MemoryError raised
                continue
            r = i
            if listed:
                r = rows[i]
                if i + ROW_PREFETCH_DISTANCE < n_samples:
                    ahead = rows[i + ROW_PREFETCH_DISTANCE]
                    prefetch_range(data_ptr + indptr[ahead], data_ptr + indptr[ahead + 1])
                    prefetch_range(indices_ptr + indptr[ahead], indices_ptr + indptr[ahead + 1])
            row_jll(data_ptr, indices_ptr, indptr[r], indptr[r + 1], &table[0, 0], &bias[0],
                    n_classes, binarize, threshold, prefetch, acc)
            for b in range(n_blocks):
                finish_row(acc + b * width, width, mode, NULL if mode == ARGMAX else &out[i, b * width],
                           &labels[i * n_blocks + b] if mode == ARGMAX else NULL)
        free(acc)
    if failed:
        raise MemoryError(f"nbfast: cannot allocate the per-thread class sums ({n_classes} doubles)")
