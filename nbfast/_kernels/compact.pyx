"""Compact statistics and scoring of the linear count models: what the data holds, not n_classes x n_features.

The statistics are a CSR matrix by feature (n_features, n_classes): ``indptr``
(n_features + 1: int32 while the entries fit, else int64), ``classes`` (int32, sorted within each feature) and
``values`` (float64), one entry per (feature, class) pair that occurred in
training; a feature that occurred in at least a quarter of the classes
(DENSE_ROW_FRACTION) is stored with every class (explicit zeros), as a dense
row.  The scoring table derived from them is

    T[j, c] = default[c] + scale[c] * base[j] + deviation[j, c]

with ``deviation`` stored on the same sparsity pattern (zero elsewhere), so a
row x scores

    jll[c] = bias[c] + W * default[c] + scale[c] * A + sum_k f(x_k) * deviation[j_k, c]

with W = sum_k f(x_k) and A = sum_k f(x_k) * base[j_k] (no A when there is no
``base``, and ``scale`` 1 when it is empty).  f(x) = x, or [x > threshold]
when ``binarize``.  The deviations of the features seen by few classes are
added entry by entry; those of the dense rows (the frequent features, most of
a document's nonzeros) in a second pass, a tile of classes at a time with the
tile's sums in registers, as the dense scoring kernel does.  Each row is
scored by one thread, in nonzero order: results are bit-identical for any
number of threads.
"""
from cython.parallel cimport parallel, prange
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

import numpy as np

from nbfast._kernels._compact cimport add_dense_rows, is_dense_row, sort_classes
from nbfast._kernels._math cimport SCORE_ARGMAX, finish_row, kahan_add, prefetch, prefetch_range
from nbfast._kernels._openmp cimport ROW_BLOCK
from nbfast._kernels._types cimport floating, integral, pointer_integral

cdef enum:
    # How many nonzeros ahead the feature's pointers, then its entries, are prefetched.
    POINTER_PREFETCH_DISTANCE = 16
    ENTRY_PREFETCH_DISTANCE = 8


def batch_entries(
    const floating[::1] data,
    const integral[::1] indices,
    const integral[::1] indptr,
    const Py_ssize_t[::1] y_index,
    const double[::1] sample_weight,
    bint binarize,
    double threshold,
):
    """The entries a batch adds to the statistics, in row order: ``(features, classes, values)``.

    values = w_i f(X[i, j]) (an empty ``sample_weight`` means unit weights);
    with ``binarize``, the entries x <= threshold are left out.
    """
    cdef Py_ssize_t n_samples = indptr.shape[0] - 1
    cdef Py_ssize_t i, k, n = 0
    cdef bint weighted = sample_weight.shape[0] > 0
    cdef double w
    features_array = np.empty(data.shape[0], dtype=np.asarray(indices).dtype)
    classes_array = np.empty(data.shape[0], dtype=np.int32)
    values_array = np.empty(data.shape[0], dtype=np.float64)
    cdef integral[::1] features = features_array
    cdef int32_t[::1] classes = classes_array
    cdef double[::1] values = values_array
    with nogil:
        for i in range(n_samples):
            w = sample_weight[i] if weighted else 1.0
            for k in range(indptr[i], indptr[i + 1]):
                if binarize and not data[k] > threshold:
                    continue
                features[n] = indices[k]
                classes[n] = <int32_t> y_index[i]
                values[n] = w if binarize else w * data[k]
                n = n + 1
    return features_array[:n], classes_array[:n], values_array[:n]


def feature_class_counts(
    const integral[::1] entry_features,
    const int32_t[::1] entry_classes,
    const double[::1] entry_values,
    const pointer_integral[::1] old_indptr,
    const int32_t[::1] old_classes,
    const double[::1] old_values,
    Py_ssize_t n_classes,
    int n_threads,
):
    """The statistics (``old_*``, a CSR by feature) plus the entries (:func:`batch_entries`, in order).

    Returns ``(indptr, classes, values)``, a CSR by feature with sorted classes
    (``indptr`` int32 when the entries fit).  Every sum starts from the old
    value and adds the entries in order, as the dense class-count kernel adds
    rows: the counts are bit-identical to it.  Costs O(entries + old entries +
    n_features) time and memory.
    """
    cdef Py_ssize_t n_features = old_indptr.shape[0] - 1
    cdef Py_ssize_t n_entries = entry_features.shape[0]
    cdef Py_ssize_t j, k, p, e, n, c, start

    # 1. The entries by feature (a counting sort, their order kept within each feature).
    column_start_array = np.zeros(n_features + 1, dtype=np.int64)
    cdef int64_t[::1] column_start = column_start_array
    with nogil:
        for k in range(n_entries):
            column_start[entry_features[k] + 1] += 1
        for j in range(n_features):
            column_start[j + 1] += column_start[j]
    batch_class_array = np.empty(n_entries, dtype=np.int32)
    batch_value_array = np.empty(n_entries, dtype=np.float64)
    cursor_array = np.array(column_start_array[:n_features])
    cdef int32_t[::1] batch_class = batch_class_array
    cdef double[::1] batch_value = batch_value_array
    cdef int64_t[::1] cursor = cursor_array
    with nogil:
        for k in range(n_entries):
            j = entry_features[k]
            p = cursor[j]
            cursor[j] = p + 1
            batch_class[p] = entry_classes[k]
            batch_value[p] = entry_values[k]

    # 2. Each feature's classes summed (old value first, then the rows in order) into a slot
    #    large enough for them (old entries + batch entries, or every class for a dense row), then packed.
    slot_start_array = np.zeros(n_features + 1, dtype=np.int64)
    cdef int64_t[::1] slot_start = slot_start_array
    with nogil:
        for j in range(n_features):
            n = old_indptr[j + 1] - old_indptr[j] + column_start[j + 1] - column_start[j]
            slot_start[j + 1] = slot_start[j] + (max(n, n_classes) if is_dense_row(n, n_classes) else n)
    slot_classes_array = np.empty(slot_start[n_features], dtype=np.int32)
    slot_values_array = np.empty(slot_start[n_features], dtype=np.float64)
    sizes_array = np.zeros(n_features + 1, dtype=np.int64)
    cdef int32_t[::1] slot_classes = slot_classes_array
    cdef double[::1] slot_values = slot_values_array
    cdef int64_t[::1] sizes = sizes_array
    cdef double *acc
    cdef char *seen
    cdef int32_t *touched
    cdef bint ready
    cdef int failed = 0
    cdef int *failed_flag = &failed  # written through a pointer: shared by the threads
    with nogil, parallel(num_threads=n_threads):
        acc = <double *> malloc(n_classes * sizeof(double))
        seen = <char *> malloc(n_classes * sizeof(char))
        touched = <int32_t *> malloc(n_classes * sizeof(int32_t))
        ready = acc != NULL and seen != NULL and touched != NULL
        if ready:
            memset(seen, 0, n_classes * sizeof(char))
        else:
            failed_flag[0] = 1
        for j in prange(n_features, schedule="dynamic", chunksize=256):
            if not ready:  # this thread has no scratch: its features are left undone, and MemoryError raised
                continue
            n = 0
            for e in range(old_indptr[j], old_indptr[j + 1]):
                c = old_classes[e]
                acc[c] = old_values[e]
                seen[c] = 1
                touched[n] = <int32_t> c
                n = n + 1
            for p in range(column_start[j], column_start[j + 1]):
                c = batch_class[p]
                if seen[c]:
                    acc[c] += batch_value[p]
                else:
                    acc[c] = batch_value[p]
                    seen[c] = 1
                    touched[n] = <int32_t> c
                    n = n + 1
            start = slot_start[j]
            if is_dense_row(n, n_classes):  # every class, zero where it has no count
                for c in range(n_classes):
                    slot_classes[start + c] = <int32_t> c
                    slot_values[start + c] = acc[c] if seen[c] else 0.0
                    seen[c] = 0
                n = n_classes
            else:
                sort_classes(touched, n, seen, n_classes)
                for e in range(n):
                    c = touched[e]
                    slot_classes[start + e] = <int32_t> c
                    slot_values[start + e] = acc[c]
                    seen[c] = 0
            sizes[j + 1] = n
        free(acc)
        free(seen)
        free(touched)
    if failed:
        raise MemoryError(f"nbfast: cannot allocate the per-thread class sums ({n_classes} classes)")
    out_indptr_array = np.cumsum(sizes_array, out=sizes_array)
    cdef int64_t[::1] out_indptr = out_indptr_array
    out_classes_array = np.empty(out_indptr[n_features], dtype=np.int32)
    out_values_array = np.empty(out_indptr[n_features], dtype=np.float64)
    cdef int32_t[::1] out_classes = out_classes_array
    cdef double[::1] out_values = out_values_array
    with nogil:
        for j in prange(n_features, schedule="dynamic", chunksize=256, num_threads=n_threads):
            n = out_indptr[j + 1] - out_indptr[j]
            if n > 0:
                start = slot_start[j]
                memcpy(&out_classes[out_indptr[j]], &slot_classes[start], n * sizeof(int32_t))
                memcpy(&out_values[out_indptr[j]], &slot_values[start], n * sizeof(double))
    return pointer_array(out_indptr_array), out_classes_array, out_values_array


def pointer_array(indptr):
    """Feature pointers in the narrowest of int32 and int64 that holds them."""
    return indptr.astype(np.int32 if indptr[len(indptr) - 1] <= np.iinfo(np.int32).max else np.int64)


def sum_by_class(const int32_t[::1] classes, const double[::1] values, Py_ssize_t n_classes):
    """sum of ``values`` per class, compensated (Kahan), added in entry order."""
    cdef Py_ssize_t e
    sums_array = np.zeros(n_classes)
    cdef double[::1] sums = sums_array
    cdef double[::1] error = np.zeros(n_classes)
    with nogil:
        for e in range(classes.shape[0]):
            kahan_add(&sums[classes[e]], &error[classes[e]], values[e])
    return sums_array


def score_compact(
    const floating[::1] data,
    const integral[::1] indices,
    const integral[::1] indptr,
    const pointer_integral[::1] table_indptr,
    const int32_t[::1] table_classes,
    const double[::1] deviation,
    const double[::1] default,
    const double[::1] scale,
    const double[::1] base,
    const double[::1] bias,
    bint binarize,
    double threshold,
    int mode,
    double[:, ::1] out,
    int64_t[::1] labels,
    int n_threads,
):
    """Score every row of a CSR matrix under a compact table (see the module's docstring).

    ``mode`` selects the output as in :func:`nbfast._kernels.scoring.score_csr`.
    An empty ``base`` means no per-feature term; an empty ``scale`` means 1 for
    every class.
    """
    cdef Py_ssize_t n_samples = indptr.shape[0] - 1
    cdef Py_ssize_t n_classes = bias.shape[0]
    cdef Py_ssize_t n_nonzeros = indices.shape[0]
    cdef bint has_base = base.shape[0] > 0
    cdef bint has_scale = scale.shape[0] > 0
    cdef Py_ssize_t i, k, e, c, j, n_rows, longest = 0
    cdef double v, weight, shifted
    cdef double *acc
    cdef double *row_weight
    cdef int64_t *row_start
    cdef bint ready
    cdef int failed = 0
    cdef int *failed_flag = &failed  # written through a pointer: shared by the threads
    cdef const pointer_integral *pointers = &table_indptr[0]
    cdef const int32_t *classes_ptr = NULL
    cdef const double *deviation_ptr = NULL

    if n_samples == 0:
        return
    if table_classes.shape[0] > 0:
        classes_ptr = &table_classes[0]
        deviation_ptr = &deviation[0]
    for i in range(n_samples):
        longest = max(longest, indptr[i + 1] - indptr[i])
    with nogil, parallel(num_threads=n_threads):
        acc = <double *> malloc(n_classes * sizeof(double))
        row_weight = <double *> malloc((longest + 1) * sizeof(double))
        row_start = <int64_t *> malloc((longest + 1) * sizeof(int64_t))
        ready = acc != NULL and row_weight != NULL and row_start != NULL
        if not ready:
            failed_flag[0] = 1
        for i in prange(n_samples, schedule="dynamic", chunksize=ROW_BLOCK):
            if not ready:  # this thread has no scratch: its rows are left undone, and MemoryError raised
                continue
            for c in range(n_classes):
                acc[c] = 0.0
            weight = 0.0
            shifted = 0.0
            n_rows = 0
            for k in range(indptr[i], indptr[i + 1]):
                if k + POINTER_PREFETCH_DISTANCE < n_nonzeros:
                    prefetch(pointers + indices[k + POINTER_PREFETCH_DISTANCE])
                if k + ENTRY_PREFETCH_DISTANCE < n_nonzeros:
                    j = indices[k + ENTRY_PREFETCH_DISTANCE]
                    prefetch_range(classes_ptr + pointers[j], classes_ptr + pointers[j + 1])
                    prefetch_range(deviation_ptr + pointers[j], deviation_ptr + pointers[j + 1])
                if binarize:
                    if not data[k] > threshold:
                        continue
                    v = 1.0
                else:
                    v = data[k]
                j = indices[k]
                weight = weight + v
                if has_base:
                    shifted = shifted + v * base[j]
                if pointers[j + 1] - pointers[j] == n_classes:  # a dense row: added in the second pass
                    row_weight[n_rows] = v
                    row_start[n_rows] = pointers[j]
                    n_rows = n_rows + 1
                else:
                    for e in range(pointers[j], pointers[j + 1]):
                        acc[classes_ptr[e]] += v * deviation_ptr[e]
            add_dense_rows(deviation_ptr, row_start, row_weight, n_rows, n_classes, acc)
            for c in range(n_classes):
                acc[c] = bias[c] + weight * default[c] + (shifted * scale[c] if has_scale else shifted) + acc[c]
            finish_row(acc, n_classes, mode, NULL if mode == SCORE_ARGMAX else &out[i, 0],
                       &labels[i] if mode == SCORE_ARGMAX else NULL)
        free(acc)
        free(row_weight)
        free(row_start)
    if failed:
        raise MemoryError(f"nbfast: cannot allocate the per-thread scratch of {n_classes} classes and "
                          f"{longest + 1} nonzeros")
