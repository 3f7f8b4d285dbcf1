"""CSV rows of a block of predictions, formatted without the GIL: ``label,p_1,...,p_k`` per row.

Each probability is written as Python's ``"%.17g" % p`` writes it (17 significant digits: exact, and read
back to the same float64).  The digits come from C's ``snprintf("%.16e")``, which rounds exactly as Python
does; they are then laid out by the rules of ``%g`` here, so the result does not depend on the C locale's
decimal point.
"""
from cpython.bytearray cimport PyByteArray_AS_STRING
from cpython.bytes cimport PyBytes_AS_STRING
from libc.math cimport isfinite, isnan, signbit
from libc.stdint cimport int64_t
from libc.stdio cimport snprintf
from libc.string cimport memcpy, memset

cdef enum:
    # characters, by their ASCII codes
    ZERO = 0x30
    NINE = 0x39
    MINUS = 0x2D
    PLUS = 0x2B
    POINT = 0x2E
    COMMA = 0x2C
    NEWLINE = 0x0A

cdef enum:
    DIGITS = 17        # significant digits written
    MAX_NUMBER = 24    # bytes of one formatted number, at most ("-0.0000" and 17 digits, or "-d.<16>e-308")
    SCRATCH = 32


cdef Py_ssize_t format_g17(double x, char *out) noexcept nogil:
    """Write ``"%.17g" % x`` (Python's spelling) at ``out``; return its length."""
    cdef char scratch[SCRATCH]
    cdef char digits[DIGITS]
    cdef Py_ssize_t n = 0, i, j, n_digits, exponent = 0, point
    cdef bint negative_exponent
    if not isfinite(x):
        if isnan(x):
            memcpy(out, b"nan", 3)
            return 3
        if signbit(x):
            out[0] = MINUS
            n = 1
        memcpy(out + n, b"inf", 3)
        return n + 3
    if signbit(x):
        out[n] = MINUS
        n += 1
        x = -x
    # "d.ddddddddddddddddde[+-]XX": the 17 digits rounded as Python rounds them, and the exponent
    snprintf(scratch, SCRATCH, "%.16e", x)
    digits[0] = scratch[0]
    i = 1
    while scratch[i] < ZERO or scratch[i] > NINE:  # the decimal point, whatever the locale spells it
        i += 1
    for j in range(1, DIGITS):
        digits[j] = scratch[i]
        i += 1
    i += 1  # the "e"
    negative_exponent = scratch[i] == MINUS
    i += 1
    while scratch[i] != 0:
        exponent = 10 * exponent + (scratch[i] - ZERO)
        i += 1
    if negative_exponent:
        exponent = -exponent
    n_digits = DIGITS
    while n_digits > 1 and digits[n_digits - 1] == ZERO:  # %g drops trailing zeros
        n_digits -= 1
    if -4 <= exponent < DIGITS:  # positional
        if exponent < 0:
            out[n] = ZERO
            out[n + 1] = POINT
            n += 2
            memset(out + n, ZERO, -exponent - 1)  # 0.000ddd: the zeros after the point
            n += -exponent - 1
            memcpy(out + n, digits, n_digits)
            return n + n_digits
        point = exponent + 1  # digits before the decimal point
        for j in range(point):
            out[n] = digits[j] if j < n_digits else ZERO
            n += 1
        if n_digits > point:
            out[n] = POINT
            n += 1
            memcpy(out + n, digits + point, n_digits - point)
            n += n_digits - point
        return n
    out[n] = digits[0]  # scientific: d[.ddd]e[+-]XX, at least two exponent digits
    n += 1
    if n_digits > 1:
        out[n] = POINT
        memcpy(out + n + 1, digits + 1, n_digits - 1)
        n += n_digits
    return n + snprintf(out + n, SCRATCH, "e%c%02d", MINUS if exponent < 0 else PLUS,
                        <int> (-exponent if exponent < 0 else exponent))


def csv_rows(bytes fields, const int64_t[::1] field_ends, const int64_t[::1] class_index,
             const double[:, ::1] proba):
    """The CSV rows of a block, as a bytearray: for row i, the field of its class c = class_index[i]
    (``fields[field_ends[c - 1]:field_ends[c]]``), then each probability of ``proba[i]`` after a comma, then a
    newline.

    ``field_ends`` holds one end per class (the first field starts at 0); class indices must be in range.
    """
    cdef Py_ssize_t n_rows = proba.shape[0], n_classes = proba.shape[1], i, j, c, start, size, n = 0
    cdef Py_ssize_t longest = 0
    cdef const char *source = PyBytes_AS_STRING(fields)
    cdef char *out
    cdef bytearray rows
    if class_index.shape[0] != n_rows:
        raise ValueError("csv_rows: class_index and proba must have one row each per row")
    for c in range(field_ends.shape[0]):
        size = field_ends[c] - (field_ends[c - 1] if c > 0 else 0)
        if size < 0 or field_ends[c] > len(fields):
            raise ValueError("csv_rows: field_ends must rise within fields")
        longest = max(longest, size)
    for i in range(n_rows):
        if not 0 <= class_index[i] < field_ends.shape[0]:
            raise ValueError(f"csv_rows: class index {class_index[i]} is not one of the {field_ends.shape[0]} fields")
    rows = bytearray(n_rows * (longest + n_classes * (MAX_NUMBER + 1) + 1))
    out = PyByteArray_AS_STRING(rows)
    with nogil:
        for i in range(n_rows):
            c = class_index[i]
            start = field_ends[c - 1] if c > 0 else 0
            size = field_ends[c] - start
            memcpy(out + n, source + start, size)
            n += size
            for j in range(n_classes):
                out[n] = COMMA
                n += 1 + format_g17(proba[i, j], out + n + 1)
            out[n] = NEWLINE
            n += 1
    del rows[n:]
    return rows
