/* C++ helpers of nbfast/_kernels/vocabulary.pyx: sorting terms by their bytes, and new terms by where they
   were first met. */
#ifndef NBFAST_VOCABULARY_SORT_H
#define NBFAST_VOCABULARY_SORT_H
#include <algorithm>
#include <cstring>
#include <cstdint>

/* Order of byte strings stored back to back (term k is bytes[offsets[k]:offsets[k + 1]]):
   memcmp order, a proper prefix first -- for UTF-8, the code point order of Python's str.
   The first 16 bytes, as two big-endian words zero-padded, decide most comparisons (bigrams
   too) without touching the bytes again. */
struct NbfTermKey { uint64_t head; uint64_t next; int64_t id; };

static inline uint64_t nbf_word(const uint8_t *p, int64_t n) {
    uint64_t k = 0;
    for (int64_t i = 0; i < 8; i++) k = (k << 8) | (i < n ? p[i] : 0u);
    return k;
}

struct NbfTermLess {
    const uint8_t *bytes;
    const int64_t *offsets;
    bool operator()(const NbfTermKey &a, const NbfTermKey &b) const {
        if (a.head != b.head) return a.head < b.head;
        if (a.next != b.next) return a.next < b.next;
        int64_t la = offsets[a.id + 1] - offsets[a.id], lb = offsets[b.id + 1] - offsets[b.id];
        int64_t m = la < lb ? la : lb;
        if (m > 16) {
            int c = std::memcmp(bytes + offsets[a.id] + 16, bytes + offsets[b.id] + 16, (size_t) (m - 16));
            if (c != 0) return c < 0;
        }
        return la < lb;
    }
};

/* ids[0:n] = the term ids 0 .. n-1 in byte order, sorted in n_threads chunks then merged (the
   order is total: the same result for any number of threads); 0, or -1 when out of memory. */
static int nbf_sort_terms(const uint8_t *bytes, const int64_t *offsets, int64_t n, int64_t *ids,
                          int n_threads) {
    NbfTermKey *keys = (NbfTermKey *) malloc((size_t) (n > 0 ? n : 1) * sizeof(NbfTermKey));
    if (keys == NULL) return -1;
    NbfTermLess less = {bytes, offsets};
    if (n_threads < 1 || n < 4096) n_threads = 1;
    int64_t chunk = (n + n_threads - 1) / n_threads;
    #pragma omp parallel for num_threads(n_threads) schedule(static, 1)
    for (int c = 0; c < n_threads; c++) {
        int64_t begin = c * chunk, end = begin + chunk < n ? begin + chunk : n;
        for (int64_t i = begin; i < end; i++) {
            int64_t size = offsets[i + 1] - offsets[i];
            keys[i].head = nbf_word(bytes + offsets[i], size);
            keys[i].next = nbf_word(bytes + offsets[i] + 8, size - 8);
            keys[i].id = i;
        }
        if (begin < end) std::sort(keys + begin, keys + end, less);
    }
    for (int64_t width = chunk; width < n; width *= 2) {
        for (int64_t begin = 0; begin + width < n; begin += 2 * width) {
            int64_t end = begin + 2 * width < n ? begin + 2 * width : n;
            std::inplace_merge(keys + begin, keys + begin + width, keys + end, less);
        }
    }
    for (int64_t i = 0; i < n; i++) ids[i] = keys[i].id;
    free(keys);
    return 0;
}

/* A new term met by a thread: where it first met it, and its index in the thread's table. */
struct NbfNewTerm { int64_t doc; int64_t pos; int64_t local; int64_t thread; };

#if defined(__GNUC__) || defined(__clang__)
#define nbf_prefetch(address) __builtin_prefetch(address)
#else
#define nbf_prefetch(address) ((void) (address))
#endif

static void nbf_sort_new_terms(NbfNewTerm *terms, int64_t n) {
    std::sort(terms, terms + n, [](const NbfNewTerm &a, const NbfNewTerm &b) {
        return a.doc != b.doc ? a.doc < b.doc : a.pos < b.pos;
    });
}

#endif
