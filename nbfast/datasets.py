"""Seeded synthetic corpora for tests, the demo and the benchmarks: word counts, or raw text."""

import numpy as np

from nbfast import _sparse as sp

__all__ = ["make_documents", "make_text_documents"]

_CHUNK_TOKENS = 5_000_000  # tokens sampled per step: bounds the temporary memory
_GUIDE_RESOLUTION = 2  # guide-table buckets per feature in _sample_from_cdf
# The words of make_text_documents: the letters of each script and its share of the vocabulary.  Greek and CJK
# make a Python str take 2 bytes per code point; accented Latin stays within 1 (Latin-1).
_SCRIPTS = (
    ("abcdefghijklmnopqrstuvwxyz", 0.7),
    ("abcdeéèêàçôûüöäß", 0.1),
    ("αβγδεζηθικλμνξοπρστυφχψω", 0.1),
    ("的一是不了人我在有他这中大来上个国", 0.1),
)
_MAX_WORD_LETTERS = 9
_CAPITALIZED = 0.2  # share of the words capitalized (str.capitalize)
_PUNCTUATED = 0.1  # share of the words followed by one of _PUNCTUATION
_PUNCTUATION = ",.;:!?"
# Words of other shapes, in every vocabulary: digits, an apostrophe, a hyphen, an underscore.
_SPECIAL_WORDS = ("2024", "don't", "e-mail", "foo_bar")


def _guide_table(cdf):
    """(guide, n_buckets) for _sample_from_cdf: guide[b] = first index with cdf > b / n_buckets."""
    n_buckets = 1 << int(np.ceil(np.log2(_GUIDE_RESOLUTION * cdf.shape[0])))  # a power of two: scaling is exact
    # cdf[i] <= b / n_buckets  <=>  ceil(cdf[i] * n_buckets) <= b, so guide[b] counts those i.
    at_or_below = np.bincount(np.ceil(cdf * n_buckets).astype(np.intp), minlength=n_buckets + 1)
    return np.cumsum(at_or_below)[:n_buckets], n_buckets


def _sample_from_cdf(cdf, guide, n_buckets, u):
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


def _sample_corpus(n_samples, n_words, n_classes, mean_length, zipf_exponent, class_separation, class_weights, rng,
                   ordered_by_frequency=False):
    """Labels, and the words of every document, drawn as :func:`make_documents` describes.

    Returns ``(y, chunks)``: ``chunks`` yields ``(start, stop, rows, words)`` for
    consecutive documents ``start:stop``, one entry of ``rows`` (the document,
    counted from ``start``) and ``words`` (the word id) per token, in order.
    """
    if not 0.0 <= class_separation <= 1.0:
        raise ValueError(f"class_separation must be in [0, 1], got {class_separation}.")
    zipf = 1.0 / np.arange(1, n_words + 1) ** zipf_exponent
    zipf /= zipf.sum()
    permutation = rng.permutation(n_words)
    shared = zipf if ordered_by_frequency else zipf[permutation]
    cdfs = []
    for _ in range(n_classes):
        p = (1 - class_separation) * shared + class_separation * zipf[rng.permutation(n_words)]
        cdf = np.cumsum(p)
        cdf /= cdf[-1]
        cdfs.append((cdf, *_guide_table(cdf)))

    weights = np.full(n_classes, 1.0 / n_classes) if class_weights is None else np.asarray(class_weights, float)
    y = rng.choice(n_classes, size=n_samples, p=weights / weights.sum())
    lengths = np.maximum(rng.poisson(mean_length, size=n_samples), 1)

    def chunks():
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
                words[positions] = _sample_from_cdf(*cdfs[c], rng.random(positions.shape[0]))
            np.minimum(words, n_words - 1, out=words)
            yield start, stop, rows, words
            start = stop

    return y, chunks()


def make_documents(
    n_samples=10_000,
    n_features=2**14,
    n_classes=5,
    *,
    mean_length=80,
    zipf_exponent=1.1,
    class_separation=0.05,
    class_weights=None,
    ordered_by_frequency=False,
    dtype=np.float64,
    index_dtype=np.int32,
    sparse_format="csr_matrix",
    random_state=0,
):
    """Generate a corpus of word-count documents with class-dependent vocabularies.

    Every class draws its words from a mixture of one shared Zipf distribution
    over the vocabulary (the "language") and a Zipf distribution of its own over
    a class-specific permutation of the vocabulary (the "topic").  Document
    lengths are Poisson with mean ``mean_length`` (at least 1).  The language's
    words are scattered over the feature indices, as hashing scatters them,
    unless ``ordered_by_frequency`` (a vocabulary numbered by frequency).
    :func:`make_text_documents` draws the same way and writes the words out as text.

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
    ordered_by_frequency : bool, default=False
        Number the shared language's words by frequency: the most frequent at
        the lowest indices (as a vocabulary sorted by document frequency).
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
    if sparse_format not in ("csr_matrix", "csr_array"):
        raise ValueError(f"sparse_format must be 'csr_matrix' or 'csr_array', got {sparse_format!r}.")
    rng = np.random.default_rng(random_state)
    y, chunks = _sample_corpus(
        n_samples, n_features, n_classes, mean_length, zipf_exponent, class_separation, class_weights, rng,
        ordered_by_frequency,
    )
    blocks = []
    for start, stop, rows, words in chunks:
        block = sp.coo_array(
            (np.ones(rows.shape[0], dtype=dtype), (rows, words)), shape=(stop - start, n_features)
        ).tocsr()
        block.sum_duplicates()
        blocks.append(block)

    X = sp.vstack(blocks, format="csr").astype(dtype)
    X.indices = X.indices.astype(index_dtype)
    X.indptr = X.indptr.astype(index_dtype)
    X = sp.csr_matrix(X) if sparse_format == "csr_matrix" else sp.csr_array(X)
    return X, y


def make_text_documents(
    n_samples=10_000,
    n_classes=5,
    *,
    mean_length=40,
    n_words=20_000,
    zipf_exponent=1.0,
    class_separation=0.2,
    class_weights=None,
    random_state=0,
):
    """Generate raw text documents whose words depend on their class.

    Words are drawn as in :func:`make_documents` (a Zipf "language" shared by
    the classes mixed with a Zipf "topic" of each class) and written out
    separated by spaces.  The vocabulary mixes scripts as real multilingual text
    does: about 70% of the words are ASCII, 10% accented Latin, 10% Greek and
    10% CJK, 1 to 9 letters long; a fifth of them are capitalized, a tenth are
    followed by punctuation, and a few have digits, an apostrophe, a hyphen or
    an underscore.  200,000 documents of 40 words take about a second.

    Parameters
    ----------
    n_samples : int, default=10_000
        Number of documents.
    n_classes : int, default=5
        Number of classes, labelled 0 .. n_classes - 1.
    mean_length : float, default=40
        Mean number of words per document (Poisson, at least 1).
    n_words : int, default=20_000
        Vocabulary size (distinct words, some of which may coincide when short).
    zipf_exponent : float, default=1.0
        Exponent of the Zipf laws (see :func:`make_documents`).
    class_separation : float in [0, 1], default=0.2
        Weight of each class's own word distribution (see :func:`make_documents`);
        at 20 classes, MultinomialNB trained on 10,000 documents labels about 80% of unseen ones right.
    class_weights : array-like of shape (n_classes,), default=None
        Class frequencies (uniform when None).
    random_state : int or numpy.random.Generator, default=0
        Seed: the same seed gives the same documents.

    Returns
    -------
    documents : list of str of length n_samples
        The documents, none of them empty.
    y : ndarray of shape (n_samples,)
        Integer class labels.

    Examples
    --------
    >>> from nbfast.datasets import make_text_documents
    >>> documents, y = make_text_documents(n_samples=3, n_classes=2, mean_length=5)
    >>> len(documents), y.shape
    (3, (3,))
    """
    if n_samples < 1 or n_words < 1 or n_classes < 1:
        raise ValueError("n_samples, n_words and n_classes must be positive.")
    rng = np.random.default_rng(random_state)
    vocabulary = _text_vocabulary(n_words, rng)
    # Each word twice: after a space, and after a newline for the first word of a document.  A chunk's
    # documents are then one "".join, split at the newlines.
    spelled = np.array([" " + word for word in vocabulary] + ["\n" + word for word in vocabulary], dtype=object)
    y, chunks = _sample_corpus(
        n_samples, n_words, n_classes, mean_length, zipf_exponent, class_separation, class_weights, rng
    )
    documents = []
    for _, _, rows, words in chunks:
        first = np.ones(rows.shape[0], dtype=bool)
        first[1:] = rows[1:] != rows[:-1]
        documents.extend("".join(spelled[words + n_words * first].tolist()).split("\n")[1:])
    return documents, y


def _text_vocabulary(n_words, rng):
    """``n_words`` words mixing the scripts of ``_SCRIPTS``, as a list of str."""
    alphabets = [letters for letters, _ in _SCRIPTS]
    script = rng.choice(len(_SCRIPTS), size=n_words, p=[share for _, share in _SCRIPTS])
    n_letters = rng.integers(1, _MAX_WORD_LETTERS + 1, size=n_words)
    # every letter of every word: its script's first letter in `letters`, plus a random offset in that script
    letter_script = np.repeat(script, n_letters)
    sizes = np.array([len(a) for a in alphabets])
    firsts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    offsets = (rng.random(letter_script.shape[0]) * sizes[letter_script]).astype(np.intp)
    letters = np.array(list("".join(alphabets)))
    text = "".join(letters[firsts[letter_script] + offsets].tolist())
    ends = np.cumsum(n_letters).tolist()
    words = [text[end - n:end] for end, n in zip(ends, n_letters.tolist())]
    capitalized = (rng.random(n_words) < _CAPITALIZED).tolist()
    punctuated = rng.random(n_words) < _PUNCTUATED
    marks = rng.choice(list(_PUNCTUATION), size=n_words).tolist()
    words = [
        (word.capitalize() if cap else word) + (mark if punct else "")
        for word, cap, punct, mark in zip(words, capitalized, punctuated.tolist(), marks)
    ]
    words[:len(_SPECIAL_WORDS)] = _SPECIAL_WORDS[:n_words]
    return words


def make_phrase_documents(
    n_samples=10_000,
    n_classes=10,
    *,
    n_phrases=3_000,
    n_words=3_000,
    mean_phrases=8,
    max_phrase_length=6,
    informativeness=10.0,
    random_state=0,
):
    """Generate raw text documents made of fixed phrases whose frequencies depend on the class.

    Unlike :func:`make_text_documents`, whose words are independent given the
    class (Naive Bayes's assumption holds exactly), a document here is a run of
    phrases of 1 to ``max_phrase_length`` words drawn from a shared vocabulary:
    the words of a phrase always come together, and a word means something
    different in different phrases.  Longer phrases are also less informative
    about the class (boilerplate).  Naive Bayes counts a phrase's evidence once
    per word (and per bigram), too often for long phrases: the cost of its
    independence assumption, which discriminative training removes.  Phrases
    are drawn by a Zipf law (rank^-1); phrase p has class frequencies from a
    symmetric Dirichlet of concentration ``length_p / informativeness``.

    Parameters
    ----------
    n_samples : int, default=10_000
        Number of documents.
    n_classes : int, default=10
        Number of classes, labelled 0 .. n_classes - 1 (about equally frequent).
    n_phrases : int, default=3_000
        Distinct phrases.
    n_words : int, default=3_000
        Vocabulary the phrases are made of.
    mean_phrases : float, default=8
        Mean number of phrases per document (1 + Poisson).
    max_phrase_length : int, default=6
        Longest phrase, in words.
    informativeness : float, default=10.0
        How much a phrase's frequency depends on the class (larger: easier).  On 8,000 documents of 20
        classes (tf-idf unigrams and bigrams, 1,600 held out), MultinomialNB labels about 69% of the held-out
        ones right, logistic regression about 72%.
    random_state : int or numpy.random.Generator, default=0
        Seed: the same seed gives the same documents.

    Returns
    -------
    documents : list of str of length n_samples
    y : ndarray of shape (n_samples,)
        Integer class labels.

    Examples
    --------
    >>> from nbfast.datasets import make_phrase_documents
    >>> documents, y = make_phrase_documents(n_samples=3, n_classes=2)
    >>> len(documents), y.shape
    (3, (3,))
    """
    if min(n_samples, n_classes, n_phrases, n_words, max_phrase_length) < 1 or not informativeness > 0:
        raise ValueError("n_samples, n_classes, n_phrases, n_words, max_phrase_length and informativeness must be "
                         "positive.")
    rng = np.random.default_rng(random_state)
    vocabulary = np.array(_text_vocabulary(n_words, rng), dtype=object)
    lengths = rng.integers(1, max_phrase_length + 1, size=n_phrases)
    word_weights = 1.0 / np.arange(1, n_words + 1)
    phrases = [" ".join(vocabulary[rng.choice(n_words, size=n, p=word_weights / word_weights.sum())])
               for n in lengths.tolist()]
    phrases = np.array(phrases, dtype=object)
    frequency = 1.0 / np.arange(1, n_phrases + 1)
    class_share = rng.gamma(lengths[:, None] / informativeness, size=(n_phrases, n_classes))
    class_share /= class_share.sum(axis=1, keepdims=True)
    per_class = frequency[:, None] * class_share  # P(phrase, class) up to a constant
    per_class /= per_class.sum(axis=0, keepdims=True)
    y = rng.integers(0, n_classes, size=n_samples)
    counts = 1 + rng.poisson(mean_phrases - 1, size=n_samples) if mean_phrases > 1 else np.ones(n_samples, int)
    documents = np.empty(n_samples, dtype=object)
    for c in range(n_classes):
        rows = np.flatnonzero(y == c)
        drawn = rng.choice(n_phrases, size=int(counts[rows].sum()), p=per_class[:, c])
        pieces = np.split(phrases[drawn], np.cumsum(counts[rows])[:-1])
        documents[rows] = [" ".join(piece) for piece in pieces]
    return documents.tolist(), y
