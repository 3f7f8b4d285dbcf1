# The word tokenizer shared by the text kernels (hashing, vocabulary): see tokens.pyx.
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy


cdef struct Tables:
    # lowercase: code point c becomes stage2[stage1[c >> 8] * 256 + (c & 255)] when that is
    # nonzero (itself otherwise); entries with the EXPANSION bit point to expansions[4 * k]:
    # a count then up to 3 code points
    const uint16_t *stage1
    const uint32_t *stage2
    const uint32_t *expansions


cdef struct Views:
    # a batch of str documents, as document_views describes them, and the lowercase table
    const uint64_t *data     # buffer address
    const uint8_t *kind      # bytes per code point, or 8: UTF-8 (tokens.KIND_UTF8)
    const int64_t *length    # code points (bytes for UTF-8)
    const uint8_t *lower     # lowercase in the kernel
    Tables tables


cdef class Documents:
    cdef Views views
    cdef readonly Py_ssize_t n_documents
    cdef readonly Py_ssize_t max_tokens  # tokens of any document, at most
    cdef readonly Py_ssize_t max_bytes   # lowercased UTF-8 bytes of any document, at most
    cdef object arrays                   # the buffers behind views


cdef struct Scratch:
    # one thread's buffers: a document's UTF-8, its token spans, an n-gram
    uint8_t *text
    int64_t *spans   # token t is text[spans[2t]:spans[2t + 1]]
    uint8_t *gram


cdef Scratch *new_scratch(Py_ssize_t max_tokens, Py_ssize_t max_bytes) noexcept nogil
cdef void free_scratch(Scratch *scratch) noexcept nogil
cdef Py_ssize_t scan(const Views *views, Py_ssize_t d, Scratch *scratch) noexcept nogil


cdef inline const uint8_t *ngram(const Scratch *scratch, Py_ssize_t t, int n, Py_ssize_t *size) noexcept nogil:
    """Tokens t .. t + n - 1 of the scanned document joined by single spaces (scikit-learn's " ".join):
    their UTF-8, in scratch.text for one token, else written to scratch.gram; its size in ``size``."""
    cdef const int64_t *spans = scratch.spans
    cdef Py_ssize_t u, length, total = 0
    if n == 1:
        size[0] = spans[2 * t + 1] - spans[2 * t]
        return scratch.text + spans[2 * t]
    for u in range(t, t + n):
        if u > t:
            scratch.gram[total] = 0x20
            total = total + 1
        length = spans[2 * u + 1] - spans[2 * u]
        memcpy(scratch.gram + total, scratch.text + spans[2 * u], length)
        total = total + length
    size[0] = total
    return scratch.gram
