"""`nbfast train` / `nbfast predict` over files in chunks, the chunked readers, and their errors."""

import gzip
import os
import queue
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import exported

import nbfast
from nbfast._kernels import svmlight
from nbfast.cli import _input as stream
from nbfast.cli import main
from nbfast.datasets import make_documents
from nbfast.readers import Block, iter_blocks, iter_npz, iter_svmlight, prefetch, save_npz

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


# ------------------------------------------------------------------------ the parser
TRICKY = (
    b"# a comment line\n"
    b"+1 qid:3 1:0.5 3:-2 7:1e-3  # trailing comment\n"
    b"\n"
    b"-1\t2:3.14159265358979323846 4:1E+2\r\n"
    b"2.5 1:0.1 2:123456789012345678 5:.25 6:-0 8:7.\n"
    b"0\n"
    b"3 10:1.7976931348623157e308 11:4.9e-324"
)


def test_parser_matches_sklearn_on_tricky_input(tmp_path):
    path = tmp_path / "tricky.svm"
    path.write_bytes(TRICKY)
    X_sk, y_sk = sk_datasets.load_svmlight_file(str(path), zero_based=False, n_features=11)
    for chunk_size in (1, 2, 100):
        blocks = list(iter_svmlight(path, chunk_size))
        X = sp.vstack([b.to_csr(11) for b in blocks]).tocsr()
        y = np.concatenate([b.y for b in blocks])
        np.testing.assert_array_equal(y, y_sk)
        np.testing.assert_array_equal(X.indptr, X_sk.indptr)
        np.testing.assert_array_equal(X.indices, X_sk.indices)
        np.testing.assert_array_equal(X.data, X_sk.data)  # bit-exact, like strtod
        np.testing.assert_array_equal(np.concatenate([b.row_numbers for b in blocks]), [2, 4, 5, 6, 7])


def test_parser_is_exact_on_random_numbers():
    rng = np.random.default_rng(0)
    rounded = [round(v, d) for v, d in zip(rng.uniform(0, 1000, 500), rng.integers(0, 6, 500))]
    values = np.concatenate([rng.standard_normal(500) * 10.0 ** rng.integers(-8, 8, 500), rounded])
    formats = [repr, lambda v: f"{v:.6f}", lambda v: f"{v:.3e}", lambda v: f"{v:.15g}", lambda v: f"{v:.17g}"]
    for fmt in formats:
        text = "".join(f"{fmt(float(v))} 1:{fmt(float(v))}\n" for v in values).encode()
        status, labels, data, *_ = svmlight.parse_block(text, 1)
        assert status == svmlight.Status.OK
        expected = [float(fmt(float(v))) for v in values]
        np.testing.assert_array_equal(labels, expected)
        np.testing.assert_array_equal(data, expected)


@pytest.mark.parametrize("line, message", [
    (b"1 1:2 3", "line 2: malformed feature"),
    (b"1 1:2 3:", "line 2: malformed feature"),
    (b"1 1:2 x:3", "line 2: malformed feature"),
    (b"1 1:2 3:4x", "line 2: malformed feature"),
    (b"a 1:2", "line 2: malformed label"),
    (b"1,2 1:2", "line 2: malformed label"),
    (b"1 3:1 2:1", "line 2: feature indices must be sorted and unique"),
    (b"1 2:1 2:1", "line 2: feature indices must be sorted and unique"),
    (b"1 0:1", "line 2: feature index 0 in a one-based file"),
])
def test_malformed_lines_are_reported_with_their_number(tmp_path, line, message):
    path = tmp_path / "bad.svm"
    path.write_bytes(b"1 1:1\n" + line + b"\n2 2:1\n")
    with pytest.raises(ValueError, match=message):
        list(iter_svmlight(path, 1))
    with pytest.raises(ValueError, match=message):
        list(iter_svmlight(path, 10))


def test_npz_reader_streams_rows(tmp_path, corpus):
    X, y = corpus
    save_npz(tmp_path / "x.npz", X, y, compressed=False)
    sp.save_npz(tmp_path / "plain.npz", X)
    for path, labels in [(tmp_path / "x.npz", y), (tmp_path / "plain.npz", None)]:
        blocks = list(iter_npz(path, 128))
        assert [b.n_rows for b in blocks] == [128] * 7 + [4]
        assert (sp.vstack([b.to_csr(200) for b in blocks]) != X).nnz == 0
        if labels is not None:
            np.testing.assert_array_equal(np.concatenate([b.y for b in blocks]), labels)
    sp.save_npz(tmp_path / "csc.npz", X.tocsc())
    with pytest.raises(ValueError, match="CSC matrix"):
        list(iter_npz(tmp_path / "csc.npz", 10))
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a .npz archive"):
        list(iter_blocks([tmp_path / "junk.npz"], 10))


def test_prefetch_keeps_order_and_raises_producer_errors():
    assert list(prefetch(iter(range(50)))) == list(range(50))

    def failing():
        yield 1
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        list(prefetch(failing()))
    stream = prefetch(iter(range(1000)))
    assert next(stream) == 0
    stream.close()  # stopping early does not hang


class InterruptedQueue(queue.Queue):
    """A queue whose get is interrupted by a signal's exception just after taking the queue's lock, as SIGTERM
    can interrupt it: the lock stays held."""

    def get(self, block=True, timeout=None):
        self.mutex.acquire()
        raise KeyboardInterrupt("signal")


def test_prefetch_interrupted_while_holding_the_queue_lock_still_ends(monkeypatch):
    import nbfast.readers._block as block_module

    monkeypatch.setattr(block_module.queue, "Queue", InterruptedQueue)
    monkeypatch.setattr(block_module, "_JOIN_SECONDS", 0.5)
    outcome = []

    def consume():
        try:
            list(prefetch(iter(range(1000))))
        except KeyboardInterrupt as exc:
            outcome.append(exc)

    consumer = threading.Thread(target=consume, daemon=True)
    consumer.start()
    consumer.join(timeout=30)
    assert not consumer.is_alive(), "closing the stream waited forever on the queue's lock"
    assert len(outcome) == 1


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


def test_models_refusing_sparse_input_get_dense_chunks(corpus):
    pytest.importorskip("sklearn")
    X, y = corpus

    class DenseOnlyNB(nbfast.MultinomialNB):
        def __sklearn_tags__(self):
            tags = super().__sklearn_tags__()
            tags.input_tags.sparse = False
            return tags

    block = Block("mem", X.data, X.indices.astype(np.int64), X.indptr.astype(np.int64), y,
                  np.arange(1, X.shape[0] + 1), 0)
    assert sp.issparse(stream.model_input(block, nbfast.MultinomialNB(), 200))
    dense = stream.model_input(block, DenseOnlyNB(), 200)
    assert isinstance(dense, np.ndarray)
    np.testing.assert_array_equal(dense, X.toarray())
