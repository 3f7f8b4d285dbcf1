"""Columnar files (Parquet, Arrow IPC, CSV) read in blocks: the rows a TSV file of the same documents gives, the
columns kept, and one clear error for what cannot be read."""

import bz2
import gzip
import sys

import numpy as np
import pytest

from nbfast._compat import MissingDependency
from nbfast.readers import columnar, iter_blocks
from nbfast.text import HashingVectorizer
from nbfast.text._arrow import ArrowDocuments

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ipc = pytest.importorskip("pyarrow.ipc")
pa_csv = pytest.importorskip("pyarrow.csv")

WORDS = ["spam", "Eggs", "ham", "naïve", "東京", "σοφία", "x_1", "don't", "2024"]
VECTORIZER = HashingVectorizer(n_features=2**10, norm=None, alternate_sign=False)
FORMATS = ["parquet", "arrow", "arrow stream", "csv", "csv.gz"]


def corpus(n=150, seed=0):
    """A table of an id, a document and a string label per row (an empty document among them)."""
    rng = np.random.default_rng(seed)
    documents = [" ".join(rng.choice(WORDS, rng.integers(0, 8))) for _ in range(n)]
    documents[3] = ""
    return pa.table({"doc_id": np.arange(100, 100 + n), "body": documents,
                     "label": np.array(["eggs", "ham", "spam"])[rng.integers(0, 3, n)]})


def write(table, folder, fmt):
    """``table`` as a file of format ``fmt`` in ``folder``, in record batches of a few rows (row groups of 10)."""
    path = folder / {"arrow stream": "data.arrow", "csv.gz": "data.csv.gz"}.get(fmt, f"data.{fmt}")
    if fmt == "parquet":
        pq.write_table(table, path, row_group_size=10)
    elif fmt == "arrow":
        with ipc.new_file(path, table.schema) as writer:
            writer.write_table(table, max_chunksize=13)
    elif fmt == "arrow stream":
        with ipc.new_stream(path, table.schema) as writer:
            writer.write_table(table, max_chunksize=13)
    else:
        with (gzip.open(path, "wb") if fmt == "csv.gz" else open(path, "wb")) as f:
            pa_csv.write_csv(table, f)
    return path


def write_tsv(table, folder):
    path = folder / "data.tsv"
    rows = zip(table.column("label").to_pylist(), table.column("body").to_pylist())
    path.write_text("".join(f"{label}\t{document}\n" for label, document in rows), encoding="utf-8")
    return path


def read(path, chunk_size=32, **options):
    options.setdefault("fields", ("label", "body"))
    return list(iter_blocks([path], chunk_size, vectorizer=VECTORIZER, **options))


def stacked(blocks):
    """(data, indices, indptr) of the blocks' rows one after another."""
    indptr = [0]
    for block in blocks:
        indptr.extend(indptr[-1] + block.indptr[1:])
    return (np.concatenate([b.data for b in blocks]), np.concatenate([b.indices for b in blocks]),
            np.array(indptr))


@pytest.fixture(autouse=True)
def small_csv_blocks(monkeypatch):
    """CSV parsed 512 bytes at a time: many record batches, cut and joined into blocks."""
    monkeypatch.setattr(columnar, "_CSV_BLOCK_BYTES", 512)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("chunk_size", [7, 32, 1000])
def test_rows_and_labels_are_those_of_the_same_documents_as_tsv(tmp_path, fmt, chunk_size):
    table = corpus()
    blocks = read(write(table, tmp_path, fmt), chunk_size)
    expected = read(write_tsv(table, tmp_path), chunk_size)
    assert [b.n_rows for b in blocks] == [b.n_rows for b in expected]
    for mine, theirs in zip(stacked(blocks), stacked(expected)):
        np.testing.assert_array_equal(mine, theirs)
    np.testing.assert_array_equal(np.concatenate([b.y for b in blocks]), table.column("label").to_numpy())
    np.testing.assert_array_equal(np.concatenate([b.row_numbers for b in blocks]), np.arange(1, 151))
    assert all(b.unit == "row" and isinstance(b.documents, ArrowDocuments) for b in blocks)  # no str per document


@pytest.mark.parametrize("fmt", ["parquet", "arrow", "csv"])
def test_progress_counts_the_whole_file(tmp_path, fmt):
    path = write(corpus(), tmp_path, fmt)
    assert sum(b.n_bytes for b in read(path, 16)) == path.stat().st_size


@pytest.mark.parametrize("fmt", FORMATS)
def test_kept_columns_ride_along_row_for_row(tmp_path, fmt):
    table = corpus()
    blocks = read(write(table, tmp_path, fmt), 16, keep=("doc_id", "body"))
    kept = pa.concat_tables([b.columns for b in blocks])
    assert kept.column_names == ["doc_id", "body"]
    ids = table.column("doc_id").to_pylist()
    assert kept.column("doc_id").to_pylist() == ([str(i) for i in ids] if fmt.startswith("csv") else ids)
    assert kept.column("body").to_pylist() == table.column("body").to_pylist()


def test_no_label_column_is_read_without_labels(tmp_path):
    path = write(corpus().drop_columns(["label"]), tmp_path, "parquet")
    blocks = read(path, fields=(None, "body"))
    assert all(b.y is None for b in blocks) and sum(b.n_rows for b in blocks) == 150


def test_labels_are_trimmed_strings_or_numbers(tmp_path):
    n = 40
    table = pa.table({"text": ["a b"] * n, "name": [" spam ", "ham\t"] * (n // 2),
                      "small": pa.array(np.arange(n) % 3, pa.int8()), "real": np.arange(n) % 2 + 0.5,
                      "coded": pa.array(["x", "y"] * (n // 2)).dictionary_encode()})
    path = write(table, tmp_path, "parquet")
    labels = {name: np.concatenate([b.y for b in read(path, 16, fields=(name, "text"))])
              for name in ("name", "small", "real", "coded")}
    assert labels["name"].tolist() == ["spam", "ham"] * (n // 2)
    assert labels["small"].dtype == np.int64 and labels["small"].tolist() == (np.arange(n) % 3).tolist()
    assert labels["real"].dtype == np.float64 and labels["real"].tolist() == (np.arange(n) % 2 + 0.5).tolist()
    assert labels["coded"].tolist() == ["x", "y"] * (n // 2)


@pytest.mark.parametrize("kind", ["large_string", "string_view", "dictionary"])
def test_documents_of_other_string_types_are_read(tmp_path, kind):
    table = corpus()
    body = table.column("body")
    body = body.dictionary_encode() if kind == "dictionary" else body.cast(getattr(pa, kind)())
    path = tmp_path / "other.arrow"
    with ipc.new_file(path, table.schema.set(1, pa.field("body", body.type))) as writer:
        writer.write_table(table.set_column(1, "body", body))
    expected = read(write(table, tmp_path, "parquet"))
    for mine, theirs in zip(stacked(read(path)), stacked(expected)):
        np.testing.assert_array_equal(mine, theirs)


def test_csv_fields_are_read_as_rfc_4180_quotes_them(tmp_path):
    """Commas, quotes and line breaks inside quoted fields; a byte order mark; every column as text."""
    path = tmp_path / "quoted.csv"
    path.write_bytes(b'\xef\xbb\xbfid,text,label\r\n007,"spam, eggs",a\r\n8,"say ""ham""\nnow",b\r\n9,,a\r\n')
    blocks = read(path, keep=("id",), fields=("label", "text"))
    assert blocks[0].documents.array.to_pylist() == ["spam, eggs", 'say "ham"\nnow', ""]
    assert blocks[0].columns.column("id").to_pylist() == ["007", "8", "9"]
    assert blocks[0].y.tolist() == ["a", "b", "a"]


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_a_missing_column_names_the_columns_the_file_has(tmp_path, fmt):
    path = write(corpus(), tmp_path, fmt)
    for fields, keep in (((None, "text"), ()), (("queue", "body"), ()), ((None, "body"), ("id",))):
        with pytest.raises(ValueError, match=f"data.{fmt}: no column '.*'; its columns are 'doc_id', 'body', 'label'"):
            read(path, fields=fields, keep=keep)


@pytest.mark.parametrize("column, field, message", [
    (pa.array([1, 2]), "text", ": the column 'text' holds int64, not text: the documents must be strings"),
    (pa.array([True, False]), "label", ": the column 'label' holds bool: labels must be strings or numbers"),
    (pa.array(["a", None]), "text", " row 2: the document is null"),
    (pa.array(["a", None]), "label", " row 2: the label is null"),
    (pa.array([1, None]), "label", " row 2: the label is null"),
    (pa.array([1.0, np.nan]), "label", " row 2: the label is NaN"),
    (pa.array([1.0, -np.inf]), "label", " row 2: the label is infinite"),
    (pa.array(["a", "  "]), "label", " row 2: empty label"),
])  # fmt: skip
def test_what_cannot_be_read_is_named(tmp_path, column, field, message):
    """The file, then the row where there is one, then the problem (said once)."""
    table = pa.table({"text": ["one", "two"], "label": ["a", "b"]}).set_column(
        0 if field == "text" else 1, field, column)
    path = write(table, tmp_path, "parquet")
    with pytest.raises(ValueError) as raised:
        read(path, fields=("label", "text"))
    assert str(raised.value).startswith(f"{path}{message}") and str(raised.value).count(str(path)) == 1


def test_malformed_utf8_names_the_rows(tmp_path):
    """An Arrow file is not checked when written: the documents' bytes are, before the tokenizer reads them."""
    offsets, data = pa.py_buffer(np.array([0, 2, 4], np.int32).tobytes()), pa.py_buffer(b"ok\xff\xfe")
    table = pa.table({"text": pa.Array.from_buffers(pa.string(), 2, [None, offsets, data])})
    path = tmp_path / "bad.arrow"
    with ipc.new_file(path, table.schema) as writer:
        writer.write_table(table)
    with pytest.raises(ValueError) as raised:
        read(path, fields=(None, "text"))
    assert str(raised.value).startswith(f"{path} rows 1-2: the Arrow column is malformed")


def write_raw_strings(path, data, offsets):
    """An Arrow IPC file of one batch: the column ``text`` of the raw bytes ``data`` cut at ``offsets``."""
    buffers = [None, pa.py_buffer(np.array(offsets, np.int32).tobytes()), pa.py_buffer(data)]
    table = pa.table({"text": pa.Array.from_buffers(pa.string(), len(offsets) - 1, buffers)})
    with ipc.new_file(path, table.schema) as writer:
        writer.write_table(table)
    return path


@pytest.mark.parametrize(("data", "offsets", "message"), [
    ("é".encode() + b"ab", [0, 1, 4], "rows 1-2: the Arrow column is malformed: string 0 is not valid UTF-8"),
    (b"ok go" + b"\xed\xa0\x80", [0, 2, 5, 8], "rows 1-3: the Arrow column is malformed: string 2 is not valid UTF-8"),
    (b"abcdef", [0, 4, 2, 6], "rows 1-3: the Arrow column is malformed: the offsets decrease at string 1"),
], ids=["boundary inside a character", "a surrogate in one string", "decreasing offsets"])
def test_malformed_strings_name_the_rows_and_the_string(tmp_path, data, offsets, message):
    path = write_raw_strings(tmp_path / "bad.arrow", data, offsets)
    with pytest.raises(ValueError) as raised:
        read(path, fields=(None, "text"))
    assert str(raised.value).startswith(f"{path} {message}")


def write_arrow(path, table):
    with ipc.new_file(path, table.schema) as writer:
        writer.write_table(table)
    return path


def with_offset_past_the_data(path, column):
    """The Arrow IPC file ``path`` with the last offset of its string ``column`` (of one batch) moved 1 GiB past
    the column's bytes: pyarrow reads such a file without checking it."""
    data = bytearray(path.read_bytes())
    offsets = ipc.open_file(path).get_batch(0).column(column).buffers()[1].to_pybytes()
    at = data.index(offsets) + len(offsets) - 4
    data[at:at + 4] = np.int32(1 << 30).tobytes()
    path.write_bytes(data)
    return path


def invalid_utf8(n):
    offsets = pa.py_buffer(np.arange(n + 1, dtype=np.int32).tobytes())
    return pa.Array.from_buffers(pa.string(), n, [None, offsets, pa.py_buffer(b"a" * (n - 1) + b"\xff")])


@pytest.mark.parametrize("role", ["label", "kept"])
@pytest.mark.parametrize("fault", ["offset past the data", "index past the dictionary", "invalid UTF-8"])
def test_malformed_label_and_kept_columns_name_the_rows_and_the_column(tmp_path, role, fault):
    """pyarrow's compute functions trust an array's buffers: each column read is checked before any touches it
    (a label's offsets past its bytes crashed the process)."""
    n = 8
    column = {"offset past the data": pa.array([f"v{i}" for i in range(n)]),
              "index past the dictionary": pa.DictionaryArray.from_arrays(
                  pa.array([0] * (n - 1) + [5], pa.int32()), pa.array(["a"]), safe=False),
              "invalid UTF-8": invalid_utf8(n)}[fault]
    table = pa.table({"text": ["one two"] * n, "field": column})
    path = write_arrow(tmp_path / "bad.arrow", table)
    if fault == "offset past the data":
        with_offset_past_the_data(path, 1)
    fields, keep = (("field", "text"), ()) if role == "label" else ((None, "text"), ("field",))
    with pytest.raises(ValueError) as raised:
        read(path, fields=fields, keep=keep)
    assert str(raised.value).startswith(f"{path} rows 1-8: the Arrow column 'field' is malformed: ")


def test_invalid_utf8_of_a_parquet_string_column_is_refused(tmp_path):
    """Parquet does not check that a string column's bytes are UTF-8: the reader does."""
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.table({"text": ["one"] * 4, "label": invalid_utf8(4)}), path)
    with pytest.raises(ValueError, match=r"bad.parquet rows 1-4: the Arrow column 'label' is malformed: .*UTF8"):
        read(path, fields=("label", "text"))


@pytest.mark.parametrize("fmt", ["parquet", "arrow", "csv"])
@pytest.mark.parametrize("repeated", ["body", "doc_id"])
def test_a_column_named_twice_is_refused(tmp_path, fmt, repeated):
    """Which of two columns of one name is meant cannot be known (pyarrow reads the first of a CSV's)."""
    table = corpus()
    table = table.append_column(pa.field(repeated, table.schema.field(repeated).type), table.column(repeated))
    path = write(table, tmp_path, fmt)
    with pytest.raises(ValueError, match=f"data.{fmt}: 2 columns are named '{repeated}'; give each column read"):
        read(path, keep=("doc_id",))
    assert len(read(path, fields=("label", "body") if repeated == "doc_id" else (None, "label"))) == 5


@pytest.mark.parametrize("suffix, compress", [(".gz", gzip.compress), (".bz2", bz2.compress)])
@pytest.mark.parametrize("damage", ["truncated", "not compressed"])
def test_a_truncated_or_corrupt_compressed_csv_names_the_file(tmp_path, suffix, compress, damage):
    data = b"label,body\n" + b"spam,cheap offer\n" * 500
    path = tmp_path / f"data.csv{suffix}"
    path.write_bytes(compress(data)[:-30] if damage == "truncated" else data)
    with pytest.raises(ValueError, match=f"data.csv{suffix}: truncated or corrupt compressed file"):
        read(path)


def test_csv_header_names_are_read_as_the_rows_are(tmp_path, monkeypatch):
    """--keep lists a CSV's columns: with the rows' options (a quoted line break, a row longer than pyarrow's
    default block), so that any file the reader reads gives its names."""
    monkeypatch.setattr(columnar, "_CSV_BLOCK_BYTES", 1 << 22)
    field = "word " * 300_000  # 1.5 MB, more than pyarrow's default block of 1 MiB
    path = tmp_path / "long.csv"
    path.write_text(f'doc_id,body,label\n1,"{field}\nsecond line",spam\n2,short,ham\n')
    assert columnar.column_names(path, "csv") == ["doc_id", "body", "label"]
    assert [len(block.y) for block in read(path, keep=("doc_id",))] == [2]


def test_invalid_bytes_of_a_later_block_do_not_refuse_the_first(tmp_path):
    """A block is a slice of a record batch: only its own strings' bytes are checked."""
    path = write_raw_strings(tmp_path / "later.arrow", b"a b" + b"c" + b"ok\xff", [0, 3, 4, 7])
    blocks = iter_blocks([path], 2, vectorizer=VECTORIZER, fields=(None, "text"))
    first = next(blocks)
    assert list(first.documents) == ["a b", "c"]
    with pytest.raises(ValueError, match=r"later.arrow rows 3-3: the Arrow column is malformed: string 0 is not"):
        next(blocks)


def test_a_file_that_is_not_one_names_the_file(tmp_path):
    path = tmp_path / "fake.parquet"
    path.write_bytes(b"label\ttext\n")
    with pytest.raises(ValueError, match=r"fake.parquet: .*\(read as parquet by its extension .parquet"):
        read(path)


def test_columns_are_kept_from_columnar_input_only(tmp_path):
    with pytest.raises(ValueError, match="columns are kept from columnar input only"):
        read(write_tsv(corpus(), tmp_path), keep=("doc_id",))


def test_without_pyarrow_the_error_names_the_extra(tmp_path, monkeypatch):
    path = write(corpus(), tmp_path, "parquet")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if not installed
    with pytest.raises(MissingDependency, match=r"pip install 'nbfast\[arrow\]'"):
        read(path)


def test_a_label_ending_with_nul_is_refused(tmp_path):
    path = write(pa.table({"text": ["a b", "c d"], "label": ["x", "x\0"]}), tmp_path, "parquet")
    with pytest.raises(ValueError, match="data.parquet row 2: the label ends with a NUL character"):
        read(path, fields=("label", "text"))
