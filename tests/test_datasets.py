"""make_documents, make_text_documents and make_phrase_documents: seeded, shaped and typed as asked, with class-dependent words."""

import numpy as np
import pytest
import scipy.sparse as sp

from nbfast.datasets import (
    _guide_table,
    _sample_from_cdf,
    _text_vocabulary,
    make_documents,
    make_phrase_documents,
    make_text_documents,
)


def test_same_seed_same_corpus_and_other_seed_differs():
    X1, y1 = make_documents(500, 200, 4, random_state=3)
    X2, y2 = make_documents(500, 200, 4, random_state=3)
    X3, _ = make_documents(500, 200, 4, random_state=4)
    assert (X1 != X2).nnz == 0 and np.array_equal(y1, y2)
    assert (X1 != X3).nnz > 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("sparse_format", ["csr_matrix", "csr_array"])
def test_types_and_shape(dtype, index_dtype, sparse_format):
    X, y = make_documents(300, 100, 3, dtype=dtype, index_dtype=index_dtype, sparse_format=sparse_format)
    assert X.shape == (300, 100) and y.shape == (300,)
    assert X.dtype == dtype and X.indices.dtype == index_dtype and X.indptr.dtype == index_dtype
    assert isinstance(X, sp.csr_matrix if sparse_format == "csr_matrix" else sp.csr_array)
    assert X.has_canonical_format
    assert np.all(X.data >= 1) and np.all(X.data == np.round(X.data))
    assert set(np.unique(y)) <= {0, 1, 2}


def test_lengths_zipf_and_class_weights():
    X, y = make_documents(4000, 1000, 2, mean_length=50, class_weights=[0.9, 0.1], random_state=0)
    lengths = np.asarray(X.sum(axis=1)).ravel()
    assert lengths.min() >= 1 and abs(lengths.mean() - 50) < 2
    assert abs(np.mean(y == 0) - 0.9) < 0.03
    word_totals = np.sort(np.asarray(X.sum(axis=0)).ravel())[::-1]
    assert word_totals[0] > 20 * word_totals[100]  # heavy-tailed word frequencies


def test_class_separation_controls_difficulty():
    from nbfast import MultinomialNB

    accuracies = []
    for separation in (0.0, 0.3):
        X, y = make_documents(2000, 500, 4, class_separation=separation, random_state=1)
        model = MultinomialNB().fit(X[:1000], y[:1000])
        accuracies.append(np.mean(model.predict(X[1000:]) == y[1000:]))
    assert accuracies[0] < 0.4 < 0.9 < accuracies[1]


def test_bad_arguments():
    with pytest.raises(ValueError, match="class_separation"):
        make_documents(10, 10, 2, class_separation=2.0)
    with pytest.raises(ValueError, match="positive"):
        make_documents(0, 10, 2)
    with pytest.raises(ValueError, match="sparse_format"):
        make_documents(10, 10, 2, sparse_format="coo")

# ---------------- the guide-table sampler of make_documents is exactly numpy's binary search


@pytest.mark.parametrize("n", [1, 2, 7, 300, 4096])
def test_sample_from_cdf_equals_searchsorted(n):
    rng = np.random.default_rng(n)
    p = rng.random(n) ** 8  # uneven, some probabilities nearly zero
    p[rng.random(n) < 0.2] = 0.0  # flat runs in the cdf
    p[0] += 1e-3
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    guide, n_buckets = _guide_table(cdf)
    # random values, values exactly on the cdf and on bucket edges, and 0
    u = np.concatenate([rng.random(5000), cdf[:-1], np.arange(n_buckets) / n_buckets, [0.0, np.nextafter(1.0, 0)]])
    u = u[u < 1.0]  # the sampler takes u in [0, 1), like Generator.random
    np.testing.assert_array_equal(_sample_from_cdf(cdf, guide, n_buckets, u), np.searchsorted(cdf, u, side="right"))


def test_make_documents_is_seeded():
    X1, y1 = make_documents(300, 500, 4, random_state=3)
    X2, y2 = make_documents(300, 500, 4, random_state=3)
    np.testing.assert_array_equal(y1, y2)
    assert (X1 != X2).nnz == 0 and X1.has_canonical_format
    assert X1.shape == (300, 500) and X1.indices.max() < 500 and X1.sum() >= 300


# ---------------- make_text_documents: raw text whose words depend on the class

CJK = "的一是不了人我在有他这中大来上个国"


def test_text_documents_same_seed_same_documents_and_other_seed_differs():
    documents, y = make_text_documents(300, 4, random_state=3)
    again, y_again = make_text_documents(300, 4, random_state=3)
    other, _ = make_text_documents(300, 4, random_state=4)
    assert documents == again and np.array_equal(y, y_again)
    assert documents != other


def test_text_documents_shape_lengths_and_class_weights():
    documents, y = make_text_documents(4000, 2, mean_length=30, class_weights=[0.9, 0.1], random_state=0)
    assert len(documents) == 4000 and y.shape == (4000,) and set(np.unique(y)) == {0, 1}
    assert all(type(doc) is str and doc and doc == doc.strip() and "\n" not in doc for doc in documents)
    words = [len(doc.split(" ")) for doc in documents]
    assert min(words) >= 1 and abs(np.mean(words) - 30) < 1
    assert abs(np.mean(y == 0) - 0.9) < 0.03


def test_text_documents_mix_scripts_case_and_punctuation():
    documents, _ = make_text_documents(2000, 3, random_state=1)
    words = " ".join(documents).split(" ")
    share = {
        "ascii": np.mean([w.isascii() for w in words]),
        "latin-1": np.mean([not w.isascii() and max(map(ord, w)) < 0x100 for w in words]),
        "greek": np.mean([any("\u0370" <= ch <= "\u03ff" for ch in w) for w in words]),
        "cjk": np.mean([any(ch in CJK for ch in w) for w in words]),
    }
    assert 0.5 < share["ascii"] < 0.9
    assert all(0.03 < share[script] < 0.2 for script in ("latin-1", "greek", "cjk")), share
    assert 0.1 < np.mean([w[:1].isupper() for w in words]) < 0.3
    assert 0.03 < np.mean([w[-1] in ",.;:!?" for w in words]) < 0.2



def test_text_vocabulary_has_words_of_other_shapes():
    vocabulary = _text_vocabulary(100, np.random.default_rng(0))
    assert len(vocabulary) == 100 and {"2024", "don't", "e-mail", "foo_bar"} <= set(vocabulary)


def test_text_documents_labels_are_learnable():
    """A classifier learns the labels from the words, and learns nothing without class separation."""
    pytest.importorskip("sklearn")
    from sklearn.pipeline import make_pipeline

    from nbfast import MultinomialNB
    from nbfast.text import HashingVectorizer

    accuracies = []
    for separation in (0.0, 0.2):
        documents, y = make_text_documents(4000, 5, class_separation=separation, random_state=2)
        model = make_pipeline(HashingVectorizer(n_features=2**16, alternate_sign=False), MultinomialNB())
        model.fit(documents[:2000], y[:2000])
        accuracies.append(np.mean(model.predict(documents[2000:]) == y[2000:]))
    assert accuracies[0] < 0.3 < 0.8 < accuracies[1]


@pytest.mark.parametrize("n_words", [1, 3, 10])
def test_text_documents_tiny_vocabularies(n_words):
    documents, y = make_text_documents(50, 2, n_words=n_words, random_state=0)
    assert len(documents) == 50 and len(set(" ".join(documents).split(" "))) <= n_words


def test_text_documents_bad_arguments():
    with pytest.raises(ValueError, match="positive"):
        make_text_documents(0, 2)
    with pytest.raises(ValueError, match="n_words"):
        make_text_documents(10, 2, n_words=0)
    with pytest.raises(ValueError, match="class_separation"):
        make_text_documents(10, 2, class_separation=-0.5)


def test_phrase_documents_are_seeded_runs_of_phrases():
    documents, y = make_phrase_documents(300, 4, n_phrases=50, max_phrase_length=3, random_state=1)
    again, y_again = make_phrase_documents(300, 4, n_phrases=50, max_phrase_length=3, random_state=1)
    assert documents == again and np.array_equal(y, y_again)
    assert len(documents) == 300 and set(y.tolist()) == {0, 1, 2, 3} and all(documents)
    assert make_phrase_documents(300, 4, n_phrases=50, max_phrase_length=3, random_state=2)[0] != documents
    # words come in fixed phrases: far fewer distinct word pairs than the same words shuffled
    words = [document.split(" ") for document in documents]
    shuffled = np.random.default_rng(0).permutation(np.concatenate(words)).tolist()
    lengths = np.cumsum([len(w) for w in words])[:-1]
    shuffled = [list(w) for w in np.split(np.array(shuffled, dtype=object), lengths)]

    def distinct_pairs(texts):
        return len({pair for w in texts for pair in zip(w, w[1:])})

    assert distinct_pairs(words) < 0.5 * distinct_pairs(shuffled)


def test_phrase_documents_depend_on_the_class():
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    from nbfast.text import CountVectorizer

    accuracies = []
    for informativeness in (0.01, 10.0):
        documents, y = make_phrase_documents(3000, 4, informativeness=informativeness, random_state=0)
        model = make_pipeline(CountVectorizer(), MultinomialNB()).fit(documents[:2000], y[:2000])
        accuracies.append(np.mean(model.predict(documents[2000:]) == y[2000:]))
    assert accuracies[0] < 0.4 < 0.6 < accuracies[1]


def test_phrase_documents_bad_arguments():
    with pytest.raises(ValueError, match="positive"):
        make_phrase_documents(0, 2)
    with pytest.raises(ValueError, match="positive"):
        make_phrase_documents(10, 2, informativeness=0.0)
