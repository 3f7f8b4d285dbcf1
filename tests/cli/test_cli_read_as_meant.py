"""Text inputs are read as the user meant: a BOM, spaces around labels, header rows, swapped columns, mixed
formats, numbers beyond 2**53, deep JSON; every failure one line with exit status 2."""

import csv
import json
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import nbfast
from nbfast.cli import main

ROWS = [("spam", "buy cheap pills now"), ("ham", "meeting at noon"), ("spam", "cheap watches buy"),
        ("ham", "lunch at noon tomorrow")] * 5


def _run(capsys, *argv):
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _one_line_error(status, err, *fragments):
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, err


def _tsv(path, rows, prefix=""):
    path.write_text(prefix + "".join(f"{label}\t{text}\n" for label, text in rows), encoding="utf-8")
    return path


def _classes(path):
    return nbfast.load(path).classes_.tolist()


@pytest.mark.parametrize("name, write", [
    ("d.tsv", lambda path: _tsv(path, ROWS, prefix="\ufeff")),
    ("d.jsonl", lambda path: path.write_text("\ufeff" + "".join(json.dumps({"label": label, "text": text}) + "\n"
                                                                for label, text in ROWS), encoding="utf-8")),
])  # fmt: skip
def test_a_byte_order_mark_is_not_part_of_the_first_line(tmp_path, capsys, name, write):
    write(tmp_path / name)
    status, _, err = _run(capsys, "train", tmp_path / name, "-o", tmp_path / "m.nbf")
    assert status == 0, err
    assert _classes(tmp_path / "m.nbf") == ["ham", "spam"]


@pytest.mark.parametrize("label", ["spam ", " spam", "spam\r"])
def test_spaces_around_labels_are_stripped(tmp_path, capsys, label):
    rows = [*ROWS, (label, "cheap pills")]
    _tsv(tmp_path / "d.tsv", rows)
    status, _, err = _run(capsys, "train", tmp_path / "d.tsv", "-o", tmp_path / "m.nbf")
    assert status == 0, err
    assert _classes(tmp_path / "m.nbf") == ["ham", "spam"]


def test_a_jsonl_label_is_stripped(tmp_path, capsys):
    lines = [json.dumps({"label": f" {label} ", "text": text}) for label, text in ROWS]
    (tmp_path / "d.jsonl").write_text("\n".join(lines) + "\n")
    assert _run(capsys, "train", tmp_path / "d.jsonl", "-o", tmp_path / "m.nbf")[0] == 0
    assert _classes(tmp_path / "m.nbf") == ["ham", "spam"]


def test_a_header_row_is_named_in_a_warning_and_header_skips_it(tmp_path, capsys):
    data = _tsv(tmp_path / "d.tsv", [("label", "text"), *ROWS])
    status, _, err = _run(capsys, "train", data, "-o", tmp_path / "m.nbf")
    assert status == 0
    warning = [line for line in err.splitlines() if "warning" in line]
    assert warning == [f"nbfast train: warning: {data} line 1: the label 'label' occurs on no other line; if this "
                       "line is a header, pass --header to skip it"]
    status, _, err = _run(capsys, "train", data, "-o", tmp_path / "m.nbf", "--header")
    assert status == 0 and "warning" not in err, err
    assert _classes(tmp_path / "m.nbf") == ["ham", "spam"]


def test_header_reads_predict_input_from_the_second_line(tmp_path, capsys):
    _tsv(tmp_path / "d.tsv", ROWS)
    assert _run(capsys, "train", tmp_path / "d.tsv", "-o", tmp_path / "m.nbf")[0] == 0
    (tmp_path / "new.txt").write_text("document\ncheap pills\nnoon meeting\n")
    status, _, err = _run(capsys, "predict", tmp_path / "m.nbf", tmp_path / "new.txt", "-o", tmp_path / "o.csv",
                          "--header")
    assert status == 0, err
    assert (tmp_path / "o.csv").read_text().splitlines() == ["label", "spam", "ham"]


def test_header_is_refused_without_text_input(tmp_path, capsys):
    (tmp_path / "d.svm").write_text("0 1:1\n1 2:1\n")
    status, _, err = _run(capsys, "train", tmp_path / "d.svm", "-o", tmp_path / "m.nbf", "--header")
    _one_line_error(status, err, "--header applies only to text input")


def test_swapped_columns_get_a_one_line_hint_not_a_raw_warning(tmp_path, capsys):
    rows = [(f"{text} {i}", label) for i, (label, text) in enumerate(ROWS * 2)]
    _tsv(tmp_path / "d.tsv", rows)
    status, _, err = _run(capsys, "train", tmp_path / "d.tsv", "-o", tmp_path / "m.nbf")
    assert status == 0
    assert err.splitlines()[0] == ("nbfast train: warning: 40 classes in 40 rows: the labels look like documents; "
                                   "a .tsv line is label<TAB>text (are the columns swapped?), a .jsonl label is in "
                                   "--label-field")
    assert "UserWarning" not in err and len(err.splitlines()) == 2, err


def test_a_swapped_file_raises_no_python_warning(tmp_path):
    rows = [(f"{text} {i}", label) for i, (label, text) in enumerate(ROWS * 2)]
    _tsv(tmp_path / "d.tsv", rows)
    result = subprocess.run([sys.executable, "-W", "default", "-m", "nbfast.cli", "train", str(tmp_path / "d.tsv"),
                             "-o", str(tmp_path / "m.nbf")], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "Warning:" not in result.stderr, result.stderr


def test_text_and_feature_vectors_are_not_mixed(tmp_path, capsys):
    _tsv(tmp_path / "train.tsv", ROWS)
    (tmp_path / "test.svm").write_text("0 1:1\n1 2:1\n")
    status, _, err = _run(capsys, "train", tmp_path / "train.tsv", tmp_path / "test.svm", "-o", tmp_path / "m.nbf")
    _one_line_error(status, err, "is read as text (tsv) and", "as feature vectors (svmlight)")
    assert not (tmp_path / "m.nbf").exists()


@pytest.mark.parametrize("command", ["train", "predict"])
def test_a_folder_input_is_named_a_folder(tmp_path, capsys, command):
    _tsv(tmp_path / "d.tsv", ROWS)
    assert _run(capsys, "train", tmp_path / "d.tsv", "-o", tmp_path / "m.nbf")[0] == 0
    (tmp_path / "inputs").mkdir()
    argv = ["predict", tmp_path / "m.nbf"] if command == "predict" else ["train"]
    output = tmp_path / ("o.csv" if command == "predict" else "o.nbf")
    status, _, err = _run(capsys, *argv, tmp_path / "inputs", "-o", output)
    _one_line_error(status, err, f"{tmp_path / 'inputs'} is a folder")


def test_a_parse_error_names_the_format_chosen_by_extension(tmp_path, capsys):
    _tsv(tmp_path / "train.data", ROWS)
    status, _, err = _run(capsys, "train", tmp_path / "train.data", "-o", tmp_path / "m.nbf")
    _one_line_error(status, err, "line 1: malformed label", "(read as svmlight by default, its extension being "
                    "unknown; --format reads it as another)")
    status, _, err = _run(capsys, "train", tmp_path / "train.data", "-o", tmp_path / "m.nbf", "--format", "tsv")
    assert status == 0, err


@pytest.mark.parametrize("label", ["a,b", 'say "hi"', "plain", "new\nline"])
def test_the_proba_header_is_valid_csv(tmp_path, capsys, label):
    lines = [json.dumps({"label": lab, "text": text}) for lab, text in
             [(label if lab == "spam" else lab, text) for lab, text in ROWS]]
    (tmp_path / "d.jsonl").write_text("\n".join(lines) + "\n")
    assert _run(capsys, "train", tmp_path / "d.jsonl", "-o", tmp_path / "m.nbf")[0] == 0
    (tmp_path / "new.txt").write_text("cheap pills\nnoon\n")
    status, _, err = _run(capsys, "predict", tmp_path / "m.nbf", tmp_path / "new.txt", "-o", tmp_path / "o.csv",
                          "--proba")
    assert status == 0, err
    with open(tmp_path / "o.csv", newline="") as f:
        table = list(csv.reader(f))
    assert table[0] == ["label", *(f"proba_{c}" for c in sorted(["ham", label]))]
    assert all(len(row) == 3 for row in table)


def test_jsonl_integers_beyond_2_53_are_never_merged_with_floats(tmp_path, capsys):
    labels = [2**53, 2**53 + 1, 2.0] * 7
    lines = [json.dumps({"label": label, "text": f"word{i % 3}"}) for i, label in enumerate(labels)]
    (tmp_path / "d.jsonl").write_text("\n".join(lines) + "\n")
    status, _, err = _run(capsys, "train", tmp_path / "d.jsonl", "-o", tmp_path / "m.nbf")
    _one_line_error(status, err, "line 2: label 9007199254740993 is beyond 2**53 in magnitude", "write it as a string")


def test_jsonl_integers_up_to_2_53_stay_classes(tmp_path, capsys):
    labels = [2**53, 3, 2**53 - 1] * 7
    lines = [json.dumps({"label": label, "text": f"word{i % 3}"}) for i, label in enumerate(labels)]
    (tmp_path / "d.jsonl").write_text("\n".join(lines) + "\n")
    assert _run(capsys, "train", tmp_path / "d.jsonl", "-o", tmp_path / "m.nbf")[0] == 0
    assert _classes(tmp_path / "m.nbf") == [3, 2**53 - 1, 2**53]


def test_deeply_nested_json_is_one_line(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"label": "a", "text": "x"}) + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    result = subprocess.run([sys.executable, "-m", "nbfast.cli", "train", str(path), "-o", str(tmp_path / "m")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "line 2: JSON nested too deeply" in result.stderr


@pytest.mark.parametrize("n_rows, chunk_size", [(10_001, 10_000), (12, 3)])
def test_calibrate_cv_with_chunks_smaller_than_k(tmp_path, capsys, n_rows, chunk_size):
    (tmp_path / "d.svm").write_text("".join(f"{i % 2} {1 + i % 2}:1 {3 + i % 3}:1\n" for i in range(n_rows)))
    status, _, err = _run(capsys, "train", tmp_path / "d.svm", "-o", tmp_path / "m.nbf", "--calibrate-cv", 5,
                          "--chunk-size", chunk_size)
    assert status == 0, err
    proba = nbfast.load(tmp_path / "m.nbf").predict_proba(np.eye(5))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def _train_child(path, **kwargs):
    return subprocess.run([sys.executable, "-m", "nbfast.cli", "train", str(path), "-o", f"{path}.nbf"],
                          capture_output=True, text=True, timeout=60, **kwargs)


def test_train_refuses_standard_input_it_would_read_twice(tmp_path):
    result = _train_child("/dev/stdin", input="".join(f"{label}\t{text}\n" for label, text in ROWS))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "/dev/stdin is not a regular file" in result.stderr and "save it to a file first" in result.stderr


def test_train_refuses_a_fifo_it_would_read_twice(tmp_path):
    fifo = tmp_path / "d.tsv"
    os.mkfifo(fifo)
    writer = threading.Thread(target=_write_fifo, args=(fifo,), daemon=True)
    writer.start()
    try:
        result = _train_child(fifo)
    finally:
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # release a writer still waiting for a reader
        writer.join(timeout=10)
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert "is not a regular file" in result.stderr


def _write_fifo(path):
    try:
        with open(path, "w") as f:
            f.write("".join(f"{label}\t{text}\n" for label, text in ROWS))
    except BrokenPipeError:
        pass
