"""`nbfast bench` and `nbfast bench --text` run end to end on a tiny corpus and report every figure (no timing
assertions)."""

import json
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from support.helpers import ALL_ESTIMATORS

from nbfast.cli import main
from nbfast.cli.bench import _harness
from nbfast.cli.bench import estimators as bench
from nbfast.datasets import make_documents

#: Written out, not read from nbfast.bench (test_estimators_are_looked_up_by_name checks them).
OPERATIONS = ["fit", "fit+predict", "partial_fit", "predict", "predict_proba"]
TINY = ["bench", "--n-samples", "300", "--n-features", "64", "--n-classes", "3", "--repeats", "1", "--batch-size", "100"]


def test_bench_json_reports_every_operation_for_both_libraries(capsys):
    pytest.importorskip("sklearn")
    assert main(TINY + ["--json", "--dtype", "float64", "float32"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["corpus"]["n_samples"] == 300
    assert report["machine"]["bandwidth_bytes_per_s"] > 0
    rows = report["results"]
    seen = {(r["dtype"], r["operation"], r["library"]) for r in rows}
    assert seen == {
        (d, op, lib) for d in ("float64", "float32") for op in OPERATIONS for lib in ("nbfast", "scikit-learn")
    }
    for r in rows:
        assert r["seconds"] > 0 and len(r["times"]) == 1
        assert r["docs_per_s"] == pytest.approx(300 / r["seconds"])
        assert r["nnz_per_s"] == pytest.approx(report["corpus"]["nnz"] / r["seconds"])
        assert r["peak_bytes"] >= 0
        assert ("speedup" in r) == (r["library"] == "nbfast")
    agreement = {(r["dtype"], r["operation"]): r["agreement"] for r in rows if "agreement" in r}
    assert agreement[("float64", "predict_proba")] < 1e-12
    assert agreement[("float64", "predict")] == 1.0


def test_bench_table_and_plot(tmp_path, capsys):
    pytest.importorskip("sklearn")
    pytest.importorskip("matplotlib")
    plot = tmp_path / "throughput.png"
    assert main(TINY + ["--estimator", "all", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    for name in bench.BENCHED:
        assert f"{name:<14}float64  predict_proba  nbfast" in out
    assert "speed-up" in out and "x bound" in out and "agreement with scikit-learn" in out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("corpus", ["hashed", "frequency"])
def test_bench_corpora_and_model_memory(corpus, capsys):
    pytest.importorskip("sklearn")
    tiny = ["bench", "--corpus", corpus, "--n-samples", "300", "--n-features", "65536", "--n-classes", "5",
            "--repeats", "1", "--estimator", "MultinomialNB"]
    assert main(tiny + ["--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["corpus"]["name"] == corpus and report["batch_size"] == 30  # ten batches
    rows = report["results"]
    assert {r["operation"] for r in rows} == set(bench.OPERATIONS) and "fit+predict" in bench.OPERATIONS
    assert all(r["model_bytes"] > 0 for r in rows)
    ratios = [r["memory_ratio"] for r in rows if r["library"] == "nbfast"]
    assert all(ratio > (1 if corpus == "hashed" else 0) for ratio in ratios)  # compact: smaller than scikit-learn's
    assert main(tiny) == 0
    out = capsys.readouterr().out
    assert f"{corpus} corpus: 300 documents" in out and "model MiB" in out and "MultinomialNB " in out


def test_bench_unknown_corpus_exits_2(capsys):
    assert main(TINY + ["--corpus", "nosuch"]) == 2
    assert "argument --corpus: invalid choice: 'nosuch'" in capsys.readouterr().err


def test_bench_threads_limit_is_reported(capsys):
    pytest.importorskip("threadpoolctl")
    assert main(TINY + ["--json", "--threads", "1", "--estimator", "MultinomialNB"]) == 0
    assert json.loads(capsys.readouterr().out)["machine"]["threads"] == 1


@pytest.mark.parametrize(
    "option, message",
    [(["--estimator", "NoSuchNB"], "unknown estimator"), (["--repeats", "0"], "--repeats"), (["--threads", "0"], "--threads")],
)
def test_bench_bad_options_exit_2(option, message, capsys):
    assert main(TINY + option) == 2
    assert message in capsys.readouterr().err


def test_estimators_are_looked_up_by_name():
    import nbfast

    assert bench.BENCHED == {name: getattr(nbfast, name) for name in ALL_ESTIMATORS 
                             if not getattr(nbfast, name)._composite and getattr(nbfast, name)._incremental}
    assert list(bench.OPERATIONS) == OPERATIONS
    assert _harness.sklearn_estimator("NoSuchNB") is None


@pytest.mark.parametrize("kind", ["csr_matrix", "csr_array", "dense"])
def test_partial_fit_batches_are_views_that_make_up_the_corpus(kind):
    """partial_fit is timed on batches cut beforehand without copying the nonzeros, so that scipy's row slicing
    is not timed with it."""
    X, y = make_documents(103, 40, 3, index_dtype=np.int64, random_state=0)
    X = X.toarray() if kind == "dense" else getattr(sp, kind)(X)
    batches = bench.row_batches(X, y, 25)
    assert [X_batch.shape[0] for X_batch, _ in batches] == [25, 25, 25, 25, 3]
    for X_batch, _ in batches:
        assert type(X_batch) is type(X) and X_batch.shape[1] == 40
        if kind != "dense":
            assert X_batch.indices.dtype == X_batch.indptr.dtype == X.indices.dtype == np.int64
        assert np.shares_memory(*((X_batch, X) if kind == "dense" else (X_batch.data, X.data)))
    dense = [X_batch if kind == "dense" else X_batch.toarray() for X_batch, _ in batches]
    np.testing.assert_array_equal(np.vstack(dense), X if kind == "dense" else X.toarray())
    np.testing.assert_array_equal(np.concatenate([y_batch for _, y_batch in batches]), y)


def test_streaming_bound_counts_data_indices_and_indptr():
    X, _ = make_documents(50, 30, 2, dtype=np.float32, index_dtype=np.int64)
    assert _harness.input_bytes(X) == 4 * X.nnz + 8 * X.nnz + 8 * 51
    assert _harness.input_bytes(np.zeros((3, 4))) == 96
    assert bench.measure_bandwidth(n_bytes=2**20, repeats=1) > 0


# ---------------- nbfast bench --text: raw text to CSR and to labels

TINY_TEXT = ["bench", "--text", "--n-samples", "200", "--n-features", "1024", "--n-classes", "3", "--repeats", "1"]


def test_bench_text_json_reports_every_row_for_both_libraries(capsys):
    pytest.importorskip("sklearn")
    assert main(TINY_TEXT + ["--json", "--repeats", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["corpus"]["n_samples"] == 200 and report["corpus"]["n_features"] == 1024
    assert report["corpus"]["characters"] > 200 and "bandwidth_bytes_per_s" not in report["machine"]
    rows = report["results"]
    seen = [(r["subject"], r["operation"], tuple(r["ngram_range"]), r["library"]) for r in rows]
    hashing = [("HashingVectorizer", "transform", (1, 1)), ("HashingVectorizer", "transform", (1, 2))]
    vocabulary = [(name, operation, ngram_range) for name in ("CountVectorizer", "TfidfVectorizer")
                  for ngram_range in ((1, 1), (1, 2)) for operation in ("fit_transform", "transform")]
    pipelines = [("HashingVectorizer + MultinomialNB", "predict", (1, 1)),
                 ("HashingVectorizer + MultinomialNB", "predict_proba", (1, 1)),
                 ("TfidfVectorizer + MultinomialNB", "fit+predict", (1, 1)),
                 ("TfidfVectorizer + ComplementNB", "fit+predict", (1, 1))]
    assert seen == [(*row, library) for row in hashing + vocabulary + pipelines
                    for library in ("nbfast", "scikit-learn")]
    for r in rows:
        assert r["seconds"] > 0 and len(r["times"]) == 2 and r["peak_bytes"] >= 0
        assert r["docs_per_s"] == pytest.approx(200 / r["seconds"])
        assert ("speedup" in r) == (r["library"] == "nbfast")
    nbfast_rows = {row[:3]: r for row, r in zip(seen, rows) if r["library"] == "nbfast"}
    for row in hashing + vocabulary:
        assert nbfast_rows[row]["identical"] is True
    for row in vocabulary:
        assert nbfast_rows[row]["same_vocabulary"] is True
        assert nbfast_rows[row].get("max_relative_difference", 0.0) == 0.0
    assert nbfast_rows[pipelines[0]]["agreement"] == 1.0
    assert nbfast_rows[pipelines[1]]["agreement"] < 1e-12
    assert nbfast_rows[pipelines[2]]["agreement"] == 1.0 and nbfast_rows[pipelines[3]]["agreement"] == 1.0


def test_bench_text_table(capsys):
    pytest.importorskip("sklearn")
    assert main(TINY_TEXT) == 0
    out = capsys.readouterr().out
    assert "200 documents" in out and "1,024 hashed features" in out
    for subject, operation, ngram_range in [("HashingVectorizer", "transform", "(1, 1)"),
                                            ("TfidfVectorizer", "fit_transform", "(1, 2)"),
                                            ("HashingVectorizer + MultinomialNB", "predict_proba", "(1, 1)"),
                                            ("TfidfVectorizer + ComplementNB", "fit+predict", "(1, 1)")]:
        for library in ("nbfast", "scikit-learn"):
            assert f"{subject:<35}{operation:<15}{ngram_range:<13}{library}" in out
    assert "speed-up" in out and "agreement with scikit-learn" in out
    assert "HashingVectorizer transform (1, 2): identical matrices" in out
    assert "CountVectorizer fit_transform (1, 2): same vocabulary, identical matrices" in out
    assert "HashingVectorizer + MultinomialNB predict (1, 1): 100.00% equal labels" in out
    assert "TfidfVectorizer + MultinomialNB fit+predict (1, 1): 100.00% equal labels" in out


def test_bench_text_threads_limit_is_reported(capsys):
    pytest.importorskip("sklearn")
    pytest.importorskip("threadpoolctl")
    assert main(TINY_TEXT + ["--json", "--threads", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["machine"]["threads"] == 1


@pytest.mark.parametrize(
    "option, message",
    [
        (["--estimator", "BernoulliNB"], "--estimator: not an option of --text"),
        (["--dtype", "float32", "--plot", "x.png"], "--dtype, --plot: not an option of --text"),
        (["--batch-size", "10"], "--batch-size"),
        (["--corpus", "hashed"], "--corpus"),
        (["--repeats", "0"], "--repeats"),
        (["--n-samples", "1"], "--n-samples"),
        (["--threads", "0"], "--threads"),
    ],
)
def test_bench_text_bad_options_exit_2(option, message, capsys):
    assert main(TINY_TEXT + option) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1]  # the error's line: after the usage for a value argparse refuses
    assert len(err) == 1 or err[0].startswith("usage: nbfast bench")


def test_bench_text_without_sklearn_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sklearn.feature_extraction.text", None)  # as if not installed
    assert main(TINY_TEXT) == 2
    assert "pip install 'nbfast[bench]'" in capsys.readouterr().err


def test_identical_compares_every_array_and_dtype():
    import scipy.sparse as sp

    from nbfast.cli.bench.text import identical

    A = sp.csr_matrix(np.array([[0.0, 1.0], [2.0, 0.0]]))
    assert identical(A, A.copy())
    assert not identical(A, A.astype(np.float32))
    assert not identical(A, A * 2)
    assert not identical(A, sp.csr_matrix(np.array([[1.0, 0.0], [2.0, 0.0]])))
    assert not identical(A, sp.csr_matrix((2, 3)))


def test_compare_gives_the_relative_difference_of_float_matrices():
    import scipy.sparse as sp

    from nbfast.cli.bench.text import _matrices_text, compare

    A = sp.csr_matrix(np.array([[0.0, 1.0], [2.0, 0.0]]))
    assert compare(A, A.copy()) == {"identical": True, "max_relative_difference": 0.0}
    assert compare(A, A * (1 + 1e-13))["max_relative_difference"] == pytest.approx(1e-13, rel=1e-3)
    assert compare(A, sp.csr_matrix((2, 2)))["max_relative_difference"] == float("inf")
    assert compare(A.astype(np.int64), A.astype(np.int64)) == {"identical": True}
    assert _matrices_text({"identical": False, "max_relative_difference": 1e-13, "same_vocabulary": True}) == (
        "same vocabulary, same entries, values within 1.0e-13 relative")
    assert _matrices_text({"identical": False, "max_relative_difference": float("inf")}) == "the matrices DIFFER"


def test_busy_runs_a_cpu_bound_process_only_for_the_measurement(capsys):
    pytest.importorskip("sklearn")
    with _harness.busy_core() as spinner:
        assert spinner.poll() is None  # running
    assert spinner.poll() is not None  # killed and reaped
    with _harness.busy_core(False) as nothing:
        assert nothing is None
    tiny = ["bench", "--n-samples", "300", "--n-features", "4096", "--n-classes", "3", "--repeats", "1", "--busy"]
    assert main(tiny + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out)["machine"]["busy"] is True


def test_bench_cli_times_whole_processes_and_compares_labels(capsys):
    pytest.importorskip("sklearn")
    pytest.importorskip("pandas")
    assert main(["bench", "--cli", "--n-samples", "300", "--n-classes", "3", "--repeats", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["labels_identical"] is True
    assert report["corpus"]["n_train"] == 30 and report["corpus"]["n_predict"] == 300
    rows = {(r["operation"], r["library"]): r for r in report["results"]}
    assert set(rows) == {(op, lib) for op in ("train", "predict") for lib in ("nbfast", "scikit-learn")}
    for (_, library), row in rows.items():
        assert row["seconds"] > 0 and row["peak_bytes"] > 0 and len(row["times"]) == 1
        assert ("speedup" in row) == ("own_docs_per_s" in row) == (library == "nbfast")


def test_bench_cli_threads_prints_a_scaling_table_with_the_serial_share(capsys):
    argv = ["bench", "--cli", "--n-samples", "200", "--n-classes", "3", "--repeats", "1", "--threads", "1", "2"]
    assert main(argv + ["--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["scaling"]
    assert [(r["operation"], r["threads"]) for r in rows] == [("train", 1), ("train", 2), ("predict", 1), ("predict", 2)]
    for row in rows:
        assert row["seconds"] > 0 and len(row["times"]) == 1
        assert (row["serial_share"] is None) == (row["threads"] == 1) and (row["speedup"] == 1) >= (row["threads"] == 1)
        assert 0 < row["startup_seconds"] and (row["work_serial_share"] is None) == (row["threads"] == 1)
        work = max(row["seconds"] - row["startup_seconds"], 1e-9)
        first = next(r for r in rows if r["operation"] == row["operation"] and r["threads"] == 1)
        assert row["work_speedup"] == pytest.approx(max(first["seconds"] - row["startup_seconds"], 1e-9) / work)
    assert main(argv[:-1]) == 0
    out = capsys.readouterr().out
    assert "serial share" in out and "CPUs" in out and "predict" in out and "start-up s" in out


def test_the_serial_share_is_amdahls_fitted_to_two_runs():
    from nbfast.cli.bench.processes import serial_share

    assert serial_share(10.0, 10.0, 1, 4) == pytest.approx(1.0)  # nothing shrank
    assert serial_share(10.0, 2.5, 1, 4) == pytest.approx(0.0)  # all of it did
    assert serial_share(10.0, 5.5, 1, 2) == pytest.approx(0.1)  # 1 s serial + 9 s on two threads
    assert serial_share(10.0, 10.0, 2, 2) is None


def test_several_thread_counts_are_only_for_the_cli_benchmark(capsys):
    assert main(["bench", "--threads", "1", "2"]) == 2
    assert "--threads takes several counts only with --cli" in capsys.readouterr().err


def test_bench_cli_refuses_options_of_the_other_benchmarks(capsys):
    assert main(["bench", "--cli", "--estimator", "MultinomialNB"]) == 2
    assert "--estimator: not an option of --cli" in capsys.readouterr().err


def test_bench_cli_writes_the_bytecode_an_installed_package_has(tmp_path):
    import importlib.util
    import os

    from nbfast.cli.bench.processes import compile_package

    package = tmp_path / "package"
    (package / "sub").mkdir(parents=True)
    modules = [package / "__init__.py", package / "sub" / "module.py"]
    for module in modules:
        module.write_text("VALUE = 1\n")
    assert compile_package(package)
    assert all(os.path.isfile(importlib.util.cache_from_source(str(module))) for module in modules)
    (package / "broken.py").write_text("def (:\n")
    assert not compile_package(package)


def _labelled_lines(n, classes=("spam", "ham", "eggs")):
    return [f"{classes[i % len(classes)]}\tdocument {i} about {classes[i % len(classes)]} and café" for i in range(n)]


def test_bench_cli_documents_times_the_text_of_a_file(tmp_path, capsys):
    pytest.importorskip("sklearn")
    pytest.importorskip("pandas")
    path = tmp_path / "real.tsv"
    path.write_text("\n".join(_labelled_lines(30)) + "\n", encoding="utf-8")
    argv = ["bench", "--cli", "--documents", str(path), "--n-samples", "70", "--repeats", "1"]
    assert main(argv + ["--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["corpus"]["documents"] == str(path) and report["labels_identical"] is True
    assert (report["corpus"]["n_train"], report["corpus"]["n_predict"], report["corpus"]["n_classes"]) == (30, 70, 3)
    assert main(argv + ["--threads", "1", "2"]) == 0
    assert f"Scaling of whole nbfast processes on the text of {path}: 70 documents" in capsys.readouterr().out


def test_the_documents_are_copied_to_train_on_and_repeated_to_label(tmp_path):
    from nbfast.cli.bench.processes import copy_corpus

    lines = _labelled_lines(4)
    path = tmp_path / "real.tsv"
    path.write_text("\n".join(lines), encoding="utf-8")  # no newline at the end
    corpus = copy_corpus(tmp_path, path, 10)
    assert (tmp_path / "train.tsv").read_text(encoding="utf-8").splitlines() == lines
    assert (tmp_path / "predict.tsv").read_text(encoding="utf-8").splitlines() == (lines * 3)[:10]
    assert (corpus["n_train"], corpus["n_predict"], corpus["n_classes"]) == (4, 10, 3)


@pytest.mark.parametrize(("content", "extra", "message"), [
    ("spam\ta\nham b\n", [], "line 2 has no tab (the lines are label<TAB>text)"),
    ("", [], "the file is empty"),
    ("spam\ta\n", ["--n-classes", "3"], "--n-classes: the classes of --documents are its labels"),
])
def test_bench_cli_documents_refuses_what_it_cannot_time(tmp_path, content, extra, message, capsys):
    path = tmp_path / "real.tsv"
    path.write_text(content, encoding="utf-8")
    assert main(["bench", "--cli", "--documents", str(path), "--repeats", "1", *extra]) == 2
    assert message in capsys.readouterr().err


def test_documents_are_an_option_of_the_cli_benchmark_only(tmp_path, capsys):
    assert main(["bench", "--documents", str(tmp_path / "real.tsv")]) == 2
    assert "--documents applies only with --cli" in capsys.readouterr().err
