"""The optional header entry describing the text vectorizer that made a model's input.

``"vectorizer": {"class": "HashingVectorizer", "params": {...}}`` (tagged JSON
values, the dtype by name; no callables), so the same text gets the same
columns at prediction time.  Files without it, and readers that ignore it, are
unaffected.
"""

import codecs

import numpy as np

from nbfast.persist._codec import _Decoder, _Encoder, _is_plain
from nbfast.persist._container import ModelFormatError
from nbfast.text import HashingVectorizer
from nbfast.text._hashing import DEFAULT_TOKEN_PATTERN

#: The longest n-grams a stored vectorizer may make (words or characters).
MAX_STORED_NGRAM = 10
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
    known values for every option, and a token pattern from
    ``SAFE_TOKEN_PATTERNS`` unless ``trust`` (the file's author is trusted).
    """
    v = vectorizer
    if v.input != "content":
        raise ValueError(f"input={v.input!r}: a stored vectorizer takes documents as input='content' only.")
    if v.analyzer not in ("word", "char", "char_wb") or v.preprocessor is not None or v.tokenizer is not None:
        raise ValueError("a stored vectorizer has no callables: analyzer is 'word', 'char' or 'char_wb', "
                         "preprocessor and tokenizer are None.")
    if v.ngram_range[1] > MAX_STORED_NGRAM:
        raise ValueError(f"ngram_range={v.ngram_range!r}: a stored vectorizer makes n-grams of at most "
                         f"{MAX_STORED_NGRAM}.")
    if v.strip_accents not in (None, "ascii", "unicode") or v.decode_error not in ("strict", "ignore", "replace"):
        raise ValueError("strip_accents must be None, 'ascii' or 'unicode', decode_error 'strict', 'ignore' or "
                         "'replace'.")
    if not (isinstance(v.encoding, str) and _is_text_encoding(v.encoding)):
        raise ValueError(f"encoding={str(v.encoding)[:40]!r} is not a text encoding.")
    if not (v.stop_words is None or v.stop_words == "english" or (
            isinstance(v.stop_words, (list, tuple)) and all(isinstance(w, str) for w in v.stop_words))):
        raise ValueError("stop_words must be None, 'english' or a list of strings.")
    if not all(isinstance(getattr(v, name), bool) for name in ("lowercase", "binary", "alternate_sign")):
        raise ValueError("lowercase, binary and alternate_sign must be booleans.")
    if not trust and v.token_pattern not in SAFE_TOKEN_PATTERNS:
        raise ValueError(f"token_pattern={str(v.token_pattern)[:60]!r} is not one of nbfast's safe patterns: a "
                         "regular expression from a file can take forever on crafted text. Load the vectorizer with "
                         "trust=True if you trust the file's author.")


def _vectorizer_spec(vectorizer, n_features):
    """The header entry describing a HashingVectorizer: its parameters as tagged JSON, without arrays."""

    if type(vectorizer) is not HashingVectorizer:
        raise TypeError(f"cannot save vectorizer: {type(vectorizer).__name__} is not nbfast.text.HashingVectorizer.")
    vectorizer._validate_params()
    if vectorizer.n_features != n_features:
        raise ValueError(f"the vectorizer makes {vectorizer.n_features} features, the model has {n_features}.")
    encoder, params = _Encoder(), vectorizer.get_params(deep=False)
    spec = {k: encoder.value(v, f"vectorizer.{k}") for k, v in params.items() if k != "dtype"}
    if encoder.arrays:
        raise TypeError("cannot save vectorizer: its parameters may not hold arrays.")
    try:
        check_stored_settings(vectorizer, trust=True)  # a token pattern outside the safe ones needs trust to load
    except ValueError as exc:
        raise ValueError(f"cannot save vectorizer: {exc}") from None
    spec["dtype"] = np.dtype(params["dtype"]).name
    return {"class": "HashingVectorizer", "params": spec}


def _rebuild_vectorizer(spec, n_features, trust=False):
    """The HashingVectorizer a header entry describes, checked; ModelFormatError when it is invalid.

    ``trust`` allows a token pattern outside the safe ones (:func:`check_stored_settings`).
    """

    if not isinstance(spec, dict) or spec.get("class") != "HashingVectorizer" or not isinstance(
            spec.get("params"), dict) or set(spec) != {"class", "params"}:
        raise ModelFormatError("invalid vectorizer entry: only nbfast.text.HashingVectorizer can be stored.")
    params = dict(spec["params"])
    unknown = set(params) - set(HashingVectorizer._get_param_names())
    if unknown:
        raise ModelFormatError(f"HashingVectorizer has no parameters {sorted(unknown)}.")
    dtype = params.pop("dtype", "float64")
    if dtype not in ("float32", "float64"):
        raise ModelFormatError(f"invalid vectorizer dtype {dtype!r}.")
    params = {k: _Decoder([]).value(v) for k, v in params.items()}
    if not all(_is_plain(v) for v in params.values()):
        raise ModelFormatError("invalid vectorizer entry: parameters must be plain JSON values.")
    try:
        vectorizer = HashingVectorizer(dtype=np.dtype(dtype).type, **params)
        vectorizer._validate_params()
        check_stored_settings(vectorizer, trust)
    except ValueError as exc:
        raise ModelFormatError(f"invalid vectorizer: {exc}") from None
    if vectorizer.n_features != n_features:
        raise ModelFormatError(f"the vectorizer makes {vectorizer.n_features} features, the model has {n_features}.")
    return vectorizer
