# distutils: language = c++
"""Word tokenizing and feature hashing of Python str documents, the core of
``nbfast.text.HashingVectorizer``.

The kernels read each document straight from its str buffer (1, 2 or 4 bytes
per code point), so a batch is never joined, lowercased or encoded by Python.
Per document, with a per-thread scratch buffer:

* each code point is optionally lowercased through a table that
  ``nbfast.text`` builds from ``str.lower`` itself (documents containing
  U+03A3, whose lowercase depends on context, arrive already lowercased);
* the result is written as UTF-8 while tokens are found: what Python's
  ``re.findall(r"(?u)\\b\\w\\w+\\b", doc)`` finds, i.e. maximal runs of at least
  two word characters, a word character being one for which CPython's regular
  expression engine says ``\\w`` (the same ``Py_UNICODE_ISALNUM`` test, plus
  the underscore);
* a token, or an n-gram of tokens joined by single spaces, is hashed with the
  signed 32-bit MurmurHash3 (x86_32, seed 0) of its UTF-8 bytes, as
  scikit-learn's FeatureHasher does: column ``abs(h) % n_features``, sign
  ``h >= 0``.

Two passes, each parallel over documents (every document is independent, so
results do not depend on the number of threads):

1. ``hash_documents``: the (column, sign) keys of every feature of a document,
   written in a slot sized by an upper bound on its number of tokens, sorted
   and merged into (column, signed count) pairs, as scipy's ``sum_duplicates``
   does (zero sums are kept);
2. ``fill_csr``: the CSR rows, with ``binary`` and the l1/l2 norm computed
   exactly as scikit-learn's ``normalize`` does.
"""
from cpython.unicode cimport (
    Py_UNICODE_ISALNUM,
    PyUnicode_DATA,
    PyUnicode_FindChar,
    PyUnicode_GET_LENGTH,
    PyUnicode_KIND,
)
from cython.parallel cimport parallel, prange
from libc.math cimport fabs, sqrt
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t, uintptr_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy
from libcpp.algorithm cimport sort

import numpy as np

from nbfast._kernels._types cimport floating, integral

cdef extern from "Python.h":
    int PyUnicode_READY(object o) except -1

cdef enum Norm:
    NORM_NONE = 0
    NORM_L1 = 1
    NORM_L2 = 2

# The ``norm`` argument of fill_csr for each of scikit-learn's norm options.
NORM_CODES = {None: NORM_NONE, "l1": NORM_L1, "l2": NORM_L2}

cdef enum:
    MAX_CODE_POINT = 0x110000
    WORD_CHARS_BYTES = 0x22000  # MAX_CODE_POINT // 8
    UNDERSCORE = 0x5F
    SPACE = 0x20
    CAPITAL_SIGMA = 0x3A3

# A lowercase table entry with this bit set indexes the multi-code-point expansions.
cdef uint32_t EXPANSION = 0x80000000u

# Bit c of WORD_CHARS says whether code point c is a regular-expression word character;
# filled once when the module is imported.
cdef uint8_t WORD_CHARS[WORD_CHARS_BYTES]


cdef void build_word_chars() noexcept:
    cdef uint32_t c
    for c in range(MAX_CODE_POINT):
        if Py_UNICODE_ISALNUM(<Py_UCS4> c) or c == UNDERSCORE:
            WORD_CHARS[c >> 3] |= <uint8_t> (1 << (c & 7))


build_word_chars()


def word_char_table():
    """Return a copy of the word-character bitmap as uint8 (bit c % 8 of byte c // 8 is code point c)."""
    return np.asarray(<uint8_t[:WORD_CHARS_BYTES]> WORD_CHARS).copy()


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


cdef struct Tables:
    # lowercase: code point c becomes stage2[stage1[c >> 8] * 256 + (c & 255)] when that is
    # nonzero (itself otherwise); entries with the EXPANSION bit point to expansions[4 * k]:
    # a count then up to 3 code points
    const uint16_t *stage1
    const uint32_t *stage2
    const uint32_t *expansions


cdef struct Scan:
    # state of one document's scan
    uint8_t *out        # lowercased UTF-8
    int64_t *spans      # token (begin, end) byte offsets in out
    Py_ssize_t pos      # bytes written
    Py_ssize_t run_start
    Py_ssize_t run_length
    Py_ssize_t n_tokens


cdef inline void end_run(Scan *scan) noexcept nogil:
    if scan.run_length >= 2:
        scan.spans[2 * scan.n_tokens] = scan.run_start
        scan.spans[2 * scan.n_tokens + 1] = scan.pos
        scan.n_tokens += 1
    scan.run_length = 0


cdef inline void emit(Scan *scan, uint32_t c) noexcept nogil:
    """Append code point c: extend or close the current run of word characters, write UTF-8."""
    cdef uint8_t *o
    if is_word(c):
        if scan.run_length == 0:
            scan.run_start = scan.pos
        scan.run_length += 1
    elif scan.run_length > 0:
        end_run(scan)
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


ctypedef fused code_unit:
    # the storage of a str: 1, 2 or 4 bytes per code point
    uint8_t
    uint16_t
    uint32_t


cdef Py_ssize_t scan_document(const code_unit *data, Py_ssize_t length, bint lower,
                              const Tables *tables, uint8_t *out, int64_t *spans) noexcept nogil:
    """Lowercase (when ``lower``), tokenize and UTF-8 encode one document into ``out``,
    token byte spans into ``spans``; return the number of tokens."""
    cdef Scan scan
    cdef Py_ssize_t i
    cdef uint32_t c, v, k
    scan.out = out
    scan.spans = spans
    scan.pos = 0
    scan.run_start = 0
    scan.run_length = 0
    scan.n_tokens = 0
    for i in range(length):
        c = data[i]
        if lower:
            if c < 0x80:
                if 0x41 <= c <= 0x5A:  # A-Z
                    c += 0x20
            else:
                v = tables.stage2[(<uint32_t> tables.stage1[c >> 8] << 8) | (c & 0xFF)]
                if v & EXPANSION:
                    v = 4 * (v & ~EXPANSION)
                    for k in range(tables.expansions[v]):
                        emit(&scan, tables.expansions[v + 1 + k])
                    continue
                if v != 0:
                    c = v
        emit(&scan, c)
    end_run(&scan)
    return scan.n_tokens


cdef inline uint32_t rotl32(uint32_t x, int r) noexcept nogil:
    return (x << r) | (x >> (32 - r))


cdef int32_t murmurhash3_32(const uint8_t *key, Py_ssize_t length) noexcept nogil:
    """MurmurHash3_x86_32 with seed 0 (Austin Appleby's reference, as in scikit-learn),
    blocks read in native byte order."""
    cdef Py_ssize_t n_blocks = length // 4, i
    cdef uint32_t h = 0, k
    cdef uint32_t c1 = 0xCC9E2D51u, c2 = 0x1B873593u, c3 = 0xE6546B64u, m1 = 0x85EBCA6Bu, m2 = 0xC2B2AE35u
    cdef const uint8_t *tail = key + 4 * n_blocks
    for i in range(n_blocks):
        memcpy(&k, key + 4 * i, 4)
        k = rotl32(k * c1, 15) * c2
        h = rotl32(h ^ k, 13) * 5 + c3
    k = 0
    if length & 3 == 3:
        k ^= (<uint32_t> tail[2]) << 16
    if length & 3 >= 2:
        k ^= (<uint32_t> tail[1]) << 8
    if length & 3 >= 1:
        k ^= tail[0]
        h ^= rotl32(k * c1, 15) * c2
    h ^= <uint32_t> length
    h ^= h >> 16
    h *= m1
    h ^= h >> 13
    h *= m2
    h ^= h >> 16
    return <int32_t> h


cdef inline uint64_t feature_key(int32_t h, int64_t n_features, bint alternate_sign) noexcept nogil:
    """(column << 1) | negative, column = abs(h) % n_features taken in 64 bits (for h = -2**31 this
    equals scikit-learn's (2**31 - 1 - (n_features - 1)) % n_features)."""
    cdef int64_t column = (h if h >= 0 else -<int64_t> h) % n_features
    return ((<uint64_t> column) << 1) | <uint64_t> (alternate_sign and h < 0)


cdef inline Tables make_tables(const uint16_t[::1] stage1, const uint32_t[::1] stage2,
                               const uint32_t[::1] expansions) noexcept:
    cdef Tables tables
    tables.stage1 = &stage1[0]
    tables.stage2 = &stage2[0]
    tables.expansions = &expansions[0]
    return tables


def hash_documents(
    const uint64_t[::1] data,
    const uint8_t[::1] kind,
    const int64_t[::1] length,
    const uint8_t[::1] lower,
    const uint16_t[::1] stage1,
    const uint32_t[::1] stage2,
    const uint32_t[::1] expansions,
    int min_n,
    int max_n,
    int64_t n_features,
    bint alternate_sign,
    Py_ssize_t max_tokens,
    Py_ssize_t max_bytes,
    const int64_t[::1] raw_ptr,
    uint64_t[::1] raw,
    int64_t[::1] nnz,
    int n_threads,
):
    """Hash the word n-grams (min_n <= n <= max_n) of every document and merge duplicates.

    Document d is described by ``document_views`` and lowercased through the (stage1,
    stage2, expansions) table where lower[d].  Its raw keys fill raw[raw_ptr[d]:], a slot
    the caller sizes from an upper bound on its tokens; on return its first nnz[d]
    entries hold (column << 32) | uint32(signed count), sorted by column.
    ``max_tokens`` and ``max_bytes`` (of lowercased UTF-8) bound every document and size
    the per-thread scratch.
    """
    cdef Py_ssize_t n_documents = data.shape[0], d
    cdef Tables tables = make_tables(stage1, stage2, expansions)
    cdef int64_t *spans
    cdef uint8_t *text
    cdef uint8_t *gram
    cdef uint64_t *keys
    cdef Py_ssize_t n_tok, n_keys, t, u, size, pos, out, run
    cdef int n
    cdef int32_t count
    cdef uint64_t column
    cdef bint failed = False
    cdef bint *failed_flag = &failed  # written through a pointer: shared by the threads

    with nogil, parallel(num_threads=n_threads):
        spans = <int64_t *> malloc((2 * max_tokens + 2) * sizeof(int64_t))
        text = <uint8_t *> malloc(max_bytes + 1)
        gram = <uint8_t *> malloc(max_bytes + 1) if max_n > 1 else NULL
        if spans == NULL or text == NULL or (max_n > 1 and gram == NULL):
            failed_flag[0] = True
        else:
            for d in prange(n_documents, schedule="dynamic", chunksize=64):
                if kind[d] == 1:
                    n_tok = scan_document(<const uint8_t *> <uintptr_t> data[d], length[d], lower[d],
                                          &tables, text, spans)
                elif kind[d] == 2:
                    n_tok = scan_document(<const uint16_t *> <uintptr_t> data[d], length[d], lower[d],
                                          &tables, text, spans)
                else:
                    n_tok = scan_document(<const uint32_t *> <uintptr_t> data[d], length[d], lower[d],
                                          &tables, text, spans)
                keys = &raw[0] + raw_ptr[d] if raw.shape[0] > 0 else NULL
                n_keys = 0
                for n in range(min_n, max_n + 1):
                    for t in range(n_tok - n + 1):
                        if n == 1:
                            keys[n_keys] = feature_key(
                                murmurhash3_32(text + spans[2 * t], spans[2 * t + 1] - spans[2 * t]),
                                n_features, alternate_sign)
                        else:
                            # the n tokens joined by single spaces, as scikit-learn's " ".join
                            size = 0
                            for u in range(t, t + n):
                                if u > t:
                                    gram[size] = SPACE
                                    size = size + 1
                                memcpy(gram + size, text + spans[2 * u], spans[2 * u + 1] - spans[2 * u])
                                size = size + spans[2 * u + 1] - spans[2 * u]
                            keys[n_keys] = feature_key(murmurhash3_32(gram, size), n_features, alternate_sign)
                        n_keys = n_keys + 1
                if n_keys > 0:
                    sort(keys, keys + n_keys)
                # merge equal columns: count = (# positive) - (# negative)
                out = 0
                pos = 0
                while pos < n_keys:
                    column = keys[pos] >> 1
                    count = 0
                    run = pos
                    while run < n_keys and (keys[run] >> 1) == column:
                        count = count + (-1 if keys[run] & 1 else 1)
                        run = run + 1
                    keys[out] = (column << 32) | <uint32_t> count
                    out = out + 1
                    pos = run
                nnz[d] = out
        free(spans)
        free(text)
        free(gram)
    if failed:
        raise MemoryError("nbfast.text: cannot allocate the per-thread tokenizer scratch")


def fill_csr(
    const uint64_t[::1] raw,
    const int64_t[::1] raw_ptr,
    const integral[::1] indptr,
    integral[::1] indices,
    floating[::1] data,
    bint binary,
    int norm,
    int n_threads,
):
    """Write the merged (column, count) pairs of ``hash_documents`` as CSR rows.

    Values are the counts (1 when ``binary``), then divided by the row's l1 or l2
    norm computed as scikit-learn's ``inplace_csr_row_normalize_l1/l2`` do: the sum
    accumulated in float64 of |x| or x * x (x * x in the data precision), rows of
    zero norm left as they are.
    """
    cdef Py_ssize_t n_documents = indptr.shape[0] - 1, d, k, src, dst
    cdef double total
    cdef floating value
    with nogil:
        for d in prange(n_documents, schedule="dynamic", chunksize=256, num_threads=n_threads):
            src = raw_ptr[d]
            dst = indptr[d]
            total = 0.0
            for k in range(indptr[d + 1] - indptr[d]):
                indices[dst + k] = <integral> (raw[src + k] >> 32)
                value = 1 if binary else <floating> (<int32_t> <uint32_t> raw[src + k])
                data[dst + k] = value
                if norm == NORM_L1:
                    total = total + fabs(value)
                elif norm == NORM_L2:
                    total = total + value * value
            if norm == NORM_NONE or total == 0.0:
                continue
            if norm == NORM_L2:
                total = sqrt(total)
            for k in range(dst, indptr[d + 1]):
                data[k] = data[k] / total
