"""``read_info``: a model file described from its header alone, without reading its arrays."""

import os

import numpy as np

from nbfast.persist._container import ModelFormatError, _is_count, _read_header
from nbfast.persist._training_input import check_training_input_entry


def _describe(value, entries):
    """A short display of a tagged JSON value, without reading any array."""
    if isinstance(value, list):
        return "[" + ", ".join(_describe(v, entries) for v in value) + "]"
    if not isinstance(value, dict):
        return repr(value)
    if "__ndarray__" in value:
        entry = entries[value["__ndarray__"]]
        dtype = "object" if value.get("object") else entry["dtype"].name
        return f"array(shape={entry['shape']}, dtype={dtype})"
    if "__scalar__" in value:
        return repr(value["value"])
    if "__tuple__" in value:
        items = [_describe(v, entries) for v in value["__tuple__"]]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if "__slice__" in value:
        return "slice(" + ", ".join(_describe(v, entries) for v in value["__slice__"]) + ")"
    if "__dict__" in value:
        return "{" + ", ".join(f"{k!r}: {_describe(v, entries)}" for k, v in value["__dict__"].items()) + "}"
    spec = value["__estimator__"]
    return f"{spec['class']}(" + ", ".join(f"{k}={_describe(v, entries)}" for k, v in spec["params"].items()) + ")"


#: The longest display of a single value: a header is data from a stranger, and may hold strings of megabytes.
MAX_SHOWN = 200


def _escaped(char):
    """A character that is not printable (a control character: ESC, CR, a bidirectional override, a line
    separator, ...) as a Python escape, so that it cannot move the cursor, recolour or fake a line."""
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shorten(text, limit=MAX_SHOWN):
    """``text`` for a terminal: its characters that are not printable escaped, and only its beginning and its
    length when it (or its escaped form) is longer than ``limit`` characters."""
    head = "".join(c if c.isprintable() else _escaped(c) for c in text[:limit])
    return head if len(text) <= limit and len(head) <= limit else f"{head[:limit]}... ({len(text):,} characters)"


def _describe_vectorizer(spec):
    """The class and parameters, then the size of a stored vocabulary (never its terms)."""
    if spec is None:
        return None
    text = f"{spec['class']}(" + ", ".join(f"{k}={_describe(v, [])}" for k, v in spec["params"].items()) + ")"
    text = shorten(text, 4 * MAX_SHOWN)
    terms = spec.get("vocabulary")
    if isinstance(terms, list):
        text += f", vocabulary of {len(terms):,} terms" + (", idf weights" if "idf" in spec else "")
    return text


def _describe_training_input(entry):
    if entry is None:
        return None
    entry = check_training_input_entry(entry)
    if entry["kind"] == "text":
        return "raw text"
    base = {True: "zero-based", False: "one-based", None: None}[entry["zero_based"]]
    return "feature vectors" + (f" (svmlight indices {base})" if base else "")


#: The alphas of a cross-validated search whose scores ``read_info`` reads, at most (a header may claim millions).
MAX_SEARCH_ROWS = 100
#: The entries of a search's ``cv_results_`` that ``read_info`` reads: one number per alpha each.
_SEARCH_COLUMNS = ("param_alpha", "mean_test_score", "std_test_score", "rank_test_score")


def _number_column(ref, entries):
    """The array table's entry of a reference to a 1-D array of numbers, or None when ``ref`` is not one."""
    if not isinstance(ref, dict) or set(ref) != {"__ndarray__"} or not _is_count(ref["__ndarray__"]) or \
            ref["__ndarray__"] >= len(entries):
        return None
    entry = entries[ref["__ndarray__"]]
    return entry if len(entry["shape"]) == 1 and entry["dtype"].kind in "iuf" else None


def _read_head(f, data_start, entry, n):
    """The first ``n`` values of a 1-D array of the data section, as Python floats."""
    count = min(n, entry["shape"][0])
    f.seek(data_start + entry["offset"])
    return np.frombuffer(f.read(count * entry["dtype"].itemsize), dtype=entry["dtype"], count=count).tolist()


def _search_scores(f, data_start, spec, entries):
    """The scores of a cross-validated search (a CV estimator's ``cv_results_``): its scoring, number of folds,
    number of alphas, and the first MAX_SEARCH_ROWS alphas with their mean, standard deviation and rank of
    test scores; None for a model without them."""
    fitted = spec.get("fitted") or {}
    results = fitted.get("cv_results_")
    if not isinstance(results, dict) or not isinstance(results.get("__dict__"), dict):
        return None
    columns = {name: _number_column(results["__dict__"].get(name), entries) for name in _SEARCH_COLUMNS}
    if None in columns.values() or len({entry["shape"] for entry in columns.values()}) != 1:
        return None
    n_splits = fitted.get("n_splits_")
    return {"scoring": shorten(str(spec["params"].get("scoring"))),
            "n_splits": n_splits if _is_count(n_splits) else None,
            "n_alphas": columns["param_alpha"]["shape"][0],
            **{name: _read_head(f, data_start, entry, MAX_SEARCH_ROWS) for name, entry in columns.items()}}


def read_info(path):
    """Describe a model file from its header, without reading the model's arrays.

    The header checksum is verified; the data checksum is not (use
    :func:`load` for that).  Of the arrays, only a cross-validated search's
    scores are read.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    info : dict
        ``format_version``, ``nbfast_version``, ``class``, ``params`` (name ->
        display string), ``classes`` (list), ``n_features_in``,
        ``has_feature_names``, ``n_arrays``, ``data_nbytes``, ``vectorizer``
        (display string, None when the model has none), ``training_input``
        (how the training input was read, None when not recorded) and
        ``fitted_numbers`` (fitted attributes that are single numbers, such as
        a CalibratedNB's ``temperature_``), ``search`` (a CV estimator's scores
        by alpha: ``scoring``, ``n_splits``, ``n_alphas``, and lists of the
        first 100 alphas' ``param_alpha``, ``mean_test_score``,
        ``std_test_score`` and ``rank_test_score``, read from the data section;
        None for other models).  Every string taken from the file
        is shown safely: characters that are not printable (ESC, CR, line
        breaks, bidirectional overrides) as Python escapes, and a display
        longer than 200 characters cut, saying its length.

    Raises
    ------
    ModelFormatError
        If the header is missing, corrupted or invalid.
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            header, data_start = _read_header(f)
            spec, summary, entries = header["model"], header["summary"], header["arrays"]
            search = _search_scores(f, data_start, spec, entries)
        vectorizer = _describe_vectorizer(header.get("vectorizer"))
        return {
            "format_version": header["format_version"],
            "nbfast_version": shorten(header["nbfast_version"]),
            "class": shorten(str(spec["class"])),
            "params": {shorten(str(k)): shorten(_describe(v, entries)) for k, v in spec["params"].items()},
            "classes": list(summary["classes"]),
            "n_features_in": summary["n_features_in"],
            "has_feature_names": "feature_names_in_" in spec,
            "n_arrays": len(entries),
            "data_nbytes": header["data_nbytes"],
            "vectorizer": vectorizer,
            "training_input": _describe_training_input(header.get("training_input")),
            "fitted_numbers": {shorten(str(name)): value for name, value in (spec.get("fitted") or {}).items()
                               if name != "n_features_in_" and type(value) in (int, float)},
            "search": search,
        }
    except ModelFormatError as exc:
        raise ModelFormatError(f"{path}: {exc}") from None
    except (KeyError, TypeError, IndexError, AttributeError, RecursionError) as exc:
        raise ModelFormatError(f"{path}: invalid header: {exc!r}") from None
