"""Outputs never destroy what is not a regular file: a link is written through (and kept), a device or a FIFO is
written directly, ``-`` is standard output, an existing file keeps its mode, a folder is refused before any work;
``nbfast.save`` writes the same way."""

import os
import stat
import threading

import numpy as np
import pytest

import nbfast
from nbfast.cli import main


def _run(capsys, *argv):
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err




def _predictions(path):
    return path.read_text().splitlines()


def test_a_symlink_output_is_written_through_and_kept(files, capsys):
    target, link = files / "target.csv", files / "link.csv"
    target.write_text("old\n")
    link.symlink_to(target)
    status, _, err = _run(capsys, "predict", files / "m.nbf", files / "d.svm", "-o", link)
    assert status == 0, err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert _predictions(target)[0] == "label" and len(_predictions(target)) == 61


def test_a_dangling_symlink_output_creates_its_target(files, capsys):
    target, link = files / "new.csv", files / "link.csv"
    link.symlink_to(target)
    status, _, err = _run(capsys, "predict", files / "m.nbf", files / "d.svm", "-o", link)
    assert status == 0, err
    assert link.is_symlink() and len(_predictions(target)) == 61


def test_a_link_to_a_device_keeps_the_device(files, capsys):
    link = files / "null.csv"
    link.symlink_to(os.devnull)
    status, _, err = _run(capsys, "predict", files / "m.nbf", files / "d.svm", "-o", link)
    assert status == 0, err
    assert link.is_symlink() and stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert sorted(p.name for p in files.iterdir()) == ["d.svm", "m.nbf", "null.csv"]


def test_a_fifo_output_is_written_directly(files, capsys):
    fifo = files / "out.csv"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    status, _, err = _run(capsys, "predict", files / "m.nbf", files / "d.svm", "-o", fifo)
    reader.join(timeout=10)
    assert status == 0, err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert received[0].decode().splitlines()[0] == "label" and len(received[0].decode().splitlines()) == 61


def test_dash_writes_predictions_to_standard_output(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    status, out, err = _run(capsys, "predict", "m.nbf", "d.svm", "-o", "-", "--proba")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "label,proba_0,proba_1,proba_2" and len(lines) == 61
    assert not (files / "-").exists()


def test_train_refuses_dash(files, capsys, monkeypatch):
    monkeypatch.chdir(files)
    status, _, err = _run(capsys, "train", "d.svm", "-o", "-")
    assert status == 2 and err.count("\n") == 1 and "standard output" in err, err
    assert not (files / "-").exists()


@pytest.mark.parametrize("command", ["predict", "train"])
def test_an_existing_output_keeps_its_mode(files, capsys, command):
    output = files / ("o.csv" if command == "predict" else "n.nbf")
    output.write_text("old\n")
    os.chmod(output, 0o600)
    argv = ["predict", files / "m.nbf"] if command == "predict" else ["train"]
    status, _, err = _run(capsys, *argv, files / "d.svm", "-o", output)
    assert status == 0, err
    assert stat.S_IMODE(os.stat(output).st_mode) == 0o600 and output.read_bytes() != b"old\n"


@pytest.mark.parametrize("spelling", ["folder", "folder/", ".", "missing/"])
@pytest.mark.parametrize("command", ["predict", "train"])
def test_a_folder_output_is_refused_before_any_work(files, capsys, monkeypatch, command, spelling):
    monkeypatch.chdir(files)
    (files / "folder").mkdir()
    argv = ["predict", "m.nbf"] if command == "predict" else ["train"]
    # a missing model would be the first error after the output check: the folder is blamed first
    argv = [a if a != "m.nbf" else "absent.nbf" for a in argv]
    status, _, err = _run(capsys, *argv, "d.svm", "-o", spelling)
    assert status == 2 and err.count("\n") == 1 and "is a folder" in err, err
    assert sorted(p.name for p in files.iterdir()) == ["d.svm", "folder", "m.nbf"]


def test_save_writes_through_a_symlink_and_keeps_the_mode(files):
    model = nbfast.load(files / "m.nbf")
    target, link = files / "target.nbf", files / "link.nbf"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    link.symlink_to(target)
    nbfast.save(model, link)
    assert link.is_symlink() and stat.S_IMODE(os.stat(target).st_mode) == 0o640
    np.testing.assert_array_equal(nbfast.load(target).classes_, model.classes_)
