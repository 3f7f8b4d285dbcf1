# An open-addressing hash table of byte strings (terms) stored back to back: what the vocabulary kernels
# (vocabulary.pyx) look n-grams up in.  Defined here, inline, so that every lookup compiles into the kernel.
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset

cdef enum:
    MIN_SLOTS = 64

cdef struct Slot:
    # an entry of the open-addressing table: most lookups of short terms (<= 8 bytes) end here
    uint64_t prefix     # the term's first 8 bytes, zero-padded
    uint32_t index      # term index + 1; 0 when empty
    uint32_t check      # hash bits, and the length up to 255 (see term_key)


cdef struct StrTable:
    uint8_t *bytes      # the terms' UTF-8, back to back
    int64_t n_bytes
    int64_t bytes_capacity
    int64_t *offsets    # term k is bytes[offsets[k]:offsets[k + 1]]
    uint64_t *hashes
    int64_t *a          # two statistics per term (zero when added): first (document, position)
    int64_t *b          # in a thread's table, (document frequency, term frequency) in a vocabulary
    int64_t n_terms
    int64_t terms_capacity
    Slot *slots         # linear probing from hash & mask
    uint64_t mask       # number of slots - 1 (a power of two, at least twice the number of terms)


cdef struct TermKey:
    # what a lookup compares: the term's bytes, hash, prefix and check
    const uint8_t *p
    Py_ssize_t n
    uint64_t hash
    uint64_t prefix
    uint32_t check


cdef inline uint64_t rotl64(uint64_t x, int r) noexcept nogil:
    return (x << r) | (x >> (64 - r))


cdef inline uint64_t load_block(const uint8_t *p, Py_ssize_t n) noexcept nogil:
    """Up to 8 bytes as one word (zero-padded), the same way for every term."""
    cdef uint64_t k = 0
    cdef Py_ssize_t i
    if n >= 8:
        memcpy(&k, p, 8)
    else:
        for i in range(n):
            k = k | ((<uint64_t> p[i]) << (8 * i))
    return k


cdef inline uint64_t mix_block(uint64_t h, uint64_t k) noexcept nogil:
    # MurmurHash3 x64's block mixing, on one lane
    k = rotl64(k * 0x87C37B91114253D5ULL, 31) * 0x4CF5AD432745937FULL
    return rotl64(h ^ k, 27) * 5 + 0x52DCE729ULL


cdef inline TermKey term_key(const uint8_t *p, Py_ssize_t n) noexcept nogil:
    cdef TermKey key
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL ^ <uint64_t> n
    cdef Py_ssize_t i = 8
    key.p = p
    key.n = n
    key.prefix = load_block(p, n)
    h = mix_block(h, key.prefix)
    while i < n:
        h = mix_block(h, load_block(p + i, n - i))
        i = i + 8
    # MurmurHash3's 64-bit finalizer
    h ^= h >> 33
    h *= 0xFF51AFD7ED558CCDULL
    h ^= h >> 33
    h *= 0xC4CEB9FE1A85EC53ULL
    h ^= h >> 33
    key.hash = h
    key.check = <uint32_t> (((h >> 40) << 8) | <uint64_t> (n if n < 255 else 255))
    return key


cdef inline Py_ssize_t term_size(const StrTable *t, int64_t k) noexcept nogil:
    return t.offsets[k + 1] - t.offsets[k]


cdef inline TermKey stored_key(const StrTable *t, int64_t k) noexcept nogil:
    """The key of term k (its hash stored, its prefix read again)."""
    cdef TermKey key
    key.p = t.bytes + t.offsets[k]
    key.n = term_size(t, k)
    key.hash = t.hashes[k]
    key.prefix = load_block(key.p, key.n)
    key.check = <uint32_t> (((key.hash >> 40) << 8) | <uint64_t> (key.n if key.n < 255 else 255))
    return key


cdef inline int table_init(StrTable *t, int64_t expected) noexcept nogil:
    """An empty table sized for ``expected`` terms; 0, or -1 when out of memory (then freeable)."""
    cdef uint64_t n_slots = MIN_SLOTS
    memset(t, 0, sizeof(StrTable))
    while n_slots < 2 * <uint64_t> expected:
        n_slots *= 2
    t.mask = n_slots - 1
    t.slots = <Slot *> calloc(n_slots, sizeof(Slot))
    t.terms_capacity = max(expected, 16)
    t.bytes_capacity = 8 * t.terms_capacity
    t.bytes = <uint8_t *> malloc(t.bytes_capacity)
    t.offsets = <int64_t *> malloc((t.terms_capacity + 1) * sizeof(int64_t))
    t.hashes = <uint64_t *> malloc(t.terms_capacity * sizeof(uint64_t))
    t.a = <int64_t *> malloc(t.terms_capacity * sizeof(int64_t))
    t.b = <int64_t *> malloc(t.terms_capacity * sizeof(int64_t))
    if t.slots == NULL or t.bytes == NULL or t.offsets == NULL or t.hashes == NULL or t.a == NULL or t.b == NULL:
        return -1
    t.offsets[0] = 0
    return 0


cdef inline void table_free(StrTable *t) noexcept nogil:
    free(t.slots)
    free(t.bytes)
    free(t.offsets)
    free(t.hashes)
    free(t.a)
    free(t.b)
    memset(t, 0, sizeof(StrTable))


cdef inline int64_t table_find(const StrTable *t, const TermKey *key) noexcept nogil:
    """Index of the term of ``key``, or -1."""
    cdef uint64_t i = key.hash & t.mask
    cdef const Slot *slot
    cdef int64_t k
    while True:
        slot = &t.slots[i]
        if slot.index == 0:
            return -1
        if slot.prefix == key.prefix and slot.check == key.check:
            # same first 8 bytes, same length below 255 (and 24 bits of hash)
            k = <int64_t> slot.index - 1
            if key.n <= 8:
                return k
            if (key.n < 255 or term_size(t, k) == key.n) and memcmp(
                    t.bytes + t.offsets[k] + 8, key.p + 8, key.n - 8) == 0:
                return k
        i = (i + 1) & t.mask


cdef inline void put_slot(Slot *slots, uint64_t mask, const TermKey *key, int64_t k) noexcept nogil:
    cdef uint64_t i = key.hash & mask
    while slots[i].index != 0:
        i = (i + 1) & mask
    slots[i].prefix = key.prefix
    slots[i].index = <uint32_t> (k + 1)
    slots[i].check = key.check


cdef inline int grow_slots(StrTable *t) noexcept nogil:
    cdef uint64_t n_slots = 2 * (t.mask + 1)
    cdef Slot *slots = <Slot *> calloc(n_slots, sizeof(Slot))
    cdef int64_t k
    cdef TermKey key
    if slots == NULL:
        return -1
    for k in range(t.n_terms):
        key = stored_key(t, k)
        put_slot(slots, n_slots - 1, &key, k)
    free(t.slots)
    t.slots = slots
    t.mask = n_slots - 1
    return 0


cdef inline int resize(void **pointer, size_t size) noexcept nogil:
    """realloc *pointer to ``size`` bytes; 0, or -1 (the block unchanged) when out of memory."""
    cdef void *grown = realloc(pointer[0], size)
    if grown == NULL:
        return -1
    pointer[0] = grown
    return 0


cdef inline int grow_terms(StrTable *t) noexcept nogil:
    cdef int64_t capacity = 2 * t.terms_capacity
    if (resize(<void **> &t.offsets, (capacity + 1) * sizeof(int64_t)) != 0
            or resize(<void **> &t.hashes, capacity * sizeof(uint64_t)) != 0
            or resize(<void **> &t.a, capacity * sizeof(int64_t)) != 0
            or resize(<void **> &t.b, capacity * sizeof(int64_t)) != 0):
        return -1
    t.terms_capacity = capacity
    return 0


cdef inline int rebuild_slots(StrTable *t) noexcept nogil:
    """Slots for the terms of a table whose slots and hashes were freed (one that will not grow)."""
    cdef uint64_t n_slots = MIN_SLOTS
    cdef int64_t k
    cdef TermKey key
    while n_slots < 2 * <uint64_t> t.n_terms:
        n_slots *= 2
    t.slots = <Slot *> calloc(n_slots, sizeof(Slot))
    if t.slots == NULL:
        return -1
    t.mask = n_slots - 1
    for k in range(t.n_terms):
        key = term_key(t.bytes + t.offsets[k], term_size(t, k))
        put_slot(t.slots, t.mask, &key, k)
    return 0


cdef inline int64_t table_add(StrTable *t, const TermKey *key) noexcept nogil:
    """Append the term of ``key``, which the table does not hold; its index, or -1 when out of memory."""
    cdef int64_t k = t.n_terms, capacity
    if 2 * <uint64_t> (k + 1) > t.mask + 1 and grow_slots(t) != 0:  # at most half full
        return -1
    if k == t.terms_capacity and grow_terms(t) != 0:
        return -1
    if t.n_bytes + key.n > t.bytes_capacity:
        capacity = max(2 * t.bytes_capacity, t.n_bytes + key.n)
        if resize(<void **> &t.bytes, capacity) != 0:
            return -1
        t.bytes_capacity = capacity
    memcpy(t.bytes + t.n_bytes, key.p, key.n)
    t.n_bytes += key.n
    t.offsets[k + 1] = t.n_bytes
    t.hashes[k] = key.hash
    t.a[k] = 0
    t.b[k] = 0
    put_slot(t.slots, t.mask, key, k)
    t.n_terms = k + 1
    return k


cdef inline int64_t table_get_or_add(StrTable *t, const TermKey *key) noexcept nogil:
    cdef int64_t k = table_find(t, key)
    return k if k >= 0 else table_add(t, key)
