# The linear form of a CSR row, bias + sum_k f(x_k) * table[j_k, :], summed with the row's classes in
# registers: the scoring kernels (a Naive Bayes table) and the discriminative kernels (the weights, and X^T
# times the residuals) share it.
from nbfast._kernels._math cimport lines_spanned, prefetch_lines
from nbfast._kernels._types cimport floating, integral

cdef enum:
    # How many nonzeros ahead the table row is prefetched; the look-ahead runs
    # on into the next rows (CSR stores them contiguously), so a row's first
    # nonzeros are prefetched too.  Enough rows in flight to hide the latency
    # of a table larger than the caches (48 measured best of 8 to 64 at 2^18
    # features and 20 classes).
    PREFETCH_DISTANCE = 48
    # Smaller tables stay in the L2 cache (1 to 2 MiB a core), where prefetching their rows only costs
    # instructions (a 16,384 x 5 table of 0.6 MiB scored 1.7x slower with).  Larger ones gain: 6-15% for
    # the discriminative passes over 3 to 5 MiB tables, 1.7 to 2.7x from 40 MiB on.
    PREFETCH_MIN_TABLE_BYTES = 2097152
    # Most classes whose accumulators are kept in registers during one pass over a row.
    MAX_TILE = 20


cdef struct Prefetch:
    Py_ssize_t until  # rows of the table are prefetched for the nonzeros before this one (0: none)
    Py_ssize_t n_lines  # cache lines prefetched per table row


cdef inline Prefetch prefetch_plan(const void *table, Py_ssize_t n_rows, Py_ssize_t row_bytes,
                                   Py_ssize_t n_nonzeros) noexcept nogil:
    """How :func:`row_jll` prefetches the rows of a table of ``n_rows`` rows of ``row_bytes``, for X's
    ``n_nonzeros`` nonzeros: not at all when the caches hold the table."""
    cdef Prefetch plan
    plan.until = n_nonzeros if n_rows * row_bytes >= PREFETCH_MIN_TABLE_BYTES else 0
    plan.n_lines = lines_spanned(table, row_bytes, row_bytes)
    return plan


cdef inline void tile_jll(
    const floating *data,
    const integral *indices,
    Py_ssize_t start,
    Py_ssize_t end,
    const double *table,
    Py_ssize_t n_classes,
    bint binarize,
    double threshold,
    bint first,
    Py_ssize_t width,
    Prefetch prefetch,
    double *acc,
) noexcept nogil:
    """acc[0:width] += sum over the row's nonzeros of f(x_k) * table[j_k, 0:width].

    ``table`` points at the tile's first class.  Called with a constant
    ``width`` (at most MAX_TILE), so that once inlined the trip count is fixed
    and the compiler keeps the accumulators in registers.  The first tile of a
    row prefetches whole table rows ahead as ``prefetch`` says (see
    :func:`prefetch_plan`); later tiles find them in cache.  Each class still sums its terms
    in nonzero order, so results do not depend on the tiling.
    """
    cdef Py_ssize_t k, c
    cdef double value
    cdef double t[MAX_TILE]
    cdef const double *row
    for c in range(width):
        t[c] = acc[c]
    for k in range(start, end):
        if first and k + PREFETCH_DISTANCE < prefetch.until:
            prefetch_lines(table + <Py_ssize_t> indices[k + PREFETCH_DISTANCE] * n_classes, prefetch.n_lines)
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


cdef inline void tile_of_width(
    const floating *data,
    const integral *indices,
    Py_ssize_t start,
    Py_ssize_t end,
    const double *table,
    Py_ssize_t n_classes,
    bint binarize,
    double threshold,
    bint first,
    Py_ssize_t width,
    Prefetch prefetch,
    double *acc,
) noexcept nogil:
    """:func:`tile_jll` for any ``width`` from 1 to MAX_TILE, each one called with its width a constant (in a
    function of its own: inlined into :func:`row_jll`'s loop, these calls stopped being inlined themselves)."""
    if width == 1:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 1, prefetch, acc)
    elif width == 2:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 2, prefetch, acc)
    elif width == 3:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 3, prefetch, acc)
    elif width == 4:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 4, prefetch, acc)
    elif width == 5:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 5, prefetch, acc)
    elif width == 6:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 6, prefetch, acc)
    elif width == 7:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 7, prefetch, acc)
    elif width == 8:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 8, prefetch, acc)
    elif width == 9:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 9, prefetch, acc)
    elif width == 10:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 10, prefetch, acc)
    elif width == 11:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 11, prefetch, acc)
    elif width == 12:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 12, prefetch, acc)
    elif width == 13:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 13, prefetch, acc)
    elif width == 14:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 14, prefetch, acc)
    elif width == 15:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 15, prefetch, acc)
    elif width == 16:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 16, prefetch, acc)
    elif width == 17:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 17, prefetch, acc)
    elif width == 18:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 18, prefetch, acc)
    elif width == 19:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 19, prefetch, acc)
    elif width == 20:
        tile_jll(data, indices, start, end, table, n_classes, binarize, threshold, first, 20, prefetch, acc)


cdef inline void row_jll(
    const floating *data,
    const integral *indices,
    Py_ssize_t start,
    Py_ssize_t end,
    const double *table,
    const double *bias,
    Py_ssize_t n_classes,
    bint binarize,
    double threshold,
    Prefetch prefetch,
    double *acc,
) noexcept nogil:
    cdef Py_ssize_t c, width, c0 = 0
    cdef Py_ssize_t n_tiles = (n_classes + MAX_TILE - 1) // MAX_TILE
    for c in range(n_classes):
        acc[c] = bias[c]
    # The classes in as few passes over the row as tiles of at most MAX_TILE
    # allow, of balanced widths (25 classes: 13 and 12, not 20, 4 and 1): a
    # narrow tile's sums are chains of dependent additions, as slow per
    # nonzero as a wide tile's.
    for c in range(n_tiles):
        width = (n_classes - c0) // (n_tiles - c)
        tile_of_width(data, indices, start, end, table + c0, n_classes, binarize, threshold, c == 0, width,
                      prefetch, acc + c0)
        c0 += width
