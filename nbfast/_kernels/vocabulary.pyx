# distutils: language = c++
"""Vocabulary building and counting of word n-grams, the core of
``nbfast.text.CountVectorizer`` and ``TfidfVectorizer``.

Documents are tokenized by ``nbfast._kernels.tokens`` (lowercased UTF-8 and token
spans in per-thread scratch buffers), stop words are dropped, and the n-grams (tokens joined by
single spaces, in scikit-learn's order: every unigram, then every bigram, ...)
are looked up by their UTF-8 bytes in a ``StrTable`` (``strtable.pxd``): an
open-addressing hash table of byte strings stored back to back.

Fitting (``VocabularyBuilder.count``) reads one batch of documents at a time,
in parallel over documents and without the GIL.  The vocabulary seen so far is
read-only during a batch; a term it does not hold goes to the table of the
thread that met it, with the (document, position) where the thread first met
it.  After the batch those new terms are merged into the vocabulary in the
order of their first occurrence, so every term gets the index scikit-learn's
``defaultdict`` gives it (the order of first occurrence in the corpus) whatever
the number of threads; the rows of the batch are then rewritten with those
indices, sorted, and kept packed as ``(index << 32) | count``.  Only the rows
and the vocabulary are kept, never the tokens of the documents.

Transforming (``FixedCounter``) looks n-grams up in a fixed ``TermSet`` and
ignores those it does not hold: memory never grows with unseen words.  Either
way the caller turns the packed rows into one CSR matrix (``AllRows.emit``).
"""
from cpython.unicode cimport PyUnicode_DecodeUTF8
from cython.parallel cimport parallel, prange, threadid
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset
from libcpp.algorithm cimport sort

import numpy as np

from nbfast._kernels._types cimport integral
from nbfast._kernels.strtable cimport (
    StrTable,
    TermKey,
    rebuild_slots,
    resize,
    stored_key,
    table_add,
    table_find,
    table_free,
    table_get_or_add,
    table_init,
    term_key,
    term_size,
)
from nbfast._kernels.tokens cimport Documents, Scratch, Views, free_scratch, new_scratch, ngram, scan

cdef extern from "vocabulary_sort.h":
    struct NbfNewTerm:
        int64_t doc
        int64_t pos
        int64_t local
        int64_t thread
    int nbf_sort_terms(const uint8_t *bytes, const int64_t *offsets, int64_t n, int64_t *ids,
                       int n_threads) noexcept nogil
    void prefetch "nbf_prefetch"(const void *address) noexcept nogil
    void nbf_sort_new_terms(NbfNewTerm *terms, int64_t n) noexcept nogil


cdef enum:
    WINDOW = 64  # n-grams hashed (and their slots prefetched) before they are looked up
    MAX_TERMS = 0x7FFFFFFF  # indices are stored in 31 bits of a key (LOCAL above, the count below)

# A key of a term held in the table of the thread (not yet in the vocabulary).
cdef uint64_t LOCAL = 1ULL << 63


cdef extern from "Python.h":
    const char *PyUnicode_AsUTF8AndSize(object text, Py_ssize_t *size) except NULL


cdef TermKey bytes_key(bytes term):
    return term_key(<const uint8_t *> <const char *> term, len(term))


def distinct_terms(list terms):
    """A TermSet of ``terms`` (str) as columns 0, 1, ..., their UTF-8 written as the kernels write it (a lone
    surrogate as it is); ValueError when a term is listed twice."""
    cdef TermSet result = TermSet([])
    cdef Py_ssize_t k, n = len(terms)
    table_free(&result.table)
    if table_init(&result.table, n) != 0 or resize(<void **> &result.ids, max(n, 1) * sizeof(int64_t)) != 0:
        raise MemoryError("nbfast.text: cannot allocate a term table")
    add_distinct(&result.table, terms)
    for k in range(n):
        result.ids[k] = k
    result.note_ids()
    return result


cdef int add_distinct(StrTable *table, list terms) except -1:
    """Append ``terms`` (str) to ``table`` in their order, their UTF-8 written as the kernels write it (a lone
    surrogate as it is); ValueError when a term is there already."""
    cdef Py_ssize_t k, size
    cdef const char *utf8
    cdef bytes encoded
    cdef TermKey key
    for k in range(len(terms)):
        try:
            utf8 = PyUnicode_AsUTF8AndSize(terms[k], &size)  # kept by the str: no bytes made
        except UnicodeEncodeError:
            encoded = (<str> terms[k]).encode("utf-8", "surrogatepass")
            utf8, size = encoded, len(encoded)
        key = term_key(<const uint8_t *> utf8, size)
        if table_find(table, &key) >= 0:
            raise ValueError(f"the term {terms[k]!r} is listed twice")
        if table_add(table, &key) < 0:
            raise MemoryError("nbfast.text: cannot allocate a term table")
    return 0


cdef class TermSet:
    """A set of terms (UTF-8 byte strings), each with an output index: stop words, or a fixed vocabulary."""

    cdef StrTable table
    cdef int64_t *ids   # output index of each term, in the order added; < 0: not in the set
    cdef bint identity  # every term's output index is its position: the kernels need not read ids
    cdef int64_t n_in_set  # terms with an output index (>= 0)

    def __cinit__(self, list terms, const int64_t[::1] ids=None):
        """``terms``: distinct bytes objects; ``ids``: their indices (default: their positions)."""
        cdef Py_ssize_t k, n = len(terms)
        cdef TermKey key
        if table_init(&self.table, n) != 0:
            raise MemoryError("nbfast.text: cannot allocate a term table")
        self.ids = <int64_t *> malloc(max(n, 1) * sizeof(int64_t))
        if self.ids == NULL:
            raise MemoryError("nbfast.text: cannot allocate a term table")
        for k in range(n):
            key = bytes_key(terms[k])
            if table_add(&self.table, &key) < 0:
                raise MemoryError("nbfast.text: cannot allocate a term table")
            self.ids[k] = k if ids is None else ids[k]
        self.note_ids()

    def __dealloc__(self):
        table_free(&self.table)
        free(self.ids)

    def __len__(self):
        return self.n_in_set

    def __contains__(self, bytes term):
        cdef TermKey key = bytes_key(term)
        cdef int64_t k
        self.searchable()
        k = table_find(&self.table, &key)
        return k >= 0 and self.ids[k] >= 0

    def mapping(self, bint python_ints):
        """{term: output index} of the set's terms, in the order they were added (the terms decoded from
        UTF-8, lone surrogates as they were encoded); the indices as Python ints when ``python_ints``, else as
        numpy.int64 scalars."""
        cdef dict result = {}
        cdef int64_t k
        for k in range(self.table.n_terms):
            if self.ids[k] >= 0:
                result[PyUnicode_DecodeUTF8(<char *> self.table.bytes + self.table.offsets[k],
                                            term_size(&self.table, k), "surrogatepass")] = (
                    self.ids[k] if python_ints else np.int64(self.ids[k]))
        return result

    def terms(self):
        """The set's terms (decoded as ``mapping`` decodes them) as a list, term i at its output index i: the
        indices must be 0, 1, ..., len - 1 (ValueError otherwise), as a vectorizer's vocabulary's are."""
        cdef list result = [None] * self.n_in_set
        cdef int64_t k
        for k in range(self.table.n_terms):
            if self.ids[k] >= self.n_in_set:
                raise ValueError(f"the output index {self.ids[k]} is beyond the {self.n_in_set} terms")
            if self.ids[k] >= 0:
                result[self.ids[k]] = PyUnicode_DecodeUTF8(<char *> self.table.bytes + self.table.offsets[k],
                                                           term_size(&self.table, k), "surrogatepass")
        if None in result:
            raise ValueError("the output indices of the terms are not 0, 1, ..., len - 1")
        return result

    cdef void note_ids(self) noexcept:
        """Record what the kernels and ``len`` read of ids: whether it is the identity, how many are set."""
        cdef int64_t k
        self.identity = True
        self.n_in_set = 0
        for k in range(self.table.n_terms):
            self.identity = self.identity and self.ids[k] == k
            self.n_in_set += self.ids[k] >= 0

    cdef searchable(self):
        """Build the slots of a set made by ``VocabularyBuilder.freeze`` (not before its first search:
        fitting then never holds them beside vocabulary_ as it is being built)."""
        if self.table.slots == NULL and rebuild_slots(&self.table) != 0:
            raise MemoryError("nbfast.text: cannot allocate a term table")


# ----------------------------------------------------------------------------- counting
cdef struct Batch:
    # one batch of documents, and where their rows go
    Views views
    int min_n
    int max_n
    const StrTable *stop            # NULL: no stop words
    const StrTable *vocabulary
    const int64_t *ids              # output index of each vocabulary term; NULL: the term's own index
    StrTable *locals                # a table per thread for new terms; NULL: ignore unknown terms
    const int64_t *raw_ptr
    uint64_t *raw
    int64_t *nnz
    uint16_t *thread_of             # the thread that counted each document (when locals)


cdef inline int add_term(const Batch *batch, const TermKey *term, Py_ssize_t d, Py_ssize_t pos, int thread,
                         uint64_t *keys, Py_ssize_t *n_keys) noexcept nogil:
    """Append the key of n-gram number ``pos`` of document d (when known, or when new terms are kept);
    0, or -1 when out of memory."""
    cdef int64_t k = table_find(batch.vocabulary, term)
    cdef StrTable *local
    if k >= 0 and batch.ids != NULL:
        k = batch.ids[k]
        if k < 0:  # a term the vocabulary dropped
            return 0
    if k >= 0:
        keys[n_keys[0]] = (<uint64_t> k) << 32
        n_keys[0] += 1
    elif batch.locals != NULL:
        local = &batch.locals[thread]
        k = table_find(local, term)
        if k < 0:
            k = table_add(local, term)
            if k < 0:
                return -1
            # a thread meets its documents in increasing order: this is its first occurrence
            local.a[k] = d
            local.b[k] = pos
        keys[n_keys[0]] = LOCAL | ((<uint64_t> k) << 32)
        n_keys[0] += 1
    return 0


cdef inline void prefetch_slots(const Batch *batch, const TermKey *term, int thread) noexcept nogil:
    prefetch(&batch.vocabulary.slots[term.hash & batch.vocabulary.mask])
    if batch.locals != NULL:
        prefetch(&batch.locals[thread].slots[term.hash & batch.locals[thread].mask])


cdef int count_document(const Batch *batch, Scratch *scratch, TermKey *window, Py_ssize_t d,
                        int thread) noexcept nogil:
    """Row d of the batch: (index << 32 | count) for each distinct known n-gram, sorted, in
    raw[raw_ptr[d]:], with LOCAL set on terms new to the vocabulary; 0, or -1 when out of memory.

    The n-grams go WINDOW at a time: all hashed and their slots prefetched, then looked up, so that
    the table's cache misses overlap.  ``window`` holds WINDOW TermKeys."""
    cdef Py_ssize_t n_tok, n_kept = 0, t, start, end, size, pos = 0, n_keys = 0, out, run
    cdef int n
    cdef const uint8_t *term
    cdef int64_t *spans = scratch.spans
    cdef uint64_t *keys = batch.raw + batch.raw_ptr[d]
    cdef uint64_t key
    cdef TermKey stop_key
    n_tok = scan(&batch.views, d, scratch)
    if batch.stop != NULL:
        # stop words go before n-grams are formed, as in scikit-learn's _word_ngrams
        for t in range(n_tok):
            term = ngram(scratch, t, 1, &size)
            stop_key = term_key(term, size)
            if table_find(batch.stop, &stop_key) < 0:
                spans[2 * n_kept] = spans[2 * t]
                spans[2 * n_kept + 1] = spans[2 * t + 1]
                n_kept = n_kept + 1
        n_tok = n_kept
    # scikit-learn's order: every unigram, then every bigram, ...; pos numbers them
    for n in range(batch.min_n, batch.max_n + 1):
        start = 0
        while start < n_tok - n + 1:
            end = min(start + WINDOW, n_tok - n + 1)
            for t in range(start, end):
                term = ngram(scratch, t, n, &size)
                window[t - start] = term_key(term, size)
                prefetch_slots(batch, &window[t - start], thread)
            for t in range(start, end):
                if n > 1:  # the joined n-gram again (one buffer serves all n-grams)
                    window[t - start].p = ngram(scratch, t, n, &size)
                if add_term(batch, &window[t - start], d, pos, thread, keys, &n_keys) != 0:
                    return -1
                pos = pos + 1
            start = end
    if n_keys > 1:
        sort(keys, keys + n_keys)
    # merge equal keys into counts
    out = 0
    t = 0
    while t < n_keys:
        key = keys[t]
        run = t
        while run < n_keys and keys[run] == key:
            run = run + 1
        keys[out] = key | <uint64_t> (run - t)
        out = out + 1
        t = run
    batch.nnz[d] = out
    if batch.locals != NULL:
        batch.thread_of[d] = <uint16_t> thread
    return 0


cdef int count_batch(Batch *batch, Py_ssize_t n_documents, Py_ssize_t max_tokens, Py_ssize_t max_bytes,
                     int n_threads) noexcept nogil:
    """count_document for every document, in parallel; 0, or -1 when out of memory."""
    cdef Scratch *scratch
    cdef TermKey *window
    cdef Py_ssize_t d
    cdef int failed = 0
    cdef int *failed_flag = &failed  # written through a pointer: shared by the threads
    with parallel(num_threads=n_threads):
        scratch = new_scratch(max_tokens, max_bytes)
        window = <TermKey *> malloc(WINDOW * sizeof(TermKey))
        if scratch == NULL or window == NULL:
            failed_flag[0] = 1
        else:
            for d in prange(n_documents, schedule="dynamic", chunksize=64):
                if failed_flag[0] == 0 and count_document(batch, scratch, window, d, threadid()) != 0:
                    failed_flag[0] = 1
        free_scratch(scratch)
        free(window)
    return -1 if failed else 0


cdef Batch make_batch(Documents documents, int min_n, int max_n, TermSet stop, const int64_t[::1] raw_ptr,
                      uint64_t[::1] raw, int64_t[::1] nnz) except *:
    cdef Batch batch
    if stop is not None:
        stop.searchable()
    memset(&batch, 0, sizeof(Batch))
    batch.views = documents.views
    batch.min_n = min_n
    batch.max_n = max_n
    batch.stop = &stop.table if stop is not None else NULL
    batch.raw_ptr = &raw_ptr[0]
    batch.raw = &raw[0] if raw.shape[0] > 0 else NULL
    batch.nnz = &nnz[0]
    return batch


# ----------------------------------------------------------------------------- rows
cdef class RowCounter:
    """The rows counted so far, kept compact per batch (when ``keep_rows``) as (indptr int64, rows uint64):
    row d of a batch is rows[indptr[d]:indptr[d + 1]], (index << 32) | count sorted by index."""

    cdef readonly Py_ssize_t n_documents
    cdef readonly bint keep_rows
    cdef readonly list parts
    cdef object raw  # a batch's rows before compaction, in slots bounding each row; reused

    def __cinit__(self, *args, **kwargs):
        self.n_documents = 0
        self.keep_rows = True
        self.parts = []

    cdef uint64_t[::1] slots(self, Py_ssize_t size):
        if self.raw is None or self.raw.shape[0] < size:
            self.raw = None
            self.raw = np.empty(max(size, 1), dtype=np.uint64)
        return self.raw

    cdef keep(self, const uint64_t[::1] raw, const int64_t[::1] raw_ptr, int64_t[::1] nnz, int n_threads):
        """Compact the batch's rows (first nnz[d] entries of raw[raw_ptr[d]:]); return them."""
        cdef Py_ssize_t n_documents = nnz.shape[0]
        indptr = np.zeros(n_documents + 1, dtype=np.int64)
        np.cumsum(np.asarray(nnz), out=indptr[1:])
        rows = np.empty(indptr[n_documents], dtype=np.uint64)
        cdef const int64_t[::1] indptr_view = indptr
        cdef uint64_t[::1] rows_view = rows
        with nogil:
            compact_rows(raw, raw_ptr, indptr_view, rows_view)
        if self.keep_rows:
            self.parts.append((indptr, rows))
        self.n_documents += n_documents
        return rows


cdef class FixedCounter(RowCounter):
    """Rows of counts of the terms of a fixed vocabulary (others are ignored)."""

    cdef TermSet vocabulary

    def __cinit__(self, TermSet vocabulary not None):
        self.vocabulary = vocabulary

    def count(self, Documents documents, int min_n, int max_n, TermSet stop, const int64_t[::1] raw_ptr,
              int n_threads):
        """Count the n-grams (min_n <= n <= max_n) of a batch of documents that the vocabulary holds.

        Tokens in ``stop`` (if not None) are dropped first.  ``raw_ptr`` (n_documents + 1
        offsets) gives each document a slot bounding its number of n-grams.
        """
        cdef uint64_t[::1] raw = self.slots(raw_ptr[documents.n_documents])
        cdef int64_t[::1] nnz = np.empty(documents.n_documents, dtype=np.int64)
        cdef Batch batch = make_batch(documents, min_n, max_n, stop, raw_ptr, raw, nnz)
        cdef int status
        self.vocabulary.searchable()
        batch.vocabulary = &self.vocabulary.table
        batch.ids = <const int64_t *> NULL if self.vocabulary.identity else self.vocabulary.ids
        with nogil:
            status = count_batch(&batch, documents.n_documents, documents.max_tokens, documents.max_bytes,
                                 n_threads)
        if status != 0:
            raise MemoryError("nbfast.text: cannot allocate the per-thread tokenizer scratch")
        self.keep(raw, raw_ptr, nnz, n_threads)


# ----------------------------------------------------------------------------- fitting
cdef class VocabularyBuilder(RowCounter):
    """The vocabulary of the documents counted so far (terms in order of first occurrence, with their
    document and term frequencies) and, when ``keep_rows``, their rows."""

    cdef StrTable table

    def __cinit__(self, bint keep_rows):
        if table_init(&self.table, 1024) != 0:
            table_free(&self.table)
            raise MemoryError("nbfast.text: cannot allocate the vocabulary")
        self.keep_rows = keep_rows

    def __dealloc__(self):
        table_free(&self.table)

    def __len__(self):
        return self.table.n_terms

    def count(self, Documents documents, int min_n, int max_n, TermSet stop, const int64_t[::1] raw_ptr,
              int n_threads):
        """Count a batch of documents (arguments as ``FixedCounter.count``), adding its new terms."""
        cdef Py_ssize_t n_documents = documents.n_documents, t
        if self.table.slots == NULL or self.table.hashes == NULL:
            raise ValueError("VocabularyBuilder: counting is over (frozen, or statistics dropped)")
        cdef uint64_t[::1] raw = self.slots(raw_ptr[n_documents])
        cdef int64_t[::1] nnz = np.empty(n_documents, dtype=np.int64)
        cdef uint16_t[::1] thread_of = np.zeros(n_documents, dtype=np.uint16)
        cdef Batch batch = make_batch(documents, min_n, max_n, stop, raw_ptr, raw, nnz)
        cdef Py_ssize_t max_tokens = documents.max_tokens, max_bytes = documents.max_bytes
        cdef StrTable *locals = <StrTable *> calloc(n_threads, sizeof(StrTable))
        cdef int64_t **remap = <int64_t **> calloc(n_threads, sizeof(int64_t *))
        cdef int status = 0
        cdef const uint64_t[::1] rows
        if n_threads > 65535:
            raise ValueError("nbfast.text: at most 65535 threads")
        try:
            if locals == NULL or remap == NULL:
                raise MemoryError("nbfast.text: cannot allocate the per-thread term tables")
            for t in range(n_threads):
                if table_init(&locals[t], 256) != 0:
                    raise MemoryError("nbfast.text: cannot allocate the per-thread term tables")
            batch.vocabulary = &self.table
            batch.locals = locals
            batch.thread_of = &thread_of[0]
            with nogil:
                status = count_batch(&batch, n_documents, max_tokens, max_bytes, n_threads)
                if status == 0:
                    status = self.merge_new_terms(locals, remap, n_threads)
            if status == -2:
                raise ValueError(f"nbfast.text: more than {MAX_TERMS} distinct terms")
            if status != 0:
                raise MemoryError("nbfast.text: out of memory while counting terms")
            if any_new_terms(locals, n_threads):
                with nogil:
                    resolve_rows(&batch, n_documents, <const int64_t **> remap, n_threads)
            rows = self.keep(raw, raw_ptr, nnz, n_threads)
            with nogil:
                self.add_statistics(rows)
        finally:
            if locals != NULL:
                for t in range(n_threads):
                    table_free(&locals[t])
            if remap != NULL:
                for t in range(n_threads):
                    free(remap[t])
            free(locals)
            free(remap)

    cdef int merge_new_terms(self, StrTable *locals, int64_t **remap, int n_threads) noexcept nogil:
        """Add the terms of the threads' tables to the vocabulary in order of first occurrence, and
        remap[t][k] = vocabulary index of term k of thread t; 0, -1 out of memory, -2 too many terms."""
        cdef int64_t total = 0, i, k, index
        cdef int t
        cdef NbfNewTerm *terms
        cdef TermKey key
        for t in range(n_threads):
            total += locals[t].n_terms
            remap[t] = <int64_t *> malloc(max(locals[t].n_terms, 1) * sizeof(int64_t))
            if remap[t] == NULL:
                return -1
        if total == 0:
            return 0
        terms = <NbfNewTerm *> malloc(total * sizeof(NbfNewTerm))
        if terms == NULL:
            return -1
        i = 0
        for t in range(n_threads):
            for k in range(locals[t].n_terms):
                terms[i].doc = locals[t].a[k]
                terms[i].pos = locals[t].b[k]
                terms[i].local = k
                terms[i].thread = t
                i += 1
        nbf_sort_new_terms(terms, total)
        for i in range(total):
            k = terms[i].local
            key = stored_key(&locals[terms[i].thread], k)
            index = table_get_or_add(&self.table, &key)
            if index < 0:
                free(terms)
                return -1
            remap[terms[i].thread][k] = index
        free(terms)
        return -2 if self.table.n_terms > MAX_TERMS else 0

    def merge(self, VocabularyBuilder later):
        """Add the terms of ``later`` (the counts of the documents that follow this builder's in the corpus)
        with their frequencies.  Its new terms get the next indices in its own order of first occurrence, so
        the parts of a corpus counted apart (on several threads) and merged in corpus order give the
        vocabulary, indices and frequencies of one builder counting it all.  Rows are not merged: neither
        builder may keep them."""
        if self.keep_rows or later.keep_rows:
            raise ValueError("VocabularyBuilder.merge: builders that keep their rows cannot be merged")
        if (self.table.slots == NULL or self.table.hashes == NULL or later.table.slots == NULL
                or later.table.hashes == NULL):
            raise ValueError("VocabularyBuilder: counting is over (frozen, or statistics dropped)")
        cdef int status
        with nogil:
            status = self.add_terms(&later.table)
        if status == -2:
            raise ValueError(f"nbfast.text: more than {MAX_TERMS} distinct terms")
        if status != 0:
            raise MemoryError("nbfast.text: out of memory while merging vocabularies")
        self.n_documents += later.n_documents

    def statistics(self):
        """(terms, document frequencies, term frequencies): the terms counted so far as str, in index order
        (their order of first occurrence), with their frequencies; :meth:`from_statistics` makes a builder of
        them again (in another process, say)."""
        if self.table.hashes == NULL:
            raise ValueError("VocabularyBuilder: counting is over (frozen, or statistics dropped)")
        cdef int64_t k
        terms = [PyUnicode_DecodeUTF8(<char *> self.table.bytes + self.table.offsets[k], term_size(&self.table, k),
                                      "surrogatepass") for k in range(self.table.n_terms)]
        return terms, self.document_frequencies(), self.term_frequencies()

    @staticmethod
    def from_statistics(list terms, const int64_t[::1] document_frequencies, const int64_t[::1] term_frequencies,
                        int64_t n_documents):
        """A builder of ``n_documents`` documents holding ``terms`` (distinct str, in their order of first
        occurrence) with these frequencies, as :meth:`statistics` gives them; it merges (and counts) on from
        there.  ValueError for a term listed twice, lengths that differ or impossible frequencies."""
        cdef Py_ssize_t k, n = len(terms)
        cdef VocabularyBuilder builder = VocabularyBuilder(False)
        if document_frequencies.shape[0] != n or term_frequencies.shape[0] != n:
            raise ValueError(f"{n} terms, {document_frequencies.shape[0]} document frequencies and "
                             f"{term_frequencies.shape[0]} term frequencies: one each")
        df, tf = np.asarray(document_frequencies), np.asarray(term_frequencies)
        if n_documents < 0 or n and (df.min() < 1 or df.max() > n_documents or np.any(tf < df)):
            raise ValueError(f"impossible frequencies: each term in 1 to {n_documents} documents, at least as many "
                             "times as documents")
        add_distinct(&builder.table, terms)
        for k in range(n):
            builder.table.a[k] = document_frequencies[k]
            builder.table.b[k] = term_frequencies[k]
        builder.n_documents = n_documents
        return builder

    cdef int add_terms(self, const StrTable *later) noexcept nogil:
        """The terms of ``later`` added in its order, their frequencies summed; 0, -1 out of memory, -2 too
        many terms."""
        cdef int64_t k, index
        cdef TermKey key
        for k in range(later.n_terms):
            key = stored_key(later, k)
            index = table_get_or_add(&self.table, &key)
            if index < 0:
                return -1
            self.table.a[index] += later.a[k]
            self.table.b[index] += later.b[k]
        return -2 if self.table.n_terms > MAX_TERMS else 0

    cdef void add_statistics(self, const uint64_t[::1] rows) noexcept nogil:
        """Document and term frequencies of the rows' terms."""
        cdef Py_ssize_t j
        cdef int64_t k
        for j in range(rows.shape[0]):
            k = <int64_t> (rows[j] >> 32)
            self.table.a[k] += 1
            self.table.b[k] += <int64_t> (rows[j] & 0xFFFFFFFFULL)

    def document_frequencies(self):
        """Number of documents holding each term (int64, by index)."""
        return self._copy_statistic(self.table.a)

    def term_frequencies(self):
        """Occurrences of each term in all documents (int64, by index)."""
        return self._copy_statistic(self.table.b)

    cdef _copy_statistic(self, const int64_t *values):
        result = np.empty(self.table.n_terms, dtype=np.int64)
        cdef int64_t[::1] out = result
        if self.table.n_terms:
            memcpy(&out[0], values, self.table.n_terms * sizeof(int64_t))
        return result

    def sorted_indices(self, int n_threads):
        """The term indices in the order of their terms (scikit-learn's ``sorted`` of the str)."""
        cdef int64_t[::1] order = np.empty(max(self.table.n_terms, 1), dtype=np.int64)
        cdef int status
        with nogil:
            status = nbf_sort_terms(self.table.bytes, self.table.offsets, self.table.n_terms, &order[0],
                                    n_threads)
        if status != 0:
            raise MemoryError("nbfast.text: cannot allocate the sort of the vocabulary")
        return np.asarray(order)[:self.table.n_terms]

    def drop_statistics(self):
        """Free what only counting needs (frequencies, hashes, and the slots until ``freeze`` builds
        them again): no more documents can be counted, terms are no longer looked up."""
        free(self.table.a)
        free(self.table.b)
        free(self.table.hashes)
        free(self.table.slots)
        self.table.a = NULL
        self.table.b = NULL
        self.table.hashes = NULL
        self.table.slots = NULL
        # and the room left for more terms
        if resize(<void **> &self.table.bytes, max(self.table.n_bytes, 1)) == 0:
            self.table.bytes_capacity = max(self.table.n_bytes, 1)
        if resize(<void **> &self.table.offsets, (self.table.n_terms + 1) * sizeof(int64_t)) == 0:
            self.table.terms_capacity = self.table.n_terms

    def freeze(self, const int64_t[::1] new_index):
        """The vocabulary as a TermSet, term k with output index new_index[k] (absent when < 0), moved
        out of this builder (which is empty afterwards): no copy of the terms."""
        cdef TermSet terms = TermSet([])
        if new_index.shape[0] != self.table.n_terms:
            raise ValueError("freeze: new_index must have one entry per term")
        if resize(<void **> &terms.ids, max(self.table.n_terms, 1) * sizeof(int64_t)) != 0:
            raise MemoryError("nbfast.text: cannot allocate a term table")
        if self.table.n_terms:
            memcpy(terms.ids, &new_index[0], self.table.n_terms * sizeof(int64_t))
        self.drop_statistics()  # the slots are built again when the set is first searched
        table_free(&terms.table)
        terms.table = self.table
        terms.note_ids()
        memset(&self.table, 0, sizeof(StrTable))
        self.parts.clear()
        return terms

    def term_set(self, const int64_t[::1] indices, const int64_t[::1] new_index):
        """A TermSet of the terms k of ``indices``, with output index new_index[k]."""
        cdef TermSet terms = TermSet([])
        cdef Py_ssize_t i
        cdef TermKey key
        if resize(<void **> &terms.ids, max(indices.shape[0], 1) * sizeof(int64_t)) != 0:
            raise MemoryError("nbfast.text: cannot allocate a term table")
        for i in range(indices.shape[0]):
            key = term_key(self.table.bytes + self.table.offsets[indices[i]], term_size(&self.table, indices[i]))
            if table_add(&terms.table, &key) < 0:
                raise MemoryError("nbfast.text: cannot allocate a term table")
            terms.ids[i] = new_index[indices[i]]
        terms.note_ids()
        return terms


cdef bint any_new_terms(const StrTable *locals, int n_threads) noexcept nogil:
    cdef int t
    for t in range(n_threads):
        if locals[t].n_terms > 0:
            return True
    return False


cdef void resolve_rows(Batch *batch, Py_ssize_t n_documents, const int64_t **remap, int n_threads) noexcept nogil:
    """Replace the LOCAL keys of every row by their vocabulary index, and sort the row again."""
    cdef Py_ssize_t d, j, n
    cdef uint64_t *row
    cdef uint64_t key
    cdef bint moved
    for d in prange(n_documents, schedule="dynamic", chunksize=256, num_threads=n_threads):
        row = batch.raw + batch.raw_ptr[d]
        n = batch.nnz[d]
        moved = False
        for j in range(n):
            key = row[j]
            if key & LOCAL:
                row[j] = ((<uint64_t> remap[batch.thread_of[d]][(key >> 32) & 0x7FFFFFFFULL]) << 32) | (
                    key & 0xFFFFFFFFULL)
                moved = True
        if moved and n > 1:
            sort(row, row + n)


cdef void compact_rows(const uint64_t[::1] raw, const int64_t[::1] raw_ptr, const int64_t[::1] indptr,
                       uint64_t[::1] rows) noexcept nogil:
    # a copy at memory speed: one thread (a parallel region per batch costs more on a busy machine)
    cdef Py_ssize_t d
    for d in range(indptr.shape[0] - 1):
        if indptr[d + 1] > indptr[d]:
            memcpy(&rows[indptr[d]], &raw[raw_ptr[d]], (indptr[d + 1] - indptr[d]) * sizeof(uint64_t))


ctypedef fused count_t:
    int32_t
    int64_t
    float
    double


cdef struct Row:
    const uint64_t *entries
    int64_t length


cdef class AllRows:
    """Every row of a RowCounter's parts, in order, for one parallel pass over all of them."""

    cdef Row *rows
    cdef Py_ssize_t n_rows
    cdef list parts  # keeps the arrays alive

    def __cinit__(self, RowCounter counter not None):
        cdef Py_ssize_t r = 0, d
        cdef const int64_t[::1] indptr
        cdef const uint64_t[::1] entries
        self.parts = list(counter.parts)
        self.n_rows = sum(part[0].shape[0] - 1 for part in self.parts)
        self.rows = <Row *> malloc(max(self.n_rows, 1) * sizeof(Row))
        if self.rows == NULL:
            raise MemoryError("nbfast.text: cannot allocate the row table")
        for part_indptr, part_rows in self.parts:
            indptr = part_indptr
            entries = part_rows
            for d in range(indptr.shape[0] - 1):
                self.rows[r].length = indptr[d + 1] - indptr[d]
                self.rows[r].entries = &entries[indptr[d]] if self.rows[r].length > 0 else NULL
                r += 1

    def __dealloc__(self):
        free(self.rows)

    def kept_per_row(self, const int64_t[::1] new_index, int64_t[::1] kept, int n_threads):
        """kept[r] = number of entries of row r whose term has new_index >= 0."""
        cdef Py_ssize_t r, j
        cdef int64_t n
        with nogil:
            for r in prange(self.n_rows, schedule="dynamic", chunksize=1024, num_threads=n_threads):
                n = 0
                for j in range(self.rows[r].length):
                    n = n + (new_index[self.rows[r].entries[j] >> 32] >= 0)
                kept[r] = n

    def emit(self, const int64_t[::1] new_index, const integral[::1] out_indptr, integral[::1] out_indices,
             count_t[::1] out_data, bint binary, int n_threads):
        """Write the rows as CSR rows starting at out_indptr[r], entries in their order: counts (1 when
        ``binary``), each term k as column new_index[k], dropped when < 0 (out_indptr's differences are
        then ``kept_per_row``), or as column k when new_index is empty."""
        cdef Py_ssize_t r, j, dst
        cdef int64_t column
        cdef uint64_t entry
        cdef bint remap = new_index.shape[0] > 0
        with nogil:
            for r in prange(self.n_rows, schedule="dynamic", chunksize=1024, num_threads=n_threads):
                dst = out_indptr[r]
                for j in range(self.rows[r].length):
                    entry = self.rows[r].entries[j]
                    column = new_index[entry >> 32] if remap else <int64_t> (entry >> 32)
                    if column >= 0:
                        out_indices[dst] = <integral> column
                        out_data[dst] = 1 if binary else <count_t> (entry & 0xFFFFFFFFULL)
                        dst = dst + 1
