"""Model files whose checksums are valid but whose content is hostile: each is a ModelFormatError (or a model
that predicts cleanly), never a crash, and never an allocation far beyond the file's size.  The loads run in a
child interpreter (see ``isolated``)."""

import base64
import io
import json
import tracemalloc
from functools import partial
from pathlib import Path

import numpy as np
import pytest
from support import isolated
from support.crafting import (
    _array_index,
    _layout,
    _raw_header,
    _with_array,
    _with_byte_order,
    _with_header,
    idf_as_numbers,
)

import nbfast
from nbfast import ModelFormatError, persist
from nbfast.cli import main as cli_main
from nbfast.text import HashingVectorizer, TfidfVectorizer

DATA = Path(__file__).parents[1] / "data"
#: The most a load may allocate (tracemalloc's peak) beyond 16 times the file's size.
ALLOWANCE = 16 << 20


def _stored(stem):
    return (DATA / f"{stem}.nbf").read_bytes()


def _categorical_with_n_categories(edit):
    raw = _stored("CategoricalNB-str")
    return _with_array(raw, _array_index(raw, "n_categories_"), edit)


def _params(stem, **params):
    return _with_header(_stored(stem), lambda h: h["model"]["params"].update(params))


def _big_header(n_bytes):
    """A valid model whose header carries ``n_bytes`` of empty JSON objects under an extra key."""
    raw = _stored("MultinomialNB-int")
    header, _, _, data_start = _layout(raw)
    header["padding"] = "PADDING"
    text = json.dumps(header).replace('"PADDING"', "[" + ",".join(["{}"] * (n_bytes // 3)) + "]")
    return _raw_header(raw, text) + raw[data_start:]


def _long_class_name(n_chars):
    """The header's summary names a class of ``n_chars`` characters (read_info shows the summary)."""
    return _with_header(_stored("MultinomialNB-str"), lambda h: h["summary"]["classes"].__setitem__(0, "x" * n_chars))


def _beyond_unicode_big_endian():
    """classes_ stored big-endian ('>U4'), its characters all U+110000, beyond Unicode (read little-endian,
    its bytes would be U+1100: only the array's own byte order tells)."""
    raw = _stored("MultinomialNB-str")
    index = _array_index(raw, "classes_")

    def edit(classes):
        code_units = classes.view(">u4").reshape(len(classes), -1)
        code_units[:] = 0
        for i in range(len(classes)):
            code_units[i, : i + 1] = 0x110000

    return _with_array(_with_byte_order(raw, index, ">"), index, edit)


def _vectorizer_file(**params):
    """A model saved with a HashingVectorizer whose stored parameters are then edited."""
    return _vectorizer_file_with(lambda entry: entry["params"].update(params))


def _vectorizer_file_with(edit):
    """A model saved with a HashingVectorizer whose entry ``edit`` then changes."""
    import tempfile

    model = nbfast.MultinomialNB().fit(np.eye(4), [0, 1, 0, 1])
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "m.nbf"
        nbfast.save(model, path, vectorizer=HashingVectorizer(n_features=4, alternate_sign=False))
        raw = path.read_bytes()
    return _with_header(raw, lambda h: edit(h["vectorizer"]))


def _vocabulary_file(edit):
    """A model saved with a fitted TfidfVectorizer (5 terms, idf weights) whose entry ``edit`` then changes."""
    import tempfile

    documents = ["hello world", "hello there", "brown fox", "world fox"]
    vectorizer = TfidfVectorizer().fit(documents)
    model = nbfast.MultinomialNB().fit(vectorizer.transform(documents), [0, 1, 0, 1])
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "m.nbf"
        nbfast.save(model, path, vectorizer=vectorizer)
        raw = path.read_bytes()
    return _with_header(raw, lambda h: edit(h["vectorizer"]))


def _set(key, value):
    return lambda entry: entry.__setitem__(key, value)


def _load_and_predict(make, mmap=False):
    """Load the crafted bytes (allocations measured) and, if that succeeds, predict with the model."""

    def call():
        import tempfile

        raw = make()
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "crafted.nbf"
            path.write_bytes(raw)
            tracemalloc.start()
            try:
                model = nbfast.load(path, mmap=mmap)
                peak = tracemalloc.get_traced_memory()[1]
            except ModelFormatError:
                peak = tracemalloc.get_traced_memory()[1]
                if peak > 16 * len(raw) + ALLOWANCE:
                    raise AssertionError(f"load allocated {peak:,} bytes for a {len(raw):,}-byte file") from None
                raise
            finally:
                tracemalloc.stop()
            if peak > 16 * len(raw) + ALLOWANCE:
                raise AssertionError(f"load allocated {peak:,} bytes for a {len(raw):,}-byte file")
            X = np.random.default_rng(0).integers(0, 3, size=(4, model.n_features_in_)).astype(np.float64)
            model.predict(X)
            model.predict_proba(X)

    call.crafted, call.load = make, partial(nbfast.load, mmap=mmap)
    return call


def _load_vectorizer(make, **kwargs):
    def call():
        import tempfile

        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "crafted.nbf"
            path.write_bytes(make())
            vectorizer = persist.load_vectorizer(path, **kwargs)
            vectorizer.transform(["hello world", "the quick brown fox"])

    call.crafted, call.load = make, partial(persist.load_vectorizer, **kwargs)
    return call


def _wrapping_sum(a):
    a[0], a[1] = 2**63 - 1, 2**63 - 1  # sum(n_categories_ + 1) wraps past 2**64 to a small positive number


CASES = {
    "CategoricalNB n_categories_ summing past 2**63": _load_and_predict(
        lambda: _categorical_with_n_categories(_wrapping_sum)),
    "CategoricalNB n_categories_ summing past 2**63 (mmap)": _load_and_predict(
        lambda: _categorical_with_n_categories(_wrapping_sum), mmap=True),
    "CategoricalNB n_categories_[0] = 5e7": _load_and_predict(
        lambda: _categorical_with_n_categories(lambda a: a.__setitem__(0, 5 * 10**7))),
    "CategoricalNB n_categories_[0] = 1e8": _load_and_predict(
        lambda: _categorical_with_n_categories(lambda a: a.__setitem__(0, 10**8))),
    "CategoricalNB n_categories_[0] = 0": _load_and_predict(
        lambda: _categorical_with_n_categories(lambda a: a.__setitem__(0, 0))),
    "CategoricalNB max_categories=-10**15": _load_and_predict(
        lambda: _params("CategoricalNB-str", max_categories=-10**15)),
    "CategoricalNB max_categories=0": _load_and_predict(lambda: _params("CategoricalNB-str", max_categories=0)),
    "BernoulliNB binarize=NaN": _load_and_predict(lambda: _params("BernoulliNB-int", binarize=float("nan"))),
    "GaussianNB NaN var_": _load_and_predict(lambda: (lambda raw: _with_array(
        raw, _array_index(raw, "var_"), lambda a: a.__setitem__((0, 0), np.nan)))(_stored("GaussianNB-int"))),
    "CategoricalNB NaN log-probability": _load_and_predict(lambda: (lambda raw: _with_array(
        raw, _layout(raw)[0]["model"]["fitted"]["feature_log_prob_"][0]["__ndarray__"],
        lambda a: a.__setitem__((0, 0), np.nan)))(_stored("CategoricalNB-str"))),
    "MultinomialNB header of 45 MB of {}": _load_and_predict(lambda: _big_header(45 << 20)),
    "MultinomialNB unknown header key": _load_and_predict(
        lambda: _with_header(_stored("MultinomialNB-int"), lambda h: h.update(note="hello"))),
    "MultinomialNB unknown key in the model": _load_and_predict(
        lambda: _with_header(_stored("MultinomialNB-int"), lambda h: h["model"].update(extra=1))),
    "MultinomialNB unknown key in the summary": _load_and_predict(
        lambda: _with_header(_stored("MultinomialNB-int"), lambda h: h["summary"].update(extra=1))),
    "MultinomialNB unknown key in an array entry": _load_and_predict(
        lambda: _with_header(_stored("MultinomialNB-int"), lambda h: h["arrays"][0].update(extra=1))),
    "MultinomialNB summary naming other classes": _load_and_predict(
        lambda: _with_header(_stored("MultinomialNB-str"), lambda h: h["summary"].update(classes=["a", "b", "c"]))),
    "MultinomialNB big-endian classes_ beyond U+10FFFF": _load_and_predict(_beyond_unicode_big_endian),
    "MultinomialNB big-endian classes_ beyond U+10FFFF (mmap)": _load_and_predict(
        _beyond_unicode_big_endian, mmap=True),
    "GaussianNB epsilon_ a list (broadcast)": _load_and_predict(
        lambda: _with_header(_stored("GaussianNB-int"), lambda h: h["model"]["fitted"].update(
            epsilon_=[[[0.0]]] * 1000))),
    "vectorizer input='filename'": _load_vectorizer(lambda: _vectorizer_file(input="filename")),
    "vectorizer input='file'": _load_vectorizer(lambda: _vectorizer_file(input="file")),
    "vectorizer ngram_range=(1, 100000)": _load_vectorizer(
        lambda: _vectorizer_file(ngram_range={"__tuple__": [1, 100000]})),
    "vectorizer char analyzer with a huge range": _load_vectorizer(
        lambda: _vectorizer_file(analyzer="char", ngram_range={"__tuple__": [1, 5000]})),
    "vectorizer char analyzer with n-grams of 1 to 10": _load_vectorizer(
        lambda: _vectorizer_file(analyzer="char", ngram_range={"__tuple__": [1, 10]})),
    "vectorizer char_wb analyzer with n-grams of 3 to 7": _load_vectorizer(
        lambda: _vectorizer_file(analyzer="char_wb", ngram_range={"__tuple__": [3, 7]})),
    "vectorizer char analyzer with n-grams of 2 to 6": _load_vectorizer(
        lambda: _vectorizer_file(analyzer="char", ngram_range={"__tuple__": [2, 6]})),
    "vectorizer word analyzer with n-grams of 1 to 10": _load_vectorizer(
        lambda: _vectorizer_file(ngram_range={"__tuple__": [1, 10]})),
    "vectorizer backtracking token_pattern": _load_vectorizer(lambda: _vectorizer_file(token_pattern="(a+)+$")),
    "vectorizer token_pattern outside the allow-list, trusted": _load_vectorizer(
        lambda: _vectorizer_file(token_pattern=r"[a-z]{3,}"), trust=True),
    "vectorizer preprocessor named by a string": _load_vectorizer(lambda: _vectorizer_file(preprocessor="upper")),
    "vectorizer encoding of a non-text codec": _load_vectorizer(lambda: _vectorizer_file(encoding="rot13")),
    "vocabulary a string": _load_vectorizer(lambda: _vocabulary_file(_set("vocabulary", "abcd"))),
    "vocabulary of numbers": _load_vectorizer(lambda: _vocabulary_file(_set("vocabulary", [0, 1, 2, 3, 4]))),
    "vocabulary with a term twice": _load_vectorizer(
        lambda: _vocabulary_file(_set("vocabulary", ["a", "b", "a", "c", "d"]))),
    "vocabulary shorter than the model": _load_vectorizer(lambda: _vocabulary_file(_set("vocabulary", ["a", "b"]))),
    "vocabulary of 10**6 terms for a 4-feature model": _load_vectorizer(
        lambda: _vocabulary_file(_set("vocabulary", [str(i) for i in range(10**6)]))),
    "vocabulary missing": _load_vectorizer(lambda: _vocabulary_file(lambda entry: entry.pop("vocabulary"))),
    "vocabulary as a mapping": _load_vectorizer(
        lambda: _vocabulary_file(_set("vocabulary", {"a": 0, "b": 1, "c": 2, "d": 3, "e": 4}))),
    "vocabulary and a fixed vocabulary parameter": _load_vectorizer(
        lambda: _vocabulary_file(lambda entry: entry["params"].update(vocabulary=["a", "b", "c", "d"]))),
    "vocabulary on a HashingVectorizer": _load_vectorizer(
        lambda: _vectorizer_file_with(_set("vocabulary", ["a", "b", "c", "d"]))),
    "idf NaN": _load_vectorizer(lambda: _vocabulary_file(lambda entry: idf_as_numbers(entry).__setitem__(1, float("nan")))),
    "idf infinite": _load_vectorizer(lambda: _vocabulary_file(lambda entry: idf_as_numbers(entry).__setitem__(1, 1e400))),
    "idf negative": _load_vectorizer(lambda: _vocabulary_file(lambda entry: idf_as_numbers(entry).__setitem__(1, -1.0))),
    "idf zero": _load_vectorizer(lambda: _vocabulary_file(lambda entry: idf_as_numbers(entry).__setitem__(1, 0))),
    "idf a boolean": _load_vectorizer(lambda: _vocabulary_file(lambda entry: idf_as_numbers(entry).__setitem__(1, True))),
    "idf a string": _load_vectorizer(lambda: _vocabulary_file(lambda entry: idf_as_numbers(entry).__setitem__(1, "2.0"))),
    "idf too short": _load_vectorizer(lambda: _vocabulary_file(lambda entry: idf_as_numbers(entry).pop())),
    "idf missing": _load_vectorizer(lambda: _vocabulary_file(lambda entry: entry.pop("idf"))),
    "idf not base64": _load_vectorizer(lambda: _vocabulary_file(_set("idf", {"float64_base64": "AAAA!AAA"}))),
    "idf base64 of a part of a float": _load_vectorizer(lambda: _vocabulary_file(_set("idf", {"float64_base64": "AAAA"}))),
    "idf base64 of one weight": _load_vectorizer(
        lambda: _vocabulary_file(_set("idf", {"float64_base64": base64.b64encode(np.ones(1).tobytes()).decode()}))),
    "idf base64 of a NaN": _load_vectorizer(lambda: _vocabulary_file(
        _set("idf", {"float64_base64": base64.b64encode(np.full(5, np.nan).tobytes()).decode()}))),
    "idf base64 a number": _load_vectorizer(lambda: _vocabulary_file(_set("idf", {"float64_base64": 5}))),
    "idf base64 and another entry": _load_vectorizer(
        lambda: _vocabulary_file(lambda entry: entry["idf"].update(dtype="<f8"))),
    "idf with use_idf=False": _load_vectorizer(
        lambda: _vocabulary_file(lambda entry: entry["params"].update(use_idf=False))),
    "vocabulary vectorizer use_idf a string": _load_vectorizer(
        lambda: _vocabulary_file(lambda entry: entry["params"].update(use_idf="yes"))),
    "vocabulary vectorizer dtype object": _load_vectorizer(
        lambda: _vocabulary_file(lambda entry: entry["params"].update(dtype="object"))),
    "vocabulary vectorizer backtracking token_pattern": _load_vectorizer(
        lambda: _vocabulary_file(lambda entry: entry["params"].update(token_pattern="(a+)+$"))),
    "vocabulary vectorizer class unknown": _load_vectorizer(lambda: _vocabulary_file(_set("class", "DictVectorizer"))),
    "vocabulary with lone surrogates and odd terms": _load_vectorizer(
        lambda: _vocabulary_file(_set("vocabulary", ["\ud800", "", "a b", "\x00", "hello"]))),
}

EXPECTED = {
    "CategoricalNB n_categories_ summing past 2**63": "ModelFormatError: .*n_categories_",
    "CategoricalNB n_categories_ summing past 2**63 (mmap)": "ModelFormatError: .*n_categories_",
    "CategoricalNB n_categories_[0] = 5e7": r"ModelFormatError: .*category_count_\[0\] has shape",
    "CategoricalNB n_categories_[0] = 1e8": r"ModelFormatError: .*category_count_\[0\] has shape",
    "CategoricalNB n_categories_[0] = 0": "ModelFormatError: .*n_categories_ must hold counts >= 1",
    "CategoricalNB max_categories=-10**15": "ModelFormatError: .*'max_categories' parameter of CategoricalNB must be",
    "CategoricalNB max_categories=0": "ModelFormatError: .*'max_categories' parameter of CategoricalNB must be",
    "BernoulliNB binarize=NaN": "ModelFormatError: .*NaN is not a number",
    "GaussianNB NaN var_": "ModelFormatError: .*var_ must hold variances",
    "CategoricalNB NaN log-probability": "ModelFormatError: .*feature_log_prob_ contains NaN",
    "MultinomialNB header of 45 MB of {}": "ModelFormatError: .*header",
    "MultinomialNB unknown header key": r"ModelFormatError: .*unknown header entries \['note'\]",
    "MultinomialNB unknown key in the model": r"ModelFormatError: .*\['extra'\]",
    "MultinomialNB unknown key in the summary": r"ModelFormatError: .*\['extra'\]",
    "MultinomialNB unknown key in an array entry": r"ModelFormatError: .*invalid array entry",
    "MultinomialNB summary naming other classes": "ModelFormatError: .*summary",
    "MultinomialNB big-endian classes_ beyond U+10FFFF": "ModelFormatError: .*beyond the Unicode range",
    "MultinomialNB big-endian classes_ beyond U+10FFFF (mmap)": "ModelFormatError: .*beyond the Unicode range",
    "GaussianNB epsilon_ a list (broadcast)": "ModelFormatError: .*epsilon_",
    "vectorizer input='filename'": "ModelFormatError: .*input='content'",
    "vectorizer input='file'": "ModelFormatError: .*input='content'",
    "vectorizer ngram_range=(1, 100000)": "ModelFormatError: .*ngram_range",
    "vectorizer char analyzer with a huge range": "ModelFormatError: .*ngram_range",
    "vectorizer char analyzer with n-grams of 1 to 10": "ModelFormatError: .*ngram_range=\\(1, 10\\) with "
                                                         "analyzer='char'.* at most 20",
    "vectorizer char_wb analyzer with n-grams of 3 to 7": "ModelFormatError: .*ngram_range=\\(3, 7\\) with "
                                                          "analyzer='char_wb'",
    "vectorizer char analyzer with n-grams of 2 to 6": "ok",
    "vectorizer word analyzer with n-grams of 1 to 10": "ok",
    "vectorizer backtracking token_pattern": "ModelFormatError: .*token_pattern=.* is not one of nbfast's safe",
    "vectorizer token_pattern outside the allow-list, trusted": "ok",
    "vectorizer preprocessor named by a string": "ModelFormatError: .*preprocessor",
    "vectorizer encoding of a non-text codec": "ModelFormatError: .*encoding",
    "vocabulary a string": "ModelFormatError: .*list of strings",
    "vocabulary of numbers": "ModelFormatError: .*list of strings",
    "vocabulary with a term twice": "ModelFormatError: .*listed twice",
    "vocabulary shorter than the model": "ModelFormatError: .*2 terms, the model has 5 features",
    "vocabulary of 10**6 terms for a 4-feature model": "ModelFormatError: .*1000000 terms, the model has 5",
    "vocabulary missing": "ModelFormatError: .*invalid vectorizer entry",
    "vocabulary as a mapping": "ModelFormatError: .*list of strings",
    "vocabulary and a fixed vocabulary parameter": r"ModelFormatError: .*\['vocabulary'\]",
    "vocabulary on a HashingVectorizer": "ModelFormatError: .*invalid vectorizer entry",
    "idf NaN": "ModelFormatError: .*NaN is not a number",
    "idf infinite": "ModelFormatError: .*Infinity is not a number",
    "idf negative": "ModelFormatError: .*finite positive",
    "idf zero": "ModelFormatError: .*finite positive",
    "idf a boolean": "ModelFormatError: .*finite positive",
    "idf a string": "ModelFormatError: .*finite positive",
    "idf too short": "ModelFormatError: .*hold 5 finite positive",
    "idf not base64": "ModelFormatError: .*hold 5 finite positive",
    "idf base64 of a part of a float": "ModelFormatError: .*hold 5 finite positive",
    "idf base64 of one weight": "ModelFormatError: .*hold 5 finite positive",
    "idf base64 of a NaN": "ModelFormatError: .*hold 5 finite positive",
    "idf base64 a number": "ModelFormatError: .*hold 5 finite positive",
    "idf base64 and another entry": "ModelFormatError: .*hold 5 finite positive",
    "idf missing": "ModelFormatError: .*invalid vectorizer entry",
    "idf with use_idf=False": "ModelFormatError: .*invalid vectorizer entry",
    "vocabulary vectorizer use_idf a string": "ModelFormatError: .*use_idf",
    "vocabulary vectorizer dtype object": "ModelFormatError: .*invalid vectorizer dtype",
    "vocabulary vectorizer backtracking token_pattern": "ModelFormatError: .*is not one of nbfast's safe",
    "vocabulary vectorizer class unknown": "ModelFormatError: .*invalid vectorizer entry",
    "vocabulary with lone surrogates and odd terms": "ok",
}


#: Each file is refused (or loads and predicts), in a child interpreter that no case may crash.
test_hostile_file_is_refused_never_a_crash = isolated.case_test(__file__, CASES, EXPECTED)


def _outcome(load, source, name):
    """"ok", or the error ``load(source)`` raised, its message without the name of the source (``name: ``)."""
    try:
        load(source)
    except (ModelFormatError, ValueError, TypeError) as exc:
        message = str(exc)
        assert message.startswith(f"{name}: "), message
        return type(exc).__name__, message[len(name) + 2:]
    return "ok"


@pytest.mark.parametrize("name", [name for name, case in CASES.items() if not getattr(case.load, "keywords", {})
                                  .get("mmap")])
def test_hostile_bytes_are_refused_as_the_file_is(name, tmp_path):
    """The same checks whatever the model comes from: each crafted file, given as bytes or as a file object,
    ends as it does from its path."""
    case = CASES[name]
    raw = case.crafted()
    path = tmp_path / "crafted.nbf"
    path.write_bytes(raw)
    expected = _outcome(case.load, path, str(path))
    assert _outcome(case.load, raw, "<bytes>") == expected
    with open(path, "rb") as f:
        assert _outcome(case.load, io.BytesIO(f.read()), "<file object>") == expected


@pytest.mark.parametrize("stem", ["MultinomialNB-str", "CategoricalNB-str"])
@pytest.mark.parametrize("mmap", [False, True])
def test_arrays_in_either_byte_order_load_the_same(stem, mmap, tmp_path):
    raw = _stored(stem)
    for attribute in ("classes_", "class_count_"):
        raw = _with_byte_order(raw, _array_index(raw, attribute), ">")
    (tmp_path / "big.nbf").write_bytes(raw)
    (tmp_path / "little.nbf").write_bytes(_stored(stem))
    big, little = nbfast.load(tmp_path / "big.nbf", mmap=mmap), nbfast.load(tmp_path / "little.nbf")
    assert big.classes_.dtype.isnative and big.class_count_.dtype.isnative
    np.testing.assert_array_equal(big.classes_, little.classes_)
    X = np.random.default_rng(0).integers(0, 3, size=(5, little.n_features_in_)).astype(np.float64)
    np.testing.assert_array_equal(big.predict_proba(X), little.predict_proba(X))


def test_info_shows_long_strings_cut(tmp_path, capsys):
    (tmp_path / "long.nbf").write_bytes(_long_class_name(50 << 20))
    assert cli_main(["info", str(tmp_path / "long.nbf")]) == 0
    out = capsys.readouterr().out
    assert len(out) < 4000
    assert "characters" in out


def test_save_refuses_a_vectorizer_that_load_would_refuse(tmp_path):
    model = nbfast.MultinomialNB().fit(np.eye(4), [0, 1, 0, 1])
    for params in ({"input": "filename"}, {"ngram_range": (1, 1000)}, {"analyzer": "char", "ngram_range": (1, 10)}):
        with pytest.raises(ValueError):
            nbfast.save(model, tmp_path / "m.nbf", vectorizer=HashingVectorizer(n_features=4, **params))
    assert not (tmp_path / "m.nbf").exists()


def test_a_token_pattern_outside_the_allow_list_needs_trust(tmp_path):
    pytest.importorskip("sklearn")
    model = nbfast.MultinomialNB().fit(np.eye(4), [0, 1, 0, 1])
    vectorizer = HashingVectorizer(n_features=4, token_pattern=r"[a-z]{3,}", alternate_sign=False)
    nbfast.save(model, tmp_path / "m.nbf", vectorizer=vectorizer)
    with pytest.raises(ModelFormatError, match="trust=True"):
        persist.load_vectorizer(tmp_path / "m.nbf")
    assert persist.load_vectorizer(tmp_path / "m.nbf", trust=True).get_params() == vectorizer.get_params()
