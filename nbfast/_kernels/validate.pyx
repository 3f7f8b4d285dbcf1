"""One cheap pass over a CSR matrix that counts every kind of malformation, so
that the Python validation layer can refuse bad input before a kernel reads it."""
from cython.parallel cimport parallel, prange, threadid
from libc.math cimport isfinite
from libc.stdint cimport int32_t, uint32_t, uint64_t

from nbfast._kernels._openmp cimport ROW_BLOCK, VALUE_BLOCK
from nbfast._kernels._types cimport floating, integral


def count_bad_indptr(const integral[::1] indptr):
    """Number of positions where indptr decreases."""
    cdef Py_ssize_t i, bad = 0
    with nogil:
        for i in range(1, indptr.shape[0]):
            if indptr[i] < indptr[i - 1]:
                bad += 1
    return bad


def count_bad_indices(const integral[::1] indices, Py_ssize_t n_features, int n_threads):
    """Number of column indices outside [0, n_features).

    One unsigned comparison in the indices' own width (a negative index is a
    huge unsigned one): branch-free, it vectorizes (about 3x the two signed
    comparisons at 64 bits).
    """
    cdef Py_ssize_t k, bad = 0
    # int32 indices below 2^31 are all valid when n_features >= 2^31: only negative ones are bad
    cdef uint32_t limit32 = <uint32_t> min(n_features, <Py_ssize_t> 1 << 31)
    with nogil:
        if integral is int32_t:
            for k in prange(indices.shape[0], schedule="dynamic", chunksize=VALUE_BLOCK, num_threads=n_threads):
                bad += (<uint32_t> indices[k]) >= limit32
        else:
            for k in prange(indices.shape[0], schedule="dynamic", chunksize=VALUE_BLOCK, num_threads=n_threads):
                bad += (<uint64_t> indices[k]) >= (<uint64_t> n_features)
    return bad


def count_bad_values(const floating[::1] data, int n_threads):
    """Return (number of NaN or infinite values, number of values below 0, -inf included)."""
    cdef Py_ssize_t k, nonfinite = 0, negative = 0
    with nogil:
        for k in prange(data.shape[0], schedule="dynamic", chunksize=VALUE_BLOCK, num_threads=n_threads):
            # branch-free, so it vectorizes; -inf counts in both (only non-finite is reported then)
            nonfinite += not isfinite(data[k])
            negative += data[k] < 0
    return nonfinite, negative


def count_unsorted_rows(const integral[::1] indices, const integral[::1] indptr, int n_threads):
    """Number of rows whose column indices are not strictly increasing (unsorted, or a column stored twice).

    ``indptr`` must be valid (checked before). Branch-free within a row.
    """
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1
    cdef Py_ssize_t r, k, bad = 0, in_row
    with nogil:
        for r in prange(n_rows, schedule="dynamic", chunksize=ROW_BLOCK, num_threads=n_threads):
            in_row = 0
            for k in range(indptr[r] + 1, indptr[r + 1]):
                in_row += indices[k] <= indices[k - 1]
            bad += in_row > 0
    return bad


def count_rows_with_duplicates(
    const integral[::1] indices, const integral[::1] indptr, uint32_t[:, ::1] last_row, int n_threads
):
    """Number of rows that store a column twice, whatever the order of their indices.

    A row whose indices strictly increase has none.  Any other row marks its
    columns in ``last_row[thread]`` (zeroed, ``(n_threads, n_features)``) with
    its row number + 1: a column already marked with it is stored twice.  The
    mark wraps at 2^32 rows, so a column last met exactly 2^32 rows earlier
    counts as a duplicate: a false alarm, never a missed duplicate.
    ``indptr`` and ``indices`` must be valid (checked before).
    """
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1
    cdef Py_ssize_t r, k, bad = 0, in_row
    cdef uint32_t mark
    cdef uint32_t *seen
    with nogil, parallel(num_threads=n_threads):
        seen = &last_row[threadid(), 0]
        for r in prange(n_rows, schedule="dynamic", chunksize=ROW_BLOCK):
            in_row = 0
            for k in range(indptr[r] + 1, indptr[r + 1]):
                in_row = in_row + (indices[k] <= indices[k - 1])
            if in_row > 0:
                mark = <uint32_t> (r + 1)
                in_row = 0
                for k in range(indptr[r], indptr[r + 1]):
                    in_row = in_row + (seen[indices[k]] == mark)
                    seen[indices[k]] = mark
            bad += in_row > 0
    return bad
