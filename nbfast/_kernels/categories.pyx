"""Category codes of CSR entries, for CategoricalNB: a validation pass and the
map of each stored entry (feature j, category v) to column start_j + v of the
stacked per-category table.  Elementwise, so identical for any thread count."""
from cython.parallel cimport prange
from libc.math cimport floor
from libc.stdint cimport int64_t

from nbfast._kernels._openmp cimport VALUE_BLOCK
from nbfast._kernels._types cimport floating, integral


def count_bad_codes(const floating[::1] data, double upper, bint allow_nan, int n_threads):
    """Number of values that are not integers in [0, upper) (nor NaN, when ``allow_nan``)."""
    cdef Py_ssize_t k, bad = 0
    with nogil:
        for k in prange(data.shape[0], schedule="dynamic", chunksize=VALUE_BLOCK, num_threads=n_threads):
            if not (data[k] >= 0 and data[k] < upper and floor(data[k]) == data[k]) \
                    and not (allow_nan and data[k] != data[k]):
                bad += 1
    return bad


def category_columns(
    const floating[::1] data,
    const integral[::1] indices,
    const int64_t[::1] n_categories,
    const int64_t[::1] starts,
    int64_t max_code,
    int64_t missing_start,
    int64_t[::1] columns,
    double[::1] present,
    int n_threads,
):
    """columns[k] = starts[j] + min(v, n_categories[j]) and present[k] = [v > 0].

    v = min(data[k], max_code) is the entry's category, j = indices[k] its
    feature; a category beyond the feature's known ones lands in the feature's
    "unseen" slot, column starts[j] + n_categories[j].  ``data`` holds
    validated non-negative integers, and NaN (a missing value) when
    ``missing_start`` >= 0: that entry goes to column missing_start + j, with
    present[k] = 1.
    """
    cdef Py_ssize_t k
    cdef int64_t v, j
    with nogil:
        for k in prange(data.shape[0], schedule="dynamic", chunksize=VALUE_BLOCK, num_threads=n_threads):
            if missing_start >= 0 and data[k] != data[k]:
                columns[k] = missing_start + indices[k]
                present[k] = 1.0
                continue
            v = <int64_t> data[k]
            if v > max_code:
                v = max_code
            j = indices[k]
            present[k] = 1.0 if v > 0 else 0.0
            if v > n_categories[j]:
                v = n_categories[j]
            columns[k] = starts[j] + v
