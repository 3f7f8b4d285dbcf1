"""Model files: bit-identical round trips, a battery of bad files, a fuzz test, old files, pickle and info."""

import copy
import io
import mmap
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.crafting import _deeply_nested, _layout, _raw_header, _with_data, _with_header
from support.helpers import ALL_ESTIMATORS, LABEL_KINDS, data_for, estimator_params, labels_of_kind

import nbfast
from nbfast import ModelFormatError, persist
from nbfast.cli import main as cli_main
from nbfast.naive_bayes._base import _BaseNB

DATA = Path(__file__).parents[1] / "data"
#: Every estimator a model file may hold (the registry, checked below).
ESTIMATORS = ALL_ESTIMATORS


def fitted(name, labels="int", **params):
    """A fitted nbfast estimator and its training X."""
    X, y = data_for(name)
    params = {**estimator_params(name, labels), **params}
    return getattr(nbfast, name)(**params).fit(X, labels_of_kind(y, labels)), X


def assert_same_state(a, b, name):
    """Equal values, types and dtypes, recursing into lists, dicts and fitted parts."""
    assert type(a) is type(b), name
    if isinstance(b, (list, tuple)):
        assert len(a) == len(b), name
        for i, (u, v) in enumerate(zip(a, b)):
            assert_same_state(u, v, f"{name}[{i}]")
    elif isinstance(b, dict):  # a search's cv_results_
        assert list(a) == list(b), name
        for key in b:
            assert_same_state(a[key], b[key], f"{name}[{key!r}]")
    elif hasattr(b, "_fitted_attributes"):
        assert repr(a.get_params()) == repr(b.get_params()), name
        for attribute in type(b)._fitted_attributes:
            assert_same_state(getattr(a, attribute), getattr(b, attribute), f"{name}.{attribute}")
    else:
        np.testing.assert_array_equal(a, b, err_msg=name)
        assert np.asarray(a).dtype == np.asarray(b).dtype, name


def assert_same_model(loaded, model, X):
    """Same class, parameters, fitted attributes (values and dtypes) and bit-identical outputs."""
    assert type(loaded) is type(model)
    assert repr(loaded.get_params()) == repr(model.get_params())
    for name in type(model)._fitted_attributes + ("feature_names_in_",):
        assert_same_state(getattr(loaded, name, None), getattr(model, name, None), name)
    labels = loaded.predict(X)
    assert labels.dtype == model.predict(X).dtype
    np.testing.assert_array_equal(labels, model.predict(X))
    for method in ("predict_proba", "predict_log_proba", "predict_joint_log_proba"):
        np.testing.assert_array_equal(getattr(loaded, method)(X), getattr(model, method)(X), err_msg=method)


# ----------------------------------------------------------------------- round trips
def test_every_estimator_that_can_be_saved_is_tested():
    from nbfast.naive_bayes import ESTIMATORS as REGISTERED

    assert sorted(REGISTERED) == ESTIMATORS


@pytest.mark.parametrize("mmap_mode", [False, True], ids=["read", "mmap"])
@pytest.mark.parametrize("labels", LABEL_KINDS)
@pytest.mark.parametrize("name", ESTIMATORS)
def test_round_trip_is_bit_identical(name, labels, mmap_mode, tmp_path):
    model, X = fitted(name, labels)
    nbfast.save(model, tmp_path / "model.nbf")
    assert_same_model(nbfast.load(tmp_path / "model.nbf", mmap=mmap_mode), model, X)


@pytest.mark.parametrize(
    "params",
    [
        {"alpha": np.linspace(0.1, 2.0, 12), "class_prior": [0.2, 0.3, 0.5]},
        {"alpha": np.float32(0.25), "class_prior": (0.5, 0.25, 0.25), "fit_prior": False, "force_alpha": False},
        {"alpha": 2, "force_alpha": True},
    ],
    ids=["array-alpha", "numpy-scalar-tuple", "int-alpha"],
)
@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB"])
def test_parameters_keep_their_types(name, params, tmp_path):
    model, X = fitted(name, "str", **params)
    nbfast.save(model, tmp_path / "model.nbf")
    loaded = nbfast.load(tmp_path / "model.nbf")
    for key, value in params.items():
        assert type(loaded.get_params()[key]) is type(value), key
    assert_same_model(loaded, model, X)


def test_binarize_none_and_feature_names(tmp_path):
    pd = pytest.importorskip("pandas")
    X, y = data_for("BernoulliNB")
    frame = pd.DataFrame((X.toarray() > 0).astype(float), columns=[f"word_{i}" for i in range(X.shape[1])])
    model = nbfast.BernoulliNB(binarize=None).fit(frame, labels_of_kind(y, "str"))
    nbfast.save(model, tmp_path / "model.nbf")
    loaded = nbfast.load(tmp_path / "model.nbf")
    assert loaded.binarize is None and loaded.feature_names_in_.dtype == object
    assert_same_model(loaded, model, frame)


@pytest.mark.parametrize("mmap_mode", [False, True], ids=["read", "mmap"])
@pytest.mark.parametrize("name", ["MultinomialNB", "BernoulliNB"])
def test_partial_fit_continues_after_load(name, mmap_mode, tmp_path):
    model, X = fitted(name, "str")
    path = tmp_path / "model.nbf"
    nbfast.save(model, path)
    before = path.read_bytes()
    loaded = nbfast.load(path, mmap=mmap_mode)
    y_more = labels_of_kind(np.arange(X.shape[0]) % 3, "str")[::-1]
    loaded.partial_fit(X, y_more)
    model.partial_fit(X, y_more)
    assert_same_model(loaded, model, X)
    assert path.read_bytes() == before


def _owner(array):
    while isinstance(array, np.ndarray) and array.base is not None:
        array = array.base
    return array.obj if isinstance(array, memoryview) else array


def test_mmap_maps_the_file_without_copies(tmp_path):
    model, X = fitted("MultinomialNB", "int")
    nbfast.save(model, tmp_path / "model.nbf")
    mapped = nbfast.load(tmp_path / "model.nbf", mmap=True)
    # feature_log_prob_ is stored in the scoring layout, so the kernel reads the mapped pages directly.
    for array in (mapped.feature_count_, mapped.class_log_prior_, mapped._log_prob_table):
        assert isinstance(_owner(array), mmap.mmap) and not array.flags.writeable
    read = nbfast.load(tmp_path / "model.nbf")
    assert not isinstance(_owner(read._log_prob_table), mmap.mmap) and read.feature_count_.flags.writeable


def test_sklearn_model_saved_through_nbfast(tmp_path):
    sk_nb = pytest.importorskip("sklearn.naive_bayes")
    X, y = data_for("MultinomialNB")
    sk_model = sk_nb.MultinomialNB(alpha=0.3).fit(X, labels_of_kind(y, "str"))
    nbfast.save(nbfast.from_sklearn(sk_model), tmp_path / "model.nbf")
    np.testing.assert_array_equal(nbfast.load(tmp_path / "model.nbf").predict(X), sk_model.predict(X))


class Composite(_BaseNB):
    """A composite model in the shape MixedNB will have: nested estimators and lists of arrays."""

    _fitted_attributes = ("classes_", "n_features_in_", "estimators_", "tables_", "meta_")

    def __init__(self, parts=None, weights=None):
        self.parts = parts
        self.weights = weights

    def fit(self, X, y):
        from sklearn.base import clone

        self.estimators_ = [clone(estimator).fit(X[:, columns], y) for _, estimator, columns in self.parts]
        self.classes_ = self.estimators_[0].classes_
        self.n_features_in_ = X.shape[1]
        self.tables_ = [np.arange(3.0), np.ones((2, 4), dtype=np.int32)]
        self.meta_ = {"columns": tuple(columns for _, _, columns in self.parts), "scale": np.float32(0.5)}
        return self

    def predict_proba(self, X):
        return sum(e.predict_proba(X[:, c]) for e, (_, _, c) in zip(self.estimators_, self.parts))

    def _score(self, X, mode):  # the contract's; this test scores through predict_proba only
        raise TypeError("Composite is scored by predict_proba only.")

    def _check_stored_values(self):
        """Nothing beyond what its parts check of their own."""


def test_nested_estimators_and_lists_of_arrays_round_trip(monkeypatch, tmp_path):
    pytest.importorskip("sklearn")
    from nbfast.naive_bayes import ESTIMATORS as REGISTERED

    monkeypatch.setitem(REGISTERED, "Composite", Composite)
    X, y = data_for("MultinomialNB")
    parts = [("words", nbfast.MultinomialNB(alpha=0.5), [0, 1, 2, 3]), ("flags", nbfast.BernoulliNB(), [4, 5, 6])]
    model = Composite(parts=parts, weights=np.array([0.25, 0.75])).fit(X, labels_of_kind(y, "str"))
    nbfast.save(model, tmp_path / "model.nbf")
    loaded = nbfast.load(tmp_path / "model.nbf")
    assert [(n, type(e), c) for n, e, c in loaded.parts] == [(n, type(e), c) for n, e, c in parts]
    assert not hasattr(loaded.parts[0][1], "classes_")  # unfitted parameters stay unfitted
    assert loaded.meta_["columns"] == ([0, 1, 2, 3], [4, 5, 6]) and type(loaded.meta_["scale"]) is np.float32
    for a, b in zip(loaded.tables_, model.tables_, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
    for a, b in zip(loaded.estimators_, model.estimators_, strict=True):
        assert_same_model(a, b, X[:, : b.n_features_in_])
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    params = persist.read_info(tmp_path / "model.nbf")["params"]
    assert params["parts"].startswith("[('words', MultinomialNB(alpha=0.5, ")
    assert params["weights"] == "array(shape=(2,), dtype=float64)"


# ------------------------------------------------------------------- refusing to save
def test_save_refuses_what_it_cannot_store(tmp_path):
    path = tmp_path / "model.nbf"
    with pytest.raises(nbfast._compat.NotFittedError):
        nbfast.save(nbfast.MultinomialNB(), path)
    model, _ = fitted("MultinomialNB")
    model.alpha = object()
    with pytest.raises(TypeError, match=r"MultinomialNB\.alpha: values of type object"):
        nbfast.save(model, path)

    class Custom(nbfast.MultinomialNB):
        pass

    custom = Custom().fit(*data_for("MultinomialNB"))
    with pytest.raises(TypeError, match="not an nbfast estimator"):
        nbfast.save(custom, path)
    assert list(tmp_path.iterdir()) == []


def test_failed_save_keeps_the_previous_file(tmp_path):
    path = tmp_path / "model.nbf"
    model, _ = fitted("MultinomialNB")
    nbfast.save(model, path)
    before = path.read_bytes()
    model.class_prior = [object()] * 3
    with pytest.raises(TypeError):
        nbfast.save(model, path)
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["model.nbf"]


class _FullDisk:
    """A file opened for writing that has room for ``room`` bytes, then fails as a full disk does."""

    def __init__(self, f, room):
        self.f, self.room = f, room

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.f.close()

    def fileno(self):
        return self.f.fileno()

    def write(self, data):
        if len(data) > self.room:
            self.f.write(bytes(data[: self.room]))
            raise OSError(28, "No space left on device")
        self.room -= len(data)
        return self.f.write(data)


@pytest.mark.parametrize("failure", ["write", "rename"])
def test_save_failing_while_writing_keeps_the_previous_file(failure, tmp_path, monkeypatch):
    path = tmp_path / "model.nbf"
    model, X = fitted("MultinomialNB")
    nbfast.save(model, path)
    before = path.read_bytes()
    other, _ = fitted("BernoulliNB", "str")
    if failure == "write":  # part of the new file is written (past the header), then the disk is full
        real_open = open
        monkeypatch.setattr(persist._files, "open", lambda file, mode="r", *args, **kwargs: _FullDisk(
            real_open(file, mode, *args, **kwargs), room=len(before) // 2), raising=False)
        message = "No space left"
    else:  # the new file is complete, but renaming it over the old one fails
        def refuse(source, destination):
            assert os.path.getsize(source) > 0
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(os, "replace", refuse)
        message = "Permission denied"
    with pytest.raises(OSError, match=message):
        nbfast.save(other, path)
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == ["model.nbf"]  # no temporary file left behind
    assert path.read_bytes() == before
    assert_same_model(nbfast.load(path), model, X)


# -------------------------------------------------------------------- bad files
def _model_bytes(name="MultinomialNB", labels="str"):
    model, _ = fitted(name, labels)
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "model.nbf"
        nbfast.save(model, path)
        return path.read_bytes()


def _with_padding(raw):
    """The same file with at least one byte of padding after its header (a space ends its JSON text when the
    header fills its last 64 bytes exactly)."""
    _, start, n, data_start = _layout(raw)
    if data_start > start + n:
        return raw
    return _raw_header(raw, raw[start:start + n].decode() + " ") + raw[data_start:]


def _flip(raw, position):
    flipped = bytearray(raw)
    flipped[position] ^= 0x10
    return bytes(flipped)


def _set_model(key, value):
    def edit(header):
        header["model"][key] = value

    return edit


def _pickle_payload(marker):
    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    return pickle.dumps(Payload())


def _npz():
    buffer = io.BytesIO()
    np.savez(buffer, weights=np.arange(10.0), labels=np.array(["a", "b"]))
    return buffer.getvalue()


def _npy():
    buffer = io.BytesIO()
    np.save(buffer, np.arange(10.0))
    return buffer.getvalue()


def _inconsistent(**attributes):
    """A file of a model whose attributes were edited, written as a writer that does not check them would."""
    model, _ = fitted("MultinomialNB", "str")
    for name, value in attributes.items():
        setattr(model, name, value(getattr(model, name)))
    with tempfile.TemporaryDirectory() as directory, mock.patch("nbfast.persist._values.check_loaded_values"):
        nbfast.save(model, Path(directory) / "bad.nbf")
        return (Path(directory) / "bad.nbf").read_bytes()


def _rng_bytes(n):
    return np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8).tobytes()


BAD_FILES = {
    "empty": (lambda raw: b"", "empty file"),
    "random-bytes": (lambda raw: _rng_bytes(4096), "not an nbfast model file"),
    "text": (lambda raw: b"alpha=1.0\nclasses=a,b\n", "not an nbfast model file"),
    "npz-from-another-program": (lambda raw: _npz(), "zip archive"),
    "npy": (lambda raw: _npy(), r"NumPy \.npy"),
    "pickle-of-a-model": (lambda raw: pickle.dumps(fitted("MultinomialNB")[0]), "pickle"),
    "gzip": (lambda raw: b"\x1f\x8b\x08\x00" + bytes(40), "gzip"),
    "truncated-in-magic": (lambda raw: raw[:5], "truncated"),
    "truncated-in-preamble": (lambda raw: raw[:30], "truncated"),
    "truncated-in-header": (lambda raw: raw[:200], "truncated"),
    "truncated-in-data": (lambda raw: raw[: len(raw) // 2 + 300], "truncated"),
    "truncated-last-byte": (lambda raw: raw[:-1], "truncated"),
    "trailing-bytes": (lambda raw: raw + b"\0", "trailing bytes"),
    "bit-flip-magic": (lambda raw: _flip(raw, 3), "not an nbfast model file"),
    "bit-flip-header-length": (lambda raw: _flip(raw, 9), "truncated|checksum"),
    "bit-flip-header-checksum": (lambda raw: _flip(raw, 20), "header checksum"),
    "bit-flip-header": (lambda raw: _flip(raw, 60), "header checksum"),
    "bit-flip-header-padding": (lambda raw: _flip(_with_padding(raw), _layout(_with_padding(raw))[3] - 1), "padding"),
    "bit-flip-data": (lambda raw: _flip(raw, len(raw) - 9), "data checksum"),
    "newer-format-version": (
        lambda raw: _with_header(raw, lambda h: h.update(format_version=persist.FORMAT_VERSION + 1)),
        rf"format version {persist.FORMAT_VERSION + 1} .* up to {persist.FORMAT_VERSION}: upgrade nbfast",
    ),
    "zero-format-version": (lambda raw: _with_header(raw, lambda h: h.update(format_version=0)), "format version 0"),
    "other-format": (lambda raw: _with_header(raw, lambda h: h.update(format="npz")), "does not describe a model"),
    "header-not-a-dict": (lambda raw: _raw_header(raw, []), "does not describe a model"),
    "unknown-class": (lambda raw: _with_header(raw, _set_model("class", "Pipeline")), "unknown estimator class"),
    "import-path-class": (lambda raw: _with_header(raw, _set_model("class", "os.system")), "unknown estimator class"),
    "class-not-a-string": (lambda raw: _with_header(raw, _set_model("class", ["x"])), "unknown estimator class"),
    "unknown-parameter": (
        lambda raw: _with_header(raw, lambda h: h["model"]["params"].update(evil=1)),
        r"no parameters \['evil'\]",
    ),
    "missing-fitted-attribute": (
        lambda raw: _with_header(raw, lambda h: h["model"]["fitted"].pop("class_count_")),
        "needs the fitted attributes",
    ),
    "unfitted-model": (lambda raw: _with_header(raw, _set_model("fitted", None)), "unfitted"),
    "object-dtype": (
        lambda raw: _with_header(raw, lambda h: h["arrays"][0].update(dtype="|O")),
        "dtype '|O' is not allowed",
    ),
    "structured-dtype": (
        lambda raw: _with_header(raw, lambda h: h["arrays"][0].update(dtype="[('a', '<f8')]")),
        "invalid array entry|not allowed",
    ),
    "array-out-of-bounds": (
        lambda raw: _with_header(raw, lambda h: h["arrays"][-1].update(shape=[10**6], nbytes=8 * 10**6)),
        "does not fit",
    ),
    "arrays-overlap": (
        lambda raw: _with_header(raw, lambda h: h["arrays"][1].update(offset=h["arrays"][0]["offset"])),
        "overlap",
    ),
    "array-used-twice": (
        lambda raw: _with_header(raw, lambda h: h["model"]["fitted"].update(class_log_prior_={"__ndarray__": 1})),
        "invalid array reference",
    ),
    "unknown-tag": (
        lambda raw: _with_header(raw, lambda h: h["model"]["params"].update(alpha={"__import__": "os"})),
        "invalid value",
    ),
    "numpy-scalar-overflow": (
        lambda raw: _with_header(raw, lambda h: h["model"]["params"].update(alpha={"__scalar__": "|i1", "value": 999})),
        "invalid numpy scalar .int8.: 999",
    ),
    "labels-in-a-number-table": (
        lambda raw: _with_header(raw, lambda h: h["model"]["fitted"].update(
            class_count_=h["model"]["fitted"]["classes_"], classes_=h["model"]["fitted"]["class_count_"])),
        "invalid or inconsistent",
    ),
    "deeply-nested": (lambda raw: _deeply_nested(raw, 100_000), "unreadable header|far more JSON objects"),
    "short-class-log-prior": (
        lambda raw: _inconsistent(class_log_prior_=lambda v: v[:2]), r"class_log_prior_ has shape \(2,\)"
    ),
    "wrong-n-features": (
        lambda raw: _inconsistent(n_features_in_=lambda v: v + 5), r"shape \(3, 12\), expected an array of shape \(3, 17\)"
    ),
    "huge-n-features": (lambda raw: _inconsistent(n_features_in_=lambda v: 10**15), "do not fit the stored arrays"),
    "narrow-log-prob-table": (
        lambda raw: _inconsistent(feature_log_prob_=lambda v: v[:, :5]), "feature_log_prob_ has shape"
    ),
    "wrong-count-shape": (lambda raw: _inconsistent(feature_count_=lambda v: v[:, :3]), "feature_count_ has shape"),
    "unsorted-classes": (lambda raw: _inconsistent(classes_=lambda v: v[::-1].copy()), "sorted, unique"),
    "repeated-class": (lambda raw: _inconsistent(classes_=lambda v: v[[0, 0, 2]].copy()), "sorted, unique"),
    "invalid-code-point": (
        lambda raw: _with_data(raw, lambda d: d.__setitem__(slice(0, 4), b"\xff" * 4)),  # classes_ comes first
        "beyond the Unicode range",
    ),
    "rewritten-numbers": (
        lambda raw: _with_data(raw, lambda d: d.__setitem__(slice(-8, None), np.float64(np.nan).tobytes())),
        "contains NaN",  # a NaN log-probability would silently predict the first class
    ),
}


@pytest.fixture(scope="module")
def model_bytes():
    return _model_bytes()


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_file_raises_model_format_error(case, model_bytes, tmp_path):
    make, message = BAD_FILES[case]
    path = tmp_path / "bad.nbf"
    path.write_bytes(make(model_bytes))
    if message is None:
        assert np.isnan(nbfast.load(path).feature_log_prob_).sum() == 1
        return
    with pytest.raises(ModelFormatError, match=message) as info:
        nbfast.load(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_pickle_payload_is_never_executed(tmp_path):
    marker = tmp_path / "payload-ran"
    path = tmp_path / "model.nbf"
    path.write_bytes(_pickle_payload(marker))
    with pytest.raises(ModelFormatError, match="pickle"):
        nbfast.load(path)
    with pytest.raises(ModelFormatError, match="pickle"):
        nbfast.load(path, mmap=True)
    with pytest.raises(ModelFormatError, match="pickle"):
        persist.read_info(path)
    assert not marker.exists()
    # The payload is live: unpickling it does create the marker.
    pickle.loads(path.read_bytes()).close()
    assert marker.exists()


def test_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(FileNotFoundError):
        nbfast.load(tmp_path / "absent.nbf")


def test_edited_header_keeps_loading(model_bytes, tmp_path):
    """The battery's header rewriting keeps a valid file valid: its failures come from the edits."""
    path = tmp_path / "model.nbf"
    path.write_bytes(_with_header(model_bytes, lambda h: None))
    nbfast.load(path)


# ---------------------------------------------------------------------------- fuzz
@st.composite
def mutated(draw, raw):
    data = bytearray(raw)
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "set", "truncate", "insert", "delete"]))
        position = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "flip" and data:
            data[position] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set" and data:
            data[position] = draw(st.integers(0, 255))
        elif kind == "truncate":
            del data[position:]
        elif kind == "insert":
            data[position:position] = draw(st.binary(min_size=1, max_size=16))
        elif kind == "delete":
            del data[position: position + draw(st.integers(1, 16))]
    return bytes(data)


_FUZZ_MODEL = _model_bytes("BernoulliNB", "str")


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.binary(max_size=256), mutated(_FUZZ_MODEL), mutated(_FUZZ_MODEL[:64] + _rng_bytes(64))))
def test_fuzzed_files_only_raise_model_format_error(content):
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "fuzz.nbf"
        path.write_bytes(content)
        if content == _FUZZ_MODEL:
            nbfast.load(path)
            return
        with pytest.raises(ModelFormatError):
            nbfast.load(path)
        with pytest.raises(ModelFormatError):
            nbfast.load(path, mmap=True)


def _paths(node, prefix=()):
    """Every place in a JSON document, as key/index paths."""
    yield prefix
    children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, child in children:
        yield from _paths(child, (*prefix, key))


_FUZZ_HEADER = _layout(_FUZZ_MODEL)[0]
_FUZZ_PATHS = list(_paths(_FUZZ_HEADER))[1:]
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=8)
    | st.sampled_from(["MultinomialNB", "BernoulliNB", "<f8", "|O", "<U3", "C", "F", "__ndarray__"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["__ndarray__", "__scalar__", "value", "__tuple__", "__dict__", "__estimator__", "object",
                         "class", "params", "fitted", "x"]), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from([p for p in _FUZZ_PATHS if p[0] == "model"]) | st.sampled_from(_FUZZ_PATHS),
                          _JSON), min_size=1, max_size=3))
def test_fuzzed_headers_with_valid_checksums_only_raise_model_format_error(edits):
    """Structurally edited headers (checksums recomputed) load or raise ModelFormatError, nothing else."""

    def edit(header):
        for path, value in edits:
            node = header
            try:
                for key in path[:-1]:
                    node = node[key]
                node[path[-1]] = copy.deepcopy(value)
            except (KeyError, IndexError, TypeError):
                pass  # an earlier edit removed this place

    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "fuzz.nbf"
        path.write_bytes(_with_header(_FUZZ_MODEL, edit))
        for read in (nbfast.load, persist.read_info):
            try:
                read(path)
            except ModelFormatError:
                pass


# ------------------------------------------------------------------ format stability
def _expected():
    with np.load(DATA / "expected.npz", allow_pickle=False) as f:
        return dict(f)


STORED = ["BernoulliNB-int", "BernoulliNB-str", "CategoricalNB-str", "ComplementNB-str", "DiscriminativeNB-str", "GaussianNB-int",
          "GaussianNB-str", "MixedNB-str", "MultinomialNB-int", "MultinomialNB-str", "PoissonNB-int"]


def test_every_stored_file_is_tested():
    assert sorted(path.stem for path in DATA.glob("*.nbf")) == STORED


@pytest.mark.parametrize("stem", STORED)
def test_stored_model_files_still_load_and_predict(stem):
    expected = _expected()
    X = expected[f"{stem}/X"]
    model = nbfast.load(DATA / f"{stem}.nbf")
    assert type(model).__name__ == stem.split("-")[0]
    np.testing.assert_array_equal(model.predict(X), expected[f"{stem}/predict"])
    np.testing.assert_allclose(model.predict_proba(X), expected[f"{stem}/predict_proba"], rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------- pickle and joblib
@pytest.mark.parametrize("name", ESTIMATORS)
def test_pickle_and_joblib_still_round_trip(name, tmp_path):
    model, X = fitted(name, "str")
    assert_same_model(pickle.loads(pickle.dumps(model)), model, X)
    joblib = pytest.importorskip("joblib")
    joblib.dump(model, tmp_path / "model.joblib")
    assert_same_model(joblib.load(tmp_path / "model.joblib"), model, X)
    loaded = nbfast.load(_save(model, tmp_path))
    assert_same_model(pickle.loads(pickle.dumps(loaded)), model, X)


def _save(model, directory):
    nbfast.save(model, directory / "model.nbf")
    return directory / "model.nbf"


# ------------------------------------------------------------------------------ info
def test_info_prints_the_header(tmp_path, capsys):
    model, _ = fitted("BernoulliNB", "str", alpha=np.full(12, 0.5), class_prior=[0.2, 0.3, 0.5])
    path = _save(model, tmp_path)
    assert cli_main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "class:          BernoulliNB" in out
    assert "alpha=array(shape=(12,), dtype=float64)" in out and "class_prior=[0.2, 0.3, 0.5]" in out
    assert "classes (3):    'class 0', 'class 1', 'class 2'" in out
    assert "features:       12" in out and f"format version: {persist.FORMAT_VERSION}" in out


def test_info_does_not_read_the_arrays(tmp_path, capsys):
    model, _ = fitted("MultinomialNB", "int")
    path = _save(model, tmp_path)
    path.write_bytes(_flip(path.read_bytes(), path.stat().st_size - 3))
    assert cli_main(["info", str(path)]) == 0
    assert "MultinomialNB" in capsys.readouterr().out
    with pytest.raises(ModelFormatError, match="data checksum"):
        nbfast.load(path)


@pytest.mark.parametrize("case", ["empty", "pickle-of-a-model", "bit-flip-header", "newer-format-version"])
def test_info_on_a_bad_file_is_one_line(case, model_bytes, tmp_path, capsys):
    path = tmp_path / "bad.nbf"
    path.write_bytes(BAD_FILES[case][0](model_bytes))
    assert cli_main(["info", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"nbfast info: error: {path}: ")


def test_info_console_script_has_no_traceback(model_bytes, tmp_path):
    path = tmp_path / "bad.nbf"
    path.write_bytes(BAD_FILES["pickle-of-a-model"][0](model_bytes))
    result = subprocess.run(
        [sys.executable, "-m", "nbfast.cli", "info", str(path)],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(Path(nbfast.__file__).parents[1])},
    )
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("nbfast info: error: ") and "pickle" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
