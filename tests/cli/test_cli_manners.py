"""Command-line manners: an error names what is wrong (the option, the folder, the format) before any work, and
a subcommand's mistakes print that subcommand's usage."""

import sys

import numpy as np
import pytest

from nbfast.cli import main
from nbfast.datasets import make_documents

sk_datasets = pytest.importorskip("sklearn.datasets")


@pytest.fixture
def data(tmp_path):
    X, y = make_documents(60, 20, 2, mean_length=10, random_state=0)
    path = tmp_path / "train.svm"
    sk_datasets.dump_svmlight_file(X, y, str(path), zero_based=False)
    return path


def errors(capsys, *argv):
    status = main([str(a) for a in argv])
    return status, capsys.readouterr().err.strip().splitlines()


def test_an_invalid_option_value_is_blamed_on_the_option(data, tmp_path, capsys):
    status, err = errors(capsys, "train", data, "-o", tmp_path / "m.nbf", "--alpha", "-1")
    assert status == 2 and err[0].startswith("usage: nbfast train")
    assert err[-1] == "nbfast train: error: argument --alpha: must be a finite number >= 0 or 'auto', got '-1'"
    assert not (tmp_path / "m.nbf").exists()


@pytest.mark.parametrize("typo", ["--alpah", "--alp"])  # a misspelling, and an abbreviation (never expanded)
def test_an_unknown_option_prints_the_subcommand_usage(data, tmp_path, capsys, typo):
    status, err = errors(capsys, "train", data, "-o", tmp_path / "m.nbf", typo, "1")
    assert status == 2 and err[0].startswith("usage: nbfast train")
    assert err[-1].startswith(f"nbfast train: error: unrecognized arguments: {typo}")


def test_a_missing_output_folder_is_named(data, tmp_path, capsys):
    assert main(["train", str(data), "-o", str(tmp_path / "m.nbf")]) == 0
    capsys.readouterr()
    for argv in (["train", data], ["predict", tmp_path / "m.nbf", data]):
        status, err = errors(capsys, *argv, "-o", tmp_path / "no" / "such" / "out")
        assert status == 2 and err == [f"nbfast {argv[0]}: error: -o {tmp_path / 'no' / 'such' / 'out'}: the folder "
                                       f"{tmp_path / 'no' / 'such'} does not exist"]


@pytest.mark.parametrize("command, name", [("predict", "out.npz"), ("predict", "out.xlsx"), ("train", "m.csv")])
def test_an_output_extension_the_command_does_not_write_is_refused(data, tmp_path, capsys, command, name):
    assert main(["train", str(data), "-o", str(tmp_path / "m.nbf")]) == 0
    capsys.readouterr()
    argv = ["train", data] if command == "train" else ["predict", tmp_path / "m.nbf", data]
    status, err = errors(capsys, *argv, "-o", tmp_path / name)
    assert status == 2 and len(err) == 1 and "files are not written here" in err[0]
    assert not (tmp_path / name).exists()


@pytest.mark.parametrize("name", ["out.csv", "out.txt", "out", "out.npy"])
def test_the_outputs_predict_writes_are_accepted(data, tmp_path, capsys, name):
    assert main(["train", str(data), "-o", str(tmp_path / "m.nbf")]) == 0
    capsys.readouterr()
    assert main(["predict", str(tmp_path / "m.nbf"), str(data), "-o", str(tmp_path / name)]) == 0
    if name.endswith(".npy"):
        assert np.load(tmp_path / name).shape == (60,)


def test_an_excel_input_says_excel_is_not_supported(tmp_path, capsys):
    (tmp_path / "data.xlsx").write_text("label,a,b\n1,0,2\n")
    status, err = errors(capsys, "train", tmp_path / "data.xlsx", "-o", tmp_path / "m.nbf")
    assert status == 2 and len(err) == 1 and "Excel is not a supported input format" in err[0]
    assert "pass --format to read it as one" in err[0]


def test_bench_plot_without_matplotlib_fails_before_the_benchmark(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if not installed
    status, err = errors(capsys, "bench", "--n-samples", 100, "--n-features", 10, "--repeats", 1,
                         "--plot", tmp_path / "p.png")
    assert status == 2 and err == ["nbfast bench: error: --plot needs matplotlib, which is not installed: "
                                   "pip install 'nbfast[plot]'"]
    assert "Generating" not in capsys.readouterr().out  # no corpus was built, nothing was timed


def test_a_reader_that_leaves_early_ends_the_command_quietly(tmp_path):
    """`nbfast predict ... -o - | head -1`: no error line when head exits, and 128 + SIGPIPE as the status."""
    import subprocess

    from nbfast.datasets import make_text_documents

    documents, labels = make_text_documents(n_samples=5000, n_classes=4, random_state=0)
    data = tmp_path / "docs.tsv"
    data.write_text("".join(f"{label}\t{document}\n" for label, document in zip(labels, documents)))
    model = tmp_path / "m.nbf"
    assert main(["train", str(data), "-o", str(model)]) == 0
    command = [sys.executable, "-m", "nbfast.cli", "predict", str(model), str(data), "-o", "-", "--proba"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.readline()
    process.stdout.close()  # as `head -1` does
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 141
    assert "error" not in stderr and "Traceback" not in stderr, stderr
