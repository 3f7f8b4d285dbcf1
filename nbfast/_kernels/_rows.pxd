# Row normalization shared by the text kernels (hashing, tfidf).
from libc.math cimport fabs, sqrt

from nbfast._kernels._types cimport floating

# The ``norm`` codes of the kernels; nbfast.text._common.NORM_CODES maps scikit-learn's names to them.
cdef enum Norm:
    NORM_NONE = 0
    NORM_L1 = 1
    NORM_L2 = 2


cdef inline void normalize_row(floating *values, Py_ssize_t n, int norm) noexcept nogil:
    """Divide a row by its l1 or l2 norm exactly as scikit-learn's ``inplace_csr_row_normalize_l1/l2``
    do: the sum accumulated in float64 of |x| or x * x (x * x in the data precision), each value divided
    by the float64 norm; rows of zero norm are left as they are."""
    cdef double total = 0.0
    cdef Py_ssize_t k
    if norm == NORM_NONE:
        return
    for k in range(n):
        if norm == NORM_L1:
            total = total + fabs(values[k])
        else:
            total = total + values[k] * values[k]
    if total == 0.0:
        return
    if norm == NORM_L2:
        total = sqrt(total)
    for k in range(n):
        values[k] = values[k] / total
