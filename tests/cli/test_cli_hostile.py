"""The command line never loses data and reports every input error as one line with exit status 2: outputs that
would overwrite an input, temporary files, SIGTERM, truncated archives, huge indices, crafted models."""

import bz2
import gzip
import os
import signal
import subprocess
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pytest
from support.crafting import _with_header

import nbfast
from nbfast.cli import _terminate, main
from nbfast.persist import _files

SVM = "".join(f"{i % 3} {1 + i % 7}:1 {8 + i % 5}:2\n" for i in range(60))  # as d.svm of the files fixture


def _run(capsys, *argv):
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.err


def _one_line_error(status, err, *fragments):
    assert status == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, err




def _snapshot(directory):
    return {path.name: path.read_bytes() for path in sorted(Path(directory).iterdir())}


@pytest.mark.parametrize("spelling", ["same", "dotted", "symlink"])
@pytest.mark.parametrize("command", ["predict-over-input", "predict-over-model", "train-over-input"])
def test_an_output_that_is_an_input_is_refused(files, capsys, monkeypatch, command, spelling):
    monkeypatch.chdir(files)
    (files / "link.svm").symlink_to(files / "d.svm")
    before = _snapshot(files)
    target = {"predict-over-input": "d.svm", "predict-over-model": "m.nbf", "train-over-input": "d.svm"}[command]
    output = {"same": target, "dotted": f"./{target}", "symlink": "link.svm" if target == "d.svm" else target}[spelling]
    if command.startswith("predict"):
        argv = ["predict", "m.nbf", "d.svm", "-o", output]
    else:
        argv = ["train", "d.svm", "-o", output]
    status, err = _run(capsys, *argv)
    _one_line_error(status, err, "is also an input")
    assert _snapshot(files) == before


def test_an_input_named_like_the_temporary_file_is_read_intact(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    (files / "out.csv.partial").write_text(SVM)
    status, err = _run(capsys, "predict", "m.nbf", "out.csv.partial", "--format", "svmlight", "-o", "out.csv")
    assert status == 0, err
    assert (files / "out.csv.partial").read_text() == SVM
    assert len((files / "out.csv").read_text().splitlines()) == 61
    assert sorted(p.name for p in files.iterdir()) == ["d.svm", "m.nbf", "out.csv", "out.csv.partial"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_remove_the_temporary_file(files, signum):
    """The input comes through a pipe held open, so the signal always lands while predict is at work,
    however fast it scores what it has been given."""
    command = [sys.executable, "-c", "import sys; from nbfast.cli import main; sys.exit(main())",
               "predict", str(files / "m.nbf"), "-", "--format", "svmlight", "--chunk-size", "20", "--proba",
               "-o", str(files / "o.csv")]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    child.stdin.write(SVM * 10)
    child.stdin.flush()
    deadline = time.monotonic() + 60
    while not [p for p in files.iterdir() if p.name not in ("d.svm", "m.nbf")]:
        assert child.poll() is None and time.monotonic() < deadline, "predict never started writing"
        time.sleep(0.01)
    child.send_signal(signum)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 128 + signum, err
    assert "Traceback" not in err
    assert sorted(p.name for p in files.iterdir()) == ["d.svm", "m.nbf"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_as_the_temporary_file_is_created_removes_it(files, capsys, monkeypatch, signum):
    """A signal's handler raises in the main thread wherever that thread is, even the instant open() has created
    the temporary file (blocking the signal in the main thread would not stop it: another thread takes the
    signal, and the handler still runs in the main thread)."""
    (files / "o.csv").write_text("before\n")
    real_open = open

    def open_then_signalled(file, mode="r", *args, **kwargs):
        f = real_open(file, mode, *args, **kwargs)
        if mode == "xb":  # the temporary file
            f.close()
            _terminate(signum, None)  # what the handler does when it runs here
        return f

    monkeypatch.setattr(_files, "open", open_then_signalled, raising=False)
    status, err = _run(capsys, "predict", files / "m.nbf", files / "d.svm", "-o", files / "o.csv")
    assert status == 128 + signum, err
    assert "Traceback" not in err
    assert sorted(p.name for p in files.iterdir()) == ["d.svm", "m.nbf", "o.csv"]
    assert (files / "o.csv").read_text() == "before\n"


def test_a_second_signal_does_not_interrupt_the_clean_up(files, capsys, monkeypatch):
    """SIGHUP, then SIGTERM while the temporary file is being removed (a terminal closing, then a service
    manager's stop): the second is ignored, the file is removed and the exit status is the first signal's."""
    real_open, real_unlink = open, os.unlink

    def open_then_signalled(file, mode="r", *args, **kwargs):
        f = real_open(file, mode, *args, **kwargs)
        if mode == "xb":  # the temporary file
            f.close()
            _terminate(signal.SIGHUP, None)
        return f

    def unlink_signalled_again(path):
        if str(path).endswith(".partial"):
            os.kill(os.getpid(), signal.SIGTERM)  # its handler would run at the next line
        real_unlink(path)

    monkeypatch.setattr(_files, "open", open_then_signalled, raising=False)
    monkeypatch.setattr(_files.os, "unlink", unlink_signalled_again)
    status, err = _run(capsys, "predict", files / "m.nbf", files / "d.svm", "-o", files / "o.csv")
    assert status == 128 + signal.SIGHUP, err
    assert "Traceback" not in err
    assert sorted(p.name for p in files.iterdir()) == ["d.svm", "m.nbf"]


@pytest.mark.parametrize("suffix, compress", [(".gz", gzip.compress), (".bz2", bz2.compress)])
@pytest.mark.parametrize("command", ["train", "predict"])
def test_a_truncated_archive_is_one_line(files, capsys, suffix, compress, command):
    archive = files / f"t.svm{suffix}"
    archive.write_bytes(compress((SVM * 50).encode())[:-40])
    argv = ["train", archive, "-o", files / "n.nbf"] if command == "train" else \
        ["predict", files / "m.nbf", archive, "-o", files / "o.csv"]
    status, err = _run(capsys, *argv)
    _one_line_error(status, err, str(archive))
    assert not (files / "n.nbf").exists() and not (files / "o.csv").exists()


@pytest.mark.parametrize("line, message", [
    ("1 18446744073709551617:1", "line 2: feature index beyond 2**62"),
    ("1 4611686018427387904:1", "raise --max-n-features"),  # a valid index of the format: a model this wide cannot be
    ("10000000000000000000 1:1", "line 2: label is not a number of magnitude at most 2**53"),
    ("1.5e19 1:1", "line 2: label"),
    ("nan 1:1", "line 2: label"),
    ("1 1:0x10", "line 2: malformed feature"),
    ("1 0:1", "line 2: feature index 0 in a one-based file (pass --zero-based if indices start at 0)"),
])  # fmt: skip
def test_bad_svmlight_lines_are_one_line_with_their_number(tmp_path, capsys, line, message):
    (tmp_path / "x.svm").write_text(f"0 1:1\n{line}\n")
    status, err = _run(capsys, "train", tmp_path / "x.svm", "-o", tmp_path / "m.nbf")
    _one_line_error(status, err, message)
    assert not (tmp_path / "m.nbf").exists()


def test_huge_labels_never_collapse_into_one_class(tmp_path, capsys):
    """Float labels beyond int64 (read from .npz) stay floats: 1e19 and 1.5e19 are not cast to one int64 (with
    scikit-learn installed such float labels are refused as continuous targets)."""
    from nbfast.cli.train import integral_labels
    from nbfast.readers import save_npz

    labels = np.array([1e19, 1.5e19, 1e19, 1.5e19])
    assert len(np.unique(integral_labels(labels))) == 2
    np.testing.assert_array_equal(integral_labels(np.array([3.0, 2.0**53])), [3, 2**53])
    save_npz(tmp_path / "x.npz", np.eye(4), y=labels)
    with warnings.catch_warnings(record=True) as caught:  # a warning would be a line more on stderr
        warnings.simplefilter("always")
        status, err = _run(capsys, "train", tmp_path / "x.npz", "-o", tmp_path / "m.nbf")
    assert not caught, [str(warning.message) for warning in caught]
    if status == 0:
        np.testing.assert_array_equal(nbfast.load(tmp_path / "m.nbf").classes_, [1e19, 1.5e19])
    else:
        _one_line_error(status, err, "x.npz rows 1-4")


def test_infinite_labels_are_one_line_without_a_warning(tmp_path, capsys):
    from nbfast.readers import save_npz

    save_npz(tmp_path / "x.npz", np.eye(4), y=np.array([1.0, np.inf, 0.0, 1.0]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        status, err = _run(capsys, "train", tmp_path / "x.npz", "-o", tmp_path / "m.nbf")
    assert not caught, [str(warning.message) for warning in caught]
    _one_line_error(status, err, "x.npz rows 1-4", "infinity")


def test_a_crafted_model_is_one_line(files, capsys):
    raw = (files / "m.nbf").read_bytes()
    (files / "bad.nbf").write_bytes(_with_header(raw, lambda h: h["model"]["params"].update(alpha=-1.0)))
    status, err = _run(capsys, "predict", files / "bad.nbf", files / "d.svm", "-o", files / "o.csv")
    _one_line_error(status, err, "bad.nbf")
    assert not (files / "o.csv").exists()


def test_predict_still_writes_next_to_the_output(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    (files / "sub").mkdir()
    status, err = _run(capsys, "predict", "m.nbf", "d.svm", "-o", os.path.join("sub", "o.npy"))
    assert status == 0, err
    assert np.load(files / "sub" / "o.npy").shape == (60,)
    assert sorted(p.name for p in (files / "sub").iterdir()) == ["o.npy"]


@pytest.mark.parametrize("index", [10**8, 2 * 10**9])
@pytest.mark.parametrize("model", ["multinomial", "discriminative", "categorical"])
def test_a_tiny_input_of_huge_width_is_refused_before_allocating(tmp_path, capsys, index, model):
    (tmp_path / "x.svm").write_text(f"0 1:1\n1 {index}:1\n")
    tracemalloc.start()
    try:
        status, err = _run(capsys, "train", tmp_path / "x.svm", "-o", tmp_path / "m.nbf", "--model", model)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    _one_line_error(status, err, f"{index:,} features (the largest feature index of the input)",
                    "raise --max-n-features")
    assert peak < 64 * 2**20 and not (tmp_path / "m.nbf").exists()


def test_max_n_features_sets_the_bound_and_explicit_widths_are_checked(tmp_path, capsys):
    (tmp_path / "x.svm").write_text("0 1:1\n1 300:1\n")
    status, err = _run(capsys, "train", tmp_path / "x.svm", "-o", tmp_path / "m.nbf", "--max-n-features", "299")
    _one_line_error(status, err, "300 features", "--max-n-features 299")
    assert _run(capsys, "train", tmp_path / "x.svm", "-o", tmp_path / "m.nbf", "--max-n-features", "300")[0] == 0
    status, err = _run(capsys, "train", tmp_path / "x.svm", "-o", tmp_path / "n.nbf", "--n-features", str(2**40))
    _one_line_error(status, err, f"{2**40:,} features (--n-features)")
    (tmp_path / "t.tsv").write_text("0\tsome words\n1\tother words\n")  # hashed text at 2**20 passes
    assert _run(capsys, "train", tmp_path / "t.tsv", "-o", tmp_path / "t.nbf")[0] == 0


def test_a_huge_category_is_refused_and_max_categories_clips(tmp_path, capsys):
    from nbfast.persist import load

    (tmp_path / "x.svm").write_text("0 1:1\n1 1:100000000\n")
    tracemalloc.start()
    try:
        status, err = _run(capsys, "train", tmp_path / "x.svm", "-o", tmp_path / "m.nbf", "--model", "categorical")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    _one_line_error(status, err, "x.svm line 2: the value 1e+08", "--max-categories")
    assert peak < 64 * 2**20 and not (tmp_path / "m.nbf").exists()
    argv = ["train", tmp_path / "x.svm", "-o", tmp_path / "m.nbf", "--model", "categorical"]
    assert _run(capsys, *argv, "--max-categories", "4")[0] == 0
    model = load(tmp_path / "m.nbf")
    assert model.max_categories == 4 and model.n_categories_.tolist() == [4]  # CategoricalNB's own clipping
    status, err = _run(capsys, *argv, "--max-categories", str(10**8))
    _one_line_error(status, err, "category columns (--max-categories)", "--max-n-features", "lower --max-categories")
    status, err = _run(capsys, "train", tmp_path / "x.svm", "-o", tmp_path / "n.nbf", "--max-categories", "4")
    _one_line_error(status, err, "--max-categories does not apply to --model multinomial")


@pytest.mark.parametrize("name, content, options", [
    ("d.tsv", b"b\tx y\na\x00\tfoo bar\na\tbaz\n", []),
    ("d.tsv", "b\tx y\na\x00\tfoo bar\na\tbaz\n".encode("latin-1"), ["--encoding", "latin-1"]),
    ("d.jsonl", b'{"label": "b", "text": "x y"}\n{"label": "a\\u0000", "text": "foo"}\n', []),
])  # fmt: skip
def test_a_label_ending_with_nul_is_refused_not_merged(tmp_path, capsys, name, content, options):
    """An array of str drops trailing NULs: "a\\0" would silently have become the class "a"."""
    (tmp_path / name).write_bytes(content)
    status, err = _run(capsys, "train", tmp_path / name, "-o", tmp_path / "m.nbf", *options)
    _one_line_error(status, err, f"{name} line 2: the label ends with a NUL character")
    assert not (tmp_path / "m.nbf").exists()
