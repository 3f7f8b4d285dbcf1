"""`nbfast train` / `nbfast predict` over files in chunks, and their errors."""

import gzip
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp
from support.helpers import exported

import nbfast
from nbfast.cli import main
from nbfast.datasets import make_documents
from nbfast.readers import save_npz

sk_datasets = pytest.importorskip("sklearn.datasets")

CLASS_OF = {"multinomial": "MultinomialNB", "bernoulli": "BernoulliNB", "complement": "ComplementNB",
            "poisson": "PoissonNB"}
KINDS = list(CLASS_OF)
exported(CLASS_OF.values())


@pytest.fixture(scope="module")
def corpus():
    X, y = make_documents(900, 200, 4, mean_length=25, class_separation=0.3, random_state=7)
    return X, y


def write_svmlight(path, X, y, zero_based=False):
    sk_datasets.dump_svmlight_file(X, y, str(path), zero_based=zero_based)
    return str(path)


def run_cli(capsys, *argv):
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.err


def read_csv(path):
    with open(path) as f:
        header = f.readline().strip().split(",")
    table = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return header, table[:, 0], table[:, 1:]


def in_memory(kind, path, **params):
    X, y = sk_datasets.load_svmlight_file(path, zero_based=False)
    return getattr(nbfast, CLASS_OF[kind])(**params).fit(X, y), X


# ------------------------------------------------------------------- train + predict
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("chunk_size, n_samples", [(1, 40), (37, 900), (10_000, 900)])
def test_train_predict_in_chunks_equals_in_memory(tmp_path, capsys, corpus, kind, chunk_size, n_samples):
    X, y = corpus
    X, y = X[:n_samples], y[:n_samples]
    data = write_svmlight(tmp_path / "train.svm", X, y)
    model_path, out = tmp_path / "model.nbf", tmp_path / "out.csv"
    status, err = run_cli(capsys, "train", data, "-o", model_path, "--model", kind, "--alpha", 0.5,
                          "--chunk-size", chunk_size)
    assert status == 0, err
    n_features = X.indices.max() + 1
    assert f"trained {CLASS_OF[kind]} (4 classes, {n_features} features)" in err and f"{n_samples} rows" in err
    status, err = run_cli(capsys, "predict", model_path, data, "-o", out, "--proba", "--chunk-size", chunk_size)
    assert status == 0, err

    expected, X_mem = in_memory(kind, data, alpha=0.5)
    model = nbfast.load(model_path)
    np.testing.assert_array_equal(model.class_count_, expected.class_count_)
    np.testing.assert_array_equal(model.feature_count_, expected.feature_count_)
    header, labels, proba = read_csv(out)
    assert header == ["label", "proba_0", "proba_1", "proba_2", "proba_3"]
    np.testing.assert_array_equal(labels, expected.predict(X_mem))
    np.testing.assert_array_equal(proba, expected.predict_proba(X_mem))  # 17 digits: exact round trip


def test_predict_npy_labels_and_proba(tmp_path, capsys, corpus):
    X, y = corpus
    data = write_svmlight(tmp_path / "d.svm", X, y)
    run_cli(capsys, "train", data, "-o", tmp_path / "m", "--chunk-size", 100)
    expected, X_mem = in_memory("multinomial", data)
    assert run_cli(capsys, "predict", tmp_path / "m", data, "-o", tmp_path / "l.npy", "--chunk-size", 64)[0] == 0
    labels = np.load(tmp_path / "l.npy")
    assert labels.dtype == np.int64 and labels.shape == (900,)
    np.testing.assert_array_equal(labels, expected.predict(X_mem))
    assert run_cli(capsys, "predict", tmp_path / "m", data, "-o", tmp_path / "p.npy", "--proba")[0] == 0
    records = np.load(tmp_path / "p.npy")
    np.testing.assert_array_equal(records["label"], expected.predict(X_mem))
    np.testing.assert_array_equal(records["proba"], expected.predict_proba(X_mem))
    assert not os.path.exists(tmp_path / "p.npy.partial")


def test_several_inputs_gzip_npz_zero_based_and_float_labels(tmp_path, capsys, corpus):
    X, y = corpus
    y_float = 2.0 * y - 3  # labels -3, -1, 1, 3
    part1 = write_svmlight(tmp_path / "a.svm", X[:300], y_float[:300], zero_based=True)
    with gzip.open(tmp_path / "b.svm.gz", "wb") as f:
        f.write(open(write_svmlight(tmp_path / "b.svm", X[300:600], y_float[300:600], zero_based=True), "rb").read())
    save_npz(tmp_path / "c.npz", X[600:], y_float[600:])
    inputs = [part1, tmp_path / "b.svm.gz", tmp_path / "c.npz"]
    status, err = run_cli(capsys, "train", *inputs, "-o", tmp_path / "m", "--zero-based", "--chunk-size", 128,
                          "--n-features", 250)
    assert status == 0, err
    assert run_cli(capsys, "predict", tmp_path / "m", *inputs, "-o", tmp_path / "o.csv", "--zero-based")[0] == 0
    X_wide = sp.hstack([X, sp.csr_matrix((900, 50))]).tocsr()
    expected = nbfast.MultinomialNB().fit(X_wide, y_float)
    header, labels, _ = read_csv(tmp_path / "o.csv")
    assert header == ["label"]
    np.testing.assert_array_equal(labels, expected.predict(X_wide))
    assert set(np.unique(labels)) <= {-3, -1, 1, 3}


# ------------------------------------------------------------------------- errors
def assert_one_line_error(status, err, *fragments):
    assert status == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for fragment in fragments:
        assert fragment in lines[0], err


def test_errors_are_one_line(tmp_path, capsys, corpus):
    X, y = corpus
    data = write_svmlight(tmp_path / "d.svm", X, y)
    assert run_cli(capsys, "train", data, "-o", tmp_path / "m", "--n-features", 200)[0] == 0

    status, err = run_cli(capsys, "predict", tmp_path / "missing", data, "-o", tmp_path / "o.csv")
    assert_one_line_error(status, err, "nbfast predict: error:", "missing")
    (tmp_path / "corrupt").write_bytes(b"\x80\x04garbage")
    status, err = run_cli(capsys, "predict", tmp_path / "corrupt", data, "-o", tmp_path / "o.csv")
    assert_one_line_error(status, err, "not an nbfast model file")

    lines = open(data, "rb").read().splitlines(keepends=True)
    (tmp_path / "bad.svm").write_bytes(b"".join(lines[:41]) + b"1 5:x\n" + b"".join(lines[41:]))
    status, err = run_cli(capsys, "predict", tmp_path / "m", tmp_path / "bad.svm", "-o", tmp_path / "o.csv",
                          "--chunk-size", 16)
    assert_one_line_error(status, err, "bad.svm line 42: malformed feature", "'1 5:x'")
    assert not os.path.exists(tmp_path / "o.csv") and not os.path.exists(tmp_path / "o.csv.partial")

    (tmp_path / "wide.svm").write_bytes(b"".join(lines[:99]) + b"1 3:1 201:2\n")
    status, err = run_cli(capsys, "predict", tmp_path / "m", tmp_path / "wide.svm", "-o", tmp_path / "o.csv")
    assert_one_line_error(status, err, "wide.svm line 100: feature index 201 is beyond the model's 200 features")
    status, err = run_cli(capsys, "train", tmp_path / "wide.svm", "-o", tmp_path / "m2", "--n-features", 200)
    assert_one_line_error(status, err, "wide.svm line 100: feature index 201")

    status, err = run_cli(capsys, "train", tmp_path / "nothing.svm", "-o", tmp_path / "m2")
    assert_one_line_error(status, err, "nothing.svm")
    (tmp_path / "empty.svm").write_bytes(b"# nothing here\n\n")
    assert_one_line_error(*run_cli(capsys, "train", tmp_path / "empty.svm", "-o", tmp_path / "m2"), "no samples")
    sp.save_npz(tmp_path / "nolabels.npz", X)
    assert_one_line_error(*run_cli(capsys, "train", tmp_path / "nolabels.npz", "-o", tmp_path / "m2"), "no labels")
    (tmp_path / "neg.svm").write_bytes(b"1 1:1\n2 2:-1\n")
    assert_one_line_error(*run_cli(capsys, "train", tmp_path / "neg.svm", "-o", tmp_path / "m2"),
                          "neg.svm lines 1-2:", "Negative values")
    status, err = run_cli(capsys, "train", data, "-o", tmp_path / "m2", "--chunk-size", 0)  # an option: its usage
    assert status == 2 and err.splitlines()[-1] == "nbfast train: error: argument --chunk-size: must be at least 1, got 0"


def test_entry_point_prints_no_traceback(tmp_path):
    (tmp_path / "bad.svm").write_bytes(b"1 1:1\nfoo\n")
    result = subprocess.run([sys.executable, "-m", "nbfast.cli", "train", str(tmp_path / "bad.svm"), "-o",
                             str(tmp_path / "m")], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.strip() == f"nbfast train: error: {tmp_path / 'bad.svm'} line 2: malformed label " \
                                    "(expected a number): 'foo' (read as svmlight by its extension .svm; --format reads it as another)"


def test_progress_bar_on_a_terminal(tmp_path, capsys, corpus, monkeypatch):
    pytest.importorskip("tqdm")
    X, y = corpus
    data = write_svmlight(tmp_path / "d.svm", X, y)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    status, err = run_cli(capsys, "train", data, "-o", tmp_path / "m", "--chunk-size", 100)
    assert status == 0
    assert "training" in err and "B/s" in err  # tqdm's bar, then the summary
    assert err.strip().splitlines()[-1].startswith("nbfast: trained MultinomialNB")


# --------------------------------------------------------------------- flat memory
PEAK_RSS_SCRIPT = textwrap.dedent("""
    import resource, sys
    from nbfast.cli import main
    status = main(sys.argv[1:])
    assert status == 0, status
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # KiB on Linux
""")


def peak_rss_kib(*argv):
    result = subprocess.run([sys.executable, "-c", PEAK_RSS_SCRIPT, *map(str, argv)], capture_output=True,
                            text=True, timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert result.returncode == 0, result.stderr
    return int(result.stdout.split()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ru_maxrss in KiB is Linux's convention")
def test_memory_stays_flat_however_large_the_input(tmp_path):
    X, y = make_documents(2000, 5000, 5, mean_length=60, random_state=1)
    block = open(write_svmlight(tmp_path / "block.svm", X, y), "rb").read()
    small, large = tmp_path / "small.svm", tmp_path / "large.svm"
    small.write_bytes(block)
    with open(large, "wb") as f:
        for _ in range(40):  # 80,000 rows, 4.8M nonzeros: about 60 MB as CSR in memory
            f.write(block)
    model = tmp_path / "model"
    peak = {}
    for name, path in [("small", small), ("large", large)]:
        peak[f"train-{name}"] = peak_rss_kib("train", path, "-o", model, "--n-features", 5000, "--chunk-size", 500)
        peak[f"predict-{name}"] = peak_rss_kib("predict", model, path, "-o", tmp_path / f"{name}.csv", "--proba",
                                               "--chunk-size", 500)
    assert sum(1 for _ in open(tmp_path / "large.csv")) == 80_001
    margin_kib = 12 * 1024  # far below the ~60 MB the large input takes in memory
    assert peak["train-large"] - peak["train-small"] < margin_kib, peak
    assert peak["predict-large"] - peak["predict-small"] < margin_kib, peak
