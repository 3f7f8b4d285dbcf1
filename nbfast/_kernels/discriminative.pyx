"""The softmax (multinomial logistic) log-loss of a linear model on CSR rows, and its gradient.

For row x_i of class y_i with weight s_i, the linear scores z_ic = b_c + x_i . W[:, c] give

    loss = sum_i s_i (logsumexp_c z_ic - z_iy_i)
    dloss/dz_ic = s_i (softmax(z_i)_c - [c == y_i])  =: R[i, c]
    dloss/db_c = sum_i R[i, c]          dloss/dW[j, c] = sum_i X[i, j] R[i, c] = (X^T R)[j, c]

Two passes, each O(nnz x n_classes): :func:`softmax_residuals_csr` over the rows of X (the loss, R and the
intercept's gradient), then :func:`transposed_product_csr` over the rows of X^T (the weights' gradient).
Rows go to threads in fixed blocks of ROW_BLOCK, scheduled dynamically; each block's loss and intercept gradient
are kept apart and added in block order, and each row of X^T R is summed by one thread in the order of its
nonzeros: the results are bit-identical for any number of threads.
"""
from cython.parallel cimport parallel, prange
from libc.math cimport log
from libc.stdint cimport int64_t
from libc.stdlib cimport calloc, free, malloc

from nbfast._kernels._linear cimport Prefetch, prefetch_plan, row_jll
from nbfast._kernels._math cimport exp_shifted_sum, row_max
from nbfast._kernels._openmp cimport ROW_BLOCK
from nbfast._kernels._types cimport floating, integral


def n_row_blocks(Py_ssize_t n_samples):
    """How many blocks of rows :func:`softmax_residuals_csr` splits ``n_samples`` rows into."""
    return (n_samples + ROW_BLOCK - 1) // ROW_BLOCK


def softmax_residuals_csr(
    const floating[::1] data,
    const integral[::1] indices,
    const integral[::1] indptr,
    const int64_t[::1] y,
    const double[::1] sample_weight,
    const double[:, ::1] weights,
    const double[::1] intercept,
    double[:, ::1] residual,
    double[:, ::1] block_sums,
    int n_threads,
):
    """The weighted softmax log-loss of every row, and the residuals R.

    ``weights`` is (n_features, n_classes), row-major; ``residual`` (n_samples,
    n_classes) receives R; ``block_sums`` (n_row_blocks, n_classes + 1) receives
    each block's sum of R (columns 0 to n_classes - 1) and of the loss (last
    column).  Returns the loss, the blocks' losses added in block order; the
    intercept's gradient is ``block_sums[:, :-1]`` added in block order.
    """
    cdef Py_ssize_t n_samples = indptr.shape[0] - 1
    cdef Py_ssize_t n_classes = weights.shape[1]
    cdef Py_ssize_t n_blocks = block_sums.shape[0]
    cdef Py_ssize_t block, i, c, end
    cdef double total = 0.0, m, norm, s
    cdef double *z
    cdef double *out
    cdef double *sums
    cdef int failed = 0
    cdef int *failed_flag = &failed  # written through a pointer: shared by the threads
    cdef const floating *data_ptr = NULL
    cdef const integral *indices_ptr = NULL
    cdef Prefetch prefetch = prefetch_plan(&weights[0, 0], weights.shape[0], n_classes * sizeof(double),
                                           indices.shape[0])

    if data.shape[0] > 0:
        data_ptr = &data[0]
        indices_ptr = &indices[0]
    with nogil, parallel(num_threads=n_threads):
        z = <double *> malloc(n_classes * sizeof(double))
        if z == NULL:
            failed_flag[0] = 1
        for block in prange(n_blocks, schedule="dynamic"):
            if z == NULL:  # this thread has no scratch: its blocks are left undone, and MemoryError raised
                continue
            sums = &block_sums[block, 0]
            for c in range(n_classes + 1):
                sums[c] = 0.0
            end = min((block + 1) * ROW_BLOCK, n_samples)
            for i in range(block * ROW_BLOCK, end):
                row_jll(data_ptr, indices_ptr, indptr[i], indptr[i + 1], &weights[0, 0], &intercept[0], n_classes,
                        False, 0.0, prefetch, z)
                out = &residual[i, 0]
                s = sample_weight[i]
                if s == 0.0:  # no term (and no 0 * inf)
                    for c in range(n_classes):
                        out[c] = 0.0
                    continue
                # stable logsumexp: the largest score subtracted first
                m = row_max(z, n_classes)
                norm = exp_shifted_sum(z, m, out, n_classes)
                sums[n_classes] += s * (m + log(norm) - z[y[i]])
                for c in range(n_classes):
                    out[c] = s * (out[c] / norm)
                out[y[i]] -= s
                for c in range(n_classes):
                    sums[c] += out[c]
        free(z)
    if failed:
        raise MemoryError(f"nbfast: cannot allocate the per-thread class scores ({n_classes} doubles)")
    for block in range(n_blocks):
        total += block_sums[block, n_classes]
    return total


def transposed_product_csr(
    const floating[::1] data,
    const integral[::1] indices,
    const integral[::1] indptr,
    const double[:, ::1] residual,
    double[:, ::1] out,
    int n_threads,
):
    """out = X^T R, given X^T as CSR (``data``, ``indices``, ``indptr``: one row per feature of X).

    ``residual`` is R (n_samples, n_classes), ``out`` (n_features, n_classes);
    each row of ``out`` is summed by one thread in the order of its nonzeros.
    """
    cdef Py_ssize_t n_features = indptr.shape[0] - 1
    cdef Py_ssize_t n_classes = residual.shape[1]
    cdef Py_ssize_t j, c
    cdef double *acc
    cdef double *zeros
    cdef int failed = 0
    cdef int *failed_flag = &failed  # written through a pointer: shared by the threads
    cdef const floating *data_ptr = NULL
    cdef const integral *indices_ptr = NULL
    cdef Prefetch prefetch = prefetch_plan(&residual[0, 0], residual.shape[0], n_classes * sizeof(double),
                                           indices.shape[0])

    if data.shape[0] > 0:
        data_ptr = &data[0]
        indices_ptr = &indices[0]
    zeros = <double *> calloc(n_classes, sizeof(double))  # no bias
    if zeros == NULL:
        raise MemoryError(f"nbfast: cannot allocate the zero bias ({n_classes} doubles)")
    with nogil, parallel(num_threads=n_threads):
        acc = <double *> malloc(n_classes * sizeof(double))  # the row's sums, written to ``out`` once
        if acc == NULL:
            failed_flag[0] = 1
        for j in prange(n_features, schedule="dynamic", chunksize=ROW_BLOCK):
            if acc == NULL:  # this thread has no scratch: its rows are left undone, and MemoryError raised
                continue
            row_jll(data_ptr, indices_ptr, indptr[j], indptr[j + 1], &residual[0, 0], zeros, n_classes, False, 0.0,
                    prefetch, acc)
            for c in range(n_classes):
                out[j, c] = acc[c]
        free(acc)
    free(zeros)
    if failed:
        raise MemoryError(f"nbfast: cannot allocate the per-thread class sums ({n_classes} doubles)")
