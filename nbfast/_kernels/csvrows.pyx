"""CSV rows of a block of predictions, formatted without the GIL: ``label,p_1,...,p_k`` per row (or the
k best labels, each with its probability, after the input's columns).

Each probability is written as Python's ``"%.17g" % p`` writes it (17 significant digits: exact, and read
back to the same float64).  The digits come from C's ``snprintf("%.16e")``, which rounds exactly as Python
does; they are then laid out by the rules of ``%g`` here, so the result does not depend on the C locale's
decimal point.
"""
from cpython.bytearray cimport PyByteArray_AS_STRING
from cpython.bytes cimport PyBytes_AS_STRING
from libc.math cimport isfinite, isnan, signbit
from libc.stdint cimport int64_t, uint8_t
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


def csv_rows(bytes fields, const int64_t[::1] field_ends, const int64_t[:, ::1] class_index,
             const double[:, ::1] proba, const uint8_t[::1] prefix=None, const int64_t[::1] prefix_offsets=None):
    """The CSV rows of a block, as a bytearray.

    Row i is G groups (G = ``class_index.shape[1]``) joined by commas, then a newline: group g is the field of
    the class c = class_index[i, g] (``fields[field_ends[c - 1]:field_ends[c]]``), then each of its m numbers
    ``proba[i, g * m:(g + 1) * m]`` after a comma (m = ``proba.shape[1] / G``).  With ``prefix``, row i
    starts with ``prefix[prefix_offsets[i]:prefix_offsets[i + 1]]`` and a comma (fields already in CSV).

    ``field_ends`` holds one end per class (the first field starts at 0); class indices must be in range.
    """
    cdef Py_ssize_t n_rows = class_index.shape[0], n_groups = class_index.shape[1], per_group = 0
    cdef Py_ssize_t i, g, j, c, start, size, n = 0, longest = 0, prefix_bytes = 0
    cdef const char *source = PyBytes_AS_STRING(fields)
    cdef const char *before = NULL
    cdef char *out
    cdef bytearray rows
    if proba.shape[0] != n_rows or n_groups < 1 or proba.shape[1] % n_groups:
        raise ValueError("csv_rows: class_index and proba must have one row each per row, and proba a whole "
                         "number of columns per group")
    per_group = proba.shape[1] // n_groups
    for c in range(field_ends.shape[0]):
        size = field_ends[c] - (field_ends[c - 1] if c > 0 else 0)
        if size < 0 or field_ends[c] > len(fields):
            raise ValueError("csv_rows: field_ends must rise within fields")
        longest = max(longest, size)
    for i in range(n_rows):
        for g in range(n_groups):
            if not 0 <= class_index[i, g] < field_ends.shape[0]:
                raise ValueError(f"csv_rows: class index {class_index[i, g]} is not one of the "
                                 f"{field_ends.shape[0]} fields")
    if prefix is not None:
        if prefix_offsets is None or prefix_offsets.shape[0] != n_rows + 1:
            raise ValueError("csv_rows: prefix_offsets must hold one offset per row and one more")
        for i in range(n_rows + 1):
            if prefix_offsets[i] < (prefix_offsets[i - 1] if i > 0 else 0) or prefix_offsets[i] > prefix.shape[0]:
                raise ValueError("csv_rows: prefix_offsets must rise within prefix")
        if prefix.shape[0]:
            before = <const char *> &prefix[0]
        prefix_bytes = prefix_offsets[n_rows] - prefix_offsets[0] + n_rows  # and a comma each
    rows = bytearray(prefix_bytes + n_rows * (n_groups * (longest + 1) + proba.shape[1] * (MAX_NUMBER + 1) + 1))
    out = PyByteArray_AS_STRING(rows)
    with nogil:
        for i in range(n_rows):
            if prefix is not None:
                size = prefix_offsets[i + 1] - prefix_offsets[i]
                if size:
                    memcpy(out + n, before + prefix_offsets[i], size)
                n += size
                out[n] = COMMA
                n += 1
            for g in range(n_groups):
                if g:
                    out[n] = COMMA
                    n += 1
                c = class_index[i, g]
                start = field_ends[c - 1] if c > 0 else 0
                size = field_ends[c] - start
                memcpy(out + n, source + start, size)
                n += size
                for j in range(g * per_group, (g + 1) * per_group):
                    out[n] = COMMA
                    n += 1 + format_g17(proba[i, j], out + n + 1)
            out[n] = NEWLINE
            n += 1
    del rows[n:]
    return rows
