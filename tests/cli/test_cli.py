"""The command line: the demo runs, and user errors are one line on stderr."""

import subprocess
import sys

import pytest

from nbfast.cli import main


def test_demo_prints_accuracy_and_throughput(capsys):
    assert main(["demo", "--n-samples", "3000", "--n-features", "500", "--n-classes", "4"]) == 0
    out = capsys.readouterr().out
    assert "documents/s" in out and "accuracy" in out and "median of 3 runs after a warm-up" in out
    header = next(line for line in out.splitlines() if line.startswith("documents/s")).split()
    assert header[1:] == ["accuracy", "fit", "first", "predict", "predict_proba", "predict"]
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith(("nbfast ", "scikit-learn "))}
    assert set(rows) == {"nbfast", "scikit-learn"} and all(len(row) == 6 for row in rows.values())
    assert "speed-up" in out and "nbfast bench" in out


def test_bad_option_is_one_line_without_traceback():
    result = subprocess.run(
        [sys.executable, "-m", "nbfast.cli", "demo", "--n-samples", "1"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0 and "error" in result.stderr


def test_console_script_runs_main_and_freezes_what_is_left(monkeypatch, capsys):
    """The executable's entry runs the command, then keeps the interpreter's last collection from walking
    every object left (the process ends)."""
    import gc

    from nbfast.cli import console_script

    monkeypatch.setattr(sys, "argv", ["nbfast", "--version"])
    gc.unfreeze()
    try:
        assert console_script() == 0
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert capsys.readouterr().out.startswith("nbfast ")


def test_executable_and_module_run_the_console_script():
    from importlib.metadata import entry_points

    (script,) = entry_points(group="console_scripts", name="nbfast")
    assert script.value == "nbfast.cli:console_script"
    result = subprocess.run([sys.executable, "-m", "nbfast.cli", "--version"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and result.stdout.startswith("nbfast ")


@pytest.mark.parametrize("module", ["nbfast", "nbfast.cli"])
def test_python_dash_m_runs_the_command(module, files):
    result = subprocess.run([sys.executable, "-m", module, "predict", str(files / "m.nbf"), str(files / "d.svm"),
                             "-o", "-"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "label" and len(result.stdout.splitlines()) == 61
    result = subprocess.run([sys.executable, "-m", module, "predict"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stderr.startswith("usage: nbfast predict")


def test_info_and_explain_of_a_wide_compact_model_file(tmp_path, capsys):
    # 500 classes x 2**20 hashed features, 3 documents per class: the dense tables would take 4 GiB
    import tracemalloc

    import numpy as np
    import scipy.sparse as sp

    import nbfast

    rng = np.random.default_rng(0)
    n_rows, words = 1_500, 8
    X = sp.csr_matrix((np.ones(n_rows * words), rng.integers(0, 2**20, n_rows * words),
                       np.arange(0, n_rows * words + 1, words)), shape=(n_rows, 2**20))
    X.sum_duplicates()
    nbfast.save(nbfast.MultinomialNB().fit(X, np.arange(n_rows) % 500), tmp_path / "m.nbf")
    for argv in (["info", str(tmp_path / "m.nbf"), "--top-features", "3"],
                 ["explain", str(tmp_path / "m.nbf"), "--top", "3"]):
        tracemalloc.start()
        try:
            assert main(argv) == 0
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 200 * 2**20, (argv, peak)
        out = capsys.readouterr().out
        assert "499:" in out and out.count("  3. ") == 500
    rows = "".join(f"{i} " + " ".join(f"{j + 1}:1" for j in X[i].indices) + "\n" for i in range(3))
    (tmp_path / "x.svm").write_text(rows)
    tracemalloc.start()
    try:
        assert main(["explain", str(tmp_path / "m.nbf"), str(tmp_path / "x.svm"), "--top", "3"]) == 0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * 2**20, peak
    assert capsys.readouterr().out.count("predicted") == 3
