"""A vocabulary fitted from parts' term statistics equals one fit on all the documents."""

import numpy as np
import pytest

from nbfast.datasets import make_text_documents
from nbfast.text import CountVectorizer, HashingVectorizer, TfidfVectorizer
from nbfast.text._vocabulary_parts import check_vocabulary_fit, fit_from_term_statistics, term_statistics


def _from_parts(vectorizer, parts):
    """fit_from_term_statistics on the statistics of the parts, added up as a distributed fit does."""
    terms, df, counts = {}, [], []
    for part in parts:
        for term, d, c in zip(*term_statistics(vectorizer, part)):
            index = terms.setdefault(term, len(terms))
            if index == len(df):
                df.append(0)
                counts.append(0)
            df[index] += d
            counts[index] += c
    return fit_from_term_statistics(vectorizer, list(terms), df, counts, sum(map(len, parts)))


@pytest.fixture(scope="module")
def documents():
    docs, _ = make_text_documents(300, 3, mean_length=12, n_words=300, random_state=5)
    docs = [str(d) for d in docs]
    return docs[:100] + ["", "the and", "x"] + docs[100:]  # a part of documents without terms, and one-letter words


@pytest.mark.parametrize("params", [
    {},
    {"min_df": 2, "max_df": 0.5},
    {"min_df": 0.01, "max_df": 40, "max_features": 50},
    {"max_features": 70, "binary": True, "ngram_range": (1, 2)},
    {"max_features": 30, "dtype": np.int8, "stop_words": ["the", "and"]},
    {"max_features": 100, "dtype": np.float32, "lowercase": False},
    {"token_pattern": r"(?u)\b\w+\b", "max_features": 60},  # scikit-learn's own CountVectorizer counts
], ids=lambda p: ",".join(p) or "defaults")
@pytest.mark.parametrize("cls", [CountVectorizer, TfidfVectorizer])
@pytest.mark.filterwarnings("ignore:Only .* 'dtype' should be used")  # TfidfVectorizer's, at each fit
def test_parts_fit_as_one_fit(documents, cls, params):
    if params.get("token_pattern"):
        pytest.importorskip("sklearn")
    local = cls(**params).fit(documents)
    parts = [documents[:50], documents[50:100], documents[100:103], documents[103:]]
    fitted = _from_parts(cls(**params), parts)
    assert list(fitted.vocabulary_.items()) == list(local.vocabulary_.items())
    assert {type(v) for v in fitted.vocabulary_.values()} == {type(v) for v in local.vocabulary_.values()}
    if cls is TfidfVectorizer:
        assert fitted.idf_.dtype == local.idf_.dtype
        np.testing.assert_array_equal(fitted.idf_, local.idf_)
    X, expected = fitted.transform(documents), local.transform(documents)
    assert X.dtype == expected.dtype
    np.testing.assert_array_equal(X.toarray(), expected.toarray())


def test_ties_are_broken_as_one_fit_breaks_them():
    # every term counted the same: max_features keeps the terms argsort puts first among equal counts
    docs = [" ".join(f"w{i:03d}" for i in range(200))] * 3
    local = CountVectorizer(max_features=17).fit(docs)
    fitted = _from_parts(CountVectorizer(max_features=17), [docs[:1], docs[1:]])
    assert fitted.vocabulary_ == local.vocabulary_


def test_refusals_are_those_of_one_fit():
    with pytest.raises(ValueError, match="empty vocabulary"):
        _from_parts(CountVectorizer(), [["", "a"], ["b"]])
    with pytest.raises(ValueError, match="max_df corresponds to < documents than min_df"):
        _from_parts(CountVectorizer(min_df=3, max_df=2), [["aa bb"], ["aa"]])
    with pytest.raises(ValueError, match="no terms remain"):
        _from_parts(CountVectorizer(min_df=2), [["aa bb"], ["cc"]])
    with pytest.raises(TypeError, match="CountVectorizer and TfidfVectorizer"):
        check_vocabulary_fit(HashingVectorizer())
    with pytest.raises(ValueError, match="fixed vocabulary"):
        check_vocabulary_fit(TfidfVectorizer(vocabulary=["aa"]))
    with pytest.raises(ValueError, match="min_df"):
        check_vocabulary_fit(CountVectorizer(min_df=-1))
    with pytest.raises(ValueError, match="3 terms, 2 document frequencies"):
        fit_from_term_statistics(CountVectorizer(), ["aa", "bb", "cc"], [1, 1], [1, 1, 1], 1)
