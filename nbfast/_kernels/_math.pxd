# Small inline helpers shared by the kernels.
from libc.math cimport exp, log, INFINITY
from libc.stdint cimport int64_t

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define NBFAST_PREFETCH(p) __builtin_prefetch((const void *)(p), 0, 1)
    #else
    #define NBFAST_PREFETCH(p) ((void)0)
    #endif
    """
    void prefetch "NBFAST_PREFETCH"(const void *p) noexcept nogil

cdef enum:
    CACHE_LINE = 64


cdef inline void prefetch_range(const void *start, const void *end) noexcept nogil:
    """Prefetch every cache line of the bytes [start, end)."""
    cdef size_t p = (<size_t> start) & ~(<size_t> (CACHE_LINE - 1))
    while p < <size_t> end:
        prefetch(<const void *> p)
        p += CACHE_LINE


cdef inline double logsumexp(const double *v, Py_ssize_t n) noexcept nogil:
    """Return log(sum(exp(v))) computed stably as m + log(sum(exp(v - m))), m = max(v).

    When every entry is -inf the result is -inf (and +inf when one is +inf).
    """
    cdef Py_ssize_t c
    cdef double m = v[0]
    cdef double s = 0.0
    for c in range(1, n):
        if v[c] > m:
            m = v[c]
    if m == -INFINITY or m == INFINITY:
        return m
    for c in range(n):
        s += exp(v[c] - m)
    return m + log(s)


cdef inline bint softmax_inplace(double *v, Py_ssize_t n) noexcept nogil:
    """v <- exp(v - m) / sum(exp(v - m)), m = max(v): the posterior with one exp per entry.

    Returns False and leaves v unchanged when m is infinite: the caller then
    goes through logsumexp, which defines those cases.
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


# What a fused scoring kernel writes per row: the values of nbfast._kernels.scoring.Output.
cdef enum ScoreOutput:
    SCORE_JOINT_LOG_LIKELIHOOD = 0
    SCORE_LOG_PROBA = 1
    SCORE_PROBA = 2
    SCORE_ARGMAX = 3


cdef inline void finish_row(double *acc, Py_ssize_t n_classes, int mode, double *out, int64_t *label) noexcept nogil:
    """Write one row's output from its joint log-likelihoods ``acc`` (overwritten).

    ARGMAX stores the first class of maximal joint log-likelihood in ``label``;
    the other modes write the row ``out`` (n_classes,): the joint log-likelihood,
    or the log posterior / posterior normalized stably (max subtracted first).
    """
    cdef Py_ssize_t c, best
    cdef double norm
    if mode == SCORE_ARGMAX:
        best = 0
        for c in range(1, n_classes):
            if acc[c] > acc[best]:
                best = c
        label[0] = best
    elif mode == SCORE_JOINT_LOG_LIKELIHOOD:
        for c in range(n_classes):
            out[c] = acc[c]
    elif mode == SCORE_PROBA and softmax_inplace(acc, n_classes):
        for c in range(n_classes):
            out[c] = acc[c]
    else:
        norm = logsumexp(acc, n_classes)
        if mode == SCORE_LOG_PROBA:
            for c in range(n_classes):
                out[c] = acc[c] - norm
        else:
            for c in range(n_classes):
                out[c] = exp(acc[c] - norm)
