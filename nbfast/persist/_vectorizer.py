"""The optional header entry describing the text vectorizer that made a model's input.

``"vectorizer": {"class": "HashingVectorizer", "params": {...}}`` (tagged JSON
values, the dtype by name; no callables), so the same text gets the same
columns at prediction time.  A fitted CountVectorizer or TfidfVectorizer adds
its vocabulary, ``"vocabulary": [term of column 0, term of column 1, ...]``
(so the indices are 0 .. n_features - 1 by construction), and a
TfidfVectorizer with ``use_idf`` its ``"idf": {"float64_base64": "..."}``: the
base64 of the weights' little-endian float64 bytes (files of format version 2
and before hold a list of JSON numbers, which is read as well).
Files without the entry, and readers that ignore it, are unaffected.
"""

import base64
import binascii
import codecs

import numpy as np

from nbfast._params import check_parameters
from nbfast.persist._codec import _Decoder, _Encoder, _is_plain
from nbfast.persist._container import ModelFormatError
from nbfast.text import VECTORIZERS, CountVectorizer, HashingVectorizer, TfidfVectorizer
from nbfast.text._hashing import DEFAULT_TOKEN_PATTERN
from nbfast.text._params import ANALYZERS, STRIP_ACCENTS

#: The dtypes each vectorizer a model file may name may make.
STORED_VECTORIZERS = {
    HashingVectorizer: ("float32", "float64"),
    CountVectorizer: ("int32", "int64", "float32", "float64"),
    TfidfVectorizer: ("float32", "float64"),
}
_BY_NAME = VECTORIZERS

#: The longest n-grams a stored vectorizer may make (words or characters).
MAX_STORED_NGRAM = 10
#: A stored character analyzer makes, for every character of a document, one n-gram of each length of its
#: ngram_range: at most this many characters of n-grams per character of input (the sum of the lengths; (2, 5)
#: is 14, (2, 6) 20, (1, 10) 55: 1.1 GB and 16 s for a document of 1 MB).
MAX_STORED_CHAR_NGRAM_WORK = 20
#: Token patterns a stored vectorizer may use without ``trust=True``: a regular expression from a file could
#: backtrack catastrophically on crafted text.
SAFE_TOKEN_PATTERNS = (DEFAULT_TOKEN_PATTERN, r"(?u)\b\w+\b", r"\b\w\w+\b", r"\b\w+\b", r"\S+", r"(?u)\S+")


def _is_text_encoding(name):
    try:
        return codecs.lookup(name)._is_text_encoding
    except (LookupError, TypeError):
        return False


def check_stored_settings(vectorizer, trust=False):
    """Refuse vectorizer settings that a model file may not carry (ValueError naming the setting).

    A stored vectorizer runs on whatever ``nbfast predict`` reads, so its
    settings are data from a stranger: documents are content only (never file
    names to open), n-grams at most ``MAX_STORED_NGRAM`` long, no callables,
    character n-grams of lengths summing to at most ``MAX_STORED_CHAR_NGRAM_WORK`` (the n-gram characters made per
    character of input), known values for every option (after the checks every parameter passes,
    :func:`nbfast._params.check_parameters`), and a token pattern from
    ``SAFE_TOKEN_PATTERNS`` unless ``trust`` (the file's author is trusted).
    """
    v = vectorizer
    if v.input != "content":
        raise ValueError(f"input={v.input!r}: a stored vectorizer takes documents as input='content' only.")
    if v.analyzer not in ANALYZERS or v.preprocessor is not None or v.tokenizer is not None:
        raise ValueError("a stored vectorizer has no callables: analyzer is 'word', 'char' or 'char_wb', "
                         "preprocessor and tokenizer are None.")
    if v.ngram_range[1] > MAX_STORED_NGRAM:
        raise ValueError(f"ngram_range={v.ngram_range!r}: a stored vectorizer makes n-grams of at most "
                         f"{MAX_STORED_NGRAM}.")
    low, high = v.ngram_range
    if v.analyzer != "word" and (high - low + 1) * (low + high) // 2 > MAX_STORED_CHAR_NGRAM_WORK:
        raise ValueError(f"ngram_range={v.ngram_range!r} with analyzer={v.analyzer!r}: the n-grams of one character "
                         f"of input would hold {(high - low + 1) * (low + high) // 2} characters; a stored character "
                         f"analyzer makes at most {MAX_STORED_CHAR_NGRAM_WORK} (the sum of its n-gram lengths), such "
                         "as ngram_range=(2, 5) or (2, 6).")
    if v.strip_accents is not None and v.strip_accents not in STRIP_ACCENTS:
        raise ValueError(f"strip_accents must be None or one of {', '.join(map(repr, STRIP_ACCENTS))}: a stored "
                         "vectorizer has no callables.")
    if not (isinstance(v.encoding, str) and _is_text_encoding(v.encoding)):
        raise ValueError(f"encoding={str(v.encoding)[:40]!r} is not a text encoding.")
    if not (v.stop_words is None or v.stop_words == "english" or (
            isinstance(v.stop_words, (list, tuple)) and all(isinstance(w, str) for w in v.stop_words))):
        raise ValueError("stop_words must be None, 'english' or a list of strings.")
    flags = [name for name in ("lowercase", "binary", "alternate_sign", "use_idf", "smooth_idf", "sublinear_tf")
             if hasattr(v, name)]
    if not all(isinstance(getattr(v, name), bool) for name in flags):
        raise ValueError(f"{', '.join(flags)} must be booleans.")
    if not trust and v.token_pattern not in SAFE_TOKEN_PATTERNS:
        raise ValueError(f"token_pattern={str(v.token_pattern)[:60]!r} is not one of nbfast's safe patterns: a "
                         "regular expression from a file can take forever on crafted text. Load the vectorizer with "
                         "trust=True if you trust the file's author.")


def _vectorizer_spec(vectorizer, n_features):
    """The header entry describing a vectorizer: its parameters as tagged JSON, a fitted vocabulary and idf."""

    cls = type(vectorizer)
    if _BY_NAME.get(cls.__name__) is not cls:
        raise TypeError(f"cannot save vectorizer: {cls.__name__} is not one of nbfast.text's "
                        f"{', '.join(_BY_NAME)}.")
    check_parameters(vectorizer)
    encoder, params = _Encoder(), vectorizer.get_params(deep=False)
    params.pop("vocabulary", None)  # a fixed vocabulary is stored as the fitted one
    spec = {k: encoder.value(v, f"vectorizer.{k}") for k, v in params.items() if k != "dtype"}
    if encoder.arrays:
        raise TypeError("cannot save vectorizer: its parameters may not hold arrays.")
    try:
        check_stored_settings(vectorizer, trust=True)  # a token pattern outside the safe ones needs trust to load
    except ValueError as exc:
        raise ValueError(f"cannot save vectorizer: {exc}") from None
    spec["dtype"] = np.dtype(params["dtype"]).name
    entry = {"class": cls.__name__, "params": spec}
    if cls is HashingVectorizer:
        if vectorizer.n_features != n_features:
            raise ValueError(f"the vectorizer makes {vectorizer.n_features} features, the model has {n_features}.")
    else:
        entry.update(_fitted_entries(vectorizer, n_features))
    return entry


def _fitted_entries(vectorizer, n_features):
    """``vocabulary`` (the terms by column) and, with idf weights, ``idf`` of a fitted vocabulary vectorizer."""
    if vectorizer._n_terms() is None:  # vocabulary_ not built as a dict for it
        raise ValueError(f"cannot save vectorizer: this {type(vectorizer).__name__} is not fitted.")
    terms = vectorizer.get_feature_names_out().tolist()
    if not all(type(term) is str for term in terms):
        raise TypeError("cannot save vectorizer: the terms of its vocabulary must be strings.")
    if len(terms) != n_features:
        raise ValueError(f"the vectorizer makes {len(terms)} features, the model has {n_features}.")
    entries = {"vocabulary": terms}
    if isinstance(vectorizer, TfidfVectorizer) and vectorizer.use_idf:
        weights = np.asarray(vectorizer.idf_, dtype="<f8").tobytes()
        entries["idf"] = {"float64_base64": base64.b64encode(weights).decode("ascii")}
    return entries


def _rebuild_vectorizer(spec, n_features, trust=False):
    """The vectorizer a header entry describes, checked; ModelFormatError when it is invalid.

    ``trust`` allows a token pattern outside the safe ones (:func:`check_stored_settings`).
    """

    cls = _BY_NAME.get(spec.get("class")) if isinstance(spec, dict) and isinstance(spec.get("class"), str) else None
    expected = {"class", "params"} if cls is HashingVectorizer else {"class", "params", "vocabulary"}
    if cls is TfidfVectorizer and isinstance(spec.get("params"), dict) and spec["params"].get("use_idf", True):
        expected = expected | {"idf"}
    if cls is None or not isinstance(spec.get("params"), dict) or set(spec) != expected:
        raise ModelFormatError(f"invalid vectorizer entry: only nbfast.text's {', '.join(_BY_NAME)} can be stored, "
                               "with their parameters, and the vocabulary (and idf) of a fitted one.")
    params = dict(spec["params"])
    unknown = set(params) - set(cls._get_param_names()) | ({"vocabulary"} & set(params))
    if unknown:
        raise ModelFormatError(f"{cls.__name__} has no parameters {sorted(unknown)} a file may set.")
    dtype = params.pop("dtype", cls().dtype.__name__)
    if dtype not in STORED_VECTORIZERS[cls]:
        raise ModelFormatError(f"invalid vectorizer dtype {str(dtype)[:40]!r}.")
    params = {k: _Decoder([]).value(v) for k, v in params.items()}
    if not all(_is_plain(v) for v in params.values()):
        raise ModelFormatError("invalid vectorizer entry: parameters must be plain JSON values.")
    try:
        vectorizer = cls(dtype=np.dtype(dtype).type, **params)
        check_parameters(vectorizer)
        check_stored_settings(vectorizer, trust)
    except ValueError as exc:
        raise ModelFormatError(f"invalid vectorizer: {exc}") from None
    if cls is HashingVectorizer:
        if vectorizer.n_features != n_features:
            raise ModelFormatError(f"the vectorizer makes {vectorizer.n_features} features, the model has "
                                   f"{n_features}.")
    else:
        _install_fitted(vectorizer, spec, n_features)
    return vectorizer


def _install_fitted(vectorizer, spec, n_features):
    """Give a vocabulary vectorizer the vocabulary (and idf) of the entry, checked against the model's width."""
    terms = spec["vocabulary"]
    if not isinstance(terms, list) or not set(map(type, terms)) <= {str}:
        raise ModelFormatError("invalid vectorizer vocabulary: it must be a list of strings.")
    if len(terms) != n_features or not terms:
        raise ModelFormatError(f"the vectorizer's vocabulary has {len(terms)} terms, the model has "
                               f"{str(n_features)[:40]} features.")
    try:
        vectorizer._set_terms(terms)
    except ValueError:
        raise ModelFormatError("invalid vectorizer vocabulary: a term is listed twice.") from None
    if isinstance(vectorizer, TfidfVectorizer):
        vectorizer._tfidf = vectorizer._transformer()
        vectorizer._tfidf.n_features_in_ = len(terms)
        if vectorizer.use_idf:
            vectorizer.idf_ = _checked_idf(spec["idf"], len(terms), vectorizer.dtype)


def _stored_idf(idf):
    """The weights an idf entry holds as float64, or None when it is neither of the forms a file may hold."""
    if isinstance(idf, dict) and set(idf) == {"float64_base64"} and isinstance(idf["float64_base64"], str):
        try:
            weights = base64.b64decode(idf["float64_base64"], validate=True)
        except binascii.Error:
            return None
        return np.frombuffer(weights, dtype="<f8").astype(np.float64) if len(weights) % 8 == 0 else None
    if isinstance(idf, list) and set(map(type, idf)) <= {int, float}:  # format version 2 and before
        return np.array(idf, dtype=np.float64)  # header integers fit in int64 or uint64: exact enough here
    return None


def _checked_idf(idf, n_features, dtype):
    """The stored idf as an array: ``n_features`` finite positive numbers."""
    values = _stored_idf(idf)
    if values is None or values.shape != (n_features,) or not (np.isfinite(values).all() and (values > 0).all()):
        raise ModelFormatError(f"invalid vectorizer idf: it must hold {n_features} finite positive numbers.")
    return values.astype(np.float32) if np.dtype(dtype) == np.float32 else values
