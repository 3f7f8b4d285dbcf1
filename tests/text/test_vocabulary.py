"""nbfast.text.CountVectorizer, TfidfVectorizer and TfidfTransformer against scikit-learn's."""

import contextlib
import io
import itertools
import pickle
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from support.helpers import sklearn_older_than
from test_text import CORPUS, ENCODABLE, assert_same_matrix

import nbfast
from nbfast import _compat
from nbfast._kernels import vocabulary as vocabulary_kernels
from nbfast.text import CountVectorizer, TfidfTransformer, TfidfVectorizer, _common

sk_text = pytest.importorskip("sklearn.feature_extraction.text")
sk_base = pytest.importorskip("sklearn.base")


def _varied_corpus(n_documents=90, seed=0):
    """CORPUS, then documents drawn from its words with Zipf-like frequencies (df and tf vary, with ties)."""
    rng = np.random.default_rng(seed)
    words = sorted({w for doc in CORPUS for w in doc.split() if len(w) < 40})
    p = 1.0 / np.arange(1, len(words) + 1)
    documents = list(CORPUS)
    for i in range(n_documents):
        k = int(rng.integers(0, 25))
        documents.append(" ".join(rng.choice(words, size=k, p=p / p.sum())) + (" ΣΟΦΙΑ" if i % 7 == 0 else ""))
    return documents


DOCUMENTS = _varied_corpus()
OTHER_DOCUMENTS = _varied_corpus(40, seed=1) + ["completely unseen words here", "", "Ωmega NEW zebra"]
NGRAMS = [(1, 1), (1, 2), (2, 3)]
STOP_LISTS = {"none": None, "english": "english", "list": ["the", "fox", "δεν", "und", "words", "a"]}
PRUNING = {
    "none": {},
    "min_df_2": dict(min_df=2),
    "max_df_half": dict(max_df=0.5),
    "max_df_int": dict(max_df=4),
    "min_df_float": dict(min_df=0.05, max_df=0.9),
    "max_features": dict(max_features=7),
    "max_features_min_df": dict(max_features=12, min_df=2, max_df=0.8),
}
# scikit-learn keeps explicit int values in vocabulary_ in one order and numpy ints in another:
# compare the items, their order and the value types.


def assert_same_vocabulary(ours, theirs):
    assert list(ours.vocabulary_.items()) == list(theirs.vocabulary_.items())
    assert [type(v) for v in ours.vocabulary_.values()] == [type(v) for v in theirs.vocabulary_.values()]
    assert ours.fixed_vocabulary_ == theirs.fixed_vocabulary_
    np.testing.assert_array_equal(ours.get_feature_names_out(), theirs.get_feature_names_out())
    assert hasattr(ours, "stop_words_") == hasattr(theirs, "stop_words_")


def assert_close_matrix(actual, expected, rtol=1e-12):
    """Same structure, values within rtol (tf-idf: scikit-learn's log may come from another libm)."""
    assert type(actual) is type(expected)
    assert actual.shape == expected.shape
    assert actual.dtype == expected.dtype
    assert actual.indices.dtype == expected.indices.dtype
    np.testing.assert_array_equal(actual.indptr, expected.indptr)
    np.testing.assert_array_equal(actual.indices, expected.indices)
    np.testing.assert_allclose(actual.data, expected.data, rtol=rtol, atol=0)


def fit_both(cls_name, documents=DOCUMENTS, batch_size=16384, **params):
    """(ours, theirs, our fit_transform, their fit_transform) with warnings of both recorded alike."""
    ours = getattr(nbfast.text, cls_name)(batch_size=batch_size, **params)
    theirs = getattr(sk_text, cls_name)(**params)
    with warnings.catch_warnings(record=True) as our_warnings:
        warnings.simplefilter("always")
        X_ours = ours.fit_transform(documents)
    with warnings.catch_warnings(record=True) as their_warnings:
        warnings.simplefilter("always")
        X_theirs = theirs.fit_transform(documents)
    assert [str(w.message) for w in our_warnings] == [str(w.message) for w in their_warnings]
    return ours, theirs, X_ours, X_theirs


def check_like_sklearn(cls_name, tfidf_rtol=1e-12, documents=DOCUMENTS, **params):
    """fit_transform, vocabulary, transform of other documents, and fit alone, against scikit-learn."""
    same = assert_same_matrix if cls_name == "CountVectorizer" else (
        lambda a, b: assert_close_matrix(a, b, tfidf_rtol)
    )
    ours, theirs, X_ours, X_theirs = fit_both(cls_name, documents, **params)
    same(X_ours, X_theirs)
    assert_same_vocabulary(ours, theirs)
    if cls_name == "TfidfVectorizer" and ours.use_idf:
        assert ours.idf_.dtype == theirs.idf_.dtype
        np.testing.assert_allclose(ours.idf_, theirs.idf_, rtol=tfidf_rtol)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(ours.transform(OTHER_DOCUMENTS), theirs.transform(OTHER_DOCUMENTS))
        # fit alone takes another road (no matrix unless needed)
        alone = getattr(nbfast.text, cls_name)(**params).fit(iter(documents))
    assert_same_vocabulary(alone, theirs)
    if cls_name == "TfidfVectorizer" and ours.use_idf:
        np.testing.assert_array_equal(alone.idf_, ours.idf_)
    return ours, theirs


# ----------------------------------------------------------------------------- native path
@pytest.mark.parametrize("ngram_range", NGRAMS, ids=str)
@pytest.mark.parametrize("lowercase", [True, False])
@pytest.mark.parametrize("stop_words", list(STOP_LISTS))
@pytest.mark.parametrize("pruning", list(PRUNING))
@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("dtype", [np.int64, np.float32])
def test_count_vectorizer_matches_sklearn(ngram_range, lowercase, stop_words, pruning, binary, dtype):
    params = dict(
        ngram_range=ngram_range, lowercase=lowercase, stop_words=STOP_LISTS[stop_words], binary=binary, dtype=dtype,
        **PRUNING[pruning],
    )  # fmt: skip
    if "max_df" in params and "min_df" in params and ngram_range == (2, 3) and stop_words == "english":
        params["min_df"] = 1  # too few documents left for both bounds
    assert CountVectorizer(**params)._is_native()
    check_like_sklearn("CountVectorizer", **params)


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.int8, np.uint16, np.bool_, np.longdouble, "float32"])
@pytest.mark.parametrize("max_features", [None, 9])
def test_count_dtypes_match_sklearn(dtype, max_features):
    params = dict(dtype=dtype, max_features=max_features, ngram_range=(1, 2))
    assert CountVectorizer(**params)._is_native()
    check_like_sklearn("CountVectorizer", **params)


def test_counts_beyond_int8_wrap_as_in_sklearn():
    documents = ["aa " * 300 + "bb " * 130, "bb cc"]
    for dtype in [np.int8, np.uint8]:
        ours, theirs, X_ours, X_theirs = fit_both("CountVectorizer", documents, dtype=dtype, max_features=2)
        assert_same_matrix(X_ours, X_theirs)
        assert_same_vocabulary(ours, theirs)


@pytest.mark.parametrize("norm", ["l2", "l1", None])
@pytest.mark.parametrize("use_idf", [True, False])
@pytest.mark.parametrize("smooth_idf", [True, False])
@pytest.mark.parametrize("sublinear_tf", [False, True])
@pytest.mark.parametrize(
    "counting",
    [{}, dict(ngram_range=(1, 2), min_df=2), dict(max_features=10, binary=True), dict(stop_words="english")],
    ids=str,
)
def test_tfidf_vectorizer_matches_sklearn(norm, use_idf, smooth_idf, sublinear_tf, counting):
    check_like_sklearn(
        "TfidfVectorizer", norm=norm, use_idf=use_idf, smooth_idf=smooth_idf, sublinear_tf=sublinear_tf, **counting
    )


@pytest.mark.parametrize("ngram_range", NGRAMS, ids=str)
@pytest.mark.parametrize("lowercase", [True, False])
@pytest.mark.parametrize("stop_words", list(STOP_LISTS))
@pytest.mark.parametrize("pruning", list(PRUNING))
def test_tfidf_vectorizer_counting_options_match_sklearn(ngram_range, lowercase, stop_words, pruning):
    """Every counting option of CountVectorizer's test under tf-idf weights (the vocabulary, idf and weights)."""
    params = dict(ngram_range=ngram_range, lowercase=lowercase, stop_words=STOP_LISTS[stop_words], **PRUNING[pruning])
    if "max_df" in params and "min_df" in params and ngram_range == (2, 3) and stop_words == "english":
        params["min_df"] = 1  # too few documents left for both bounds
    assert TfidfVectorizer(**params)._is_native()
    check_like_sklearn("TfidfVectorizer", **params)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int8])
@pytest.mark.parametrize("sublinear_tf", [False, True])
def test_tfidf_dtypes_match_sklearn(dtype, sublinear_tf):
    # float32 weights: the same float32 operations in the same order
    check_like_sklearn("TfidfVectorizer", tfidf_rtol=1e-6, dtype=dtype, sublinear_tf=sublinear_tf, max_features=20)


@settings(max_examples=200, deadline=None)
@given(
    documents=st.lists(st.text(max_size=30), min_size=1, max_size=6),
    ngram_range=st.sampled_from(NGRAMS),
    lowercase=st.booleans(),
)
def test_random_unicode_matches_sklearn(documents, ngram_range, lowercase):
    params = dict(ngram_range=ngram_range, lowercase=lowercase)
    try:
        expected = sk_text.CountVectorizer(**params).fit_transform(documents)
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc)):
            CountVectorizer(**params).fit_transform(documents)
        return
    assert_same_matrix(CountVectorizer(**params).fit_transform(documents), expected)


def test_every_cased_code_point_and_final_sigma():
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000 and chr(c).lower() != chr(c)]
    documents = [" ".join(chars[i : i + 40]) + " a" + "b".join(chars[i : i + 40]) for i in range(0, len(chars), 40)]
    documents += ["ΑΣ Β ΌΣΟΣ ΟΔΟΣ", "ΑΣ\u0301Β 'ΑΣ ΑΣ1"]
    check_like_sklearn("CountVectorizer", documents=documents, ngram_range=(1, 2))


# ----------------------------------------------------------------------------- vocabulary, pruning, errors
@pytest.mark.parametrize(
    "vocabulary",
    [
        ["fox", "the", "quick brown", "zebra", "Fox", "héllo"],
        {"the": 2, "dog": 0, "lazy dog": 1, "ελληνικά": 3},
        {"dog", "the", "fox", "文章"},
        ("the", "fox"),
    ],
    ids=["list", "mapping", "set", "tuple"],
)
@pytest.mark.parametrize("cls_name", ["CountVectorizer", "TfidfVectorizer"])
def test_fixed_vocabulary_matches_sklearn(vocabulary, cls_name):
    ours, theirs = check_like_sklearn(cls_name, vocabulary=vocabulary, ngram_range=(1, 2))
    assert ours.fixed_vocabulary_
    # given vocabularies can be used without fit, like scikit-learn's
    vectorizer = CountVectorizer(vocabulary=vocabulary, ngram_range=(1, 2))
    assert_same_matrix(
        vectorizer.transform(DOCUMENTS),
        sk_text.CountVectorizer(vocabulary=vocabulary, ngram_range=(1, 2)).transform(DOCUMENTS),
    )


def test_vocabulary_from_a_generator():
    ours = CountVectorizer(vocabulary=(w for w in ["fox", "dog", "the"])).fit(DOCUMENTS)
    theirs = sk_text.CountVectorizer(vocabulary=(w for w in ["fox", "dog", "the"])).fit(DOCUMENTS)
    assert_same_vocabulary(ours, theirs)
    assert_same_matrix(ours.transform(DOCUMENTS), theirs.transform(DOCUMENTS))


@pytest.mark.parametrize(
    "params, documents",
    [
        (dict(min_df=500), DOCUMENTS),
        (dict(max_df=0.0001), DOCUMENTS),
        (dict(max_df=2, min_df=3), DOCUMENTS),
        ({}, ["", " ", "a b c"]),
        (dict(stop_words=["only", "stop", "words"]), ["only stop words", "stop"]),
        ({}, []),
        (dict(vocabulary=[]), DOCUMENTS),
        (dict(vocabulary=["a", "b", "a"]), DOCUMENTS),
        (dict(vocabulary={"a": 0, "b": 0}), DOCUMENTS),
        (dict(vocabulary={"a": 0, "b": 2}), DOCUMENTS),
        (dict(dtype=np.float16), DOCUMENTS),
        ({}, "a single string"),
        ({}, ["ok", np.nan]),
    ],
    ids=str,
)
@pytest.mark.parametrize("cls_name", ["CountVectorizer", "TfidfVectorizer"])
def test_errors_match_sklearn(params, documents, cls_name):
    with pytest.raises(ValueError) as expected:
        getattr(sk_text, cls_name)(**params).fit_transform(documents)
    for method in ["fit", "fit_transform"]:
        with pytest.raises(ValueError) as raised:
            getattr(getattr(nbfast.text, cls_name)(**params), method)(documents)
        assert str(raised.value) == str(expected.value)


def test_documents_that_are_neither_str_nor_bytes():
    with pytest.raises(TypeError, match="str or bytes"):
        CountVectorizer().fit(["ok", 3])


def test_not_fitted():
    for vectorizer in [CountVectorizer(), TfidfVectorizer()]:
        with pytest.raises(_compat.NotFittedError):
            vectorizer.transform(DOCUMENTS)
    with pytest.raises(_compat.NotFittedError):
        TfidfVectorizer().idf_  # noqa: B018
    with pytest.raises(_compat.NotFittedError):
        TfidfTransformer().transform(np.ones((2, 2)))


def test_transform_ignores_unseen_words_and_does_not_grow():
    vectorizer = CountVectorizer(ngram_range=(1, 2)).fit(DOCUMENTS)
    vocabulary = dict(vectorizer.vocabulary_)
    unseen = ["zzzz yyyy xxxx " * 50, "ΣΣΣΣ ωωωω", "漢字漢字漢 新しい"] * 100
    X = vectorizer.transform(unseen)
    assert X.shape == (300, len(vocabulary)) and X.nnz == 0
    assert vectorizer.vocabulary_ == vocabulary
    assert len(vectorizer._terms[2]) == len(vocabulary)
    mixed = vectorizer.transform(["the unseen fox", "fox"])
    assert_same_matrix(mixed, sk_text.CountVectorizer(vocabulary=vocabulary, ngram_range=(1, 2)).transform(
        ["the unseen fox", "fox"]
    ))


def test_transform_of_nothing():
    ours = CountVectorizer().fit(DOCUMENTS)
    theirs = sk_text.CountVectorizer().fit(DOCUMENTS)
    assert_same_matrix(ours.transform([]), theirs.transform([]))


def test_replaced_vocabulary_is_read_again():
    vectorizer = CountVectorizer().fit(DOCUMENTS)
    vectorizer.transform(DOCUMENTS)
    vectorizer.vocabulary_ = {"fox": 1, "dog": 0}
    assert_same_matrix(
        vectorizer.transform(DOCUMENTS), sk_text.CountVectorizer(vocabulary={"fox": 1, "dog": 0}).transform(DOCUMENTS)
    )
    vectorizer.vocabulary_ = {"fox": 1, "dog": 5}
    with pytest.raises(ValueError, match="vocabulary_"):
        vectorizer.transform(DOCUMENTS)


@pytest.mark.parametrize("cls_name", ["CountVectorizer", "TfidfVectorizer"])
@pytest.mark.parametrize("pruning", ["none", "max_df_half", "max_features"])
def test_vocabulary_dict_is_built_on_first_access_only(cls_name, pruning):
    ours = getattr(nbfast.text, cls_name)(ngram_range=(1, 2), **PRUNING[pruning])
    theirs = getattr(sk_text, cls_name)(ngram_range=(1, 2), **PRUNING[pruning])
    X, expected = ours.fit_transform(DOCUMENTS), theirs.fit_transform(DOCUMENTS)
    transformed = ours.transform(OTHER_DOCUMENTS)
    assert "vocabulary_" not in vars(ours)  # neither fit_transform nor transform built the dict
    np.testing.assert_array_equal(ours.get_feature_names_out(), theirs.get_feature_names_out())
    assert ours.get_feature_names_out().dtype == object
    nbfast.save(nbfast.MultinomialNB().fit(X, np.arange(X.shape[0]) % 2), io.BytesIO(), vectorizer=ours)
    assert "vocabulary_" not in vars(ours)  # nor did the feature names, nor saving it
    assert_same_vocabulary(ours, theirs)
    assert "vocabulary_" in vars(ours)
    (assert_same_matrix if cls_name == "CountVectorizer" else assert_close_matrix)(X, expected)
    assert_same_matrix(ours.transform(OTHER_DOCUMENTS), transformed)
    sk_base.check_is_fitted(getattr(nbfast.text, cls_name)(ngram_range=(1, 2)).fit(DOCUMENTS))


def test_a_vocabulary_assigned_before_the_fitted_one_is_built_wins():
    vectorizer = CountVectorizer().fit(DOCUMENTS)
    vectorizer.vocabulary_ = {"fox": 1, "dog": 0}
    assert_same_matrix(
        vectorizer.transform(DOCUMENTS), sk_text.CountVectorizer(vocabulary={"fox": 1, "dog": 0}).transform(DOCUMENTS)
    )
    assert vectorizer.get_feature_names_out().tolist() == ["dog", "fox"]


def test_a_term_set_lists_its_terms_by_output_index():
    from nbfast._kernels.vocabulary import TermSet

    assert TermSet([b"fox", b"caf\xc3\xa9", b"dog"], np.array([2, 0, 1])).terms() == ["café", "dog", "fox"]
    assert TermSet([b"fox", b"dog"], np.array([-1, 0])).terms() == ["dog"]  # a term the set dropped
    with pytest.raises(ValueError, match="output index 5 is beyond the 2 terms"):
        TermSet([b"fox", b"dog"], np.array([0, 5])).terms()
    with pytest.raises(ValueError, match="not 0, 1, ..., len - 1"):
        TermSet([b"fox", b"dog"], np.array([1, 1])).terms()


def test_a_new_fit_replaces_the_unbuilt_vocabulary():
    vectorizer = CountVectorizer().fit(DOCUMENTS)
    vectorizer.fit(OTHER_DOCUMENTS)
    assert_same_vocabulary(vectorizer, sk_text.CountVectorizer().fit(OTHER_DOCUMENTS))
    assert not hasattr(CountVectorizer(), "vocabulary_")
    with pytest.raises(AttributeError, match="no attribute 'vocabulary_'"):
        CountVectorizer().vocabulary_  # noqa: B018


# ----------------------------------------------------------------------------- input handling
@pytest.mark.parametrize("cls_name", ["CountVectorizer", "TfidfVectorizer"])
def test_batches_and_generators_match_a_list(cls_name):
    cls = getattr(nbfast.text, cls_name)
    params = dict(ngram_range=(1, 2), min_df=2, max_features=40)
    reference = cls(**params)
    expected = reference.fit_transform(DOCUMENTS)
    for batch_size in [1, 2, 7, len(DOCUMENTS), 10**6]:
        vectorizer = cls(batch_size=batch_size, **params)
        assert_same_matrix(vectorizer.fit_transform(doc for doc in DOCUMENTS), expected)
        assert_same_vocabulary(vectorizer, reference)
        assert_same_matrix(vectorizer.transform(iter(OTHER_DOCUMENTS)), reference.transform(OTHER_DOCUMENTS))
        assert_same_vocabulary(cls(batch_size=batch_size, **params).fit(iter(DOCUMENTS)), reference)


def test_file_lines_and_bytes():
    lines = io.StringIO("".join(doc.replace("\n", " ").replace("\r", " ") + "\n" for doc in CORPUS))
    expected = [doc.replace("\n", " ").replace("\r", " ") + "\n" for doc in CORPUS]
    check = sk_text.CountVectorizer().fit(expected)
    ours = CountVectorizer(batch_size=3).fit(lines)
    assert_same_vocabulary(ours, check)
    encoded = [doc.encode("utf-8") for doc in ENCODABLE]
    check_like = sk_text.CountVectorizer().fit(encoded)
    assert_same_vocabulary(CountVectorizer().fit(encoded), check_like)
    latin = [b"caf\xe9 cr\xe8me", b"caf\xe9"]
    assert_same_matrix(
        CountVectorizer(encoding="latin-1").fit_transform(latin),
        sk_text.CountVectorizer(encoding="latin-1").fit_transform(latin),
    )


def test_thread_count_does_not_change_the_result(n_threads_limit, monkeypatch):
    monkeypatch.setattr(_common, "MIN_CODE_POINTS_PER_THREAD", 1)
    documents = DOCUMENTS * 20 + _varied_corpus(500, seed=3)
    results = []
    for n_threads in [1, 2]:
        with n_threads_limit(n_threads):
            vectorizer = TfidfVectorizer(ngram_range=(1, 3), min_df=2, batch_size=97)
            X = vectorizer.fit_transform(documents)
            results.append((vectorizer, X, vectorizer.transform(OTHER_DOCUMENTS)))
    (one, X_one, T_one), (two, X_two, T_two) = results
    assert list(one.vocabulary_.items()) == list(two.vocabulary_.items())
    assert_same_matrix(X_one, X_two)
    assert_same_matrix(T_one, T_two)
    theirs = sk_text.TfidfVectorizer(ngram_range=(1, 3), min_df=2).fit(documents)
    assert_same_vocabulary(two, theirs)


def test_sparse_interface_follows_sklearn_config():
    sklearn = pytest.importorskip("sklearn")
    try:
        context = sklearn.config_context(sparse_interface="sparray")
    except TypeError:
        pytest.skip("this scikit-learn has no sparse_interface option")
    with context:
        for cls_name in ["CountVectorizer", "TfidfVectorizer"]:
            ours, theirs, X_ours, X_theirs = fit_both(cls_name)
            assert isinstance(X_ours, sp.csr_array)
            assert type(ours.transform(CORPUS)) is type(theirs.transform(CORPUS))


# ----------------------------------------------------------------------------- fallback
FALLBACKS = {
    "char": dict(analyzer="char", ngram_range=(1, 3)),
    "char_wb": dict(analyzer="char_wb", ngram_range=(2, 4), max_features=50),
    "callable_analyzer": dict(analyzer=str.split),
    "tokenizer": dict(tokenizer=str.split, token_pattern=None),
    "preprocessor": dict(preprocessor=str.upper, lowercase=False),
    "strip_accents_unicode": dict(strip_accents="unicode", min_df=2),
    "strip_accents_ascii": dict(strip_accents="ascii"),
    "token_pattern": dict(token_pattern=r"(?u)\b\w+\b", ngram_range=(1, 2)),
    "complex_dtype": dict(dtype=np.complex128),
}


@pytest.mark.parametrize(
    "cls_name, name",
    [("CountVectorizer", name) for name in FALLBACKS]
    # scikit-learn's TfidfTransformer refuses complex counts
    + [("TfidfVectorizer", name) for name in FALLBACKS if name != "complex_dtype"],
)
def test_fallback_options_match_sklearn(cls_name, name):
    params = FALLBACKS[name]
    assert not getattr(nbfast.text, cls_name)(**params)._is_native()
    documents = [doc for doc in DOCUMENTS if "\ud800" not in doc]
    ours, theirs, X_ours, X_theirs = fit_both(cls_name, documents, batch_size=3, **params)
    (assert_same_matrix if cls_name == "CountVectorizer" else assert_close_matrix)(X_ours, X_theirs)
    assert_same_vocabulary(ours, theirs)
    (assert_same_matrix if cls_name == "CountVectorizer" else assert_close_matrix)(
        ours.transform(ENCODABLE), theirs.transform(ENCODABLE)
    )


@pytest.mark.parametrize("cls_name", ["CountVectorizer", "TfidfVectorizer"])
@pytest.mark.parametrize("input_kind", ["filename", "file"])
def test_file_input_falls_back(tmp_path, cls_name, input_kind):
    paths = []
    for i, doc in enumerate(ENCODABLE[:6]):
        path = tmp_path / f"doc{i}.txt"
        path.write_text(doc, encoding="utf-8")
        paths.append(str(path))
    assert not getattr(nbfast.text, cls_name)(input=input_kind)._is_native()
    if input_kind == "file":
        ours = getattr(nbfast.text, cls_name)(input="file")
        theirs = getattr(sk_text, cls_name)(input="file")
        with contextlib.ExitStack() as stack:
            X_ours = ours.fit_transform([stack.enter_context(open(p, "rb")) for p in paths])
            X_theirs = theirs.fit_transform([stack.enter_context(open(p, "rb")) for p in paths])
    else:
        ours, theirs, X_ours, X_theirs = fit_both(cls_name, paths, input="filename")
    (assert_same_matrix if cls_name == "CountVectorizer" else assert_close_matrix)(X_ours, X_theirs)
    assert_same_vocabulary(ours, theirs)


def test_native_fit_then_fallback_transform_and_back():
    vectorizer = CountVectorizer().fit(ENCODABLE)
    vectorizer.set_params(strip_accents="unicode")
    theirs = sk_text.CountVectorizer(strip_accents="unicode", vocabulary=vectorizer.vocabulary_)
    assert_same_matrix(vectorizer.transform(ENCODABLE), theirs.transform(ENCODABLE))
    vectorizer = CountVectorizer(analyzer="char").fit(ENCODABLE)
    vectorizer.set_params(analyzer="word")
    theirs = sk_text.CountVectorizer(vocabulary=vectorizer.vocabulary_)
    assert_same_matrix(vectorizer.transform(ENCODABLE), theirs.transform(ENCODABLE))


def test_without_sklearn(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn.feature_extraction.text", None)  # as if not installed
    monkeypatch.setattr(_compat, "get_config", lambda: {})
    with pytest.raises(ImportError, match="needs sklearn, which is not installed: pip install 'nbfast\\[sklearn\\]'"):
        CountVectorizer(analyzer="char").fit(CORPUS)
    with pytest.raises(ImportError, match="or give stop_words as a list instead.*not installed"):
        CountVectorizer(stop_words="english").fit(CORPUS)
    X = TfidfVectorizer(stop_words=["the"], ngram_range=(1, 2)).fit_transform(CORPUS)
    assert type(X) is sp.csr_matrix


# ----------------------------------------------------------------------------- TfidfTransformer
def _counts():
    return sk_text.CountVectorizer(ngram_range=(1, 2)).fit_transform(DOCUMENTS)


@pytest.mark.parametrize("norm", ["l2", "l1", None])
@pytest.mark.parametrize("use_idf", [True, False])
@pytest.mark.parametrize("smooth_idf", [True, False])
@pytest.mark.parametrize("sublinear_tf", [False, True])
@pytest.mark.parametrize("layout", ["csr_matrix", "csr_array", "dense", "float32", "csc"])
def test_tfidf_transformer_matches_sklearn(norm, use_idf, smooth_idf, sublinear_tf, layout):
    counts = _counts()
    X = {
        "csr_matrix": counts,
        "csr_array": sp.csr_array(counts),
        "dense": counts.toarray(),
        "float32": counts.astype(np.float32),
        "csc": counts.tocsc(),
    }[layout]
    params = dict(norm=norm, use_idf=use_idf, smooth_idf=smooth_idf, sublinear_tf=sublinear_tf)
    ours, theirs = TfidfTransformer(**params).fit(X), sk_text.TfidfTransformer(**params).fit(X)
    if use_idf:
        assert ours.idf_.dtype == theirs.idf_.dtype
        np.testing.assert_array_equal(ours.idf_, theirs.idf_)
    assert ours.n_features_in_ == theirs.n_features_in_
    rtol = 1e-6 if layout == "float32" else 1e-12
    expected, expected_fitted = theirs.transform(X), theirs.fit_transform(X)
    if layout == "dense" and sklearn_older_than("1.9"):  # tf-idf of dense counts: a csr_array since 1.9
        expected, expected_fitted = sp.csr_array(expected), sp.csr_array(expected_fitted)
    assert_close_matrix(ours.transform(X), expected, rtol)
    assert_close_matrix(TfidfTransformer(**params).fit_transform(X), expected_fitted, rtol)
    np.testing.assert_array_equal(ours.get_feature_names_out(), theirs.get_feature_names_out())


def test_tfidf_transformer_copy():
    X = _counts().astype(np.float64)
    before = X.data.copy()
    transformer = TfidfTransformer().fit(X)
    transformer.transform(X)
    np.testing.assert_array_equal(X.data, before)
    Y = transformer.transform(X, copy=False)
    assert np.shares_memory(Y.data, X.data)
    assert_close_matrix(sp.csr_matrix(Y), sk_text.TfidfTransformer().fit(_counts()).transform(_counts()))


def test_tfidf_transformer_checks_its_input():
    transformer = TfidfTransformer().fit(_counts())
    with pytest.raises(ValueError, match="features"):
        transformer.transform(np.ones((2, 3)))
    with pytest.raises(ValueError, match="NaN"):
        TfidfTransformer().fit(np.array([[1.0, np.nan]]))
    transformer.idf_ = np.ones(3)
    with pytest.raises(ValueError, match="idf_"):
        transformer.transform(_counts())


def test_idf_can_be_set():
    ours = TfidfVectorizer().fit(DOCUMENTS)
    theirs = sk_text.TfidfVectorizer().fit(DOCUMENTS)
    idf = np.linspace(1, 2, len(ours.vocabulary_))
    ours.idf_ = idf
    theirs.idf_ = idf
    assert_close_matrix(ours.transform(CORPUS), theirs.transform(CORPUS))
    with pytest.raises(ValueError, match="idf length"):
        ours.idf_ = np.ones(3)
    with pytest.raises(ValueError, match="user_idf"):
        TfidfVectorizer(use_idf=False).idf_ = idf
    # transferred to a vectorizer given the same vocabulary, without fit
    fresh = TfidfVectorizer(vocabulary=ours.vocabulary_)
    fresh.idf_ = idf
    assert_close_matrix(fresh.transform(CORPUS), theirs.transform(CORPUS))


# ----------------------------------------------------------------------------- estimator API
@pytest.mark.parametrize("cls_name", ["CountVectorizer", "TfidfVectorizer"])
def test_pickle_clone_and_params(cls_name):
    cls = getattr(nbfast.text, cls_name)
    vectorizer = cls(ngram_range=(1, 2), stop_words="english", batch_size=5).fit(DOCUMENTS)
    expected = vectorizer.transform(OTHER_DOCUMENTS)
    restored = pickle.loads(pickle.dumps(vectorizer))
    assert_same_matrix(restored.transform(OTHER_DOCUMENTS), expected)
    assert_same_vocabulary(restored, vectorizer)
    clone = sk_base.clone(vectorizer)
    assert clone.get_params() == vectorizer.get_params()
    assert not hasattr(clone, "vocabulary_")
    sk_params = set(getattr(sk_text, cls_name)().get_params())
    assert set(vectorizer.get_params()) == sk_params | {"batch_size", "n_jobs"}
    assert repr(cls(max_features=3)) == f"{cls_name}(max_features=3)"
    assert_same_matrix(clone.set_params(batch_size=2).fit_transform(DOCUMENTS), vectorizer.fit_transform(DOCUMENTS))


def test_pipeline_with_multinomial_nb():
    pipeline = pytest.importorskip("sklearn.pipeline")
    sk_nb = pytest.importorskip("sklearn.naive_bayes")
    rng = np.random.default_rng(0)
    words = [doc.split() for doc in CORPUS[:4]]
    documents = [" ".join(rng.choice(words[i % 4], size=8)) for i in range(120)]
    y = np.arange(120) % 4
    ours = pipeline.make_pipeline(TfidfVectorizer(), nbfast.MultinomialNB()).fit(documents, y)
    theirs = pipeline.make_pipeline(sk_text.TfidfVectorizer(), sk_nb.MultinomialNB()).fit(documents, y)
    test = OTHER_DOCUMENTS + documents[:20]
    np.testing.assert_allclose(ours.predict_proba(test), theirs.predict_proba(test), rtol=1e-9)
    np.testing.assert_array_equal(ours.predict(test), theirs.predict(test))


def test_delegated_helpers():
    vectorizer = CountVectorizer(ngram_range=(1, 2), stop_words=["the"]).fit(DOCUMENTS)
    theirs = sk_text.CountVectorizer(ngram_range=(1, 2), stop_words=["the"]).fit(DOCUMENTS)
    assert vectorizer.build_analyzer()("The quick fox") == theirs.build_analyzer()("The quick fox")
    X = vectorizer.transform(CORPUS)
    for ours_terms, their_terms in zip(vectorizer.inverse_transform(X), theirs.inverse_transform(X)):
        np.testing.assert_array_equal(ours_terms, their_terms)
    assert vectorizer.get_stop_words() == theirs.get_stop_words()


# ----------------------------------------------------------------------------- parameters
BAD_PARAMETERS = [
    ("max_df", 2.0),
    ("max_df", -1),
    ("min_df", 1.5),
    ("min_df", "2"),
    ("max_features", 0),
    ("max_features", 2.5),
    ("ngram_range", (2, 1)),
    ("ngram_range", [1, 2]),
    ("ngram_range", (0, 1)),
    ("stop_words", "french"),
    ("stop_words", ("a",)),
    ("vocabulary", 5),
    ("binary", "yes"),
    ("lowercase", 1),
    ("dtype", "not a dtype"),
    ("batch_size", 0),
    ("analyzer", "words"),
    ("input", "url"),
    ("decode_error", "skip"),
    ("strip_accents", "latin"),
    ("tokenizer", "split"),
    ("token_pattern", 3),
]
TFIDF_BAD_PARAMETERS = [("norm", "max"), ("use_idf", "no"), ("smooth_idf", None), ("sublinear_tf", 0)]


@pytest.mark.parametrize(
    "cls_name, name, value",
    [("CountVectorizer", *bad) for bad in BAD_PARAMETERS]
    + [("TfidfVectorizer", *bad) for bad in BAD_PARAMETERS + TFIDF_BAD_PARAMETERS],
    ids=str,
)
def test_invalid_parameters(cls_name, name, value):
    cls = getattr(nbfast.text, cls_name)
    for call in [lambda v: v.fit(CORPUS), lambda v: v.fit_transform(CORPUS)]:
        with pytest.raises((ValueError, TypeError), match=name):
            call(cls(**{name: value}))


@pytest.mark.parametrize("name, value", TFIDF_BAD_PARAMETERS, ids=str)
def test_tfidf_transformer_invalid_parameters(name, value):
    with pytest.raises((ValueError, TypeError), match=name):
        TfidfTransformer(**{name: value}).fit(_counts())


def test_parameter_errors_are_both_value_and_type_errors():
    with pytest.raises(ValueError, match="max_df"):
        CountVectorizer(max_df=2.0).fit(CORPUS)
    with pytest.raises(TypeError, match="max_df"):
        CountVectorizer(max_df=2.0).fit(CORPUS)


def test_scalar_types_sklearn_accepts():
    for params in [dict(max_df=np.float64(0.9), min_df=np.int64(1)), dict(lowercase=np.bool_(False)),
                   dict(max_df=True)]:  # fmt: skip
        check_like_sklearn("CountVectorizer", **params)


@pytest.mark.parametrize("combination", list(itertools.product([(1, 1), (1, 3)], [None, 3], [False, True])), ids=str)
def test_tfidf_fit_alone_with_max_features_float32(combination):
    """fit without transform computes idf from the vocabulary's document frequencies."""
    ngram_range, max_features, binary = combination
    params = dict(ngram_range=ngram_range, max_features=max_features, binary=binary, dtype=np.float32)
    ours = TfidfVectorizer(**params).fit(DOCUMENTS)
    theirs = sk_text.TfidfVectorizer(**params).fit(DOCUMENTS)
    assert_same_vocabulary(ours, theirs)
    np.testing.assert_array_equal(ours.idf_, theirs.idf_)
    assert ours.idf_.dtype == theirs.idf_.dtype


def test_distinct_terms_hold_the_utf8_the_kernels_write():
    """A vocabulary read from a model file: each term's UTF-8 as the tokenizer writes it (a lone surrogate as
    it is), at its position; a term listed twice is refused."""
    terms = ["ascii", "é", "日本", "x\ud800y", "😀", ""]
    term_set = vocabulary_kernels.distinct_terms(terms)
    assert term_set.mapping(True) == {term: index for index, term in enumerate(terms)}
    assert all(term.encode("utf-8", "surrogatepass") in term_set for term in terms) and b"x" not in term_set
    with pytest.raises(ValueError, match="'é' is listed twice"):
        vocabulary_kernels.distinct_terms(["a", "é", "b", "é"])
