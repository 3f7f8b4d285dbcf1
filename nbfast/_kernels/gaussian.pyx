"""Gaussian Naive Bayes kernels: per-class means and variances of a batch, and
the joint log-likelihood fused with logsumexp, exp or argmax.

Statistics: each (class, feature) cell is summed by one thread in row order,
so results are bit-identical for any number of threads (CSR rows arrive
grouped by class, ``row_order`` and ``class_start``, one class per task; dense
rows are streamed in order, one band of features per task).  Variances are computed in two passes
(mean first, then squared deviations), never as E[x^2] - mean^2.

Scoring: ``mean`` and ``half_inv_var`` = 1 / (2 var) are (n_features, n_classes)
tables, row-major, so that each feature reads one contiguous row.  For row x

    jll[c] = bias[c] - sum_j (x_j - mean[j, c])^2 * half_inv_var[j, c].
"""
from cython.parallel cimport parallel, prange
from libc.stdint cimport int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from nbfast._kernels._math cimport SCORE_ARGMAX, finish_row, prefetch
from nbfast._kernels._openmp cimport ROW_BLOCK
from nbfast._kernels._types cimport floating, integral

cdef enum:
    # Fewest features per thread of the dense statistics kernel.
    FEATURE_BLOCK = 16
    # How many nonzeros ahead the table rows are prefetched.
    PREFETCH_DISTANCE = 8


def class_moments_csr(
    const floating[::1] data,
    const integral[::1] indices,
    const integral[::1] indptr,
    const Py_ssize_t[::1] row_order,
    const Py_ssize_t[::1] class_start,
    const double[::1] sample_weight,
    const double[::1] class_weight,
    double[:, ::1] mean,
    double[:, ::1] var,
    double[:, ::1] observed,
    int n_threads,
):
    """Weighted mean and (population) variance of each feature in each class of CSR rows.

    Implicit zeros are values 0: with W_c the class weight and S_cj the weight
    of the class's rows that store feature j,

        var[c, j] = (sum_stored w (x - mean)^2 + (W_c - S_cj) mean^2) / W_c.

    When ``observed`` is not empty (n_classes, n_features), a stored NaN is a
    missing value: it is left out, and W_c becomes O_cj = W_c - (weight of the
    class's rows where x_j is NaN), written to ``observed``.  ``mean`` and
    ``var`` must be zeroed; cells with no observed weight are left at 0.
    An empty ``sample_weight`` means unit weights.
    """
    cdef Py_ssize_t n_classes = mean.shape[0]
    cdef Py_ssize_t n_features = mean.shape[1]
    cdef Py_ssize_t c, r, i, k, j
    cdef bint weighted = sample_weight.shape[0] > 0
    cdef bint skip_nan = observed.shape[0] > 0
    cdef double w, d, total, seen
    cdef double *stored = NULL
    cdef double *absent = NULL
    cdef double *mu
    cdef double *v
    cdef bint ready
    cdef int failed = 0
    cdef int *failed_flag = &failed  # written through a pointer: shared by the threads

    with nogil, parallel(num_threads=n_threads):
        stored = <double *> malloc(n_features * sizeof(double))
        # (allocated even where no NaN needs it: a conditional allocation here made gcc compile this module's
        # scoring loop a quarter slower)
        absent = <double *> malloc(n_features * sizeof(double))
        ready = stored != NULL and absent != NULL
        if not ready:
            failed_flag[0] = 1
        for c in prange(n_classes, schedule="dynamic"):
            if not ready:  # this thread has no scratch: its classes are left undone, and MemoryError raised
                continue
            total = class_weight[c]
            if total == 0:
                continue
            memset(stored, 0, n_features * sizeof(double))
            if skip_nan:
                memset(absent, 0, n_features * sizeof(double))
            mu = &mean[c, 0]
            v = &var[c, 0]
            for r in range(class_start[c], class_start[c + 1]):
                i = row_order[r]
                w = sample_weight[i] if weighted else 1.0
                if skip_nan:  # tested per row: the loop without missing values stays as it is
                    for k in range(indptr[i], indptr[i + 1]):
                        stored[indices[k]] += w
                        if data[k] != data[k]:
                            absent[indices[k]] += w
                        else:
                            mu[indices[k]] += w * data[k]
                    continue
                for k in range(indptr[i], indptr[i + 1]):
                    mu[indices[k]] += w * data[k]
                    stored[indices[k]] += w
            for j in range(n_features):
                seen = total - absent[j] if skip_nan else total
                mu[j] = mu[j] / seen if seen > 0 else 0.0
            for r in range(class_start[c], class_start[c + 1]):
                i = row_order[r]
                w = sample_weight[i] if weighted else 1.0
                if skip_nan:
                    for k in range(indptr[i], indptr[i + 1]):
                        d = data[k] - mu[indices[k]]
                        if d == d:  # not missing
                            v[indices[k]] += w * d * d
                    continue
                for k in range(indptr[i], indptr[i + 1]):
                    d = data[k] - mu[indices[k]]
                    v[indices[k]] += w * d * d
            for j in range(n_features):
                seen = total - absent[j] if skip_nan else total
                v[j] = (v[j] + (total - stored[j]) * mu[j] * mu[j]) / seen if seen > 0 else 0.0
                if skip_nan:
                    observed[c, j] = seen
        free(absent)
        free(stored)
    if failed:
        raise MemoryError(f"nbfast: cannot allocate the per-thread feature sums ({n_features} doubles)")


def class_moments_dense(
    const floating[:, ::1] X,
    const Py_ssize_t[::1] y_index,
    const double[::1] sample_weight,
    const double[::1] class_weight,
    double[:, ::1] mean,
    double[:, ::1] var,
    double[:, ::1] observed,
    int n_threads,
):
    """Weighted mean and (population) variance of each feature in each class of dense rows.

    Rows are streamed in order (no gather); the features are cut into bands
    (up to four per thread, handed out dynamically), and each band is summed
    by one thread, so each (class, feature) cell is still summed in row order.
    ``mean`` and ``var`` must be zeroed; classes with
    zero weight are left at 0.  When ``observed`` is not empty it must be
    zeroed too: NaN is then a missing value, left out, and each cell's weight
    is that of its observed values (written to ``observed``), not the class's.
    """
    cdef Py_ssize_t n_samples = X.shape[0]
    cdef Py_ssize_t n_classes = mean.shape[0]
    cdef Py_ssize_t n_features = mean.shape[1]
    cdef Py_ssize_t n_bands = max(1, min(4 * <Py_ssize_t> n_threads, n_features // FEATURE_BLOCK))
    cdef Py_ssize_t band, c, i, j, start, stop
    cdef bint weighted = sample_weight.shape[0] > 0
    cdef bint skip_nan = observed.shape[0] > 0
    cdef double w, d, n
    cdef const floating *row
    cdef double *mu
    cdef double *v

    # skip_nan is tested once per row: the loops over a row's features without missing values have no test
    # inside, and stay vectorized.
    with nogil:
        for band in prange(n_bands, schedule="dynamic", num_threads=n_threads):
            start = band * n_features // n_bands
            stop = (band + 1) * n_features // n_bands
            for i in range(n_samples):
                w = sample_weight[i] if weighted else 1.0
                row = &X[i, 0]
                mu = &mean[y_index[i], 0]
                if skip_nan:
                    _add_observed(row, w, mu, &observed[y_index[i], 0], start, stop)
                    continue
                for j in range(start, stop):
                    mu[j] += w * row[j]
            for c in range(n_classes):
                for j in range(start, stop):
                    n = observed[c, j] if skip_nan else class_weight[c]
                    if n != 0:
                        mean[c, j] = mean[c, j] / n
            for i in range(n_samples):
                w = sample_weight[i] if weighted else 1.0
                row = &X[i, 0]
                mu = &mean[y_index[i], 0]
                v = &var[y_index[i], 0]
                if skip_nan:
                    _add_observed_squares(row, w, mu, v, start, stop)
                    continue
                for j in range(start, stop):
                    d = row[j] - mu[j]
                    v[j] += w * d * d
            for c in range(n_classes):
                for j in range(start, stop):
                    n = observed[c, j] if skip_nan else class_weight[c]
                    if n != 0:
                        var[c, j] = var[c, j] / n


cdef inline void _add_observed(
    const floating *row, double w, double *mu, double *o, Py_ssize_t start, Py_ssize_t stop,
) noexcept nogil:
    """mu[j] += w x_j and o[j] += w for the observed (not NaN) x_j, j in [start, stop)."""
    cdef Py_ssize_t j
    for j in range(start, stop):
        if row[j] == row[j]:
            mu[j] += w * row[j]
            o[j] += w


cdef inline void _add_observed_squares(
    const floating *row, double w, const double *mu, double *v, Py_ssize_t start, Py_ssize_t stop,
) noexcept nogil:
    """v[j] += w (x_j - mu[j])^2 for the observed (not NaN) x_j, j in [start, stop)."""
    cdef Py_ssize_t j
    cdef double d
    for j in range(start, stop):
        d = row[j] - mu[j]
        if d == d:
            v[j] += w * d * d


cdef inline void dense_row_jll(
    const floating *row, Py_ssize_t n_features, const double *mean, const double *half_inv_var,
    Py_ssize_t n_classes, double *acc,
) noexcept nogil:
    """acc[c] -= sum_j (x_j - mean[j, c])^2 * half_inv_var[j, c]."""
    cdef Py_ssize_t j, c
    cdef double x, d
    cdef const double *mu
    cdef const double *h
    for j in range(n_features):
        x = row[j]
        mu = mean + j * n_classes
        h = half_inv_var + j * n_classes
        for c in range(n_classes):
            d = x - mu[c]
            acc[c] -= d * d * h[c]


cdef inline void dense_row_jll_observed(
    const floating *row, Py_ssize_t n_features, const double *mean, const double *half_inv_var,
    const double *restore, Py_ssize_t n_classes, double *acc,
) noexcept nogil:
    """``dense_row_jll`` over the observed x_j; a NaN x_j adds restore[j, c] instead (what the bias took for it)."""
    cdef Py_ssize_t j, c
    cdef double x, d
    cdef const double *mu
    cdef const double *h
    cdef const double *back
    for j in range(n_features):
        x = row[j]
        if x != x:
            back = restore + j * n_classes
            for c in range(n_classes):
                acc[c] += back[c]
            continue
        mu = mean + j * n_classes
        h = half_inv_var + j * n_classes
        for c in range(n_classes):
            d = x - mu[c]
            acc[c] -= d * d * h[c]


cdef inline void csr_row_jll(
    const floating *data, const integral *indices, Py_ssize_t start, Py_ssize_t end,
    const double *mean, const double *half_inv_var, Py_ssize_t n_classes, double *acc,
) noexcept nogil:
    """acc[c] -= sum over stored x_j of x_j (x_j - 2 mean[j, c]) * half_inv_var[j, c]."""
    cdef Py_ssize_t k, c, offset
    cdef double x
    cdef const double *mu
    cdef const double *h
    for k in range(start, end):
        if k + PREFETCH_DISTANCE < end:
            offset = <Py_ssize_t> indices[k + PREFETCH_DISTANCE] * n_classes
            prefetch(mean + offset)
            prefetch(half_inv_var + offset)
        x = data[k]
        offset = <Py_ssize_t> indices[k] * n_classes
        mu = mean + offset
        h = half_inv_var + offset
        for c in range(n_classes):
            acc[c] -= x * (x - 2.0 * mu[c]) * h[c]


cdef inline void csr_row_jll_observed(
    const floating *data, const integral *indices, Py_ssize_t start, Py_ssize_t end,
    const double *mean, const double *half_inv_var, const double *restore, Py_ssize_t n_classes, double *acc,
) noexcept nogil:
    """``csr_row_jll`` over the observed x_j; a stored NaN x_j adds restore[j, c] instead."""
    cdef Py_ssize_t k, c, offset
    cdef double x
    cdef const double *mu
    cdef const double *h
    cdef const double *back
    for k in range(start, end):
        x = data[k]
        offset = <Py_ssize_t> indices[k] * n_classes
        if x != x:
            back = restore + offset
            for c in range(n_classes):
                acc[c] += back[c]
            continue
        mu = mean + offset
        h = half_inv_var + offset
        for c in range(n_classes):
            acc[c] -= x * (x - 2.0 * mu[c]) * h[c]


def score(
    const floating[:, ::1] X,
    const floating[::1] data,
    const integral[::1] indices,
    const integral[::1] indptr,
    const double[:, ::1] mean,
    const double[:, ::1] half_inv_var,
    const double[::1] bias,
    const double[:, ::1] restore,
    int mode,
    double[:, ::1] out,
    int64_t[::1] labels,
    int n_threads,
):
    """Score dense rows ``X``, or CSR rows (``data``, ``indices``, ``indptr``) when ``indptr`` is not empty.

    When ``restore`` (n_features, n_classes) is not empty, NaN is a missing
    value: x_j = NaN adds restore[j, c], which cancels what ``bias`` holds for
    feature j (its normalizing term and, for CSR rows, its implicit zero's term).

    ``mode`` is a scoring.Output value: ARGMAX writes only ``labels``
    (n_samples,), the other modes write ``out`` (n_samples, n_classes).
    CSR rows cost O(nnz) plus O(n_classes): implicit zeros are values 0 and
    ``bias`` must then hold the all-zero row's score,
    bias[c] - sum_j mean[j, c]^2 * half_inv_var[j, c].
    """
    cdef bint sparse = indptr.shape[0] > 0
    cdef bint skip_nan = restore.shape[0] > 0
    cdef Py_ssize_t n_samples = indptr.shape[0] - 1 if sparse else X.shape[0]
    cdef Py_ssize_t n_features = mean.shape[0]
    cdef Py_ssize_t n_classes = mean.shape[1]
    cdef Py_ssize_t i, c
    cdef double *acc = NULL
    cdef int failed = 0
    cdef int *failed_flag = &failed  # written through a pointer: shared by the threads
    cdef const floating *data_ptr = NULL
    cdef const integral *indices_ptr = NULL

    if n_samples <= 0:
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
            for c in range(n_classes):
                acc[c] = bias[c]
            if sparse and skip_nan:
                csr_row_jll_observed(data_ptr, indices_ptr, indptr[i], indptr[i + 1], &mean[0, 0],
                                     &half_inv_var[0, 0], &restore[0, 0], n_classes, acc)
            elif sparse:
                csr_row_jll(data_ptr, indices_ptr, indptr[i], indptr[i + 1], &mean[0, 0], &half_inv_var[0, 0],
                            n_classes, acc)
            elif skip_nan:
                dense_row_jll_observed(&X[i, 0], n_features, &mean[0, 0], &half_inv_var[0, 0], &restore[0, 0],
                                       n_classes, acc)
            else:
                dense_row_jll(&X[i, 0], n_features, &mean[0, 0], &half_inv_var[0, 0], n_classes, acc)
            finish_row(acc, n_classes, mode, NULL if mode == SCORE_ARGMAX else &out[i, 0],
                       &labels[i] if mode == SCORE_ARGMAX else NULL)
        free(acc)
    if failed:
        raise MemoryError(f"nbfast: cannot allocate the per-thread class sums ({n_classes} doubles)")
