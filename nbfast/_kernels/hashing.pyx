# distutils: language = c++
"""Word tokenizing and feature hashing of Python str documents, the core of
``nbfast.text.HashingVectorizer``.

Documents are tokenized by ``nbfast._kernels.tokens`` (lowercased UTF-8 and token
spans in per-thread scratch buffers); then

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
from cython.parallel cimport parallel, prange
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy
from libcpp.algorithm cimport sort

from nbfast._kernels._rows cimport normalize_row
from nbfast._kernels._types cimport floating, integral
from nbfast._kernels.tokens cimport Documents, Scratch, Views, free_scratch, new_scratch, ngram, scan

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


cdef Py_ssize_t hash_document(const Views *views, Py_ssize_t d, Scratch *scratch, int min_n, int max_n,
                              int64_t n_features, bint alternate_sign, uint64_t *keys) noexcept nogil:
    """Hash the word n-grams of document d into ``keys`` and merge them: (column << 32) | uint32(signed
    count), sorted by column; return how many.  A function of its own, so that every variable of the
    document's loop is local to the thread running it (in a prange body, a variable only written through
    its address would be shared)."""
    cdef Py_ssize_t n_tok = scan(views, d, scratch), n_keys = 0, t, size, pos = 0, out = 0, run
    cdef int n
    cdef int32_t count
    cdef uint64_t column
    cdef const uint8_t *term
    for n in range(min_n, max_n + 1):
        for t in range(n_tok - n + 1):
            term = ngram(scratch, t, n, &size)
            keys[n_keys] = feature_key(murmurhash3_32(term, size), n_features, alternate_sign)
            n_keys = n_keys + 1
    if n_keys > 0:
        sort(keys, keys + n_keys)
    # merge equal columns: count = (# positive) - (# negative)
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
    return out


def hash_documents(
    Documents documents,
    int min_n,
    int max_n,
    int64_t n_features,
    bint alternate_sign,
    const int64_t[::1] raw_ptr,
    uint64_t[::1] raw,
    int64_t[::1] nnz,
    int n_threads,
):
    """Hash the word n-grams (min_n <= n <= max_n) of every document and merge duplicates.

    The raw keys of document d fill raw[raw_ptr[d]:], a slot the caller sizes from an
    upper bound on its tokens; on return its first nnz[d] entries hold
    (column << 32) | uint32(signed count), sorted by column.
    """
    cdef const Views *views = &documents.views
    cdef Py_ssize_t n_documents = documents.n_documents, d
    cdef Py_ssize_t max_tokens = documents.max_tokens, max_bytes = documents.max_bytes
    cdef Scratch *scratch
    cdef uint64_t *keys = &raw[0] if raw.shape[0] > 0 else NULL
    cdef bint failed = False
    cdef bint *failed_flag = &failed  # written through a pointer: shared by the threads

    with nogil, parallel(num_threads=n_threads):
        scratch = new_scratch(max_tokens, max_bytes)
        if scratch == NULL:
            failed_flag[0] = True
        else:
            for d in prange(n_documents, schedule="dynamic", chunksize=64):
                nnz[d] = hash_document(views, d, scratch, min_n, max_n, n_features, alternate_sign,
                                       keys + raw_ptr[d])
        free_scratch(scratch)
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
    norm (``norm``: a code of ``nbfast.text._common.NORM_CODES``) as scikit-learn's
    ``normalize`` does.
    """
    cdef Py_ssize_t n_documents = indptr.shape[0] - 1, d, k, src, dst
    with nogil:
        for d in prange(n_documents, schedule="dynamic", chunksize=256, num_threads=n_threads):
            src = raw_ptr[d]
            dst = indptr[d]
            for k in range(indptr[d + 1] - indptr[d]):
                indices[dst + k] = <integral> (raw[src + k] >> 32)
                data[dst + k] = 1 if binary else <floating> (<int32_t> <uint32_t> raw[src + k])
            if indptr[d + 1] > dst:
                normalize_row(&data[dst], indptr[d + 1] - dst, norm)
