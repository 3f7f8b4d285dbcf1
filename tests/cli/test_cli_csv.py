"""`nbfast predict`'s CSV output is valid CSV whatever the labels hold, and --csv-safe-labels keeps spreadsheets
from reading a label as a formula."""

import csv
import io
import json

import pytest

from nbfast.cli import main

#: Labels that need quoting in CSV, and labels a spreadsheet would read as formulas.
AWKWARD = ["spam\rham", "line\nbreak", "quote\"d", "com,ma", "plain", "tab\tbed", "crlf\r\nlabel"]
FORMULAS = ["=1+1", "+cmd", "-2", "@SUM(A1)", "ok"]


def _run(capsys, *argv):
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _train(tmp_path, capsys, labels):
    """m.nbf trained on one document per label (words unique to it), and docs.txt holding those documents."""
    documents = [f"word{k}a word{k}b word{k}c" for k in range(len(labels))]
    (tmp_path / "d.jsonl").write_text("".join(json.dumps({"label": label, "text": document}) + "\n"
                                              for label, document in zip(labels, documents)))
    (tmp_path / "docs.txt").write_text("".join(document + "\n" for document in documents))
    status, _, err = _run(capsys, "train", tmp_path / "d.jsonl", "-o", tmp_path / "m.nbf", "--vectorizer", "count")
    assert status == 0, err
    return tmp_path / "m.nbf", tmp_path / "docs.txt"


def _records(text):
    return list(csv.reader(io.StringIO(text, newline="")))


@pytest.mark.parametrize("proba", [False, True])
def test_every_label_round_trips_through_a_csv_reader(tmp_path, capsys, proba):
    model, docs = _train(tmp_path, capsys, AWKWARD)
    extra = ["--proba"] if proba else []
    status, _, err = _run(capsys, "predict", model, docs, "-o", tmp_path / "out.csv", *extra)
    assert status == 0, err
    with open(tmp_path / "out.csv", newline="") as f:
        records = list(csv.reader(f))
    assert [record[0] for record in records] == ["label", *AWKWARD]
    assert all(len(record) == len(records[0]) for record in records)
    if proba:
        assert records[0][1:] == [f"proba_{label}" for label in sorted(AWKWARD)]
    status, out, err = _run(capsys, "predict", model, docs, "-o", "-", *extra)
    assert status == 0, err
    assert _records(out) == records


def test_formula_labels_are_written_verbatim_unless_asked(tmp_path, capsys):
    model, docs = _train(tmp_path, capsys, FORMULAS)
    status, out, err = _run(capsys, "predict", model, docs, "-o", "-")
    assert status == 0, err
    assert [record[0] for record in _records(out)] == ["label", *FORMULAS]
    status, out, err = _run(capsys, "predict", model, docs, "-o", "-", "--csv-safe-labels", "--proba")
    assert status == 0, err
    records = _records(out)
    assert [record[0] for record in records] == ["label", "'=1+1", "'+cmd", "'-2", "'@SUM(A1)", "ok"]
    assert all(not name.startswith(("=", "+", "-", "@")) for name in records[0])


def test_number_labels_are_never_prefixed(tmp_path, capsys):
    model, docs = _train(tmp_path, capsys, [-1, 2, -3])
    status, out, err = _run(capsys, "predict", model, docs, "-o", "-", "--csv-safe-labels")
    assert status == 0, err
    assert out.splitlines() == ["label", "-1", "2", "-3"]


def test_csv_safe_labels_is_refused_for_npy_output(files, capsys):
    status, _, err = _run(capsys, "predict", files / "m.nbf", files / "d.svm", "-o", files / "out.npy",
                          "--csv-safe-labels")
    assert status == 2
    assert err.count("\n") == 1 and "--csv-safe-labels applies only to CSV output" in err
