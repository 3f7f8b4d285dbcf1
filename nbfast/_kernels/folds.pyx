"""A cross-validated search over K folds of the rows, for the compact count models: every fold's statistics in
one pass over X, and every alpha of a fold's test rows in one pass over them.

The statistics are those of :mod:`nbfast._kernels.compact` (a CSR matrix by
feature, ``indptr`` and ``classes``, a dense row for a feature counted in at
least a quarter of the classes), with a value per fold for each entry: the
pattern is the one a fit on every row makes, and the training rows of fold k
sum the other folds' values on it (an entry none of them counts is an explicit
zero, whose deviation is 0).

The tables of the alphas searched lie side by side, alpha fastest: entry e's
deviation for alpha a is ``deviation[e, a]``, or ``deviation[codes[e], a]``
when the entries have codes.  With whole counts the code is the count itself
and ``deviation`` a small table indexed by it, so that a dense row of the
table (the frequent features, most of the work) is read as n_classes codes,
not n_classes x n_alphas values (1.7 times faster on the Debian package
corpus).  A row's sums are kept as ``acc[c * n_alphas + a]``, and each
(class, alpha) adds its terms in the order
:func:`nbfast._kernels.compact.score_compact` adds them for that alpha's
table alone (the entries of the row's sparse features in nonzero order, then
its dense rows in nonzero order), so every alpha's joint log-likelihoods are
bit-identical to it.
"""
from cython.parallel cimport parallel, prange
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

import numpy as np

from nbfast._kernels._compact cimport add_dense_rows, is_dense_row, sort_classes
from nbfast._kernels._linear cimport MAX_TILE
from nbfast._kernels._math cimport SCORE_ARGMAX, finish_row, prefetch, prefetch_range
from nbfast._kernels._openmp cimport ROW_BLOCK, VALUE_BLOCK
from nbfast._kernels._types cimport floating, integral, pointer_integral

from nbfast._kernels.compact import pointer_array

cdef enum:
    # How many nonzeros ahead the feature's pointers, then its entries, are prefetched (as score_compact does),
    # and how many places ahead in the list the data and indices of a row (as score_csr does).
    POINTER_PREFETCH_DISTANCE = 16
    ENTRY_PREFETCH_DISTANCE = 8
    ROW_PREFETCH_DISTANCE = 2
    # Features per block of the parallel loops over features.
    FEATURE_BLOCK = 256
    # The most chunks of rows that the counting sort places in parallel (each needs a cursor per feature).
    MAX_CHUNKS = 4
    # The most alphas whose sums over a row's dense rows are kept in registers together (a tile of
    # MAX_TILE // width classes x width alphas).
    MAX_GROUP = 8


cdef inline Py_ssize_t column_classes(const int32_t *cells, const int32_t *class_of, int64_t start, int64_t end,
                                      char *seen, int32_t *touched) noexcept nogil:
    """The distinct classes of the (fold, class) cells [start, end): marked in ``seen`` and listed in
    ``touched`` in the order they come; returns how many."""
    cdef Py_ssize_t n = 0
    cdef int64_t p
    cdef int32_t c
    for p in range(start, end):
        c = class_of[cells[p]]
        if not seen[c]:
            seen[c] = 1
            touched[n] = c
            n = n + 1
    return n


def fold_counts(
    const floating[::1] data,
    const integral[::1] indices,
    const integral[::1] indptr,
    const Py_ssize_t[::1] y_index,
    const Py_ssize_t[::1] fold,
    const double[::1] sample_weight,
    Py_ssize_t n_features,
    Py_ssize_t n_classes,
    Py_ssize_t n_folds,
    int n_threads,
):
    """Each fold's per-(feature, class) sums of w_i x_ij, on the pattern of the sums over every row.

    Row i is in fold ``fold[i]`` and class ``y_index[i]``, with weight
    ``sample_weight[i]`` (empty: 1).  Returns ``(indptr, classes, values)``:
    the pattern as :func:`nbfast._kernels.compact.feature_class_counts` makes
    it from all the rows, and ``values`` (n_folds, n_entries), fold k's sums,
    each adding the fold's rows in order.  O(nnz + n_entries x n_folds +
    n_features).
    """
    cdef Py_ssize_t n_samples = indptr.shape[0] - 1
    cdef Py_ssize_t n_cells = n_folds * n_classes
    cdef Py_ssize_t i, j, k, p, e, c, f, n, t, start
    cdef bint weighted = sample_weight.shape[0] > 0
    cdef int32_t cell
    cdef double w

    # 1. The nonzeros by feature (a counting sort, row order kept), each as its (fold, class) cell and w x.  The
    #    rows are cut into a few contiguous chunks, each counted, then placed, by one thread: chunk t's nonzeros
    #    of a feature come after those of the chunks before it, whatever the number of chunks.
    cdef Py_ssize_t n_chunks = max(1, min(n_threads, MAX_CHUNKS, n_samples))
    cursor_array = np.zeros((n_chunks, n_features), dtype=np.int64)
    cdef int64_t[:, ::1] cursor = cursor_array
    with nogil:
        for t in prange(n_chunks, schedule="static", chunksize=1, num_threads=n_threads):
            for k in range(indptr[n_samples * t // n_chunks], indptr[n_samples * (t + 1) // n_chunks]):
                cursor[t, indices[k]] += 1
    column_start_array = np.empty(n_features + 1, dtype=np.int64)
    cdef int64_t[::1] column_start = column_start_array
    with nogil:
        p = 0
        for j in range(n_features):
            column_start[j] = p
            for t in range(n_chunks):
                n = cursor[t, j]
                cursor[t, j] = p  # where chunk t's first nonzero of feature j goes
                p = p + n
        column_start[n_features] = p
    cells_array = np.empty(p, dtype=np.int32)
    weighted_array = np.empty(p, dtype=np.float64)
    cdef int32_t[::1] cells = cells_array
    cdef double[::1] values = weighted_array
    cdef int32_t[::1] class_of = np.tile(np.arange(n_classes, dtype=np.int32), n_folds)  # a cell's class
    cdef const int32_t *cells_ptr = &cells[0] if p > 0 else NULL
    with nogil:
        for t in prange(n_chunks, schedule="static", chunksize=1, num_threads=n_threads):
            for i in range(n_samples * t // n_chunks, n_samples * (t + 1) // n_chunks):
                w = sample_weight[i] if weighted else 1.0
                cell = <int32_t> (fold[i] * n_classes + y_index[i])
                for k in range(indptr[i], indptr[i + 1]):
                    p = cursor[t, indices[k]]
                    cursor[t, indices[k]] = p + 1
                    cells[p] = cell
                    values[p] = w * data[k]

    # 2. How many entries each feature has: its classes, or every class for a dense row.
    sizes_array = np.zeros(n_features + 1, dtype=np.int64)
    cdef int64_t[::1] sizes = sizes_array
    cdef char *seen
    cdef int32_t *touched
    cdef double *acc
    cdef bint failed = False
    cdef bint *failed_flag = &failed  # written through a pointer: shared by the threads
    with nogil, parallel(num_threads=n_threads):
        seen = <char *> malloc(n_classes * sizeof(char))
        touched = <int32_t *> malloc(n_classes * sizeof(int32_t))
        if seen == NULL or touched == NULL:
            failed_flag[0] = True
        else:
            memset(seen, 0, n_classes * sizeof(char))
            for j in prange(n_features, schedule="dynamic", chunksize=FEATURE_BLOCK):
                n = column_classes(cells_ptr, &class_of[0], column_start[j], column_start[j + 1], seen, touched)
                for e in range(n):
                    seen[touched[e]] = 0
                sizes[j + 1] = n_classes if is_dense_row(n, n_classes) else n
        free(seen)
        free(touched)
    if failed:
        raise MemoryError("nbfast: cannot allocate the per-thread scratch of the fold counts")
    out_indptr_array = np.cumsum(sizes_array, out=sizes_array)
    cdef int64_t[::1] out_indptr = out_indptr_array
    cdef Py_ssize_t n_entries = out_indptr[n_features]
    out_classes_array = np.empty(n_entries, dtype=np.int32)
    out_values_array = np.empty((n_folds, n_entries), dtype=np.float64)
    cdef int32_t[::1] out_classes = out_classes_array
    cdef double[:, ::1] out_values = out_values_array

    # 3. Each feature's sums per (fold, class), the fold's rows in order, written on the feature's entries.
    with nogil, parallel(num_threads=n_threads):
        seen = <char *> malloc(n_classes * sizeof(char))
        touched = <int32_t *> malloc(n_classes * sizeof(int32_t))
        acc = <double *> malloc(n_cells * sizeof(double))
        if seen == NULL or touched == NULL or acc == NULL:
            failed_flag[0] = True
        else:
            memset(seen, 0, n_classes * sizeof(char))
            for j in prange(n_features, schedule="dynamic", chunksize=FEATURE_BLOCK):
                n = column_classes(cells_ptr, &class_of[0], column_start[j], column_start[j + 1], seen, touched)
                for e in range(n):
                    for f in range(n_folds):
                        acc[f * n_classes + touched[e]] = 0.0
                for p in range(column_start[j], column_start[j + 1]):
                    acc[cells[p]] += values[p]
                start = out_indptr[j]
                if out_indptr[j + 1] - start == n_classes and n < n_classes:  # a dense row: every class
                    for c in range(n_classes):
                        if not seen[c]:
                            for f in range(n_folds):
                                acc[f * n_classes + c] = 0.0
                        touched[c] = <int32_t> c
                    n = n_classes
                else:
                    sort_classes(touched, n, seen, n_classes)
                for e in range(n):
                    c = touched[e]
                    out_classes[start + e] = <int32_t> c
                    for f in range(n_folds):
                        out_values[f, start + e] = acc[f * n_classes + c]
                    seen[c] = 0
        free(seen)
        free(touched)
        free(acc)
    if failed:
        raise MemoryError("nbfast: cannot allocate the per-thread scratch of the fold counts")
    return pointer_array(out_indptr_array), out_classes_array, out_values_array


cdef inline void tile_coded_rows(
    const int32_t *codes,
    const int64_t *row_start,
    const double *row_weight,
    Py_ssize_t n_rows,
    const double *deviation,
    Py_ssize_t stride,
    Py_ssize_t n_tile_classes,
    Py_ssize_t width,
    double *acc,
) noexcept nogil:
    """acc[c * stride + a] += sum_d row_weight[d] * deviation[codes[row_start[d] + c] * stride + a], for the
    tile's classes c < n_tile_classes and alphas a < width, the rows in order.

    Called with constant ``n_tile_classes`` and ``width`` (their product at
    most MAX_TILE): once inlined, the tile's sums stay in registers.
    """
    cdef Py_ssize_t d, c, a
    cdef double t[MAX_TILE]
    cdef const int32_t *row
    cdef const double *entry
    cdef double w
    for c in range(n_tile_classes):
        for a in range(width):
            t[c * width + a] = acc[c * stride + a]
    for d in range(n_rows):
        w = row_weight[d]
        row = codes + row_start[d]
        for c in range(n_tile_classes):
            entry = deviation + row[c] * stride
            for a in range(width):
                t[c * width + a] += w * entry[a]
    for c in range(n_tile_classes):
        for a in range(width):
            acc[c * stride + a] = t[c * width + a]


cdef inline void coded_rows_of_width(
    const int32_t *codes,
    const int64_t *row_start,
    const double *row_weight,
    Py_ssize_t n_rows,
    const double *deviation,
    Py_ssize_t stride,
    Py_ssize_t n_classes,
    Py_ssize_t width,
    double *acc,
) noexcept nogil:
    """Every class's sums of ``width`` alphas over the dense rows: tiles of MAX_TILE // width classes, then the
    classes left one by one (called with a constant ``width``)."""
    cdef Py_ssize_t c0 = 0
    while c0 + MAX_TILE // width <= n_classes:
        tile_coded_rows(codes + c0, row_start, row_weight, n_rows, deviation, stride, MAX_TILE // width, width,
                        acc + c0 * stride)
        c0 += MAX_TILE // width
    while c0 < n_classes:
        tile_coded_rows(codes + c0, row_start, row_weight, n_rows, deviation, stride, 1, width, acc + c0 * stride)
        c0 += 1


cdef inline void add_coded_rows(
    const int32_t *codes,
    const int64_t *row_start,
    const double *row_weight,
    Py_ssize_t n_rows,
    const double *deviation,
    Py_ssize_t n_classes,
    Py_ssize_t n_alphas,
    double *acc,
) noexcept nogil:
    """acc[c * n_alphas + a] += sum_d row_weight[d] * deviation[codes[row_start[d] + c], a] for every class and
    alpha, the dense rows in order: groups of at most MAX_GROUP alphas, each with its width a constant."""
    cdef Py_ssize_t group, g, width
    for group in range((n_alphas + MAX_GROUP - 1) // MAX_GROUP):
        g = group * MAX_GROUP
        width = min(<Py_ssize_t> MAX_GROUP, n_alphas - g)
        if width == 1:
            coded_rows_of_width(codes, row_start, row_weight, n_rows, deviation + g, n_alphas, n_classes, 1, acc + g)
        elif width == 2:
            coded_rows_of_width(codes, row_start, row_weight, n_rows, deviation + g, n_alphas, n_classes, 2, acc + g)
        elif width == 3:
            coded_rows_of_width(codes, row_start, row_weight, n_rows, deviation + g, n_alphas, n_classes, 3, acc + g)
        elif width == 4:
            coded_rows_of_width(codes, row_start, row_weight, n_rows, deviation + g, n_alphas, n_classes, 4, acc + g)
        elif width == 5:
            coded_rows_of_width(codes, row_start, row_weight, n_rows, deviation + g, n_alphas, n_classes, 5, acc + g)
        elif width == 6:
            coded_rows_of_width(codes, row_start, row_weight, n_rows, deviation + g, n_alphas, n_classes, 6, acc + g)
        elif width == 7:
            coded_rows_of_width(codes, row_start, row_weight, n_rows, deviation + g, n_alphas, n_classes, 7, acc + g)
        else:
            coded_rows_of_width(codes, row_start, row_weight, n_rows, deviation + g, n_alphas, n_classes, 8, acc + g)


cdef inline void add_terms(double *acc, const double *bias, const double *default, const double *scale,
                           const double *shifted, double weight, Py_ssize_t n_classes, Py_ssize_t n_alphas,
                           bint has_base) noexcept nogil:
    """A row's joint log-likelihoods from its sums of deviations ``acc``: acc[e] = bias[e] + weight x default[e]
    + (shifted[a] x scale[e], or shifted[a]) + acc[e], e = c x n_alphas + a, as score_compact adds them (with no
    ``base``, shifted is 0 and left out)."""
    cdef Py_ssize_t c, a, e
    if not has_base:
        for e in range(n_classes * n_alphas):
            acc[e] = bias[e] + weight * default[e] + acc[e]
        return
    for c in range(n_classes):
        for a in range(n_alphas):
            e = c * n_alphas + a
            acc[e] = bias[e] + weight * default[e] + (shifted[a] * scale[e] if scale != NULL else shifted[a]) + acc[e]


cdef inline void first_maxima(const double *jll, Py_ssize_t n_classes, Py_ssize_t n_alphas, double *best,
                              int64_t *labels) noexcept nogil:
    """labels[a] = the first class c of maximal jll[c x n_alphas + a], as finish_row's ARGMAX chooses (``best``:
    scratch of n_alphas)."""
    cdef Py_ssize_t c, a
    cdef double value
    cdef bint greater
    for a in range(n_alphas):
        labels[a] = 0
        best[a] = jll[a]
    for c in range(1, n_classes):
        for a in range(n_alphas):  # selects, not branches: which class leads is unpredictable
            value = jll[c * n_alphas + a]
            greater = value > best[a]
            best[a] = value if greater else best[a]
            labels[a] = c if greater else labels[a]


def score_alphas(
    const floating[::1] data,
    const integral[::1] indices,
    const integral[::1] indptr,
    const Py_ssize_t[::1] rows,
    const pointer_integral[::1] table_indptr,
    const int32_t[::1] table_classes,
    const int32_t[::1] codes,
    const double[:, ::1] deviation,
    const double[:, ::1] default,
    const double[:, ::1] scale,
    const double[:, ::1] base,
    const double[:, ::1] bias,
    const Py_ssize_t[::1] take,
    int mode,
    double[:, ::1] out,
    int64_t[:, ::1] labels,
    int n_threads,
):
    """Score the rows ``rows`` of a CSR matrix under the compact tables of several alphas at once.

    Alpha a's table is ``default[:, a]``, ``scale[:, a]``, ``base[:, a]``
    and the deviation ``deviation[e, a]`` of each entry e of the pattern
    ``table_indptr``, ``table_classes`` (see
    :func:`nbfast._kernels.compact.score_compact`; ``scale`` or ``base`` with
    no rows: none), or ``deviation[codes[e], a]`` when ``codes`` is not empty
    (every code a row of ``deviation``); its bias is ``bias[:, a]``.  ARGMAX writes
    ``labels[i, a]``, the first class of maximal joint log-likelihood of row
    ``rows[i]`` under alpha a; PROBA writes ``out[i, a]``, the posterior of
    class ``take[i]``.
    """
    cdef Py_ssize_t n_rows = rows.shape[0]
    cdef Py_ssize_t n_classes = default.shape[0]
    cdef Py_ssize_t n_alphas = default.shape[1]
    cdef Py_ssize_t width = n_classes * n_alphas
    cdef bint has_base = base.shape[0] > 0
    cdef bint coded = codes.shape[0] > 0
    cdef Py_ssize_t i, r, k, e, c, a, j, n_dense, ahead, longest = 0
    cdef double v, weight
    cdef double *acc
    cdef double *shifted
    cdef double *best
    cdef double *jll
    cdef double *posterior
    cdef double *row_weight
    cdef int64_t *row_start
    cdef double *cell
    cdef const double *d
    cdef const pointer_integral *pointers = &table_indptr[0]
    cdef const int32_t *classes_ptr = NULL
    cdef const double *deviation_ptr = &deviation[0, 0] if deviation.shape[0] > 0 else NULL
    cdef const int32_t *codes_ptr = NULL
    cdef const double *default_ptr = &default[0, 0]
    cdef const double *bias_ptr = &bias[0, 0]
    cdef const double *scale_ptr = &scale[0, 0] if scale.shape[0] > 0 else NULL
    cdef const double *base_ptr = &base[0, 0] if has_base else NULL
    cdef const floating *data_ptr = NULL
    cdef const integral *indices_ptr = NULL
    cdef bint failed = False
    cdef bint *failed_flag = &failed  # written through a pointer: shared by the threads

    if n_rows == 0:
        return
    if table_classes.shape[0] > 0:
        classes_ptr = &table_classes[0]
    if coded:
        codes_ptr = &codes[0]
    if data.shape[0] > 0:
        data_ptr = &data[0]
        indices_ptr = &indices[0]
    for i in range(n_rows):
        longest = max(longest, indptr[rows[i] + 1] - indptr[rows[i]])
    with nogil, parallel(num_threads=n_threads):
        acc = <double *> malloc(width * sizeof(double))
        shifted = <double *> malloc(n_alphas * sizeof(double))
        best = <double *> malloc(n_alphas * sizeof(double))
        jll = <double *> malloc(n_classes * sizeof(double))
        posterior = <double *> malloc(n_classes * sizeof(double))
        row_weight = <double *> malloc((longest + 1) * sizeof(double))
        row_start = <int64_t *> malloc((longest + 1) * sizeof(int64_t))
        if acc == NULL or shifted == NULL or best == NULL or jll == NULL or posterior == NULL \
                or row_weight == NULL or row_start == NULL:
            failed_flag[0] = True
        else:
            for i in prange(n_rows, schedule="dynamic", chunksize=ROW_BLOCK):
                r = rows[i]
                if i + ROW_PREFETCH_DISTANCE < n_rows:
                    ahead = rows[i + ROW_PREFETCH_DISTANCE]
                    prefetch_range(data_ptr + indptr[ahead], data_ptr + indptr[ahead + 1])
                    prefetch_range(indices_ptr + indptr[ahead], indices_ptr + indptr[ahead + 1])
                memset(acc, 0, width * sizeof(double))
                memset(shifted, 0, n_alphas * sizeof(double))
                weight = 0.0
                n_dense = 0
                for k in range(indptr[r], indptr[r + 1]):
                    if k + POINTER_PREFETCH_DISTANCE < indptr[r + 1]:
                        prefetch(pointers + indices[k + POINTER_PREFETCH_DISTANCE])
                        if has_base:
                            prefetch(base_ptr + indices[k + POINTER_PREFETCH_DISTANCE] * n_alphas)
                    if k + ENTRY_PREFETCH_DISTANCE < indptr[r + 1]:
                        j = indices[k + ENTRY_PREFETCH_DISTANCE]
                        prefetch_range(classes_ptr + pointers[j], classes_ptr + pointers[j + 1])
                        if coded:
                            prefetch_range(codes_ptr + pointers[j], codes_ptr + pointers[j + 1])
                        else:
                            prefetch_range(deviation_ptr + pointers[j] * n_alphas,
                                           deviation_ptr + pointers[j + 1] * n_alphas)
                    v = data[k]
                    j = indices[k]
                    weight = weight + v
                    if has_base:
                        for a in range(n_alphas):
                            shifted[a] += v * base_ptr[j * n_alphas + a]
                    if pointers[j + 1] - pointers[j] == n_classes:  # a dense row: added in the second pass
                        row_weight[n_dense] = v
                        row_start[n_dense] = pointers[j] if coded else pointers[j] * n_alphas
                        n_dense = n_dense + 1
                    else:
                        for e in range(pointers[j], pointers[j + 1]):
                            cell = acc + classes_ptr[e] * n_alphas
                            d = deviation_ptr + (codes_ptr[e] if coded else e) * n_alphas
                            for a in range(n_alphas):
                                cell[a] += v * d[a]
                if coded:
                    add_coded_rows(codes_ptr, row_start, row_weight, n_dense, deviation_ptr, n_classes, n_alphas,
                                   acc)
                else:  # each dense row one run of n_classes x n_alphas deviations
                    add_dense_rows(deviation_ptr, row_start, row_weight, n_dense, width, acc)
                add_terms(acc, bias_ptr, default_ptr, scale_ptr, shifted, weight, n_classes, n_alphas, has_base)
                if mode == SCORE_ARGMAX:
                    first_maxima(acc, n_classes, n_alphas, best, &labels[i, 0])
                else:
                    for a in range(n_alphas):
                        for c in range(n_classes):
                            jll[c] = acc[c * n_alphas + a]
                        finish_row(jll, n_classes, mode, posterior, NULL)
                        out[i, a] = posterior[take[i]]
        free(acc)
        free(shifted)
        free(best)
        free(jll)
        free(posterior)
        free(row_weight)
        free(row_start)
    if failed:
        raise MemoryError("nbfast: cannot allocate the per-thread scratch of the scoring")


cdef inline Py_ssize_t whole_row(double value, Py_ssize_t size) noexcept nogil:
    """The row of ``value`` in a table of whole numbers 0 .. size - 1, or -1 when it is not one of them."""
    cdef Py_ssize_t n = <Py_ssize_t> value if 0 <= value < size else -1
    return n if n == value else -1


def table_rows(
    const double[::1] values,
    const double[::1] minus,
    const double[:, ::1] table,
    double[:, ::1] out,
    uint8_t[::1] other,
    int n_threads,
):
    """out[e] = table[values[e]], or table[values[e]] - table[minus[e]] when ``minus`` is not empty, where those
    are whole numbers in [0, len(table)); elsewhere other[e] = 1 and out[e] is left as it is."""
    cdef Py_ssize_t e, a, n, m
    cdef Py_ssize_t size = table.shape[0]
    cdef Py_ssize_t width = table.shape[1]
    cdef bint differences = minus.shape[0] > 0
    with nogil:
        for e in prange(values.shape[0], schedule="dynamic", chunksize=VALUE_BLOCK, num_threads=n_threads):
            n = whole_row(values[e], size)
            m = whole_row(minus[e], size) if differences else 0
            other[e] = n < 0 or m < 0
            if other[e]:
                continue
            for a in range(width):
                out[e, a] = table[n, a] - table[m, a] if differences else table[n, a]
