"""nbfast.text.HashingVectorizer against scikit-learn's, element for element."""

import io
import re
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import nbfast
from nbfast._kernels import tokens
from nbfast.text import HashingVectorizer
from nbfast.text._common import lowercase_table

sk_text = pytest.importorskip("sklearn.feature_extraction.text")

CORPUS = [
    "The quick brown fox jumps over the lazy dog. THE DOG sleeps; the fox runs!",
    "Héllo wörld, ÉCOLE élève naïve café crème brûlée Ærø Øre straße STRASSE",
    "Ελληνικά: ΟΔΟΣ οδός ΣΟΦΙΑ Σ ΑΣ, σίγμα ΤΕΛΟΣ. ΌΣΟΣ",
    "漢字テキスト 中文 数据科学 日本語の文章 한국어 텍스트 x y",
    "digits 123 4567 ٣٤٥ ۱۲۳ १२३ ²³ ½ ⅷ 𝟘𝟙𝟚 0x1F",
    "under_score __init__ _ a_b snake_case_name",
    "don't can't it's O'Reilly l'été rock'n'roll",
    "emoji 😀😀 ok👍ok 🎉party🎉 🇫🇷 👩‍👩‍👧",
    "combining e\u0301cole cafe\u0301 n\u0303 a\u0308\u0301b Z\u0351\u0352\u0353algo",
    "İstanbul KADIN ǅemal ǈ ß ẞ ﬁ ﬀ Ω K Å",
    "",
    "   ",
    "\t\n \r\n",
    "a b c d e f",
    "x" * 3000 + " yy " + "é" * 2000 + " " + "漢" * 1500,
    "nul\x00inside zz\x00ww",
    "lone surrogate \ud800 here and \udfff there",
    "tabs\tand\nnewlines\r\nmixed   spacing  here",
    "Repeated repeated REPEATED words words words words",
    "Mixed123Numbers abc123 123abc 12 1",
]

NGRAMS = [(1, 1), (1, 2), (2, 2), (1, 3)]
# scikit-learn's character analyzers encode lone surrogates and fail: keep them out there
ENCODABLE = [doc for doc in CORPUS if "\ud800" not in doc]


def assert_same_matrix(actual, expected):
    """Same sparse type, shape, dtypes, indptr, indices and values (bit for bit)."""
    assert type(actual) is type(expected)
    assert actual.shape == expected.shape
    assert actual.dtype == expected.dtype
    assert actual.indices.dtype == expected.indices.dtype
    assert actual.indptr.dtype == expected.indptr.dtype
    np.testing.assert_array_equal(actual.indptr, expected.indptr)
    np.testing.assert_array_equal(actual.indices, expected.indices)
    np.testing.assert_array_equal(actual.data, expected.data)


def both(documents=CORPUS, **params):
    """(nbfast, scikit-learn) matrices of the same documents and parameters."""
    batch_size = params.pop("batch_size", 16384)
    ours = HashingVectorizer(batch_size=batch_size, **params).transform(documents)
    theirs = sk_text.HashingVectorizer(**params).transform(documents)
    return ours, theirs


# ----------------------------------------------------------------------------- native path
@pytest.mark.parametrize("ngram_range", NGRAMS)
@pytest.mark.parametrize("n_features", [16, 2**20])
@pytest.mark.parametrize("lowercase", [True, False])
@pytest.mark.parametrize("norm", ["l2", "l1", None])
@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("alternate_sign", [True, False])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matches_sklearn(ngram_range, n_features, lowercase, norm, binary, alternate_sign, dtype):
    params = dict(
        ngram_range=ngram_range, n_features=n_features, lowercase=lowercase, norm=norm, binary=binary,
        alternate_sign=alternate_sign, dtype=dtype,
    )  # fmt: skip
    ours, theirs = both(**params)
    assert HashingVectorizer(**params)._is_native()
    assert_same_matrix(ours, theirs)


def test_collisions_keep_explicit_zeros():
    """With n_features=2 opposite signs cancel: scikit-learn keeps the explicit zeros, so do we."""
    ours, theirs = both(n_features=2, norm=None)
    assert (theirs.data == 0).any()
    assert_same_matrix(ours, theirs)


def test_hash_of_minus_two_to_the_31():
    """abs(-2**31) overflows int32: scikit-learn defines that hash's column separately.

    The token was found by inverting MurmurHash3 (fmix and the block mix are bijective).
    """
    murmurhash3_32 = pytest.importorskip("sklearn.utils").murmurhash3_32
    token = "aivlts3m"
    assert murmurhash3_32(token, positive=False) == -(2**31)
    for n_features in [3, 10, 2**20]:
        assert_same_matrix(*both([f"x {token} {token.upper()} y", "zz"], n_features=n_features, norm=None))
        assert_same_matrix(*both([f"{token} {token}"], n_features=n_features, alternate_sign=False))


@pytest.mark.parametrize(
    "params", [dict(n_features=1), dict(ngram_range=(3, 5), n_features=50), dict(ngram_range=(1, 6))], ids=str
)
def test_extreme_shapes(params):
    assert_same_matrix(*both(**params))
    assert_same_matrix(*both(["", " ", "\t"], **params))


@settings(max_examples=300, deadline=None)
@given(
    documents=st.lists(st.text(max_size=40), min_size=1, max_size=6),
    ngram_range=st.sampled_from(NGRAMS),
    lowercase=st.booleans(),
)
def test_random_unicode_matches_sklearn(documents, ngram_range, lowercase):
    assert_same_matrix(*both(documents, ngram_range=ngram_range, lowercase=lowercase, n_features=2**10))


def test_huge_n_features_uses_int64_indices():
    ours, theirs = both(CORPUS[:3], n_features=2**31 + 5)
    assert theirs.indices.dtype == np.int64
    assert_same_matrix(ours, theirs)


def test_every_cased_code_point():
    """Documents made of every code point that str.lower changes, between word and non-word characters."""
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000 and chr(c).lower() != chr(c)]
    assert len(chars) > 1000
    documents = ["".join(chars[i : i + 40]) for i in range(0, len(chars), 40)]
    documents += [" ".join(chars[i : i + 40]) + " a" + "b".join(chars[i : i + 40]) for i in range(0, len(chars), 40)]
    for ngram_range in [(1, 1), (1, 2)]:
        assert_same_matrix(*both(documents, ngram_range=ngram_range, n_features=2**18))


@pytest.mark.parametrize(
    "document",
    ["ΑΣ", "ΑΣ Β", "Σ", "ΑΣΑ", "Α.Σ", "ΑΣ'", "ΑΣ\u0301", "ΑΣ\u0301Β", "'ΑΣ", "ΑΣ1", "ΌΣΟΣ ΟΔΟΣ"],
)
def test_final_sigma_context(document):
    """U+03A3 lowercases to ς or σ depending on its neighbours, as str.lower decides."""
    documents = [document, "Β" + document, document + "Σ", "ab"]
    assert_same_matrix(*both(documents, n_features=2**20))


def test_word_characters_are_those_of_re():
    """The kernel's \\w table is Python's regular-expression \\w on every code point."""
    table = np.unpackbits(tokens.word_char_table(), bitorder="little").astype(bool)
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    expected = np.zeros(0x110000, dtype=bool)
    expected[[ord(c) for c in re.findall(r"(?u)\w", text)]] = True
    np.testing.assert_array_equal(table, expected)


def test_lowercase_table_is_str_lower():
    """Reading the two-stage table back gives str.lower of every code point (U+03A3 aside)."""
    (stage1, stage2, expansions), _, _ = lowercase_table()
    codes = np.arange(0x80, 0x110000)
    codes = codes[((codes < 0xD800) | (codes >= 0xE000)) & (codes != 0x3A3)]
    value = stage2[(stage1[codes >> 8].astype(np.int64) << 8) | (codes & 0xFF)].astype(np.int64)
    expected = [chr(c).lower() for c in codes.tolist()]
    single = np.array([ord(e) if len(e) == 1 else -1 for e in expected])
    simple = (value & 0x80000000) == 0
    np.testing.assert_array_equal(np.where(value[simple] == 0, codes[simple], value[simple]), single[simple])
    for i in np.flatnonzero(~simple):
        k = 4 * (int(value[i]) & 0x7FFFFFFF)
        assert "".join(map(chr, expansions[k + 1 : k + 1 + expansions[k]])) == expected[i]


def test_lowercase_table_is_built_once_when_threads_ask_at_once(monkeypatch):
    """Threads vectorizing at once (the command line's block threads) share one build of the table."""
    import functools
    import threading
    import time

    from nbfast.text import _common

    builds, build = [], _common._lowercase_table

    def slow_build():
        builds.append(1)
        time.sleep(0.05)  # every thread asks while the first builds
        return build()

    monkeypatch.setattr(_common, "_lowercase_table", functools.cache(slow_build))
    threads = [threading.Thread(target=_common.lowercase_table) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1


def test_thread_count_does_not_change_the_result(n_threads_limit):
    # Repeated, with more threads than cores: a race between threads (an n-gram's size once was a variable
    # the threads shared) shows only when a thread is preempted at the wrong instruction.
    documents = CORPUS * 50
    with n_threads_limit(1):
        one = HashingVectorizer(ngram_range=(1, 2), n_features=2**10).transform(documents)
    for n_threads in (2, 4) * 10:
        with n_threads_limit(n_threads):
            assert_same_matrix(HashingVectorizer(ngram_range=(1, 2), n_features=2**10).transform(documents), one)


# ----------------------------------------------------------------------------- input handling
def test_batches_generators_and_files_match_a_list():
    documents = [doc.replace("\n", " ").replace("\r", " ") for doc in CORPUS] * 3
    expected = HashingVectorizer(ngram_range=(1, 2)).transform(documents)
    for batch_size in [1, 2, 7, len(documents), 10**6]:
        vectorizer = HashingVectorizer(ngram_range=(1, 2), batch_size=batch_size)
        assert_same_matrix(vectorizer.transform(documents), expected)
        assert_same_matrix(vectorizer.transform(doc for doc in documents), expected)
    lines = io.StringIO("".join(doc + "\n" for doc in documents))
    assert_same_matrix(HashingVectorizer(ngram_range=(1, 2), batch_size=4).transform(lines), _strip_sk(documents))


def _strip_sk(documents):
    # file lines keep their "\n", which is not a word character: same tokens
    return sk_text.HashingVectorizer(ngram_range=(1, 2)).transform([doc + "\n" for doc in documents])


def test_bytes_and_str_subclasses():
    documents = [doc.encode("utf-8") for doc in ENCODABLE]
    assert_same_matrix(*both(documents))
    assert_same_matrix(*both([np.str_(doc) for doc in CORPUS]))
    assert_same_matrix(*both([b"caf\xe9 latin"], encoding="latin-1"))


def test_invalid_input():
    vectorizer = HashingVectorizer()
    with pytest.raises(ValueError, match="string object received"):
        vectorizer.transform("a single string")
    with pytest.raises(ValueError, match="string object received"):
        vectorizer.fit("a single string")
    with pytest.raises(ValueError, match="empty sequence"):
        vectorizer.transform([])
    with pytest.raises(ValueError, match="np.nan"):
        vectorizer.transform(["ok", np.nan])
    with pytest.raises(TypeError, match="str or bytes"):
        vectorizer.transform(["ok", 3])


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(n_features=0), "n_features"),
        (dict(n_features=1.5), "n_features"),
        (dict(batch_size=0), "batch_size"),
        (dict(norm="max"), "norm"),
        (dict(ngram_range=(2, 1)), "ngram_range"),
        (dict(ngram_range=[1, 2]), "ngram_range"),
        (dict(analyzer="words"), "analyzer"),
        (dict(input="url"), "input"),
    ],
)
def test_invalid_parameters(params, match):
    with pytest.raises(ValueError, match=match):
        HashingVectorizer(**params).fit(CORPUS)
    with pytest.raises(ValueError, match=match):
        HashingVectorizer(**params).transform(CORPUS)


def test_sparse_interface_follows_sklearn_config():
    sklearn = pytest.importorskip("sklearn")
    try:
        context = sklearn.config_context(sparse_interface="sparray")
    except TypeError:
        pytest.skip("this scikit-learn has no sparse_interface option")
    with context:
        ours, theirs = both(CORPUS[:4])
    assert isinstance(ours, sp.csr_array)
    assert_same_matrix(ours, theirs)


# ----------------------------------------------------------------------------- fallback
FALLBACKS = {
    "char": dict(analyzer="char", ngram_range=(1, 3)),
    "char_wb": dict(analyzer="char_wb", ngram_range=(2, 4)),
    "callable_analyzer": dict(analyzer=str.split),
    "tokenizer": dict(tokenizer=str.split, token_pattern=None),
    "preprocessor": dict(preprocessor=str.upper, lowercase=False),
    "stop_words": dict(stop_words="english", ngram_range=(1, 2)),
    "stop_list": dict(stop_words=["the", "dog"]),
    "strip_accents_unicode": dict(strip_accents="unicode"),
    "strip_accents_ascii": dict(strip_accents="ascii"),
    "token_pattern": dict(token_pattern=r"(?u)\b\w+\b"),
    "int_dtype": dict(dtype=np.int64, norm=None),
    "int_dtype_normalized": dict(dtype=np.int32),
}


@pytest.mark.parametrize("name", list(FALLBACKS))
def test_fallback_options_match_sklearn(name):
    params = FALLBACKS[name]
    assert not HashingVectorizer(**params)._is_native()
    assert_same_matrix(*both(ENCODABLE, **params, batch_size=3))


def test_file_input_falls_back(tmp_path):
    paths = []
    for i, doc in enumerate(CORPUS[:5]):
        path = tmp_path / f"doc{i}.txt"
        path.write_text(doc, encoding="utf-8")
        paths.append(str(path))
    assert_same_matrix(*both(paths, input="filename"))


def test_fallback_without_sklearn_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn.feature_extraction.text", None)  # as if not installed
    with pytest.raises(ImportError, match="needs sklearn, which is not installed: pip install 'nbfast\\[sklearn\\]'"):
        HashingVectorizer(analyzer="char").transform(CORPUS)
    # the native path needs nothing from scikit-learn
    X = HashingVectorizer().transform(CORPUS)
    assert type(X) is sp.csr_matrix


# ----------------------------------------------------------------------------- estimator API
def test_pipeline_with_multinomial_nb():
    pipeline = pytest.importorskip("sklearn.pipeline")
    sk_nb = pytest.importorskip("sklearn.naive_bayes")
    rng = np.random.default_rng(0)
    documents = [" ".join(rng.choice(CORPUS[i % 3].split(), size=8)) for i in range(90)]
    y = np.arange(90) % 3
    ours = pipeline.make_pipeline(HashingVectorizer(alternate_sign=False, n_features=2**12), nbfast.MultinomialNB())
    theirs = pipeline.make_pipeline(
        sk_text.HashingVectorizer(alternate_sign=False, n_features=2**12), sk_nb.MultinomialNB()
    )
    ours.fit(documents, y)
    theirs.fit(documents, y)
    np.testing.assert_allclose(ours.predict_proba(documents), theirs.predict_proba(documents), rtol=1e-12)
    np.testing.assert_array_equal(ours.predict(documents), theirs.predict(documents))


def test_stateless_estimator_api():
    base = pytest.importorskip("sklearn.base")
    vectorizer = HashingVectorizer(n_features=32, batch_size=5)
    clone = base.clone(vectorizer)
    assert clone.get_params() == vectorizer.get_params()
    assert vectorizer.fit(CORPUS) is vectorizer
    assert vectorizer.partial_fit(CORPUS) is vectorizer
    assert_same_matrix(vectorizer.fit_transform(CORPUS), clone.transform(CORPUS))
    assert not hasattr(vectorizer, "n_features_in_")


@pytest.mark.parametrize(
    "vectorizer,made_by_the_kernels",
    [
        (HashingVectorizer(n_features=2**10), True),
        (HashingVectorizer(n_features=2**10, batch_size=3), False),  # batches stacked by scipy
        (nbfast.text.CountVectorizer(), True),
        (nbfast.text.TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True), True),
        (nbfast.text.CountVectorizer(batch_size=2, dtype=np.float32), True),
        (nbfast.text.CountVectorizer(analyzer=str.split), False),  # scikit-learn's counting
    ],
    ids=repr,  # the same in every process (pytest-xdist collects in each): no object addresses
)
def test_rows_for_the_readers_are_what_transform_returns(vectorizer, made_by_the_kernels):
    """The streaming readers take a vectorizer's rows without a scipy matrix: the same buffers as ``transform``'s."""
    if not isinstance(vectorizer, HashingVectorizer):
        vectorizer.fit(CORPUS)
    expected = vectorizer.transform(CORPUS)
    rows = vectorizer._transform_rows(CORPUS)
    assert rows.shape == expected.shape
    for name in ("data", "indices", "indptr"):
        np.testing.assert_array_equal(getattr(rows, name), getattr(expected, name))
        assert getattr(rows, name).dtype == getattr(expected, name).dtype
    assert isinstance(rows, nbfast._sparse.Rows) == made_by_the_kernels
