"""The optional header entry describing the text vectorizer that made a model's input.

``"vectorizer": {"class": "HashingVectorizer", "params": {...}}`` (tagged JSON
values, the dtype by name; no callables), so the same text gets the same
columns at prediction time.  Files without it, and readers that ignore it, are
unaffected.
"""

import numpy as np

from nbfast.persist._codec import _Decoder, _Encoder, _is_plain
from nbfast.persist._container import ModelFormatError
from nbfast.text import HashingVectorizer


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
    spec["dtype"] = np.dtype(params["dtype"]).name
    return {"class": "HashingVectorizer", "params": spec}


def _rebuild_vectorizer(spec, n_features):
    """The HashingVectorizer a header entry describes, checked; ModelFormatError when it is invalid."""

    if not isinstance(spec, dict) or spec.get("class") != "HashingVectorizer" or not isinstance(
            spec.get("params"), dict):
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
    except ValueError as exc:
        raise ModelFormatError(f"invalid vectorizer: {exc}") from None
    if vectorizer.n_features != n_features:
        raise ModelFormatError(f"the vectorizer makes {vectorizer.n_features} features, the model has {n_features}.")
    return vectorizer
