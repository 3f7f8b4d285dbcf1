"""`nbfast train / predict / evaluate` on columnar files (Parquet, Arrow IPC, CSV): the results of the same rows as
TSV, and one clear error line for what cannot be read."""

import subprocess
import sys

import numpy as np
import pytest
from support.cli import assert_one_line_error, run_cli

from nbfast.datasets import make_text_documents

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ipc = pytest.importorskip("pyarrow.ipc")
pa_csv = pytest.importorskip("pyarrow.csv")

FORMATS = ["parquet", "arrow", "feather", "csv", "csv.gz"]


@pytest.fixture(scope="module")
def table():
    """600 generated documents (an empty one among them), 4 string classes, and an id per row."""
    documents, y = make_text_documents(600, 4, mean_length=6, n_words=300, random_state=0)
    documents[7] = ""
    return pa.table({"doc_id": [f"d{i:04d}" for i in range(600)], "rank": np.arange(600) * 3,
                     "body": documents, "label": [f"c{label}" for label in y]})


def write(table, path):
    """``table`` as the columnar file ``path`` (its format by extension), in record batches of 97 rows."""
    if path.suffix == ".parquet":
        pq.write_table(table, path, row_group_size=97)
    elif path.suffix in (".arrow", ".feather"):
        with ipc.new_file(path, table.schema) as writer:
            writer.write_table(table, max_chunksize=97)
    elif path.suffix == ".gz":
        with pa.CompressedOutputStream(str(path), "gzip") as f:
            pa_csv.write_csv(table, f)
    else:
        pa_csv.write_csv(table, path)
    return path


def write_tsv(table, path):
    rows = zip(table.column("label").to_pylist(), table.column("body").to_pylist())
    path.write_text("".join(f"{label}\t{document}\n" for label, document in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def model(table, tmp_path_factory):
    """A tf-idf model trained on the TSV of the table's rows."""
    folder = tmp_path_factory.mktemp("model")
    tsv = write_tsv(table, folder / "train.tsv")
    assert run_cli(_Quiet(), "train", tsv, "-o", folder / "m.nbf", "--vectorizer", "tfidf")[0] == 0
    return folder / "m.nbf"


class _Quiet:
    """A stand-in for capsys in module fixtures: the output is left where it went."""

    def readouterr(self):
        return type("Captured", (), {"out": "", "err": ""})()


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_gives_the_labels_of_the_same_rows_as_tsv(table, model, tmp_path, capsys, fmt):
    data = write(table, tmp_path / f"docs.{fmt}")
    tsv = write_tsv(table, tmp_path / "docs.tsv")
    for name, source in (("columnar", data), ("tsv", tsv)):
        status, _, err = run_cli(capsys, "predict", model, source, "-o", tmp_path / f"{name}.csv", "--proba",
                                 "--text-field", "body", "--chunk-size", 128)
        assert status == 0, err
    assert (tmp_path / "columnar.csv").read_bytes() == (tmp_path / "tsv.csv").read_bytes()
    status, out, _ = run_cli(capsys, "evaluate", model, data, "--text-field", "body", "--json")
    assert status == 0 and '"n_samples": 600' in out


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_training_on_columns_makes_the_model_training_on_tsv_makes(table, model, tmp_path, capsys, fmt):
    data = write(table, tmp_path / f"train.{fmt}")
    status, _, err = run_cli(capsys, "train", data, "-o", tmp_path / "m.nbf", "--vectorizer", "tfidf",
                             "--text-field", "body", "--chunk-size", 50)
    assert status == 0, err
    assert (tmp_path / "m.nbf").read_bytes() == model.read_bytes()


def test_integer_label_columns_train_an_integer_model(table, tmp_path, capsys):
    data = write(table.set_column(3, "label", pa.array(np.arange(600) % 3, pa.int32())), tmp_path / "d.parquet")
    assert run_cli(capsys, "train", data, "-o", tmp_path / "m.nbf", "--text-field", "body")[0] == 0
    assert run_cli(capsys, "predict", tmp_path / "m.nbf", data, "-o", tmp_path / "p.csv", "--text-field", "body")[0] == 0
    assert set((tmp_path / "p.csv").read_text().split()[1:]) <= {"0", "1", "2"}


def test_an_arrow_stream_is_read_from_standard_input(table, model, tmp_path):
    stream = tmp_path / "docs.arrows"
    with ipc.new_stream(stream, table.schema) as writer:
        writer.write_table(table, max_chunksize=50)
    command = [sys.executable, "-m", "nbfast", "predict", str(model), "-", "--format", "arrow", "--text-field",
               "body", "-o", "-"]
    with open(stream, "rb") as f:
        piped = subprocess.run(command, stdin=f, capture_output=True, check=True)
    run = subprocess.run(command[:5] + [str(write(table, tmp_path / "docs.arrow"))] + command[6:],
                         capture_output=True, check=True)
    assert piped.stdout == run.stdout and piped.stdout.count(b"\n") == 601


@pytest.mark.parametrize("argv, fragments", [
    (["--text-field", "text"], ["docs.parquet: no column 'text'; its columns are 'doc_id', 'rank', 'body', 'label'"]),
    (["--text-field", "rank"], ["the column 'rank' holds int64, not text"]),
    (["--text-field", "body", "--header"], ["--header applies only to text read a line at a time", "docs.parquet"]),
    (["--text-field", "body", "--encoding", "latin-1"], ["--encoding applies only to text read a line at a time"]),
])  # fmt: skip
def test_columns_that_cannot_be_read_are_one_error_line(table, model, tmp_path, capsys, argv, fragments):
    data = write(table, tmp_path / "docs.parquet")
    status, _, err = run_cli(capsys, "predict", model, data, "-o", tmp_path / "out.csv", *argv)
    assert_one_line_error(status, err, "nbfast predict: error:", *fragments)
    assert not (tmp_path / "out.csv").exists()


def test_a_null_document_names_its_row(table, model, tmp_path, capsys):
    body = table.column("body").to_pylist()
    body[250] = None
    data = write(table.set_column(2, "body", pa.array(body)), tmp_path / "docs.parquet")
    status, _, err = run_cli(capsys, "predict", model, data, "-o", tmp_path / "out.csv", "--text-field", "body")
    assert_one_line_error(status, err, "docs.parquet row 251: the document is null", "fill nulls")
    status, _, err = run_cli(capsys, "evaluate", model, data, "--text-field", "body", "--label-field", "rank")
    assert_one_line_error(status, err, "nbfast evaluate: error:", "row 251: the document is null")


def test_parquet_is_not_read_from_standard_input(model, capsys):
    status, _, err = run_cli(capsys, "predict", model, "-", "--format", "parquet", "-o", "-")
    assert_one_line_error(status, err, "cannot be read as .parquet", "save it to a file first")


def test_without_pyarrow_the_error_names_the_extra(table, model, tmp_path, capsys, monkeypatch):
    data = write(table, tmp_path / "docs.parquet")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if not installed
    status, _, err = run_cli(capsys, "predict", model, data, "-o", tmp_path / "out.csv", "--text-field", "body")
    assert_one_line_error(status, err, "needs pyarrow, which is not installed: pip install 'nbfast[arrow]'")
