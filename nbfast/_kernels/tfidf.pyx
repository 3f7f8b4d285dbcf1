"""Tf-idf weighting of CSR rows in place, the core of ``nbfast.text.TfidfTransformer``.

The same floating-point operations as scikit-learn's ``TfidfTransformer.transform``
in the same order, so results are identical: ``data += 1`` (after the caller's
``np.log(data)`` for ``sublinear_tf``), ``data *= idf[indices]`` (in float64,
rounded once to the data's precision, as numpy's in-place multiply does), then
each row divided by its l1 or l2 norm (``nbfast._kernels._rows.normalize_row``).
Rows are independent: parallel over rows, results do not depend on the number
of threads.
"""
from cython.parallel cimport prange

from nbfast._kernels._rows cimport normalize_row
from nbfast._kernels._types cimport floating, integral


def weight_rows(
    floating[::1] data,
    const integral[::1] indices,
    const integral[::1] indptr,
    const double[::1] idf,
    bint add_one,
    bint use_idf,
    int norm,
    int n_threads,
):
    """In place: add 1 (``add_one``), multiply by idf[column] (``use_idf``), normalize rows (``norm``: a
    code of ``nbfast.text._common.NORM_CODES``).  Column indices must lie in [0, len(idf)) when use_idf."""
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1, d, j
    with nogil:
        for d in prange(n_rows, schedule="dynamic", chunksize=256, num_threads=n_threads):
            if indptr[d + 1] == indptr[d]:
                continue
            for j in range(indptr[d], indptr[d + 1]):
                if add_one:
                    data[j] = data[j] + <floating> 1.0
                if use_idf:
                    data[j] = <floating> (<double> data[j] * idf[indices[j]])
            normalize_row(&data[indptr[d]], indptr[d + 1] - indptr[d], norm)
