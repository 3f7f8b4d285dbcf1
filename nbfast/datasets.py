"""Seeded synthetic bag-of-words corpora for tests, the demo and the benchmarks."""

import numpy as np
import scipy.sparse as sp

_CHUNK_TOKENS = 5_000_000  # tokens sampled per step: bounds the temporary memory
_GUIDE_RESOLUTION = 2  # guide-table buckets per feature in sample_from_cdf


def _guide_table(cdf):
    """(guide, n_buckets) for sample_from_cdf: guide[b] = first index with cdf > b / n_buckets."""
    n_buckets = 1 << int(np.ceil(np.log2(_GUIDE_RESOLUTION * cdf.shape[0])))  # a power of two: scaling is exact
    # cdf[i] <= b / n_buckets  <=>  ceil(cdf[i] * n_buckets) <= b, so guide[b] counts those i.
    at_or_below = np.bincount(np.ceil(cdf * n_buckets).astype(np.intp), minlength=n_buckets + 1)
    return np.cumsum(at_or_below)[:n_buckets], n_buckets


def sample_from_cdf(cdf, guide, n_buckets, u):
    """``np.searchsorted(cdf, u, side="right")`` for u in [0, 1), by a guide table.

    The guide gives each u a lower bound on its answer; a few vectorized steps
    forward finish the search.  Same result as the binary search, in about one
    random memory access per value instead of log2(len(cdf)).
    """
    index = guide[(u * n_buckets).astype(np.intp)]
    active = np.flatnonzero(cdf[np.minimum(index, cdf.shape[0] - 1)] <= u)
    while active.size:
        index[active] += 1
        step = index[active]
        active = active[(step < cdf.shape[0]) & (cdf[np.minimum(step, cdf.shape[0] - 1)] <= u[active])]
    return index


def make_documents(
    n_samples=10_000,
    n_features=2**14,
    n_classes=5,
    *,
    mean_length=80,
    zipf_exponent=1.1,
    class_separation=0.05,
    class_weights=None,
    dtype=np.float64,
    index_dtype=np.int32,
    sparse_format="csr_matrix",
    random_state=0,
):
    """Generate a corpus of word-count documents with class-dependent vocabularies.

    Every class draws its words from a mixture of one shared Zipf distribution
    over the vocabulary (the "language") and a Zipf distribution of its own over
    a class-specific permutation of the vocabulary (the "topic").  Document
    lengths are Poisson with mean ``mean_length`` (at least 1).

    Parameters
    ----------
    n_samples : int, default=10_000
        Number of documents.
    n_features : int, default=2**14
        Vocabulary size.
    n_classes : int, default=5
        Number of classes, labelled 0 .. n_classes - 1.
    mean_length : float, default=80
        Mean number of tokens per document.
    zipf_exponent : float, default=1.1
        Exponent s of the Zipf law p(rank r) proportional to 1 / r**s.
    class_separation : float in [0, 1], default=0.05
        Weight of the class-specific distribution: 0 makes classes
        indistinguishable, 1 gives each class its own vocabulary ranking.
    class_weights : array-like of shape (n_classes,), default=None
        Class frequencies (uniform when None).
    dtype : {numpy.float64, numpy.float32}, default=numpy.float64
        dtype of the counts.
    index_dtype : {numpy.int32, numpy.int64}, default=numpy.int32
        dtype of the CSR indices and indptr.
    sparse_format : {"csr_matrix", "csr_array"}, default="csr_matrix"
        Which scipy CSR container to return.
    random_state : int or numpy.random.Generator, default=0
        Seed: the same seed gives the same corpus.

    Returns
    -------
    X : scipy.sparse CSR of shape (n_samples, n_features)
        Word counts, canonical (sorted indices, no duplicates).
    y : ndarray of shape (n_samples,)
        Integer class labels.
    """
    if n_samples < 1 or n_features < 1 or n_classes < 1:
        raise ValueError("n_samples, n_features and n_classes must be positive.")
    if not 0.0 <= class_separation <= 1.0:
        raise ValueError(f"class_separation must be in [0, 1], got {class_separation}.")
    if sparse_format not in ("csr_matrix", "csr_array"):
        raise ValueError(f"sparse_format must be 'csr_matrix' or 'csr_array', got {sparse_format!r}.")
    rng = np.random.default_rng(random_state)

    zipf = 1.0 / np.arange(1, n_features + 1) ** zipf_exponent
    zipf /= zipf.sum()
    shared = zipf[rng.permutation(n_features)]
    cdfs = []
    for _ in range(n_classes):
        p = (1 - class_separation) * shared + class_separation * zipf[rng.permutation(n_features)]
        cdf = np.cumsum(p)
        cdf /= cdf[-1]
        cdfs.append((cdf, *_guide_table(cdf)))

    weights = np.full(n_classes, 1.0 / n_classes) if class_weights is None else np.asarray(class_weights, float)
    y = rng.choice(n_classes, size=n_samples, p=weights / weights.sum())
    lengths = np.maximum(rng.poisson(mean_length, size=n_samples), 1)

    blocks = []
    start = 0
    while start < n_samples:
        stop = start + max(1, int(np.searchsorted(np.cumsum(lengths[start:]), _CHUNK_TOKENS)))
        stop = min(stop, n_samples)
        rows = np.repeat(np.arange(stop - start), lengths[start:stop])
        words = np.empty(rows.shape[0], dtype=np.int64)
        token_class = y[start:stop][rows]
        # Tokens of each class in position order (a stable sort), drawn class by class.
        by_class = np.argsort(token_class, kind="stable")
        bounds = np.concatenate(([0], np.cumsum(np.bincount(token_class, minlength=n_classes))))
        for c in range(n_classes):
            positions = by_class[bounds[c]:bounds[c + 1]]
            words[positions] = sample_from_cdf(*cdfs[c], rng.random(positions.shape[0]))
        np.minimum(words, n_features - 1, out=words)
        block = sp.coo_array(
            (np.ones(rows.shape[0], dtype=dtype), (rows, words)), shape=(stop - start, n_features)
        ).tocsr()
        block.sum_duplicates()
        blocks.append(block)
        start = stop

    X = sp.vstack(blocks, format="csr").astype(dtype)
    X.indices = X.indices.astype(index_dtype)
    X.indptr = X.indptr.astype(index_dtype)
    X = sp.csr_matrix(X) if sparse_format == "csr_matrix" else sp.csr_array(X)
    return X, y
