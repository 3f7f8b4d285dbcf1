"""The word tokenizer of the text kernels (``hashing``, ``vocabulary``).

``scan_str`` reads a document straight from its str buffer (1, 2 or 4 bytes per
code point), so a batch is never joined, lowercased or encoded by Python:

* each code point is optionally lowercased through a table that
  ``nbfast.text`` builds from ``str.lower`` itself (documents containing
  U+03A3, whose lowercase depends on context, arrive already lowercased);
* the result is written as UTF-8 while tokens are found: what Python's
  ``re.findall(r"(?u)\\b\\w\\w+\\b", doc)`` finds, i.e. maximal runs of at least
  two word characters, a word character being one for which CPython's regular
  expression engine says ``\\w`` (the same ``Py_UNICODE_ISALNUM`` test, plus
  the underscore).
"""
from cpython.unicode cimport (
    PyUnicode_DATA,
    PyUnicode_FindChar,
    PyUnicode_GET_LENGTH,
    PyUnicode_KIND,
)
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport calloc, free, malloc

import threading

import numpy as np

cdef extern from "Python.h":
    int PyUnicode_READY(object o) except -1
    # lookups in the interpreter's static Unicode tables: they need no GIL
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch) nogil
    Py_UCS4 Py_UNICODE_TOLOWER(Py_UCS4 ch) nogil

cdef enum:
    MAX_CODE_POINT = 0x110000
    WORD_CHARS_BYTES = 0x22000  # MAX_CODE_POINT // 8
    UNDERSCORE = 0x5F
    CAPITAL_SIGMA = 0x3A3
    UTF8 = 8  # Views.kind of a document stored as UTF-8, its length in bytes

KIND_UTF8 = UTF8

# A lowercase table entry with this bit set indexes the multi-code-point expansions.
cdef uint32_t EXPANSION = 0x80000000u

# Bit c of WORD_CHARS says whether code point c is a regular-expression word character.  Filled once,
# when the first Documents is made (not at import: it takes some ten milliseconds), without the GIL.
cdef uint8_t WORD_CHARS[WORD_CHARS_BYTES]
cdef bint word_chars_filled = False
_word_chars_lock = threading.Lock()


# The same for ASCII, a byte per code point.
cdef uint8_t ASCII_WORD_CHARS[0x80]


cdef void fill_word_chars() noexcept nogil:
    cdef uint32_t c
    for c in range(MAX_CODE_POINT):
        if Py_UNICODE_ISALNUM(<Py_UCS4> c) or c == UNDERSCORE:
            WORD_CHARS[c >> 3] |= <uint8_t> (1 << (c & 7))
            if c < 0x80:
                ASCII_WORD_CHARS[c] = 1


cdef void ensure_word_chars():
    """Fill the word-character tables if no thread has: others wait for the one filling them."""
    global word_chars_filled
    if word_chars_filled:
        return
    with _word_chars_lock:
        if not word_chars_filled:
            with nogil:
                fill_word_chars()
            word_chars_filled = True


def word_char_table():
    """Return a copy of the word-character bitmap as uint8 (bit c % 8 of byte c // 8 is code point c)."""
    ensure_word_chars()
    return np.asarray(<uint8_t[:WORD_CHARS_BYTES]> WORD_CHARS).copy()


def lowercased_code_points():
    """The code points beyond ASCII whose simple lowercase (``Py_UNICODE_TOLOWER``: one code point) is another,
    in order (uint32).  They are the code points ``str.lower`` changes: a code point lowering to several begins
    its lowercase with another, in every Unicode version so far (tests check it for the interpreter)."""
    found = np.empty(MAX_CODE_POINT, dtype=np.uint32)  # pages untouched beyond the few thousand found
    cdef uint32_t[::1] out = found
    cdef Py_ssize_t n = 0
    cdef uint32_t c
    with nogil:
        for c in range(0x80, MAX_CODE_POINT):
            if Py_UNICODE_TOLOWER(<Py_UCS4> c) != c:
                out[n] = c
                n += 1
    return found[:n].copy()


cdef inline bint is_word(uint32_t c) noexcept nogil:
    return (WORD_CHARS[c >> 3] >> (c & 7)) & 1


def document_views(list documents, bint lowercase, uint64_t[::1] data, uint8_t[::1] kind,
                   int64_t[::1] length, uint8_t[::1] lower):
    """Describe each str of ``documents`` for the kernels: buffer address, bytes per code
    point, length, and whether the kernel lowercases it.

    With ``lowercase``, documents containing U+03A3 (whose lowercase depends on its
    neighbours) are lowercased here by ``str.lower``; the returned list holds them and
    must stay alive, with ``documents``, while the kernels run.
    """
    cdef Py_ssize_t i
    cdef object doc
    cdef list keep = []
    for i in range(len(documents)):
        doc = documents[i]
        PyUnicode_READY(doc)
        lower[i] = lowercase
        if lowercase and PyUnicode_KIND(doc) != 1 and PyUnicode_FindChar(
                doc, CAPITAL_SIGMA, 0, PyUnicode_GET_LENGTH(doc), 1) >= 0:
            doc = doc.lower()
            PyUnicode_READY(doc)
            keep.append(doc)
            lower[i] = False
        data[i] = <uint64_t> <uintptr_t> PyUnicode_DATA(doc)
        kind[i] = <uint8_t> PyUnicode_KIND(doc)
        length[i] = PyUnicode_GET_LENGTH(doc)
    return keep


cdef struct Scan:
    # state of one document's scan
    uint8_t *out        # lowercased UTF-8
    int64_t *spans      # token (begin, end) byte offsets in out
    Py_ssize_t pos      # bytes written
    Py_ssize_t run_start
    Py_ssize_t run_length
    Py_ssize_t n_tokens


cdef inline void start_scan(Scan *scan, uint8_t *out, int64_t *spans) noexcept nogil:
    scan.out = out
    scan.spans = spans
    scan.pos = 0
    scan.run_start = 0
    scan.run_length = 0
    scan.n_tokens = 0


cdef inline void end_run(Scan *scan) noexcept nogil:
    if scan.run_length >= 2:
        scan.spans[2 * scan.n_tokens] = scan.run_start
        scan.spans[2 * scan.n_tokens + 1] = scan.pos
        scan.n_tokens += 1
    scan.run_length = 0


cdef inline void track(Scan *scan, bint word) noexcept nogil:
    """Extend the current run of word characters with the character at scan.pos, or close it, without a
    branch: words and the spaces between them alternate every few characters, too often to predict.  The
    span is always written, and counted as a token when a run of at least two ends (spans has room for one
    more than the document's tokens)."""
    cdef bint token_ends = not word and scan.run_length >= 2
    scan.spans[2 * scan.n_tokens] = scan.run_start
    scan.spans[2 * scan.n_tokens + 1] = scan.pos
    scan.n_tokens += token_ends
    scan.run_start = scan.run_start if scan.run_length > 0 else scan.pos
    scan.run_length = scan.run_length + 1 if word else 0


cdef inline void emit(Scan *scan, uint32_t c) noexcept nogil:
    """Append code point c: extend or close the current run of word characters, write UTF-8."""
    cdef uint8_t *o
    track(scan, is_word(c))
    o = scan.out + scan.pos
    if c < 0x80:
        o[0] = <uint8_t> c
        scan.pos += 1
    elif c < 0x800:
        o[0] = <uint8_t> (0xC0 | (c >> 6))
        o[1] = <uint8_t> (0x80 | (c & 0x3F))
        scan.pos += 2
    elif c < 0x10000:  # lone surrogates too, as "surrogatepass" writes them: never in a token
        o[0] = <uint8_t> (0xE0 | (c >> 12))
        o[1] = <uint8_t> (0x80 | ((c >> 6) & 0x3F))
        o[2] = <uint8_t> (0x80 | (c & 0x3F))
        scan.pos += 3
    else:
        o[0] = <uint8_t> (0xF0 | (c >> 18))
        o[1] = <uint8_t> (0x80 | ((c >> 12) & 0x3F))
        o[2] = <uint8_t> (0x80 | ((c >> 6) & 0x3F))
        o[3] = <uint8_t> (0x80 | (c & 0x3F))
        scan.pos += 4


cdef inline void step(Scan *scan, uint32_t c, bint lower, const Tables *tables) noexcept nogil:
    """Lowercase (when ``lower``) code point c, beyond ASCII, then track and write it."""
    cdef uint32_t v, k
    if lower:
        v = tables.stage2[(<uint32_t> tables.stage1[c >> 8] << 8) | (c & 0xFF)]
        if v & EXPANSION:
            v = 4 * (v & ~EXPANSION)
            for k in range(tables.expansions[v]):
                emit(scan, tables.expansions[v + 1 + k])
            return
        if v != 0:
            c = v
    emit(scan, c)


ctypedef fused code_unit:
    # the storage of a str: 1, 2 or 4 bytes per code point
    uint8_t
    uint16_t
    uint32_t


cdef inline Py_ssize_t ascii_run(Scan *scan, const code_unit *data, Py_ssize_t i, Py_ssize_t end,
                                 bint lower) noexcept nogil:
    """Scan the ASCII code points from data[i] on (most of most text), up to ``end`` or the first beyond ASCII,
    whose index it returns: one table lookup and one byte each.  The scan's state is worked on in a local copy,
    which the compiler keeps in registers (``scan`` itself, whose address ``step`` takes, stays in memory)."""
    cdef Scan local = scan[0]
    cdef uint32_t c
    while i < end:
        c = data[i]
        if c >= 0x80:
            break
        if lower and 0x41 <= c <= 0x5A:  # A-Z
            c += 0x20
        track(&local, ASCII_WORD_CHARS[c])
        local.out[local.pos] = <uint8_t> c
        local.pos += 1
        i += 1
    scan[0] = local
    return i


cdef Py_ssize_t scan_document(const code_unit *data, Py_ssize_t length, bint lower,
                              const Tables *tables, uint8_t *out, int64_t *spans) noexcept nogil:
    """Lowercase (when ``lower``), tokenize and UTF-8 encode one document into ``out``,
    token byte spans into ``spans``; return the number of tokens."""
    cdef Scan scan
    cdef Py_ssize_t i = 0
    start_scan(&scan, out, spans)
    while i < length:
        i = ascii_run(&scan, data, i, length, lower)
        if i < length:
            step(&scan, data[i], lower, tables)
            i += 1
    end_run(&scan)
    return scan.n_tokens


cdef Py_ssize_t scan_utf8(const uint8_t *data, Py_ssize_t nbytes, bint lower,
                          const Tables *tables, uint8_t *out, int64_t *spans) noexcept nogil:
    """``scan_document`` of a document stored as UTF-8 (``nbytes`` bytes, as Arrow holds strings): each code
    point decoded in place.  A malformed sequence (which the caller has refused already) becomes U+FFFD and
    never makes a read past ``nbytes``."""
    cdef Scan scan
    cdef Py_ssize_t i = 0, n, k
    cdef uint32_t c
    start_scan(&scan, out, spans)
    while i < nbytes:
        i = ascii_run(&scan, data, i, nbytes, lower)
        if i == nbytes:
            break
        c = data[i]
        n = 2 if c < 0xE0 else 3 if c < 0xF0 else 4
        if c < 0xC0 or c > 0xF4 or i + n > nbytes:
            c, n = 0xFFFD, 1
        else:
            c &= 0xFF >> (n + 1)
            for k in range(1, n):
                c = (c << 6) | (data[i + k] & 0x3F)
            if c >= MAX_CODE_POINT:  # the tables end there
                c = 0xFFFD
        step(&scan, c, lower, tables)
        i += n
    end_run(&scan)
    return scan.n_tokens


cdef Py_ssize_t scan(const Views *views, Py_ssize_t d, Scratch *scratch) noexcept nogil:
    """``scan_document`` of document d: its UTF-8 (lowercased if views.lower[d]) in scratch.text, its
    token spans in scratch.spans; return the number of tokens."""
    cdef uint64_t data = views.data[d]
    cdef bint lower = views.lower[d]
    if views.kind[d] == 1:
        return scan_document(<const uint8_t *> <uintptr_t> data, views.length[d], lower, &views.tables,
                             scratch.text, scratch.spans)
    if views.kind[d] == 2:
        return scan_document(<const uint16_t *> <uintptr_t> data, views.length[d], lower, &views.tables,
                             scratch.text, scratch.spans)
    if views.kind[d] == UTF8:
        return scan_utf8(<const uint8_t *> <uintptr_t> data, views.length[d], lower, &views.tables,
                         scratch.text, scratch.spans)
    return scan_document(<const uint32_t *> <uintptr_t> data, views.length[d], lower, &views.tables,
                         scratch.text, scratch.spans)


cdef Scratch *new_scratch(Py_ssize_t max_tokens, Py_ssize_t max_bytes) noexcept nogil:
    """A thread's buffers for any document of the batch, or NULL when out of memory."""
    cdef Scratch *scratch = <Scratch *> calloc(1, sizeof(Scratch))
    if scratch == NULL:
        return NULL
    scratch.text = <uint8_t *> malloc(max_bytes + 1)
    scratch.spans = <int64_t *> malloc((2 * max_tokens + 2) * sizeof(int64_t))
    scratch.gram = <uint8_t *> malloc(max_bytes + 1)
    if scratch.text == NULL or scratch.spans == NULL or scratch.gram == NULL:
        free_scratch(scratch)
        return NULL
    return scratch


cdef void free_scratch(Scratch *scratch) noexcept nogil:
    if scratch != NULL:
        free(scratch.text)
        free(scratch.spans)
        free(scratch.gram)
        free(scratch)


cdef class Documents:
    """A batch of documents for the kernels: ``document_views``' arrays, the lowercase table, and
    bounds on any document's tokens and lowercased UTF-8 bytes (they size the kernels' scratch).
    The str documents must stay alive as long as this object is used."""

    def __init__(self, const uint64_t[::1] data, const uint8_t[::1] kind, const int64_t[::1] length,
                 const uint8_t[::1] lower, const uint16_t[::1] stage1, const uint32_t[::1] stage2,
                 const uint32_t[::1] expansions, Py_ssize_t max_tokens, Py_ssize_t max_bytes):
        self.n_documents = data.shape[0]
        if kind.shape[0] != self.n_documents or length.shape[0] != self.n_documents or (
                lower.shape[0] != self.n_documents):
            raise ValueError("Documents: the views must have one entry per document")
        if self.n_documents == 0:
            raise ValueError("Documents: empty batch")
        ensure_word_chars()
        self.views.data = &data[0]
        self.views.kind = &kind[0]
        self.views.length = &length[0]
        self.views.lower = &lower[0]
        self.views.tables.stage1 = &stage1[0]
        self.views.tables.stage2 = &stage2[0]
        self.views.tables.expansions = &expansions[0]
        self.max_tokens = max_tokens
        self.max_bytes = max_bytes
        self.arrays = (data, kind, length, lower, stage1, stage2, expansions)
