"""The lines of a block of text, found in its bytes and in its str buffer without making a str per line.

``line_ends`` counts the lines of a block of a file's bytes (where the block ends);
``split_lines`` finds each line of a decoded block (its document, and with
``tsv`` its label before the first tab, surrounding whitespace dropped as
``str.strip`` drops it); ``line_views`` describes the documents for the text
kernels (see ``nbfast._kernels.tokens.document_views``) as spans of that one str.
``utf8_error`` and ``split_utf8_lines`` do the same in a block of UTF-8 bytes that
is never decoded: the tokenizer reads its documents as UTF-8.  ``utf8_strings_error``
checks the strings of an Arrow column, which are read that way too.
"""
from cpython.unicode cimport PyUnicode_DATA, PyUnicode_FindChar, PyUnicode_GET_LENGTH, PyUnicode_KIND
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from libc.string cimport memchr, memcpy

cdef extern from "Python.h":
    int PyUnicode_READY(object o) except -1
    Py_UCS4 PyUnicode_READ(int kind, const void *data, Py_ssize_t index) nogil
    bint Py_UNICODE_ISSPACE(Py_UCS4 c) nogil

cdef enum:
    NEWLINE = 0x0A
    RETURN = 0x0D
    TAB = 0x09
    CAPITAL_SIGMA = 0x3A3

cdef enum Problem:
    # what split_lines found wrong with a line
    WELL_FORMED = 0
    NO_TAB_FOUND = 1
    LABEL_EMPTY = 2

NO_TAB, EMPTY_LABEL = NO_TAB_FOUND, LABEL_EMPTY


def line_ends(const uint8_t[::1] data, Py_ssize_t most):
    """(the number of newlines in ``data``, at most ``most``; the offset just past the last of them, 0 when none)."""
    cdef Py_ssize_t n = data.shape[0], count = 0, end = 0
    cdef const uint8_t *start = &data[0] if n > 0 else NULL
    cdef const uint8_t *found
    with nogil:
        while count < most and end < n:
            found = <const uint8_t *> memchr(start + end, NEWLINE, n - end)
            if found == NULL:
                break
            end = found - start + 1
            count += 1
    return count, end


cdef inline bint has_unit(uint64_t word, uint64_t repeated) noexcept nogil:
    """Whether one of the four 16-bit units of ``word`` is the unit ``repeated`` four times over."""
    cdef uint64_t x = word ^ repeated
    return ((x - 0x0001000100010001ULL) & ~x & 0x8000800080008000ULL) != 0


cdef Py_ssize_t find_code_point(int kind, const void *data, Py_ssize_t i, Py_ssize_t end, Py_UCS4 c) noexcept nogil:
    """The index of the first c (below U+10000) in code points i .. end - 1 of a str's buffer, or ``end``."""
    cdef const uint8_t *found
    cdef const uint16_t *units
    cdef uint64_t word, repeated = 0x0001000100010001ULL * <uint64_t> c
    if kind == 1:
        found = <const uint8_t *> memchr(<const uint8_t *> data + i, c, end - i) if end > i and c < 0x100 else NULL
        return found - <const uint8_t *> data if found != NULL else end
    if kind == 2:  # four code units at a time: most of a line has no newline
        units = <const uint16_t *> data
        while i + 4 <= end:
            memcpy(&word, units + i, 8)
            if has_unit(word, repeated):
                break
            i += 4
    while i < end and PyUnicode_READ(kind, data, i) != c:
        i += 1
    return i


def split_lines(str text, bint tsv, int64_t[::1] start, int64_t[::1] stop, int64_t[::1] label_start,
                int64_t[::1] label_stop):
    """Find the lines of ``text``: lines end at ``"\\n"`` (the last may not), a ``"\\r"`` before it is dropped.

    Line i's document is ``text[start[i]:stop[i]]``; with ``tsv`` it follows the first tab, and
    ``text[label_start[i]:label_stop[i]]`` is the label before it, stripped of whitespace.  The arrays
    need one entry per line.  Returns ``(number of lines, first malformed line, problem)``: -1 and 0 when
    every line is well formed, else the line's index and ``NO_TAB`` or ``EMPTY_LABEL``.
    """
    PyUnicode_READY(text)
    return split_buffer(PyUnicode_KIND(text), PyUnicode_DATA(text), PyUnicode_GET_LENGTH(text), False, tsv, start,
                        stop, label_start, label_stop)


def split_utf8_lines(const uint8_t[::1] data, bint tsv, int64_t[::1] start, int64_t[::1] stop,
                     int64_t[::1] label_start, int64_t[::1] label_stop):
    """``split_lines`` on the bytes of valid UTF-8 text (see ``utf8_error``), spans in bytes."""
    return split_buffer(1, &data[0] if data.shape[0] else NULL, data.shape[0], True, tsv, start, stop, label_start,
                        label_stop)


cdef tuple split_buffer(int kind, const void *data, Py_ssize_t n, bint utf8, bint tsv, int64_t[::1] start,
                        int64_t[::1] stop, int64_t[::1] label_start, int64_t[::1] label_stop):
    """``split_lines`` on a str's buffer (``kind`` bytes per code point), or on UTF-8 bytes (``utf8``)."""
    cdef Py_ssize_t capacity = start.shape[0]
    cdef Py_ssize_t i = 0, line = 0, begin, end, tab, a, b
    cdef Py_ssize_t bad = -1
    cdef int problem = WELL_FORMED
    if stop.shape[0] < capacity or (tsv and (label_start.shape[0] < capacity or label_stop.shape[0] < capacity)):
        raise ValueError("split_lines: the arrays must have one entry per line")
    with nogil:
        while i < n and line < capacity:
            begin = i
            i = find_code_point(kind, data, i, n, NEWLINE)
            end = i
            if end > begin and PyUnicode_READ(kind, data, end - 1) == RETURN:
                end -= 1
            i += 1  # past the newline
            if not tsv:
                start[line], stop[line] = begin, end
            else:
                tab = find_code_point(kind, data, begin, end, TAB)
                if tab == end:
                    bad, problem = line, NO_TAB_FOUND
                    break
                a, b = begin, tab
                if utf8:
                    a, b = strip_utf8(<const uint8_t *> data, a, b)
                else:
                    while a < b and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, a)):
                        a += 1
                    while b > a and Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, b - 1)):
                        b -= 1
                if a == b:
                    bad, problem = line, LABEL_EMPTY
                    break
                label_start[line], label_stop[line] = a, b
                start[line], stop[line] = tab + 1, end
            line += 1
    return line, bad, problem


cdef (Py_ssize_t, Py_ssize_t) strip_utf8(const uint8_t *data, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    """The span ``a:b`` of valid UTF-8 without the whitespace ``str.strip`` drops at its ends."""
    cdef Py_ssize_t size, lead
    while a < b:
        size = 1 if data[a] < 0xC0 else 2 if data[a] < 0xE0 else 3 if data[a] < 0xF0 else 4
        if not Py_UNICODE_ISSPACE(code_point(data, a, size)):
            break
        a += size
    while b > a:
        lead = b - 1
        while (data[lead] & 0xC0) == 0x80:  # back over the continuation bytes
            lead -= 1
        if not Py_UNICODE_ISSPACE(code_point(data, lead, b - lead)):
            break
        b = lead
    return a, b


cdef inline Py_UCS4 code_point(const uint8_t *data, Py_ssize_t i, Py_ssize_t size) noexcept nogil:
    """The code point of the valid UTF-8 sequence of ``size`` bytes at ``data[i]``."""
    cdef uint32_t c = data[i] if size == 1 else data[i] & (0x3F >> (size - 1))
    cdef Py_ssize_t k
    for k in range(1, size):
        c = (c << 6) | (data[i + k] & 0x3F)
    return <Py_UCS4> c


def utf8_error(const uint8_t[::1] data):
    """The offset of the first byte of ``data`` that is not part of valid UTF-8 (as Python's strict decoder
    judges it: no overlong forms, surrogates or code points beyond U+10FFFF), or -1 when it is all valid."""
    cdef Py_ssize_t found
    with nogil:
        found = first_invalid_utf8(&data[0] if data.shape[0] else NULL, data.shape[0], NULL)
    return found


def utf8_strings_error(const uint8_t[::1] data, const int64_t[::1] offsets, uint8_t[::1] sigma):
    """(i, k): string i, ``data[offsets[i]:offsets[i + 1]]``, is the first that is not valid UTF-8 (as
    ``utf8_error`` judges it), k the offset of its first invalid byte; (-1, -1) when every string is valid.
    Each valid string before it is given ``sigma[i]``: whether it holds U+03A3 (see ``utf8_holding_sigma``).
    ValueError when the offsets decrease or point outside ``data``."""
    cdef Py_ssize_t i = -1, n = offsets.shape[0] - 1, size = data.shape[0], found = -1
    cdef const uint8_t *bytes = &data[0] if size else NULL
    cdef bint in_bounds = True
    if n < 0 or sigma.shape[0] != n:
        raise ValueError("utf8_strings_error: sigma must have one entry per string")
    with nogil:
        for i in range(n):
            in_bounds = in_bounds and 0 <= offsets[i] <= offsets[i + 1] <= size
    if not in_bounds:
        raise ValueError("utf8_strings_error: the offsets decrease or point outside the data")
    with nogil:
        for i in range(n):
            found = first_invalid_utf8(bytes + offsets[i], offsets[i + 1] - offsets[i], &sigma[i])
            if found >= 0:
                break
    if found < 0:
        i = -1
    return i, found


cdef Py_ssize_t first_invalid_utf8(const uint8_t *data, Py_ssize_t n, uint8_t *sigma) noexcept nogil:
    """``utf8_error`` of the ``n`` bytes at ``data``; when they are valid and ``sigma`` is not NULL, ``*sigma`` is
    whether they hold U+03A3 (CE A3)."""
    cdef Py_ssize_t i = 0, size
    cdef uint64_t word
    cdef uint8_t first, low, high
    cdef bint sigma_held = False
    while i < n:
        if i + 8 <= n:  # eight ASCII bytes at a time: most text is mostly ASCII
            memcpy(&word, data + i, 8)
            if (word & 0x8080808080808080ULL) == 0:
                i += 8
                continue
        first = data[i]
        if first < 0x80:
            i += 1
            continue
        # the sequence's length and the range of its second byte (Unicode's table 3-7); later bytes are 80..BF
        low, high = 0x80, 0xBF
        if 0xC2 <= first <= 0xDF:
            size = 2
        elif 0xE0 <= first <= 0xEF:
            size = 3
            if first == 0xE0:
                low = 0xA0  # no overlong form
            elif first == 0xED:
                high = 0x9F  # no surrogate
        elif 0xF0 <= first <= 0xF4:
            size = 4
            if first == 0xF0:
                low = 0x90  # no overlong form
            elif first == 0xF4:
                high = 0x8F  # nothing beyond U+10FFFF
        else:
            return i
        if i + size > n or not low <= data[i + 1] <= high:
            return i
        if size > 2 and not 0x80 <= data[i + 2] <= 0xBF:
            return i
        if size > 3 and not 0x80 <= data[i + 3] <= 0xBF:
            return i
        sigma_held |= (first == 0xCE) & (data[i + 1] == 0xA3)  # no branch: Greek text has many CE bytes
        i += size
    if sigma != NULL:
        sigma[0] = sigma_held
    return -1


def utf8_holding_sigma(const uint8_t[::1] buffer, const int64_t[::1] start, const int64_t[::1] stop,
                       uint8_t[::1] found):
    """Whether each UTF-8 document ``buffer[start[i]:stop[i]]`` holds U+03A3 (the bytes CE A3), whose lowercase
    depends on its neighbours: ``found[i]``.  Returns the number of such documents."""
    cdef Py_ssize_t i, n = start.shape[0], size = buffer.shape[0], count = 0
    cdef const uint8_t *data = &buffer[0] if size else NULL
    cdef bint in_bounds = True
    if stop.shape[0] != n or found.shape[0] != n:
        raise ValueError("utf8_holding_sigma: the arrays must have one entry per document")
    with nogil:
        for i in range(n):
            in_bounds = in_bounds and 0 <= start[i] <= stop[i] <= size
    if not in_bounds:
        raise ValueError("utf8_holding_sigma: a document's span is outside the buffer")
    with nogil:
        for i in range(n):
            found[i] = holds_capital_sigma(data, start[i], stop[i])
            count += found[i]
    return count


cdef inline bint holds_capital_sigma(const uint8_t *data, Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    """Whether the UTF-8 bytes ``data[a:b]`` hold CE A3 (U+03A3)."""
    cdef const uint8_t *at
    while a + 1 < b:
        at = <const uint8_t *> memchr(data + a, 0xCE, b - 1 - a)
        if at == NULL:
            return False
        if at[1] == 0xA3:
            return True
        a = at - data + 1
    return False


cdef Py_ssize_t last_starting_at(const int64_t[::1] start, Py_ssize_t position) noexcept nogil:
    """The last document (start in increasing order) starting at or before ``position``, or -1."""
    cdef Py_ssize_t low = 0, high = start.shape[0], middle
    while low < high:
        middle = (low + high) // 2
        if start[middle] <= position:
            low = middle + 1
        else:
            high = middle
    return low - 1


def line_views(str text, const int64_t[::1] start, const int64_t[::1] stop, bint lowercase, uint64_t[::1] data,
               uint8_t[::1] kind, int64_t[::1] length, uint8_t[::1] lower, uint8_t[::1] sigma):
    """Describe the documents ``text[start[i]:stop[i]]`` for the kernels, as ``document_views`` does.

    With ``lowercase``, a document holding U+03A3 (whose lowercase depends on its neighbours) gets
    ``sigma[i] = 1``: it must be lowercased by ``str.lower`` and described again.  Returns the number of
    such documents.
    """
    PyUnicode_READY(text)
    cdef int text_kind = PyUnicode_KIND(text)
    cdef const void *buffer = PyUnicode_DATA(text)
    cdef uint64_t address = <uint64_t> <uintptr_t> buffer
    cdef Py_ssize_t i, n = start.shape[0], n_sigma = 0
    if (stop.shape[0] != n or data.shape[0] != n or kind.shape[0] != n or length.shape[0] != n
            or lower.shape[0] != n or sigma.shape[0] != n):
        raise ValueError("line_views: the arrays must have one entry per document")
    cdef Py_ssize_t text_length = PyUnicode_GET_LENGTH(text)
    cdef Py_ssize_t position = PyUnicode_FindChar(text, CAPITAL_SIGMA, 0, text_length, 1) if (
        lowercase and text_kind != 1) else -1
    cdef bint in_order = True  # each document after the one before: a sigma's document found by bisection
    with nogil:
        for i in range(n):
            data[i] = address + <uint64_t> (start[i] * text_kind)
            kind[i] = <uint8_t> text_kind
            length[i] = stop[i] - start[i]
            lower[i] = lowercase
            sigma[i] = 0
            in_order = in_order and (i == 0 or start[i] >= stop[i - 1])
        if position >= 0 and not in_order:  # each document searched
            for i in range(n):
                sigma[i] = find_code_point(text_kind, buffer, start[i], stop[i], CAPITAL_SIGMA) < stop[i]
    while position >= 0 and in_order:  # each sigma, found by str's own search
        i = last_starting_at(start, position)
        if i >= 0 and position < stop[i]:
            sigma[i] = 1
        position = PyUnicode_FindChar(text, CAPITAL_SIGMA, position + 1, text_length, 1)
    for i in range(n):
        n_sigma += sigma[i]
    return n_sigma
