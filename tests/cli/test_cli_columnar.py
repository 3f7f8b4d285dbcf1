"""`nbfast train / predict / evaluate` on columnar files (Parquet, Arrow IPC, CSV): the results of the same rows as
TSV, and one clear error line for what cannot be read."""

import os
import subprocess
import sys
import threading

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
    assert_one_line_error(status, err, f"nbfast predict: error: {data} row 251: the document is null (fill nulls")
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


# ------------------------------------------------------------------------------------------- --id-field, outputs
def read_output(path):
    """The output file ``path`` as a pyarrow Table (CSV with every column as text)."""
    if path.suffix == ".parquet":
        return pq.read_table(path)
    if path.suffix == ".arrow":
        return ipc.open_file(path).read_all()
    names = path.read_text().splitlines()[0].split(",")
    return pa_csv.read_csv(path, convert_options=pa_csv.ConvertOptions(column_types=dict.fromkeys(names, pa.string())))


def predicted(model, data, tmp_path, capsys, name, *options):
    """The table ``nbfast predict`` writes to ``name`` for the columnar file ``data``."""
    status, _, err = run_cli(capsys, "predict", model, data, "-o", tmp_path / name, "--text-field", "body",
                             "--chunk-size", 128, *options)
    assert status == 0, err
    return read_output(tmp_path / name)


@pytest.mark.parametrize("output", ["out.parquet", "out.arrow", "out.csv"])
def test_id_columns_are_copied_row_for_row_and_join_back(table, model, tmp_path, capsys, output):
    data = write(table, tmp_path / "docs.parquet")
    labels = predicted(model, data, tmp_path, capsys, "labels.csv").column("label")
    out = predicted(model, data, tmp_path, capsys, output, "--id-field", "doc_id", "--id-field", "rank")
    assert out.column_names == ["doc_id", "rank", "label"]
    assert out.column("doc_id").equals(table.column("doc_id"))
    shuffled = table.take(np.random.default_rng(0).permutation(600))
    joined = shuffled.select(["doc_id"]).join(out.select(["doc_id", "label"]), "doc_id").sort_by("doc_id")
    assert joined.column("label").to_pylist() == labels.to_pylist()
    if output != "out.csv":  # CSV holds text
        assert out.column("rank").equals(table.column("rank"))


@pytest.mark.parametrize("source", ["docs.parquet", "docs.arrow", "docs.csv"])
def test_keep_copies_every_column_but_the_text(table, model, tmp_path, capsys, source):
    data = write(table.drop_columns(["label"]), tmp_path / source)
    named = predicted(model, data, tmp_path, capsys, "named.parquet", "--id-field", "doc_id", "--id-field", "rank")
    kept = predicted(model, data, tmp_path, capsys, "kept.parquet", "--keep")
    assert kept.column_names == ["doc_id", "rank", "label"]
    assert kept.equals(named)


def test_keep_needs_a_file_to_read_the_columns_of(model, tmp_path, capsys):
    status, _, err = run_cli(capsys, "predict", model, "-", "--format", "arrow", "--keep", "-o", tmp_path / "o.csv")
    assert_one_line_error(status, err, "--keep reads the columns of its input first", "--id-field")


@pytest.mark.parametrize("output", ["out.parquet", "out.arrow", "out.feather", "out.ipc"])
def test_arrow_outputs_have_typed_columns(table, model, tmp_path, capsys, output):
    data = write(table, tmp_path / "docs.arrow")
    out = predicted(model, data, tmp_path, capsys, output.replace(".feather", ".arrow").replace(".ipc", ".arrow"),
                    "--id-field", "rank", "--proba")
    classes = [f"c{k}" for k in range(4)]
    assert out.schema == pa.schema([("rank", pa.int64()), ("label", pa.string())]
                                   + [(f"proba_{c}", pa.float64()) for c in classes])
    csv_out = predicted(model, data, tmp_path, capsys, "out.csv", "--proba")
    assert out.column("label").to_pylist() == csv_out.column("label").to_pylist()
    for c in classes:  # the same float64 as CSV's 17 digits
        assert out.column(f"proba_{c}").to_pylist() == [float(v) for v in csv_out.column(f"proba_{c}").to_pylist()]


def test_csv_id_fields_are_quoted_as_csv_quotes_them(model, tmp_path, capsys):
    import csv

    ids = ["plain", "a,b", 'say "hi"', "two\nlines", "cr\rhere", None, ""]
    data = write(pa.table({"id": ids, "n": [1, None, 3, 4, 5, 6, 7], "body": ["w"] * 7}), tmp_path / "q.parquet")
    assert run_cli(capsys, "predict", model, data, "-o", tmp_path / "q.csv", "--text-field", "body",
                   "--id-field", "id", "--id-field", "n")[0] == 0
    with open(tmp_path / "q.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["id", "n", "label"]
    assert [row[:2] for row in rows[1:]] == [[i or "", n] for i, n in zip(ids, ["1", "", "3", "4", "5", "6", "7"])]


def test_an_empty_input_writes_the_columns(table, model, tmp_path, capsys):
    data = write(table.slice(0, 0), tmp_path / "empty.parquet")
    out = predicted(model, data, tmp_path, capsys, "out.parquet", "--id-field", "doc_id", "--top-k", 2)
    assert out.num_rows == 0 and out.column_names == ["doc_id", "label_1", "proba_1", "label_2", "proba_2"]


def test_predicting_parquet_to_parquet_does_not_import_pandas(table, model, tmp_path):
    """pyarrow imports pandas on its own conversions, which would cost longer than a small prediction."""
    data = write(table, tmp_path / "docs.parquet")
    code = ("import sys\nfrom nbfast.cli import main\n"
            f"assert main(['predict', {str(model)!r}, {str(data)!r}, '-o', {str(tmp_path / 'o.parquet')!r}, "
            "'--text-field', 'body', '--id-field', 'doc_id', '--top-k', '2']) == 0\n"
            "assert 'pandas' not in sys.modules, 'pandas was imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


# ------------------------------------------------------------------------------------------------------ --top-k
def reference_top_k(model, documents, k):
    """(labels, probabilities) of the k best classes by numpy: predict's class first, then by decreasing
    probability, equal ones in the order of the model's classes."""
    import nbfast
    from nbfast import persist

    estimator, vectorizer = nbfast.load(model), persist.load_vectorizer(model)
    X = vectorizer.transform(documents)
    proba, predicted = estimator.predict_proba(X), estimator.predict(X)
    order = np.argsort(-proba, axis=1, kind="stable")
    first = np.searchsorted(estimator.classes_, predicted)
    order = np.array([[c] + [o for o in row if o != c] for c, row in zip(first, order)])[:, :k]
    return estimator.classes_[order], np.take_along_axis(proba, order, axis=1), predicted


@pytest.mark.parametrize("output", ["out.csv", "out.parquet", "out.arrow"])
def test_top_k_is_the_reference_of_predict_proba(table, model, tmp_path, capsys, output):
    data = write(table, tmp_path / "docs.parquet")
    out = predicted(model, data, tmp_path, capsys, output, "--top-k", 3)
    assert out.column_names == ["label_1", "proba_1", "label_2", "proba_2", "label_3", "proba_3"]
    labels, proba, predicted_labels = reference_top_k(model, table.column("body").to_pylist(), 3)
    for k in range(3):
        assert out.column(f"label_{k + 1}").to_pylist() == labels[:, k].tolist()
        assert [float(p) for p in out.column(f"proba_{k + 1}").to_pylist()] == proba[:, k].tolist()
    assert out.column("label_1").to_pylist() == predicted_labels.tolist()


def test_top_k_ties_follow_the_model_classes(tmp_path, capsys):
    """One document per class: an empty document has every class's prior, equal; a word of the first class
    leaves the two others equal."""
    train = write(pa.table({"body": ["apple", "berry", "cherry"], "label": ["z", "y", "x"]}), tmp_path / "t.parquet")
    assert run_cli(capsys, "train", train, "-o", tmp_path / "m.nbf", "--text-field", "body")[0] == 0
    data = write(pa.table({"body": ["", "apple"]}), tmp_path / "d.parquet")
    out = predicted(tmp_path / "m.nbf", data, tmp_path, capsys, "out.parquet", "--top-k", 3)
    assert out.select(["label_1", "label_2", "label_3"]).to_pylist() == [
        {"label_1": "x", "label_2": "y", "label_3": "z"}, {"label_1": "z", "label_2": "x", "label_3": "y"}]


def test_top_k_in_npy_is_records(table, model, tmp_path, capsys):
    data = write(table, tmp_path / "docs.csv")
    assert run_cli(capsys, "predict", model, data, "-o", tmp_path / "out.npy", "--text-field", "body",
                   "--top-k", 2)[0] == 0
    records = np.load(tmp_path / "out.npy")
    assert records.dtype.names == ("label_1", "proba_1", "label_2", "proba_2") and records.shape == (600,)
    labels, proba, _ = reference_top_k(model, table.column("body").to_pylist(), 2)
    assert records["label_2"].tolist() == labels[:, 1].tolist() and records["proba_1"].tolist() == proba[:, 0].tolist()


# ------------------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize("source, output, argv, fragments", [
    ("docs.parquet", "out.parquet", ["--top-k", 5], ["--top-k 5: the model has only 4 classes"]),
    ("docs.parquet", "out.csv", ["--top-k", 2, "--proba"], ["--top-k", "--proba", "give one of them"]),
    ("docs.tsv", "out.csv", ["--id-field", "doc_id"], ["--id-field applies only to columnar input", "docs.tsv is read as tsv"]),
    ("docs.parquet", "out.npy", ["--id-field", "doc_id"], ["--id-field: a .npy output holds no input columns"]),
    ("docs.parquet", "out.csv", ["--id-field", "id"], ["docs.parquet: no column 'id'; its columns are 'doc_id', 'rank'"]),
    ("docs.parquet", "out.csv", ["--id-field", "label"], ["--id-field label: the output has a column of that name"]),
    ("docs.parquet", "out.csv", ["--id-field", "rank", "--id-field", "rank"], ["--id-field rank is given twice"]),
    ("docs.parquet", "out.parquet", ["--csv-safe-labels"], ["--csv-safe-labels applies only to CSV output"]),
    ("docs.parquet", "out.csv", ["--keep", "--id-field", "rank"], ["--keep copies every column", "give one of them"]),
    ("docs.tsv", "out.csv", ["--keep"], ["--keep applies only to columnar input", "docs.tsv is read as tsv"]),
    ("docs.parquet", "out.npy", ["--keep"], ["--keep: a .npy output holds no input columns"]),
    ("docs.parquet", "out.csv", ["--keep"], ["--keep: the input's column 'label' has the name of an output column",
                                             "--id-field"]),
    ("docs.parquet", "docs.parquet", [], ["the output", "is also an input"]),
])  # fmt: skip
def test_option_errors_are_one_line_before_any_output(table, model, tmp_path, capsys, source, output, argv, fragments):
    write(table, tmp_path / "docs.parquet")
    write_tsv(table, tmp_path / "docs.tsv")
    before = sorted(tmp_path.iterdir())
    status, _, err = run_cli(capsys, "predict", model, tmp_path / source, "-o", tmp_path / output,
                             "--text-field", "body", *argv)
    assert_one_line_error(status, err, "nbfast predict: error:", *fragments)
    assert sorted(tmp_path.iterdir()) == before


@pytest.mark.parametrize("output", ["out.parquet", "out.arrow"])
def test_a_failed_run_leaves_no_output(table, model, tmp_path, capsys, output):
    """A null document in the last block: earlier blocks were written to the temporary file, which goes."""
    body = table.column("body").to_pylist()
    body[590] = None
    data = write(table.set_column(2, "body", pa.array(body)), tmp_path / "docs.parquet")
    status, _, err = run_cli(capsys, "predict", model, data, "-o", tmp_path / output, "--text-field", "body",
                             "--chunk-size", 50, "--id-field", "doc_id")
    assert_one_line_error(status, err, "row 591: the document is null")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.parquet"]


def test_csv_on_standard_input_names_a_missing_column(table, model, tmp_path):
    data = write(table, tmp_path / "docs.csv")
    command = [sys.executable, "-m", "nbfast", "predict", str(model), "-", "--format", "csv", "-o", "-"]
    with open(data, "rb") as f:
        failed = subprocess.run(command + ["--text-field", "text"], stdin=f, capture_output=True, text=True)
    assert failed.returncode == 2 and failed.stderr == "nbfast predict: error: -: no column 'text' in the header\n"
    options = ["--text-field", "body", "--id-field", "doc_id"]
    with open(data, "rb") as f:
        piped = subprocess.run(command + options, stdin=f, capture_output=True, text=True, check=True)
    read = subprocess.run(command[:5] + [str(data)] + command[6:] + options, capture_output=True, text=True, check=True)
    assert piped.stdout == read.stdout and piped.stdout.startswith("doc_id,label\nd0000,")


def test_a_csv_parse_error_ends_the_process_cleanly(model, tmp_path):
    """pyarrow's CSV reader reads ahead in a thread of its own; fed by a Python file object, that thread could
    abort the interpreter as it exited after a parse error (status 134, in about one run of four): a file is read
    by pyarrow itself.  Twenty processes, one after another, since the abort depended on timing."""
    data = tmp_path / "ragged.csv"
    data.write_text("id,body,label\n1,cheap\n2,offer,spam\n")
    command = [sys.executable, "-m", "nbfast", "evaluate", str(model), str(data), "--text-field", "body"]
    for _ in range(20):
        run = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=120)
        assert run.returncode == 2, run.stderr
        assert run.stderr.count("\n") == 1 and "Expected 3 columns, got 2" in run.stderr, run.stderr


def test_a_line_break_in_an_error_is_escaped(model, tmp_path, capsys):
    """pyarrow quotes the row it could not parse, line breaks and all: the error stays one line."""
    data = tmp_path / "unbalanced.csv"
    data.write_text('id,body,label\n1,"cheap offer,spam\n2,meeting,ham\n')
    status, _, err = run_cli(capsys, "evaluate", model, data, "--text-field", "body")
    assert_one_line_error(status, err, "unbalanced.csv: CSV parse error", 'offer,spam\\n2,meeting,ham')


def test_a_kept_column_parquet_cannot_store_is_one_error_line(model, tmp_path, capsys):
    union = pa.UnionArray.from_sparse(pa.array([0, 1], pa.int8()), [pa.array([1, 2]), pa.array(["a", "b"])])
    data = tmp_path / "docs.arrow"
    with ipc.new_file(data, pa.schema([("doc_id", union.type), ("body", pa.string())])) as writer:
        writer.write_table(pa.table({"doc_id": union, "body": ["cheap offer", "meeting"]}))
    status, _, err = run_cli(capsys, "predict", model, data, "--text-field", "body", "--keep", "-o",
                             tmp_path / "out.arrow")
    assert status == 0, err
    status, _, err = run_cli(capsys, "predict", model, data, "--text-field", "body", "--keep", "-o",
                             tmp_path / "out.parquet")
    assert_one_line_error(status, err, "the column 'doc_id' (sparse_union", "cannot be written to Parquet",
                          "write .arrow, which stores any column")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.arrow", "out.arrow"]


def test_keep_names_a_missing_input_as_other_options_do(model, tmp_path, capsys):
    status, _, err = run_cli(capsys, "predict", model, tmp_path / "missing.parquet", "--keep", "-o", "-")
    assert_one_line_error(status, err, f"{tmp_path / 'missing.parquet'}: No such file or directory")


def test_train_does_not_suggest_header_for_columnar_input(tmp_path, capsys):
    """A columnar file's header names its columns: a first label seen once is no header row there."""
    data = write(pa.table({"body": ["x y", "cheap", "offer", "meeting", "agenda"],
                           "label": ["odd", "spam", "spam", "ham", "ham"]}), tmp_path / "docs.parquet")
    status, _, err = run_cli(capsys, "train", data, "--text-field", "body", "-o", tmp_path / "m.nbf")
    assert status == 0 and "warning" not in err, err
    write_tsv(pa.table({"body": ["x y", "cheap", "offer"], "label": ["odd", "spam", "spam"]}), tmp_path / "d.tsv")
    status, _, err = run_cli(capsys, "train", tmp_path / "d.tsv", "-o", tmp_path / "m.nbf")
    assert status == 0 and "line 1: the label 'odd' occurs on no other line" in err, err


def test_an_infinite_label_is_one_error_line(tmp_path, capsys):
    data = write(pa.table({"body": ["a b", "c d", "e f"], "label": [1.0, np.inf, 0.0]}), tmp_path / "docs.parquet")
    status, _, err = run_cli(capsys, "train", data, "--text-field", "body", "-o", tmp_path / "m.nbf")
    assert_one_line_error(status, err, "docs.parquet row 2: the label is infinite")


@pytest.mark.parametrize("fmt", ["csv", "arrow stream"])
def test_a_pipe_is_read_once_as_standard_input_is(table, model, tmp_path, capsys, fmt):
    """A FIFO (the shell's <(...)) can be read only once, front to back: not by pyarrow's own files, which seek."""
    if fmt == "csv":
        data = write(table, tmp_path / "docs.csv")
    else:
        data = tmp_path / "docs.arrows"
        with ipc.new_stream(data, table.schema) as writer:
            writer.write_table(table, max_chunksize=97)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    feeder = threading.Thread(target=lambda: fifo.write_bytes(data.read_bytes()), daemon=True)
    feeder.start()
    options = ["--format", fmt.split()[0], "--text-field", "body", "--id-field", "doc_id", "-o", "-"]
    status, piped, err = run_cli(capsys, "predict", model, fifo, *options)
    feeder.join(30)
    assert status == 0, err
    status, read, err = run_cli(capsys, "predict", model, data, *options)
    assert status == 0 and piped == read and piped.count("\n") == 601, err
    feeder = threading.Thread(target=lambda: fifo.write_bytes(data.read_bytes()), daemon=True)
    feeder.start()
    status, _, err = run_cli(capsys, "predict", model, fifo, *options[:-4], "--keep", "-o", "-")
    assert_one_line_error(status, err, "--keep reads the columns of its input first", "a pipe")
    with open(fifo, "rb") as f:  # the feeder's side: nothing read it
        f.read()
    feeder.join(30)
