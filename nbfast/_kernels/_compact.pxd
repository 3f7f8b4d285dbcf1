# The compact statistics' layout, shared by the kernels that make and score them (compact, folds): which
# features are dense rows, the classes of a feature in order, and the dense rows' sums a tile at a time.
from libc.stdint cimport int32_t, int64_t

from nbfast._kernels._linear cimport MAX_TILE

cdef enum:
    # A feature with entries for at least 1 / DENSE_ROW_FRACTION of the classes is stored as a dense row.
    DENSE_ROW_FRACTION = 4


cdef inline bint is_dense_row(Py_ssize_t n_entries, Py_ssize_t n_classes) noexcept nogil:
    return n_entries * DENSE_ROW_FRACTION >= n_classes


cdef inline void sort_classes(int32_t *touched, Py_ssize_t n, const char *seen, Py_ssize_t n_classes) noexcept nogil:
    """Sort the n distinct classes in ``touched`` (``seen`` marks them): by a scan of the marks when
    they are many, else by insertion."""
    cdef Py_ssize_t a, b, c
    cdef int32_t value
    if n * 8 > n_classes:
        b = 0
        for c in range(n_classes):
            if seen[c]:
                touched[b] = <int32_t> c
                b = b + 1
        return
    for a in range(1, n):
        value = touched[a]
        b = a
        while b > 0 and touched[b - 1] > value:
            touched[b] = touched[b - 1]
            b = b - 1
        touched[b] = value


cdef inline void tile_dense_rows(
    const double *deviation,
    const int64_t *row_start,
    const double *row_weight,
    Py_ssize_t n_rows,
    Py_ssize_t c0,
    Py_ssize_t width,
    double *acc,
) noexcept nogil:
    """acc[c0:c0 + width] += sum_d row_weight[d] * deviation[row_start[d] + c0 : ... + width], rows in order.

    Called with a constant ``width`` (at most MAX_TILE): once inlined, the
    tile's sums stay in registers.
    """
    cdef Py_ssize_t d, c
    cdef double t[MAX_TILE]
    cdef const double *row
    for c in range(width):
        t[c] = acc[c0 + c]
    for d in range(n_rows):
        row = deviation + row_start[d] + c0
        for c in range(width):
            t[c] += row_weight[d] * row[c]
    for c in range(width):
        acc[c0 + c] = t[c]


cdef inline void add_dense_rows(
    const double *deviation,
    const int64_t *row_start,
    const double *row_weight,
    Py_ssize_t n_rows,
    Py_ssize_t n_classes,
    double *acc,
) noexcept nogil:
    """Every class's sum over the dense rows, in as few passes as the tile widths allow."""
    cdef Py_ssize_t c0 = 0
    while c0 + MAX_TILE <= n_classes:
        tile_dense_rows(deviation, row_start, row_weight, n_rows, c0, MAX_TILE, acc)
        c0 += MAX_TILE
    if c0 + 16 <= n_classes:
        tile_dense_rows(deviation, row_start, row_weight, n_rows, c0, 16, acc)
        c0 += 16
    if c0 + 8 <= n_classes:
        tile_dense_rows(deviation, row_start, row_weight, n_rows, c0, 8, acc)
        c0 += 8
    if c0 + 4 <= n_classes:
        tile_dense_rows(deviation, row_start, row_weight, n_rows, c0, 4, acc)
        c0 += 4
    if c0 + 2 <= n_classes:
        tile_dense_rows(deviation, row_start, row_weight, n_rows, c0, 2, acc)
        c0 += 2
    if c0 < n_classes:
        tile_dense_rows(deviation, row_start, row_weight, n_rows, c0, 1, acc)
