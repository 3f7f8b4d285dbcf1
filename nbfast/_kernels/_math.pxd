# Small inline helpers shared by the kernels.
from libc.math cimport exp, log, INFINITY
from libc.stdint cimport int64_t, uint64_t
from libc.string cimport memcpy

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


cdef inline Py_ssize_t lines_spanned(const void *first, Py_ssize_t stride, Py_ssize_t n_bytes) noexcept nogil:
    """The most cache lines that one of the rows of ``n_bytes`` starting at ``first`` + i ``stride`` touches."""
    cdef Py_ssize_t i, offset, most = 0
    for i in range(CACHE_LINE):  # where a row starts within its line repeats after CACHE_LINE rows at most
        offset = (<size_t> first + i * stride) % CACHE_LINE
        most = max(most, (offset + n_bytes - 1) // CACHE_LINE + 1)
    return most


cdef inline void prefetch_lines(const void *start, Py_ssize_t n_lines) noexcept nogil:
    """Prefetch the cache line of ``start`` and the n_lines - 1 after it.

    A fixed count where rows of one length are wanted (``lines_spanned``): whether a row crosses one more
    line boundary depends on where it starts, and a loop to its end would mispredict its exit about as often
    (three times slower scoring of 5-class tables).  A prefetch past the row, or past the array, is harmless.
    """
    cdef size_t p = (<size_t> start) & ~(<size_t> (CACHE_LINE - 1))
    cdef Py_ssize_t i
    for i in range(n_lines):
        prefetch(<const void *> (p + i * CACHE_LINE))


# exp for x in [EXP_FAST_MIN, 0], from fdlibm's e_exp.c (error below 1 ulp): x = k ln2 + r with
# |r| <= ln2 / 2, exp(r) by a rational approximation, times 2^k built from the bits of k.  Unlike the
# libm call, a loop of these vectorizes; entries below EXP_FAST_MIN (where 2^k would leave the normal
# range), and NaN, go to libm's exp.
cdef enum:
    EXP_FAST_MIN = -708


cdef inline double exp_fast(double x) noexcept nogil:
    """exp(x) for x in [EXP_FAST_MIN, 0] (fdlibm's method, below 1 ulp); any other x gives garbage (no trap)."""
    # k = round(x / ln2): adding 1.5 * 2^52 leaves k + 2^51 in the low bits of ``shifted``
    cdef double shifted = x * 1.44269504088896338700e+00 + 6755399441055744.0
    cdef double k = shifted - 6755399441055744.0
    # r = x - k ln2, with ln2 split into a high part (exact in k * hi) and a low part
    cdef double hi = x - k * 6.93147180369123816490e-01
    cdef double lo = k * 1.90821492927058770002e-10
    cdef double r = hi - lo
    cdef double r2 = r * r
    cdef double c = r - r2 * (1.66666666666666019037e-01 + r2 * (-2.77777777770155933842e-03 + r2 * (
        6.61375632143793436117e-05 + r2 * (-1.65339022054652515390e-06 + r2 * 4.13813679705723846039e-08))))
    cdef double y = 1.0 - ((lo - (r * c) / (2.0 - c)) - hi)
    cdef uint64_t bits
    cdef double scale
    memcpy(&bits, &shifted, 8)
    bits = (bits - <uint64_t> 0x4338000000000000 + 1023) << 52  # the exponent field of 2^k
    memcpy(&scale, &bits, 8)
    return y * scale


# log for positive normal finite x, from fdlibm's e_log.c (error below 1 ulp): x = 2^k (1 + f) with 1 + f in
# [sqrt(2)/2, sqrt(2)), log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)) with s = f / (2 + f), R a polynomial.
# fdlibm's second formula for small f is left out (this one holds everywhere).  No call and no branch: a loop
# of these vectorizes.  Other x (zero, negative, subnormal, infinite, NaN) go to libm's log: callers check
# them with log_fast_valid, in a loop they run anyway (a check that vectorizes is not found with SSE2).
cdef inline double log_fast(double x) noexcept nogil:
    """log(x) for x positive, normal and finite (below 1 ulp); any other x gives garbage (no trap)."""
    cdef uint64_t bits, high, mantissa, halve
    cdef double m, f, s, z, w, r, half_f2, k, odd, even
    memcpy(&bits, &x, 8)
    high = bits >> 32
    mantissa = high & 0x000fffff
    halve = (mantissa + 0x95f64) & 0x100000  # set when the mantissa is >= sqrt(2): use x / 2^(e + 1)
    bits = ((mantissa | (halve ^ <uint64_t> 0x3ff00000)) << 32) | (bits & <uint64_t> 0xffffffff)
    memcpy(&m, &bits, 8)
    f = m - 1.0
    # k = exponent (+1 when halved), as a double through the bits of 2^52 + 2^51 + k (no int64 conversion)
    bits = <uint64_t> 0x4338000000000000 + (high >> 20) - 1023 + (halve >> 20)
    memcpy(&k, &bits, 8)
    k = k - 6755399441055744.0
    s = f / (2.0 + f)
    z = s * s
    w = z * z
    # fdlibm's polynomial: r = z (Lg1 + w (Lg3 + w (Lg5 + w Lg7))) + w (Lg2 + w (Lg4 + w Lg6))
    odd = 1.818357216161805012e-01 + w * 1.479819860511658591e-01
    odd = z * (6.666666666666735130e-01 + w * (2.857142874366239149e-01 + w * odd))
    even = w * (3.999999999940941908e-01 + w * (2.222219843214978396e-01 + w * 1.531383769920937332e-01))
    r = odd + even
    half_f2 = 0.5 * f * f
    return k * 6.93147180369123816490e-01 - ((half_f2 - (s * (half_f2 + r) + k * 1.90821492927058770002e-10)) - f)


cdef inline bint log_fast_valid(double x) noexcept nogil:
    """Whether log_fast(x) is log(x): x positive, normal and finite."""
    return x >= 2.2250738585072014e-308 and x <= 1.7976931348623157e308


cdef inline void log_minus(double *v, const double *shift, Py_ssize_t n, bint fast) noexcept nogil:
    """v[c] = log(v[c]) - shift[c]: by log_fast (a loop that vectorizes) when ``fast`` (every v[c] valid)."""
    cdef Py_ssize_t c
    if fast:
        for c in range(n):
            v[c] = log_fast(v[c]) - shift[c]
    else:
        for c in range(n):
            v[c] = log(v[c]) - shift[c]


cdef inline double exp_shifted_sum(const double *v, double m, double *out, Py_ssize_t n) noexcept nogil:
    """out[c] = exp(v[c] - m) for v[c] <= m (finite m); return their sum, added in order."""
    cdef Py_ssize_t c
    cdef double s = 0.0
    for c in range(n):  # no call, no branch: vectorizes
        out[c] = exp_fast(v[c] - m)
    for c in range(n):
        if not v[c] - m >= EXP_FAST_MIN:  # out of exp_fast's range (tiny, or NaN): libm
            out[c] = exp(v[c] - m)
        s += out[c]
    return s


cdef inline void kahan_add(double *total, double *compensation, double value) noexcept nogil:
    """total += value, compensated (Kahan): the rounding error is carried in ``compensation`` (start both at 0).

    Needs exact IEEE arithmetic (no -ffast-math, which would simplify the compensation away).  An infinite
    total stays infinite (its compensation, inf - inf, would be NaN: it is 0)."""
    cdef double y = value - compensation[0]
    cdef double t = total[0] + y
    compensation[0] = ((t - total[0]) - y) if t - t == 0.0 else 0.0
    total[0] = t


cdef inline double row_max(const double *v, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t c
    cdef double m = v[0]
    for c in range(1, n):
        if v[c] > m:
            m = v[c]
    return m


# What a fused scoring kernel writes per row: the values of nbfast._kernels.scoring.Output.
cdef enum ScoreOutput:
    SCORE_JOINT_LOG_LIKELIHOOD = 0
    SCORE_LOG_PROBA = 1
    SCORE_PROBA = 2
    SCORE_ARGMAX = 3


cdef inline void finish_row(double *acc, Py_ssize_t n_classes, int mode, double *out, int64_t *label) noexcept nogil:
    """Write one row's output from its joint log-likelihoods ``acc``.

    ARGMAX stores the first class of maximal joint log-likelihood in ``label``;
    the other modes write the row ``out`` (n_classes,): the joint log-likelihood,
    or the log posterior acc - logsumexp(acc) / the posterior exp(acc - m) / sum,
    normalized stably with m = max(acc) subtracted first.  When m is infinite,
    logsumexp(acc) is m.
    """
    cdef Py_ssize_t c, best
    cdef double m, norm, total
    if mode == SCORE_ARGMAX:
        best = 0
        for c in range(1, n_classes):
            if acc[c] > acc[best]:
                best = c
        label[0] = best
        return
    if mode == SCORE_JOINT_LOG_LIKELIHOOD:
        for c in range(n_classes):
            out[c] = acc[c]
        return
    m = row_max(acc, n_classes)
    if m == -INFINITY or m == INFINITY:
        for c in range(n_classes):
            out[c] = acc[c] - m if mode == SCORE_LOG_PROBA else exp(acc[c] - m)
        return
    total = exp_shifted_sum(acc, m, out, n_classes)
    if mode == SCORE_PROBA:
        for c in range(n_classes):
            out[c] = out[c] / total
    else:
        norm = m + log(total)
        for c in range(n_classes):
            out[c] = acc[c] - norm
