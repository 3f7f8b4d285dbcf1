"""Model files of format version 2: a compact model stores its statistics by feature, never the dense
scikit-learn attributes; a dense model stores what version 1 did; every version-1 file still loads."""

import importlib.util
import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from support.crafting import _layout, _raw_header

import nbfast
from nbfast import ModelFormatError, persist
from nbfast.datasets import make_documents
from nbfast.naive_bayes import _counts
from nbfast.naive_bayes._counts import SparseCounts

DATA = Path(__file__).parents[1] / "data"
NAMES = ["MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB"]


@pytest.fixture(scope="module")
def corpus():
    X, y = make_documents(400, 2**14, 5, mean_length=20, class_separation=0.3, random_state=9)
    return X[:300], y[:300], X[300:]


def header_of(path):
    return _layout(Path(path).read_bytes())[0]


def assert_same_outputs(a, b, X):
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    for method in ("predict_proba", "predict_log_proba", "predict_joint_log_proba"):
        np.testing.assert_array_equal(getattr(a, method)(X), getattr(b, method)(X), err_msg=method)


@pytest.mark.parametrize("mmap_mode", [False, True], ids=["read", "mmap"])
@pytest.mark.parametrize("name", NAMES)
def test_compact_round_trip_is_bit_identical(name, mmap_mode, corpus, tmp_path):
    X, y, X_test = corpus
    model = getattr(nbfast, name)().fit(X, y)
    assert model._is_compact()
    path = tmp_path / "model.nbf"
    nbfast.save(model, path)
    header = header_of(path)
    assert header["format_version"] == persist.FORMAT_VERSION >= 2
    assert list(header["model"]["fitted"]) == list(type(model)._compact_attributes)
    dense_bytes = 8 * len(model.classes_) * X.shape[1]
    assert header["data_nbytes"] < dense_bytes / 4  # what the data holds, not classes x features
    loaded = nbfast.load(path, mmap=mmap_mode)
    assert loaded._is_compact()
    assert_same_outputs(loaded, model, X_test)
    np.testing.assert_array_equal(loaded.feature_count_, model.feature_count_)
    np.testing.assert_array_equal(loaded.feature_log_prob_, model.feature_log_prob_)
    assert persist.read_info(path)["format_version"] == persist.FORMAT_VERSION


@pytest.mark.parametrize("mmap_mode", [False, True], ids=["read", "mmap"])
@pytest.mark.parametrize("name", NAMES)
def test_partial_fit_continues_after_loading_a_compact_model(name, mmap_mode, corpus, tmp_path):
    X, y, X_test = corpus
    model = getattr(nbfast, name)().partial_fit(X[:150], y[:150], classes=np.arange(5))
    nbfast.save(model, tmp_path / "model.nbf")
    before = (tmp_path / "model.nbf").read_bytes()
    loaded = nbfast.load(tmp_path / "model.nbf", mmap=mmap_mode)
    for start in range(150, 300, 50):
        loaded.partial_fit(X[start:start + 50], y[start:start + 50])
        model.partial_fit(X[start:start + 50], y[start:start + 50])
    assert_same_outputs(loaded, model, X_test)
    np.testing.assert_array_equal(loaded.feature_count_, model.feature_count_)
    assert (tmp_path / "model.nbf").read_bytes() == before


def test_dense_models_store_the_scikit_learn_attributes(tmp_path):
    X, y = make_documents(300, 40, 3, mean_length=20, random_state=2)
    model = nbfast.MultinomialNB().fit(X, y)
    assert not model._is_compact()
    nbfast.save(model, tmp_path / "model.nbf")
    assert list(header_of(tmp_path / "model.nbf")["model"]["fitted"]) == list(nbfast.MultinomialNB._fitted_attributes)
    assert_same_outputs(nbfast.load(tmp_path / "model.nbf"), model, X)


def _make_models():
    spec = importlib.util.spec_from_file_location("make_models", DATA / "make_models.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("stem", ["MultinomialNB-int", "MultinomialNB-str", "BernoulliNB-int", "BernoulliNB-str",
                                  "ComplementNB-str", "PoissonNB-int"])
def test_version_1_files_agree_with_compact_models(stem, tmp_path, monkeypatch):
    """The committed version-1 files (dense) and the same models fitted compactly, saved in version 2."""
    make_models = _make_models()
    make, labels, data = make_models.MODELS[stem]
    X_train, y_train, X_test = make_models.DATA[data]()
    old = nbfast.load(DATA / f"{stem}.nbf")
    assert header_of(DATA / f"{stem}.nbf")["format_version"] == 1 and not old._is_compact()
    monkeypatch.setattr(_counts, "REPRESENTATION", "compact")
    model = make().fit(X_train, make_models.LABELS[labels](y_train))
    if not model._is_compact():  # a per-feature alpha has no compact BernoulliNB
        assert stem == "BernoulliNB-str"
        return
    nbfast.save(model, tmp_path / "model.nbf")
    new = nbfast.load(tmp_path / "model.nbf")
    np.testing.assert_array_equal(new.predict(X_test), old.predict(X_test))
    np.testing.assert_allclose(new.predict_proba(X_test), old.predict_proba(X_test), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(new.feature_count_, old.feature_count_)


# ------------------------------------------------------------------------- bad files
def _saved_with(counts_edit, tmp_path, **params):
    X, y = make_documents(200, 2**14, 3, mean_length=10, random_state=1)
    model = nbfast.MultinomialNB(**params).fit(X, y)
    assert model._is_compact()
    model._feature_counts = SparseCounts(*counts_edit(*model._feature_counts.arrays()), 3)
    nbfast.save(model, tmp_path / "bad.nbf")
    return tmp_path / "bad.nbf"


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda p, c, v: (p, c + 3, v), "outside"),
        (lambda p, c, v: (p, c[::-1].copy(), v), "increasing"),
        (lambda p, c, v: (p[::-1].copy(), c, v), "rise"),
        (lambda p, c, v: (p[:-1], c, v), "indptr of shape"),
        (lambda p, c, v: (p, c, v[:-1]), "indptr of shape"),
        (lambda p, c, v: (p, c.astype(np.float64), v), "integer"),
        (lambda p, c, v: (p, c, -v), "finite non-negative counts"),
        (lambda p, c, v: (p, c, np.where(np.arange(v.size) == 3, np.nan, v)), "finite non-negative counts"),
        (lambda p, c, v: (p, c, np.where(np.arange(v.size) == 3, np.inf, v)), "finite non-negative counts"),
    ],
)
def test_inconsistent_compact_statistics_are_refused(edit, message, tmp_path):
    path = _saved_with(edit, tmp_path)
    with pytest.raises(ModelFormatError, match=message):
        nbfast.load(path)


def test_compact_statistics_need_a_positive_alpha(tmp_path):
    path = _saved_with(lambda p, c, v: (p, c, v), tmp_path)
    raw = path.read_bytes()
    header, _, _, data_start = _layout(raw)
    header["model"]["params"]["alpha"] = 0.0
    path.write_bytes(_raw_header(raw, json.dumps(header)) + raw[data_start:])
    with pytest.raises(ModelFormatError, match="no compact tables"):
        nbfast.load(path)


def test_n_features_is_bounded_by_the_stored_pointers(tmp_path):
    path = _saved_with(lambda p, c, v: (p, c, v), tmp_path)
    raw = path.read_bytes()
    header, _, _, data_start = _layout(raw)
    header["model"]["fitted"]["n_features_in_"] = 10**12
    path.write_bytes(_raw_header(raw, json.dumps(header)) + raw[data_start:])
    with pytest.raises(ModelFormatError, match="do not fit the stored arrays"):
        nbfast.load(path)


def test_pickled_compact_model_keeps_its_form():
    X, y = make_documents(200, 2**14, 3, mean_length=10, random_state=1)
    model = nbfast.ComplementNB().fit(X, y)
    restored = pickle.loads(pickle.dumps(model))
    assert restored._is_compact()
    assert_same_outputs(restored, model, X)
