"""Parse a block of complete svmlight / libsvm lines into CSR arrays, without the GIL.

A line is ``label [qid:q] index:value index:value ... [# comment]``.  Blank and
comment-only lines hold no sample.  Numbers of up to 15 significant digits
without exponent are read by a fast exact path (integer mantissa divided by an
exact power of ten: correctly rounded, like strtod); anything else falls back
to strtod.  The parser stops at the first malformed line and reports where.
"""
import numpy as np

from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport strtod


cpdef enum Status:
    # Returned to Python: nbfast/readers/svmlight.py turns a code into a message.
    OK = 0
    BAD_LABEL = 1
    BAD_FEATURE = 2
    INDEX_BELOW_BASE = 3
    UNSORTED = 4
    INDEX_TOO_LARGE = 5
    LABEL_NOT_EXACT = 6

cdef double[23] POW10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                         1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]
cdef int64_t MAX_INDEX = (<int64_t>1) << 62
# Labels are classes: integers beyond 2^53 (or infinities, NaN) have no exact float64, and two would merge.
cdef double MAX_LABEL = 9007199254740992.0


cdef inline bint is_blank(char c) noexcept nogil:
    return c == c' ' or c == c'\t' or c == c'\r' or c == c'\v' or c == c'\f'


cdef inline bint ends_token(const char* buf, Py_ssize_t pos, Py_ssize_t end) noexcept nogil:
    return pos >= end or is_blank(buf[pos]) or buf[pos] == c'\n' or buf[pos] == c'#'


cdef inline Py_ssize_t parse_number(const char* buf, Py_ssize_t pos, Py_ssize_t end, double* out) noexcept nogil:
    """Parse the number at ``pos`` (which must end a token); return the position after it, or -1."""
    cdef Py_ssize_t start = pos
    cdef uint64_t mantissa = 0
    cdef int n_digits = 0, n_fraction = 0
    cdef bint negative = False
    cdef char* stop
    if pos < end and (buf[pos] == c'-' or buf[pos] == c'+'):
        negative = buf[pos] == c'-'
        pos += 1
    while pos < end and c'0' <= buf[pos] <= c'9':
        mantissa = mantissa * 10 + <uint64_t>(buf[pos] - c'0')
        n_digits += 1
        pos += 1
    if pos < end and buf[pos] == c'.':
        pos += 1
        while pos < end and c'0' <= buf[pos] <= c'9':
            mantissa = mantissa * 10 + <uint64_t>(buf[pos] - c'0')
            n_digits += 1
            n_fraction += 1
            pos += 1
    if n_digits > 0 and n_digits <= 15 and ends_token(buf, pos, end):
        out[0] = <double>mantissa / POW10[n_fraction]  # both exact: one correctly rounded division
        if negative:
            out[0] = -out[0]
        return pos
    # Exponents, long mantissas, inf/nan: strtod (the block is a NUL-terminated bytes object).
    if start >= end or is_blank(buf[start]) or buf[start] == c'\n':
        return -1
    out[0] = strtod(buf + start, &stop)
    pos = stop - buf
    if pos == start or not ends_token(buf, pos, end):
        return -1
    # strtod also reads C99 hexadecimal floats (0x1p3) and nan(chars): Python's float() and scikit-learn do not.
    while start < pos:
        if buf[start] == c'x' or buf[start] == c'X' or buf[start] == c'(':
            return -1
        start += 1
    return pos


cdef Status parse_lines(const char* buf, Py_ssize_t end, int64_t base, double* labels, double* data,
                        int64_t* indices, int64_t* indptr, int64_t* row_lines, Py_ssize_t* n_rows_out,
                        Py_ssize_t* error_line, Py_ssize_t* error_pos) noexcept nogil:
    cdef Py_ssize_t pos = 0, next_pos, line = 0, row = 0, nnz = 0
    cdef int64_t index, previous
    cdef Status status = OK
    indptr[0] = 0
    while pos < end:
        while pos < end and is_blank(buf[pos]):
            pos += 1
        if pos < end and buf[pos] != c'\n' and buf[pos] != c'#':
            next_pos = parse_number(buf, pos, end, &labels[row])
            if next_pos < 0:
                status = BAD_LABEL
                break
            if not (-MAX_LABEL <= labels[row] <= MAX_LABEL):  # NaN fails both comparisons
                status = LABEL_NOT_EXACT
                break
            pos = next_pos
            row_lines[row] = line
            previous = -1
            while True:
                while pos < end and is_blank(buf[pos]):
                    pos += 1
                if ends_token(buf, pos, end):
                    break
                if c'0' <= buf[pos] <= c'9':
                    index = 0
                    while pos < end and c'0' <= buf[pos] <= c'9':
                        if index > (MAX_INDEX - (buf[pos] - c'0')) // 10:  # checked before it could overflow
                            index = MAX_INDEX + 1
                            break
                        index = index * 10 + (buf[pos] - c'0')
                        pos += 1
                    if index > MAX_INDEX:
                        status = INDEX_TOO_LARGE
                        break
                    if pos >= end or buf[pos] != c':':
                        status = BAD_FEATURE
                        break
                    next_pos = parse_number(buf, pos + 1, end, &data[nnz])
                    if next_pos < 0:
                        status = BAD_FEATURE
                        break
                    index -= base
                    if index < 0:
                        status = INDEX_BELOW_BASE
                        break
                    if index <= previous:
                        status = UNSORTED
                        break
                    indices[nnz] = index
                    previous = index
                    nnz += 1
                    pos = next_pos
                elif end - pos > 4 and buf[pos] == c'q' and buf[pos + 1] == c'i' and buf[pos + 2] == c'd' \
                        and buf[pos + 3] == c':':
                    while not ends_token(buf, pos, end):  # query ids are not features
                        pos += 1
                else:
                    status = BAD_FEATURE
                    break
            if status != OK:
                break
            row += 1
            indptr[row] = nnz
        while pos < end and buf[pos] != c'\n':  # comment, or the end of the line
            pos += 1
        pos += 1
        line += 1
    n_rows_out[0] = row
    error_line[0] = line
    error_pos[0] = pos
    return status


def parse_block(bytes block, int64_t base):
    """Parse complete svmlight lines.

    Parameters
    ----------
    block : bytes
        Whole lines (the last one may lack its newline).
    base : int
        1 for one-based feature indices (libsvm), 0 for zero-based.

    Returns
    -------
    status : int
        OK, or the code of the first problem (BAD_LABEL, BAD_FEATURE, INDEX_BELOW_BASE, UNSORTED,
        INDEX_TOO_LARGE, LABEL_NOT_EXACT).
    labels, data, indices, indptr, row_lines : ndarray
        float64 labels, CSR arrays (int64 indices and indptr) and the line of each row (0-based in the block).
    error_line, error_pos : int
        Line and byte position of the problem when status is not OK.
    """
    cdef const char* buf = block
    cdef Py_ssize_t end = len(block), k, n_lines = 1, n_colons = 0
    with nogil:
        for k in range(end):
            if buf[k] == c'\n':
                n_lines += 1
            elif buf[k] == c':':
                n_colons += 1
    labels = np.empty(n_lines, dtype=np.float64)
    data = np.empty(n_colons, dtype=np.float64)
    indices = np.empty(n_colons, dtype=np.int64)
    indptr = np.empty(n_lines + 1, dtype=np.int64)
    row_lines = np.empty(n_lines, dtype=np.int64)
    cdef double[::1] labels_view = labels, data_view = data
    cdef int64_t[::1] indices_view = indices, indptr_view = indptr, lines_view = row_lines
    cdef Py_ssize_t n_rows = 0, error_line = 0, error_pos = 0
    cdef Status status
    # Empty views have no element 0: point them at a one-element dummy.
    cdef double dummy_double = 0
    cdef int64_t dummy_index = 0
    cdef double* data_ptr = &data_view[0] if n_colons else &dummy_double
    cdef int64_t* indices_ptr = &indices_view[0] if n_colons else &dummy_index
    with nogil:
        status = parse_lines(buf, end, base, &labels_view[0], data_ptr, indices_ptr, &indptr_view[0],
                             &lines_view[0], &n_rows, &error_line, &error_pos)
    nnz = indptr[n_rows]
    return (int(status), labels[:n_rows], data[:nnz], indices[:nnz], indptr[:n_rows + 1], row_lines[:n_rows],
            error_line, error_pos)
