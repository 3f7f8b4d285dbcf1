"""Fuzzing the loader behind the checksums: valid model files of every estimator, their arrays and header values
mutated (checksums recomputed), each loaded in a child interpreter.  A case passes when the file is refused with
ModelFormatError, or loads into a model whose predictions run cleanly, its posteriors finite and summing to 1;
never a signal, a hang (a case may take CASE_TIMEOUT seconds) or an allocation far beyond the file's size
(tracemalloc's peak, load and predictions).

Cases are seeded: ``case <i>`` is the same file on every run; ``PYTHONPATH=tests python
tests/persist/test_model_fuzz.py <i>`` prints what it changed and how it ends.  The suite runs the first
N_CASES; ``NBFAST_FUZZ_CASES=30000`` runs more, by hand."""

import copy
import hashlib
import json
import os
import re
import sys
import tempfile
import tracemalloc
import warnings
from functools import partial
from pathlib import Path

import numpy as np
from support import isolated
from support.crafting import _layout, _raw_header

import nbfast
from nbfast import ModelFormatError
from nbfast.naive_bayes import _counts

N_CASES = int(os.environ.get("NBFAST_FUZZ_CASES", 1200))
CASE_TIMEOUT = 30
DATA = Path(__file__).parents[1] / "data"
STEMS = sorted(path.stem for path in DATA.glob("*.nbf"))
#: The most a case may allocate beyond 16 times the file's size.
ALLOWANCE = 16 << 20

_FLOATS = [np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, 1e308, -1e308, 5e-324, 1e-300, 2.0**53, 0.5]
_INTEGERS = [0, -1, 1, 2, 255, 2**31, -(2**31), 2**53, 2**62, 2**63 - 1, -(2**63), 10**6, 5 * 10**7]
_CODE_POINTS = [0, 0x41, 0xD800, 0x10FFFF, 0x110000, 0xFFFFFFFF]
_JSON_VALUES = [
    None, True, False, 0, -1, 1, 2, 3, 2**31, 2**63, -(2**63), 10**30, 1.5, -0.5, 1e308, "", "x", "C", "F", "<f8",
    ">f8", "<i8", "<U4", "|b1", "<f4", "MultinomialNB", "CategoricalNB", [], {}, [1, 2], [[0, 1]], [3, 4],
    {"__tuple__": [1, 2]}, {"__slice__": [0, 2, None]}, {"__scalar__": "<i8", "value": 2**62},
    {"__scalar__": "<f8", "value": -1.0}, {"__dict__": {}}, {"__estimator__": {"class": "MultinomialNB", "params": {}}},
]


def _paths(node, prefix=()):
    """Every place in a JSON document, as key/index paths."""
    yield prefix
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        yield from _paths(child, (*prefix, key))


def _set(document, path, value):
    node = document
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def _get(document, path):
    for key in path:
        document = document[key]
    return document


# ------------------------------------------------------------------ mutations
def _array_value(rng, header, data):
    """One element of one array set to a hostile value of its kind."""
    entry = header["arrays"][rng.integers(len(header["arrays"]))]
    dtype, count = np.dtype(entry["dtype"]), int(np.prod(entry["shape"], dtype=np.int64))
    if count == 0:
        return "nothing (empty array)"
    view = np.frombuffer(data, dtype=dtype, count=count, offset=entry["offset"])
    k = int(rng.integers(count))
    if dtype.kind == "f":
        value = _FLOATS[rng.integers(len(_FLOATS))]
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        value = int(np.clip(_INTEGERS[rng.integers(len(_INTEGERS))], info.min, info.max))
    elif dtype.kind == "b":
        value = not view[k]
    else:  # a character of a string
        code_unit = np.dtype("u4").newbyteorder(dtype.byteorder)
        view = np.frombuffer(data, dtype=code_unit, count=count * (dtype.itemsize // 4), offset=entry["offset"])
        k = int(rng.integers(view.size))
        value = _CODE_POINTS[rng.integers(len(_CODE_POINTS))]
    view[k] = value
    return f"array at {entry['offset']} [{k}] = {value!r}"


def _array_bytes(rng, header, data):
    """A few random bytes of the data section."""
    positions = rng.integers(len(data), size=rng.integers(1, 4)) if data else []
    for position in positions:
        data[position] = rng.integers(256)
    return f"bytes {list(map(int, positions))} randomized"


def _array_entry(rng, header, data):
    """An array's dtype, shape or order changed, its nbytes kept consistent when the new layout fits."""
    entry = header["arrays"][rng.integers(len(header["arrays"]))]
    what = rng.choice(["dtype", "shape", "order", "reshape", "empty"])
    if what == "dtype":
        itemsize = np.dtype(entry["dtype"]).itemsize
        same_size = {1: ["|b1", "|u1", "|i1"], 4: ["<f4", "<i4", "<U1", ">U1", ">f4"],
                     8: ["<f8", "<i8", "<u8", ">f8", ">i8", "<U2"], 16: ["<U4", ">U4", "<U4"]}
        choices = same_size.get(itemsize, ["<f8"])
        new = choices[rng.integers(len(choices))]
        entry["dtype"] = new
        entry["nbytes"] = int(np.prod(entry["shape"], dtype=np.int64)) * np.dtype(new).itemsize
    elif what == "shape":
        entry["shape"] = [int(n) for n in rng.integers(0, 6, size=rng.integers(0, 3))]
        entry["nbytes"] = int(np.prod(entry["shape"], dtype=np.int64)) * np.dtype(entry["dtype"]).itemsize
    elif what == "reshape":  # the same number of elements in another shape
        size = int(np.prod(entry["shape"], dtype=np.int64))
        divisors = [d for d in range(1, size + 1) if size % d == 0] or [1]
        d = divisors[rng.integers(len(divisors))]
        entry["shape"] = [d, size // d] if rng.random() < 0.7 else [size // d, d, 1]
    elif what == "order":
        entry["order"] = "F" if entry["order"] == "C" else "C"
    else:
        entry["shape"], entry["nbytes"] = [0] * len(entry["shape"]), 0
    return f"array entry at {entry['offset']}: {what} -> {entry['dtype']} {entry['shape']} {entry['order']}"


def _header_value(rng, header, data):
    """A place of the model description (or the summary) replaced by a hostile JSON value."""
    places = [p for p in _paths(header) if p and p[0] in ("model", "summary", "vectorizer")]
    path = places[rng.integers(len(places))]
    value = copy.deepcopy(_JSON_VALUES[rng.integers(len(_JSON_VALUES))])
    if rng.random() < 0.2:  # a reference to another array
        value = {"__ndarray__": int(rng.integers(len(header["arrays"]) + 1))}
    _set(header, path, value)
    return f"header {list(path)} = {json.dumps(value)[:80]}"


def _header_number(rng, header, data):
    """An integer or float of the header nudged: a count off by one, a sign flipped, a power of two."""
    places = [p for p in _paths(header) if p and isinstance(_get(header, p), (int, float))
              and not isinstance(_get(header, p), bool) and p[0] != "format_version"]
    path = places[rng.integers(len(places))]
    old = _get(header, path)
    value = [old + 1, old - 1, -old, old * 2**20, 0][rng.integers(5)]
    _set(header, path, value)
    return f"header {list(path)}: {old!r} -> {value!r}"


def _header_key(rng, header, data):
    """An entry of a dictionary of the header removed, or an unknown one added."""
    places = [p for p in _paths(header) if isinstance(_get(header, p), dict) and _get(header, p)]
    path = places[rng.integers(len(places))]
    node = _get(header, path)
    if rng.random() < 0.5:
        key = list(node)[rng.integers(len(node))]
        del node[key]
        return f"header {list(path)}: {key!r} removed"
    node["unexpected"] = 1
    return f"header {list(path)}: an unknown entry added"


def _array_fill(rng, header, data):
    """One float array (or one of its rows) filled with a non-finite or extreme value."""
    floats = [e for e in header["arrays"] if np.dtype(e["dtype"]).kind == "f" and int(np.prod(e["shape"]))]
    if not floats:
        return "nothing (no float array)"
    entry = floats[rng.integers(len(floats))]
    view = np.frombuffer(data, dtype=entry["dtype"], count=int(np.prod(entry["shape"])), offset=entry["offset"])
    view = view.reshape(entry["shape"], order=entry["order"])
    value = _FLOATS[rng.integers(len(_FLOATS))]
    where = Ellipsis if view.ndim < 2 or rng.random() < 0.5 else int(rng.integers(view.shape[0]))
    view[where] = value
    return f"array at {entry['offset']} {'all' if where is Ellipsis else f'row {where}'} = {value!r}"


def _array_dtype(rng, header, data):
    """A numeric array stored as another numeric dtype no wider than its own (float16, int32, ...), its values
    converted (as a file written by another program could hold them)."""
    numeric = [e for e in header["arrays"] if np.dtype(e["dtype"]).kind in "fiu" and int(np.prod(e["shape"]))]
    if not numeric:
        return "nothing (no numeric array)"
    entry = numeric[rng.integers(len(numeric))]
    old = np.dtype(entry["dtype"])
    choices = [d for d in ("<f2", "<f4", "<f8", "<i4", "<i8", "|u1", ">f8") if np.dtype(d).itemsize <= old.itemsize]
    new = np.dtype(choices[rng.integers(len(choices))])
    count = int(np.prod(entry["shape"]))
    values = np.frombuffer(data, dtype=old, count=count, offset=entry["offset"])
    with np.errstate(all="ignore"):
        converted = values.astype(new)
    data[entry["offset"]: entry["offset"] + converted.nbytes] = converted.tobytes()
    entry["dtype"], entry["nbytes"] = new.str, converted.nbytes
    return f"array at {entry['offset']}: {old.str} -> {new.str}"


#: Numbers a header may be given in place of a fitted number or parameter: extreme, of any size, or wrapped.
_EXTREME_NUMBERS = [1e308, -1e308, 5e-324, -5e-324, 1e-320, 0.0, -1.0, 10**400, -(10**400), 2**64, 2**40,
                    {"__scalar__": "<i8", "value": 2**40}, {"__scalar__": "<i8", "value": -(2**40)},
                    {"__scalar__": "<f8", "value": 5e-324}, {"__scalar__": "<f8", "value": 1e308},
                    {"__scalar__": "<u8", "value": 2**64 - 1}, {"__scalar__": "<f4", "value": 1e300}]
#: Non-finite JSON numbers (Python writes and reads them; JSON has none).
_NON_FINITE_TEXT = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"]


def _header_extreme(rng, header, data):
    """A number of the model description (a parameter, a fitted number, an idf weight) replaced by an extreme
    one, an integer of any size, a wrapped numpy scalar, or a non-finite one."""
    places = [p for p in _paths(header) if p and p[0] in ("model", "summary", "vectorizer")
              and type(_get(header, p)) in (int, float)]
    if not places:
        return "nothing (no number)"
    path = places[rng.integers(len(places))]
    if rng.random() < 0.3:
        value = _NON_FINITE_TEXT[rng.integers(len(_NON_FINITE_TEXT))]
        _set(header, path, _VERBATIM.format(value))
    else:
        value = copy.deepcopy(_EXTREME_NUMBERS[rng.integers(len(_EXTREME_NUMBERS))])
        _set(header, path, value)
    return f"header {list(path)} = {str(value)[:80]}"


#: A string the header's JSON text gets as the bare text it holds (a number JSON cannot spell, such as NaN).
_VERBATIM = "<verbatim {}>"


def _header_text(header):
    """The header as JSON text, each verbatim string replaced by its bare text."""
    return re.sub(r'"<verbatim ([^">]*)>"', r"\1", json.dumps(header))


MUTATIONS = [_array_value, _array_value, _array_bytes, _array_entry, _header_value, _header_value, _header_number,
             _header_key, _array_fill, _array_fill, _array_dtype, _header_extreme, _header_extreme]


def _vectorizer_model():
    model = nbfast.MultinomialNB().fit(np.eye(16), np.arange(16) % 2)
    with tempfile.TemporaryDirectory() as directory:
        nbfast.save(model, Path(directory) / "v.nbf",
                    vectorizer=nbfast.text.HashingVectorizer(n_features=16, alternate_sign=False, norm=None))
        return (Path(directory) / "v.nbf").read_bytes()


def _vocabulary_model():
    documents = [f"w{i} w{(i * 7) % 16} common" for i in range(16)]
    vectorizer = nbfast.text.TfidfVectorizer(ngram_range=(1, 2), min_df=2).fit(documents)
    X = vectorizer.transform(documents)
    model = nbfast.MultinomialNB().fit(X, np.arange(16) % 2)
    with tempfile.TemporaryDirectory() as directory:
        nbfast.save(model, Path(directory) / "v.nbf", vectorizer=vectorizer)
        return (Path(directory) / "v.nbf").read_bytes()


def _compact_model(name):
    """A model of format version 2 in compact form (its statistics by feature)."""
    def make():
        X = np.random.default_rng(3).poisson(0.3, size=(24, 40)).astype(np.float64)
        previous, _counts.REPRESENTATION = _counts.REPRESENTATION, "compact"
        try:
            model = getattr(nbfast, name)().fit(X, np.arange(24) % 3)
        finally:
            _counts.REPRESENTATION = previous
        assert model._is_compact()
        with tempfile.TemporaryDirectory() as directory:
            nbfast.save(model, Path(directory) / "c.nbf")
            return (Path(directory) / "c.nbf").read_bytes()

    return make


#: Models made by the test itself (stored with a vectorizer, or in compact form), beside the committed files.
GENERATED_MODELS = {"vectorizer": _vectorizer_model, "vocabulary": _vocabulary_model,
                     **{f"compact-{name}": _compact_model(name) for name in ("ComplementNB", "PoissonNB",
                                                                               "CategoricalNB", "BernoulliNB")}}


def mutated(i):
    """(file bytes, description) of case ``i``: 1 to 3 mutations of one valid file, checksums recomputed."""
    rng = np.random.default_rng([19, i])
    stems = STEMS + list(GENERATED_MODELS)
    stem = stems[rng.integers(len(stems))]
    raw = GENERATED_MODELS[stem]() if stem in GENERATED_MODELS else (DATA / f"{stem}.nbf").read_bytes()
    header, _, _, data_start = _layout(raw)
    data = bytearray(raw[data_start:])
    done = []
    for _ in range(rng.integers(1, 4)):
        mutation = MUTATIONS[rng.integers(len(MUTATIONS))]
        try:
            done.append(mutation(rng, header, data))
        except (KeyError, IndexError, TypeError, ValueError):  # an earlier mutation removed what this one edits
            done.append(f"{mutation.__name__} skipped")
    header["data_sha256"] = hashlib.sha256(data).hexdigest()
    return _raw_header(raw, _header_text(header)) + bytes(data), f"{stem}: " + "; ".join(done)


# ------------------------------------------------------------------ one case
def _predict_all(model):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(5, model.n_features_in_)).astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in ("predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba"):
            result = getattr(model, method)(X)
            if result.shape[0] != 5:
                raise AssertionError(f"{method} returned shape {result.shape}")
        proba = model.predict_proba(X)
    if not (np.isfinite(proba).all() and np.allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-9)):
        raise AssertionError(f"the loaded model's posteriors are not finite probabilities: {proba[:2]}")


def run_case(i):
    raw, description = mutated(i)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "fuzz.nbf"
        path.write_bytes(raw)
        tracemalloc.start()
        try:
            try:
                model = nbfast.load(path, mmap=bool(i % 2))
                nbfast.persist.read_info(path)
                vectorizer = nbfast.persist.load_vectorizer(path)
            except ModelFormatError:
                model = vectorizer = None
            if model is not None:
                _predict_all(model)
            peak = tracemalloc.get_traced_memory()[1]
            if vectorizer is not None:  # after the measure: the first transform builds a lowercase table once
                vectorizer.transform(["w1 w7 common", "", "w3 unknown w5"])
        except Exception as exc:
            raise type(exc)(f"{exc} [{description}]") from None
        finally:
            tracemalloc.stop()
    if peak > 16 * len(raw) + ALLOWANCE:
        raise AssertionError(f"allocated {peak:,} bytes for a {len(raw):,}-byte file [{description}]")


CASES = {f"case {i}": partial(run_case, i) for i in range(N_CASES)}


def test_mutated_model_files_load_cleanly_or_raise_model_format_error():
    outcomes = isolated.run_cases(__file__, timeout=600)
    bad = {name: result for name, result in outcomes.items() if result != "ok"}
    assert not bad, f"{len(bad)} of {len(outcomes)} cases failed, the first: " + "\n".join(
        f"{name}: {result}" for name, result in list(bad.items())[:10])


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(mutated(int(arg))[1])
        print(isolated.outcome(partial(run_case, int(arg))))
