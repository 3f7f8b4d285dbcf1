"""CountedParts: a vocabulary fitted on parts counted apart (on any threads) equals one fit on all documents."""

import random
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from nbfast._kernels.vocabulary import VocabularyBuilder
from nbfast.text import CountVectorizer, TfidfVectorizer
from nbfast.text._counted_parts import CountedParts

WORDS = [f"w{i}" for i in range(200)] + ["Ünïcode", "straße", "İstanbul", "ΣΑΣ", "日本語", "the", "and"]


def _documents(n, seed=0):
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 25))) for _ in range(n)]


def _cut(documents, n_parts, seed):
    """The documents in n_parts consecutive parts, some of them empty."""
    cuts = sorted(random.Random(seed).choices(range(len(documents) + 1), k=n_parts - 1))
    bounds = [0, *cuts, len(documents)]
    return [documents[a:b] for a, b in zip(bounds, bounds[1:])]


def _fitted_on_parts(vectorizer, parts_documents, count=map):
    parts = CountedParts(vectorizer)
    for counts in count(parts.count, parts_documents):
        parts.add(counts)
    return vectorizer.fit(parts)


SETTINGS = [
    (CountVectorizer, {}),
    (CountVectorizer, {"ngram_range": (1, 2), "min_df": 2, "max_df": 0.5}),
    (CountVectorizer, {"max_features": 40, "binary": True, "dtype": np.int32}),
    (CountVectorizer, {"stop_words": ["the", "and"], "lowercase": False, "max_features": 100}),
    (TfidfVectorizer, {"ngram_range": (1, 2), "min_df": 3, "max_features": 300}),
    (TfidfVectorizer, {"smooth_idf": False, "sublinear_tf": True, "max_df": 90}),
]


@pytest.mark.parametrize("cls, params", SETTINGS)
@pytest.mark.parametrize("n_parts", [1, 2, 7])
def test_parts_give_the_vocabulary_and_idf_of_one_fit(cls, params, n_parts):
    documents = _documents(1500)
    expected = cls(**params).fit(documents)
    fitted = _fitted_on_parts(cls(**params), _cut(documents, n_parts, seed=n_parts))
    assert list(fitted.vocabulary_.items()) == list(expected.vocabulary_.items())  # indices and dict order
    if cls is TfidfVectorizer:
        np.testing.assert_array_equal(fitted.idf_, expected.idf_)
        assert fitted.idf_.dtype == expected.idf_.dtype
    assert (fitted.transform(documents) != expected.transform(documents)).nnz == 0


def test_parts_counted_on_several_threads_give_the_same_fit():
    documents = _documents(3000, seed=1)
    params = {"ngram_range": (1, 2), "min_df": 2}
    expected = TfidfVectorizer(**params).fit(documents)
    with ThreadPoolExecutor(4) as pool:
        fitted = _fitted_on_parts(TfidfVectorizer(**params), _cut(documents, 12, seed=3), count=pool.map)
    assert list(fitted.vocabulary_.items()) == list(expected.vocabulary_.items())
    np.testing.assert_array_equal(fitted.idf_, expected.idf_)


def test_errors_of_the_fit_are_those_of_one_fit():
    with pytest.raises(ValueError, match="empty vocabulary"):
        _fitted_on_parts(CountVectorizer(), [["", "a"], ["!"]])
    with pytest.raises(ValueError, match="no terms remain"):
        _fitted_on_parts(CountVectorizer(min_df=2), [["aa bb"], ["cc dd"]])


@pytest.mark.parametrize("params", [{"vocabulary": ["a", "b"]}, {"analyzer": "char"},
                                    {"max_features": 3, "dtype": np.float32}])
def test_settings_that_need_the_documents_are_refused(params):
    pytest.importorskip("sklearn")  # analyzer="char" is scikit-learn's work
    with pytest.raises(ValueError, match="cannot be fitted on counted parts"):
        CountedParts(CountVectorizer(**params))


def test_counts_are_for_their_own_vectorizer_once():
    vectorizer = CountVectorizer()
    parts = CountedParts(vectorizer)
    parts.add(parts.count(["aa bb", "bb cc"]))
    with pytest.raises(ValueError, match="another vectorizer"):
        CountVectorizer().fit(parts)
    vectorizer.set_params(min_df=2)
    with pytest.raises(ValueError, match="settings have changed"):
        vectorizer.fit(parts)
    vectorizer.set_params(min_df=1)
    with pytest.raises(ValueError, match="fit_transform needs the documents"):
        vectorizer.fit_transform(parts)
    assert vectorizer.fit(parts).vocabulary_ == {"aa": 0, "bb": 1, "cc": 2}
    with pytest.raises(ValueError, match="no counted parts"):
        vectorizer.fit(parts)


def test_builders_that_keep_rows_are_not_merged():
    with pytest.raises(ValueError, match="keep their rows"):
        VocabularyBuilder(False).merge(VocabularyBuilder(True))


def test_statistics_carry_a_part_to_another_process_and_back():
    documents = _documents(800, seed=2)
    expected = TfidfVectorizer(ngram_range=(1, 2), min_df=2).fit(documents)
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2)
    parts = CountedParts(vectorizer)
    for part in _cut(documents, 3, seed=4):
        terms, df, tf, n_documents = CountedParts.statistics(parts.count(part))
        assert len(terms) == len(set(terms)) and n_documents == len(part)
        parts.add(CountedParts.from_statistics(terms, df, tf, n_documents))
    assert list(vectorizer.fit(parts).vocabulary_.items()) == list(expected.vocabulary_.items())
    np.testing.assert_array_equal(vectorizer.idf_, expected.idf_)


def test_a_column_of_arrow_strings_is_counted_in_place():
    pa = pytest.importorskip("pyarrow")
    documents = _documents(500, seed=5)
    parts = CountedParts(CountVectorizer())
    in_place = CountedParts.statistics(parts.count(pa.array(documents)))
    expected = CountedParts.statistics(parts.count(documents))
    assert in_place[0] == expected[0] and in_place[3] == expected[3]
    np.testing.assert_array_equal(in_place[1], expected[1])
    np.testing.assert_array_equal(in_place[2], expected[2])


@pytest.mark.parametrize("statistics, message", [
    ((["aa", "aa"], [1, 1], [1, 1], 2), "listed twice"),
    ((["aa"], [1, 1], [1], 2), "1 terms, 2 document frequencies"),
    ((["aa"], [3], [3], 2), "impossible frequencies"),
    ((["aa"], [2], [1], 2), "impossible frequencies"),
])  # fmt: skip
def test_statistics_that_cannot_be_counts_are_refused(statistics, message):
    with pytest.raises(ValueError, match=message):
        CountedParts.from_statistics(*statistics)
