"""What the vectorizers' parameters may be: the choice lists, defined once, and each class's constraints.

scikit-learn's own constraints for the class of the same name (so that its tools accept nbfast's), stricter where
nbfast's kernels need it (``ngram_range``, ``dtype``), wider where they can do more (``n_features``), plus nbfast's ``batch_size`` and ``n_jobs``.
"""

from collections.abc import Mapping
from numbers import Integral

import numpy as np

from nbfast._params import N_JOBS, HasMethods, Interval, RealNotInt, Refined, StrOptions

INPUTS = ("filename", "file", "content")
DECODE_ERRORS = ("strict", "ignore", "replace")
STRIP_ACCENTS = ("ascii", "unicode")
ANALYZERS = ("word", "char", "char_wb")
NORMS = ("l1", "l2")
STOP_LISTS = ("english",)


def _is_bounds(value):
    return isinstance(value, tuple) and len(value) == 2 and all(
        isinstance(n, Integral) and not isinstance(n, bool) and n >= 1 for n in value)


def _inverted(value):
    """scikit-learn's error for an ngram_range whose bounds are in the wrong order (None for other values)."""
    if _is_bounds(value) and value[0] > value[1]:
        return f"Invalid value for ngram_range={value} lower boundary larger than the upper boundary."
    return None


def _is_dtype(value):
    try:
        np.dtype(value)
    except TypeError:
        return False
    return True


_POSITIVE = Interval(Integral, 1, None, closed="left")
_DOCUMENT_FREQUENCY = [Interval(RealNotInt, 0, 1, closed="both"), Interval(Integral, 1, None, closed="left")]

#: The options every vectorizer shares with scikit-learn's _VectorizerMixin, and nbfast's.
ANALYSIS = {
    "input": [StrOptions(INPUTS)],
    "encoding": [str],
    "decode_error": [StrOptions(DECODE_ERRORS)],
    "strip_accents": [StrOptions(STRIP_ACCENTS), None, callable],
    "lowercase": ["boolean"],
    "preprocessor": [callable, None],
    "tokenizer": [callable, None],
    "stop_words": [StrOptions(STOP_LISTS), list, None],
    "token_pattern": [str, None],
    "ngram_range": [Refined(lambda value: _is_bounds(value) and value[0] <= value[1],
                            "a tuple (min_n, max_n) of ints with 1 <= min_n <= max_n", sklearn=tuple, explain=_inverted)],
    "analyzer": [StrOptions(ANALYZERS), callable],
    "binary": ["boolean"],
    "dtype": [Refined(_is_dtype, "a numpy data type", sklearn="no_validation")],
    "batch_size": [_POSITIVE],
    **N_JOBS,
}

HASHING = {
    **ANALYSIS,
    # any positive int (int64 column indices past int32's), where scikit-learn's fit stops at int32's
    "n_features": [Refined(_POSITIVE.is_satisfied_by, str(_POSITIVE),
                           sklearn=Interval(Integral, 1, np.iinfo(np.int32).max, closed="left"))],
    "norm": [StrOptions(NORMS), None],
    "alternate_sign": ["boolean"],
}

COUNT = {
    **ANALYSIS,
    "max_df": _DOCUMENT_FREQUENCY,
    "min_df": _DOCUMENT_FREQUENCY,
    "max_features": [_POSITIVE, None],
    "vocabulary": [Mapping, HasMethods("__iter__"), None],
}

TFIDF = {
    "norm": [StrOptions(NORMS), None],
    "use_idf": ["boolean"],
    "smooth_idf": ["boolean"],
    "sublinear_tf": ["boolean"],
}
