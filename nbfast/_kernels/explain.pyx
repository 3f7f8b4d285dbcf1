"""Per-feature terms of the difference of two classes' joint log-likelihoods, one per stored entry of a CSR row.

For a model whose joint log-likelihood is additive over features,

    jll[c] = bias[c] + sum_j [f(x_j) * table[j, c] + x_j^2 * square[j, c]]

(f(x) = x, or [x > threshold] when ``binarize``; ``square`` is empty for the
models linear in f(x), and holds GaussianNB's -1 / (2 var)), the difference
between the classes ``first[i]`` and ``second[i]`` of row i is the bias
difference plus one term per stored entry k of the row:

    term[k] = f(x_k) * (table[j_k, a] - table[j_k, b]) + x_k^2 * (square[j_k, a] - square[j_k, b])

Each term is written once, in the position of its entry: the terms are CSR
data on X's indices and indptr, and nothing of X is densified.
"""
from cython.parallel cimport parallel, prange

from nbfast._kernels._openmp cimport ROW_BLOCK
from nbfast._kernels._types cimport floating, integral


def pair_terms_csr(
    const floating[::1] X_data,
    const integral[::1] X_indices,
    const integral[::1] X_indptr,
    const double[:, ::1] table,
    const double[:, ::1] square,
    bint binarize,
    double threshold,
    const Py_ssize_t[::1] first,
    const Py_ssize_t[::1] second,
    double[::1] out,
    int n_threads,
):
    """Write into ``out`` (X.nnz,) the term of every stored entry in the difference ``first[i]`` - ``second[i]``."""
    cdef Py_ssize_t n_samples = X_indptr.shape[0] - 1
    cdef bint quadratic = square.shape[0] > 0
    cdef Py_ssize_t i, k, j, a, b
    cdef double value, x

    if n_samples <= 0:
        return
    with nogil, parallel(num_threads=n_threads):
        for i in prange(n_samples, schedule="dynamic", chunksize=ROW_BLOCK):
            a = first[i]
            b = second[i]
            for k in range(X_indptr[i], X_indptr[i + 1]):
                j = X_indices[k]
                x = X_data[k]
                if binarize:
                    value = 1.0 if x > threshold else 0.0
                else:
                    value = x
                if value != 0.0:
                    value = value * (table[j, a] - table[j, b])
                if quadratic:
                    value = value + x * x * (square[j, a] - square[j, b])
                out[k] = value
