"""Class-by-feature count accumulation over CSR rows (the sufficient statistic of
the discrete Naive Bayes models), without the N x C label matrix.

Rows arrive grouped by class (``row_order``, ``class_start``).  Each class is
summed by one thread in row order, so the result is bit-identical for any
number of threads and needs no per-thread copies of the (C, D) table.

A class's rows lie scattered through X, too far apart for the hardware
prefetcher: the data and indices of the row ``ROW_PREFETCH_DISTANCE`` places
ahead are prefetched in software (about 2x on 1M x 2^18 x 20 classes).
"""
from cython.parallel cimport prange

from nbfast._kernels._math cimport prefetch_range
from nbfast._kernels._types cimport floating, integral

cdef enum:
    ROW_PREFETCH_DISTANCE = 2


def add_class_counts(
    const floating[::1] data,
    const integral[::1] indices,
    const integral[::1] indptr,
    const Py_ssize_t[::1] row_order,
    const Py_ssize_t[::1] class_start,
    const double[::1] sample_weight,
    bint binarize,
    double threshold,
    double[:, ::1] feature_count,
    int n_threads,
):
    """feature_count[c, j] += sum over rows i of class c of w_i * f(X[i, j]).

    f(x) = x, or [x > threshold] when ``binarize``.  An empty ``sample_weight``
    means unit weights.
    """
    cdef Py_ssize_t n_classes = feature_count.shape[0]
    cdef Py_ssize_t c, r, i, k, ahead
    cdef bint weighted = sample_weight.shape[0] > 0
    cdef double w, value
    cdef double *out
    # Base pointers for the prefetches (one past a row's end is a valid address, not a valid index).
    cdef const floating *data_ptr = &data[0] if data.shape[0] > 0 else NULL
    cdef const integral *indices_ptr = &indices[0] if indices.shape[0] > 0 else NULL

    with nogil:
        for c in prange(n_classes, schedule="dynamic", num_threads=n_threads):
            out = &feature_count[c, 0]
            for r in range(class_start[c], class_start[c + 1]):
                i = row_order[r]
                if r + ROW_PREFETCH_DISTANCE < class_start[c + 1]:
                    ahead = row_order[r + ROW_PREFETCH_DISTANCE]
                    prefetch_range(data_ptr + indptr[ahead], data_ptr + indptr[ahead + 1])
                    prefetch_range(indices_ptr + indptr[ahead], indices_ptr + indptr[ahead + 1])
                w = sample_weight[i] if weighted else 1.0
                for k in range(indptr[i], indptr[i + 1]):
                    if binarize:
                        if not data[k] > threshold:
                            continue
                        value = w
                    else:
                        value = w * data[k]
                    out[indices[k]] += value
