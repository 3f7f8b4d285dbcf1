# Small inline helpers shared by the kernels.
from libc.math cimport exp, log, INFINITY

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define NBFAST_PREFETCH(p) __builtin_prefetch((const void *)(p), 0, 1)
    #else
    #define NBFAST_PREFETCH(p) ((void)0)
    #endif
    """
    void prefetch "NBFAST_PREFETCH"(const void *p) noexcept nogil


cdef inline double logsumexp_inplace_max(const double *v, Py_ssize_t n, double *vmax) noexcept nogil:
    """Return log(sum(exp(v))) computed stably as m + log(sum(exp(v - m))), m = max(v).

    The maximum is stored in ``vmax``.  When every entry is -inf the result is -inf.
    """
    cdef Py_ssize_t c
    cdef double m = v[0]
    cdef double s = 0.0
    for c in range(1, n):
        if v[c] > m:
            m = v[c]
    vmax[0] = m
    if m == -INFINITY or m == INFINITY:
        return m
    for c in range(n):
        s += exp(v[c] - m)
    return m + log(s)


cdef inline bint softmax_inplace(double *v, Py_ssize_t n) noexcept nogil:
    """v <- exp(v - m) / sum(exp(v - m)), m = max(v): the posterior with one exp per entry.

    Returns False and leaves v unchanged when m is infinite: the caller then
    goes through logsumexp_inplace_max, which defines those cases.
    """
    cdef Py_ssize_t c
    cdef double m = v[0]
    cdef double s = 0.0
    for c in range(1, n):
        if v[c] > m:
            m = v[c]
    if m == -INFINITY or m == INFINITY:
        return False
    for c in range(n):
        v[c] = exp(v[c] - m)
        s += v[c]
    for c in range(n):
        v[c] = v[c] / s
    return True
