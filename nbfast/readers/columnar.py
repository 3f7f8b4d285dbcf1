"""Chunked readers of columnar files for the streaming command line: a column of documents to CSR blocks.

Three formats, read a record batch at a time with pyarrow (``pip install 'nbfast[arrow]'``), only the columns
asked for:

- ``parquet``: Parquet files;
- ``arrow``: Arrow IPC files (Feather version 2 included) or streams (a stream on standard input);
- ``csv``: CSV with a header row naming the columns (RFC 4180: a quoted field may hold commas, quotes and line
  breaks), optionally ``.gz`` or ``.bz2``; every column is read as text.

The documents are a column of strings; the labels, when asked for, a column of strings (the spaces around
each dropped, as the text readers do) or of numbers.  The record batches are cut and joined into blocks of
``chunk_size`` rows, and the vectorizer reads each block's documents where Arrow holds them
(:class:`nbfast.text._arrow.ArrowDocuments`: no str per document).  Columns named in ``keep`` ride along, as
they are, in each block's ``columns``, so that an output can be joined back on them.

A missing column, a column named twice, a column of the wrong type, malformed Arrow data (an Arrow IPC file's
buffers are not checked as pyarrow reads them), and a null document or label (or an empty, NaN or infinite one)
raise ValueError naming the file, and the row where there is one: rows are numbered from 1, a CSV header not
counted.  Fill null documents with empty strings to read them as empty documents.
"""

import contextlib
import os
import re

import numpy as np

from nbfast import _compat
from nbfast.readers._arrow import numeric_values
from nbfast.readers._block import Block, finished, open_input, ordered_map, read_once
from nbfast.readers.text import document_rows, import_dependencies
from nbfast.text._arrow import arrow_documents, string_buffers

COLUMNAR_FORMATS = ("parquet", "arrow", "csv")
#: Bytes of CSV parsed at a time: no row may be longer.
_CSV_BLOCK_BYTES = 1 << 22
#: Bytes of a Parquet column read at a time.
_PARQUET_BUFFER_BYTES = 1 << 20
#: Columns a message lists at most.
_LISTED_COLUMNS = 20


def pyarrow_modules(file_format):
    """(pyarrow, pyarrow.compute, the module that reads ``file_format``), imported on the calling thread, or
    MissingDependency naming the extra ``arrow``."""
    purpose = f"reading {file_format} files"
    module = {"parquet": "parquet", "arrow": "ipc", "csv": "csv"}[file_format]
    return (_compat.pyarrow(purpose=purpose, extra="arrow"), _compat.pyarrow("compute", purpose, extra="arrow"),
            _compat.pyarrow(module, purpose, extra="arrow"))


def iter_columnar(path, chunk_size, file_format, *, vectorizer=None, fields=("label", "text"), keep=(), then=None):
    """The :class:`nbfast.readers.Block` s of at most ``chunk_size`` rows of a columnar file, as an iterator.

    Parameters
    ----------
    path : str or path-like
        The file; ``-`` is standard input (an Arrow stream or CSV, not Parquet).
    chunk_size : int
        Rows per block.
    file_format : {"parquet", "arrow", "csv"}
    vectorizer : fitted vectorizer, default=None
        Turns each block's documents into CSR rows; None gives empty rows.
    fields : (str or None, str), default=("label", "text")
        The column of the labels (None: no labels read) and the column of the documents.
    keep : sequence of str, default=()
        Columns copied, as they are, to each block's ``columns`` (a pyarrow Table of the block's rows).
    then : callable, default=None
        A step run on each block in the thread that vectorized it (see :func:`nbfast.readers._block.finished`).

    pyarrow and the modules the vectorizer needs are imported by this call, on the calling thread.
    """
    modules = pyarrow_modules(file_format)
    import_dependencies(vectorizer)
    label_field, text_field = fields
    columns = _Columns(text_field, label_field, tuple(keep))
    return _columnar_blocks(path, chunk_size, file_format, vectorizer, columns, then, modules)


class _Columns:
    """The columns a reader reads: the documents', the labels' (or None) and those kept, each named once."""

    def __init__(self, text, label, keep):
        self.text, self.label, self.keep = text, label, keep
        self.names = list(dict.fromkeys(name for name in (text, label, *keep) if name is not None))

    def check(self, path, schema, pa):
        """Refuse a file that lacks one of the columns or names one twice, or whose documents are not strings, or
        whose labels are neither strings nor numbers (ValueError)."""
        _check_names(path, schema.names, self.names)
        if not _is_text(schema.field(self.text).type, pa):
            raise ValueError(f"{path}: the column {self.text!r} holds {schema.field(self.text).type}, not text: "
                             "the documents must be strings")
        if self.label is not None:
            kind = schema.field(self.label).type
            if not (_is_text(kind, pa) or pa.types.is_integer(kind) or pa.types.is_floating(kind)):
                raise ValueError(f"{path}: the column {self.label!r} holds {kind}: labels must be strings or numbers")


def _check_names(path, names, wanted):
    """Refuse (ValueError) a file whose columns ``names`` lack one of ``wanted`` (listing them), or have two of
    that name (which one is meant?)."""
    missing = [name for name in wanted if name not in names]
    if missing:
        listed = ", ".join(map(repr, names[:_LISTED_COLUMNS]))
        more = f" and {len(names) - _LISTED_COLUMNS} more" if len(names) > _LISTED_COLUMNS else ""
        raise ValueError(f"{path}: no column {missing[0]!r}; its columns are {listed or 'none'}{more}")
    repeated = next((name for name in wanted if names.count(name) > 1), None)
    if repeated is not None:
        raise ValueError(f"{path}: {names.count(repeated)} columns are named {repeated!r}; give each column read a "
                         "name of its own")


def _is_text(kind, pa):
    """Whether an Arrow type holds strings (dictionary-encoded ones too)."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind)


def _columnar_blocks(path, chunk_size, file_format, vectorizer, columns, then, modules):
    """The generator :func:`iter_columnar` returns."""
    pa, pc, reader = modules

    def parsed(chunk):
        """The Block of a chunk of the file, its ``then`` step done: made in parallel."""
        first_row, pieces, n_bytes = chunk
        table = pa.Table.from_batches(pieces)
        rows = np.arange(first_row, first_row + table.num_rows)
        _check_arrow_data(table, columns.text, path, rows, pa)
        text = _strings(table.column(columns.text), path, rows, pa, pc,
                        null="the document is null (fill nulls with empty strings first to read them as such)")
        try:
            documents = arrow_documents(text)
        except ValueError as exc:  # malformed offsets or UTF-8
            raise ValueError(f"{path} rows {rows[0]}-{rows[-1]}: {exc}") from None
        y = None if columns.label is None else _labels(table.column(columns.label), path, rows, pa, pc)
        kept = table.select(list(columns.keep)).combine_chunks() if columns.keep else None
        X = document_rows(vectorizer, documents)
        block = Block(path, X.data, X.indices, X.indptr, y, rows, n_bytes, unit="row", documents=documents,
                      columns=kept)
        return finished(block, then)

    try:
        batches = _OPENERS[file_format](path, columns, chunk_size, pa, reader)
        yield from ordered_map(parsed, _chunks(batches, chunk_size))
    except (pa.ArrowException, UnicodeDecodeError) as exc:  # pyarrow's messages do not name the file
        raise ValueError(f"{path}: {exc}") from None


def _check_arrow_data(table, text, path, rows, pa):
    """Refuse (ValueError) a block whose columns hold malformed Arrow data: offsets or dictionary indices out of
    bounds, invalid UTF-8.  pyarrow does not check an Arrow IPC file's buffers as it reads them (nor a Parquet
    file's UTF-8), and its compute functions trust them.  A column of documents that are ``string`` or
    ``large_string`` is left to :func:`nbfast.text._arrow.arrow_documents`, which checks it as it reads it."""
    for name in table.column_names:
        if name == text and _plain_strings(table.schema.field(name).type, pa):
            continue
        try:
            table.column(name).validate(full=True)
        except pa.ArrowException as exc:
            problem = f"the Arrow column {name!r} is malformed: {exc}"
            raise ValueError(f"{path} rows {rows[0]}-{rows[-1]}: {problem}") from None


def _plain_strings(kind, pa):
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def _chunks(batches, chunk_size):
    """(number of the first row, record batches holding the next ``chunk_size`` rows, bytes read for them) of
    (record batch, bytes read so far) pairs: batches are cut (slices, no copy) and joined into chunks."""
    pieces, n_rows, first_row, consumed = [], 0, 1, 0
    for batch, position in batches:
        start = 0
        while start < batch.num_rows:
            pieces.append(batch.slice(start, chunk_size - n_rows))
            n_rows += pieces[-1].num_rows
            start += pieces[-1].num_rows
            if n_rows == chunk_size:
                yield first_row, pieces, position - consumed
                first_row, consumed, pieces, n_rows = first_row + n_rows, position, [], 0
    if pieces:
        yield first_row, pieces, position - consumed


def _array(column):
    """A block's column (a ChunkedArray) as one Arrow array, copied only when it has several chunks."""
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _strings(column, path, rows, pa, pc, *, null):
    """A block's column of text as one ``string`` or ``large_string`` array; a null raises ValueError naming its
    row, then saying ``null``."""
    column = _array(column)
    if not _plain_strings(column.type, pa):
        column = pc.cast(column, pa.large_string())  # dictionary-encoded strings, string views
    if column.null_count:
        raise ValueError(f"{path} row {_first(column.is_null(), rows)}: {null}")
    return column


def _labels(column, path, rows, pa, pc):
    """The labels of a block as a numpy array: str (spaces around each dropped), int64 or float64; a null,
    empty or NaN label names its row (ValueError)."""
    if pa.types.is_integer(column.type) or pa.types.is_floating(column.type):
        column = _array(column)
        if column.null_count:
            raise ValueError(f"{path} row {_first(column.is_null(), rows)}: the label is null")
        labels = numeric_values(column)
        if labels.dtype.kind == "f" and not np.isfinite(labels).all():
            row = np.argmin(np.isfinite(labels))
            raise ValueError(f"{path} row {rows[row]}: the label is {'NaN' if np.isnan(labels[row]) else 'infinite'}")
        return labels
    labels = pc.utf8_trim_whitespace(_strings(column, path, rows, pa, pc, null="the label is null"))
    empty = np.diff(string_buffers(labels)[1]) == 0
    if empty.any():
        raise ValueError(f"{path} row {rows[np.argmax(empty)]}: empty label")
    nul_end = pc.ends_with(labels, pattern="\0")  # an array of str would drop the NUL: "a\0" would become "a"
    if pc.any(nul_end).as_py():
        raise ValueError(f"{path} row {_first(nul_end, rows)}: the label ends with a NUL character (U+0000), which "
                         "an array of labels would drop, making it another label")
    return np.array(labels.to_pylist())


def _first(flags, rows):
    """The row number of the first true value of an Arrow boolean array."""
    return rows[flags.to_pylist().index(True)]


def _tell(f):
    """Bytes read so far of a file read front to back (0 for a pipe, whose position is unknown)."""
    try:
        return f.tell()
    except (OSError, ValueError):
        return 0


def _parquet(path, columns, chunk_size, pa, pq):
    """(record batch of ``columns``, bytes read so far) through a Parquet file; bytes are estimated by rows.

    A column's pages are read through a buffer of :data:`_PARQUET_BUFFER_BYTES` (pyarrow's default reads a row
    group's column whole: a file of one row group would be in memory at once).
    """
    file = pq.ParquetFile(path, buffer_size=_PARQUET_BUFFER_BYTES, pre_buffer=False)
    with file:
        columns.check(path, file.schema_arrow, pa)
        size, total, done = os.path.getsize(path), max(file.metadata.num_rows, 1), 0
        for batch in file.iter_batches(batch_size=chunk_size, columns=columns.names):
            done += batch.num_rows
            yield batch, size * done // total


def _arrow(path, columns, chunk_size, pa, ipc):
    """(record batch of ``columns``, bytes read so far) through an Arrow IPC file, or stream."""
    if not read_once(path):  # a file read by pyarrow itself; else a stream read as a Python file
        with pa.OSFile(str(path)) as f:
            try:
                reader = ipc.open_file(f)
            except pa.ArrowInvalid:  # not the file format: read as a stream below
                reader = None
            if reader is not None:
                columns.check(path, reader.schema, pa)
                size, n_batches = os.path.getsize(path), reader.num_record_batches
                for index in range(n_batches):
                    yield reader.get_batch(index).select(columns.names), size * (index + 1) // n_batches
                return
    with open_input(path) as f:
        reader = ipc.open_stream(f)
        columns.check(path, reader.schema, pa)
        for batch in reader:
            yield batch.select(columns.names), _tell(f)


#: pyarrow's names of the compressions of ``.gz`` and ``.bz2`` files.
_COMPRESSIONS = {".gz": "gzip", ".bz2": "bz2"}


@contextlib.contextmanager
def _csv_source(path, pa):
    """(the stream of a CSV file's bytes, the file whose position is the bytes read so far); ``.gz`` and ``.bz2``
    are decompressed by pyarrow, and a truncated or corrupt one raises ValueError.

    A file is read by pyarrow itself, not through a Python file object: pyarrow's CSV reader reads ahead in a
    thread of its own, which would call into Python, and can abort the interpreter as it exits when the read
    ended in an error.  Standard input or a pipe is read as a Python file, without that thread.
    """
    if read_once(path):
        with open_input(path) as f:
            yield f, f
        return
    compression = _COMPRESSIONS.get(os.path.splitext(str(path))[1])
    with pa.OSFile(str(path)) as raw:
        if compression is None:
            yield raw, raw
            return
        try:
            with pa.CompressedInputStream(raw, compression) as stream:
                yield stream, raw
        except OSError as exc:
            if exc.errno is not None:  # the system's error, not the decompression's
                raise
            raise ValueError(f"{path}: truncated or corrupt compressed file ({exc})") from None


def _csv_reader(source, path, csv, convert=None):
    """pyarrow's streaming reader of a CSV file's rows, from ``source`` (see :func:`_csv_source`)."""
    read = csv.ReadOptions(block_size=_CSV_BLOCK_BYTES, use_threads=not read_once(path))
    return csv.open_csv(source, read_options=read, parse_options=csv.ParseOptions(newlines_in_values=True),
                        convert_options=convert)


def _csv_names(path, pa, csv):
    """The column names of a CSV file's header row."""
    with _csv_source(path, pa) as (source, _):
        return _csv_reader(source, path, csv).schema.names


def _csv(path, columns, chunk_size, pa, csv):
    """(record batch of ``columns``, bytes read so far) through a CSV file with a header row, every column read
    as text.

    A file's header is read first, to refuse a column named twice (pyarrow would read the first); standard input
    or a pipe can be read only once, and there the first is read.
    """
    if not read_once(path):
        _check_names(path, _csv_names(path, pa, csv), columns.names)
    convert = csv.ConvertOptions(include_columns=columns.names, column_types=dict.fromkeys(columns.names, pa.string()))
    with _csv_source(path, pa) as (source, position):
        try:
            reader = _csv_reader(source, path, csv, convert)
        except KeyError as exc:  # standard input or a pipe lacks a column: pyarrow's message names it
            missing = re.search(r"Column '(.*)' in include_columns", str(exc))
            if missing:
                raise ValueError(f"{path}: no column {missing[1]!r} in the header") from None
            raise
        columns.check(path, reader.schema, pa)
        for batch in reader:
            yield batch, _tell(position)


_OPENERS = {"parquet": _parquet, "arrow": _arrow, "csv": _csv}


def column_names(path, file_format):
    """The names of the columns of a columnar file (``file_format``: parquet, arrow or csv), read from its schema
    or, for CSV, its header row; ValueError naming the file when it cannot be read."""
    pa, _, reader = pyarrow_modules(file_format)
    try:
        if file_format == "parquet":
            return reader.read_schema(path).names
        if file_format == "arrow":
            if not read_once(path):
                with pa.OSFile(str(path)) as f:
                    try:
                        return reader.open_file(f).schema.names
                    except pa.ArrowInvalid:  # not the file format: a stream
                        pass
            with open_input(path) as f:
                return reader.open_stream(f).schema.names
        return _csv_names(path, pa, reader)
    except (pa.ArrowException, UnicodeDecodeError) as exc:  # a column name that is not UTF-8: as pyarrow decodes it
        raise ValueError(f"{path}: {exc}") from None
