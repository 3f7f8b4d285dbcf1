"""The outputs of ``nbfast predict``: CSV, .npy, Parquet and Arrow IPC files.

Each writer makes a block's rows in any thread (``encode``, from the block's :class:`Predictions`) and writes
them in the input's order (``write``).  The columns: the input's kept columns (``--id-field``), then ``label``
(and ``proba_<class>`` for every class with ``--proba``), or ``label_1, proba_1, ..., label_K, proba_K`` (the
K most probable classes with ``--top-k K``).
"""

import csv
import shutil
import tempfile
from typing import NamedTuple

import numpy as np

from nbfast import _compat
from nbfast._kernels.csvrows import csv_rows
from nbfast.readers._arrow import arrow_values, string_array
from nbfast.text._arrow import string_buffers


class _Echo:
    """A file whose ``write`` returns its text, so ``csv.writer(_Echo()).writerow(fields)`` returns one CSV record."""

    def write(self, text):
        return text


# The writer quotes a field holding a character of its line end: with "\r\n", a field holding either (a bare
# "\r" too, which a CSV reader takes as a line end) is quoted, whatever line end the output uses.
_CSV = csv.writer(_Echo(), lineterminator="\r\n")


def _csv_record(fields):
    """[text, ...] -> one CSV record without its line end, quoted as the csv module does."""
    return _CSV.writerow(fields)[:-2]


#: The first characters that make a spreadsheet read a cell as a formula (and a tab or carriage return, which
#: can hide one); a label starting with one is written after a single quote with --csv-safe-labels.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _safe_label(label):
    """``label`` (text) as a spreadsheet shows it as text: after a single quote when it could start a formula."""
    return "'" + label if label.startswith(_FORMULA_STARTS) else label


def _label_strings(labels):
    """Labels as text: ints and floats in their shortest exact form, other labels as ``str`` gives them."""
    if labels.dtype.kind in "iufb":
        return labels.astype(str)
    return [str(label) for label in labels]


class Predictions(NamedTuple):
    """A block's predictions as the writers take them: groups of a class and its probabilities.

    ``class_index`` (n, G) holds each group's class, an index into the model's classes; ``proba`` (n, G * m)
    each group's m probabilities: one group of the label and every class's probability (m = n_classes) or
    none (m = 0), or K groups of a label and its probability (--top-k K).  ``columns`` are the input's
    columns copied to the output (a pyarrow Table), or None.
    """

    class_index: np.ndarray
    proba: np.ndarray
    columns: object = None


def prediction_columns(classes, proba, top_k):
    """The names of the columns after the kept ones, in the order of the groups of :class:`Predictions`."""
    if top_k:
        return [name for k in range(1, top_k + 1) for name in (f"label_{k}", f"proba_{k}")]
    return ["label"] + ([f"proba_{c}" for c in _label_strings(classes)] if proba else [])


class _Writer:
    """What the writers share: each is a context manager releasing what it holds, even after an error;
    ``encode`` (any thread) makes a block's rows, ``write`` writes them in order, ``finish`` ends a
    complete output."""

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        pass

    def finish(self):
        pass


class CsvWriter(_Writer):
    """[kept columns,]label[,proba_<class>...] (or the K best labels and probabilities) rows after a header;
    probabilities with 17 significant digits (exact).

    Each class is formatted once (numbers as they are, other labels quoted where needed), and the kept columns
    of a block are formatted as CSV fields by pyarrow; a kernel then writes a block's rows without the GIL:
    the kept fields, the fields of its class indices, and any probabilities.  The header is written with the
    first rows (or by ``finish``): an input that fails before its first block is scored leaves nothing
    written, not even on standard output.
    """

    def __init__(self, f, classes, *, proba=False, top_k=None, kept=(), safe_labels=False):
        self._f = f
        strings = _label_strings(classes)
        if classes.dtype.kind in "iufb":  # numbers: never quoted, never a formula
            fields = strings
        else:
            fields = [_csv_record([_safe_label(label) if safe_labels else label]) for label in strings]
        encoded = [field.encode() for field in fields]
        self._field_bytes = b"".join(encoded)
        self._field_ends = np.cumsum([len(field) for field in encoded], dtype=np.int64)
        self._header = (_csv_record([*kept, *prediction_columns(classes, proba, top_k)]) + "\n").encode()
        self._arrow = _arrow_modules("compute", "columns written as CSV") if kept else None

    def encode(self, predictions):
        """The CSV rows of a block's :class:`Predictions`, as a bytearray: made in any thread."""
        prefix = () if predictions.columns is None else _csv_fields(predictions.columns, *self._arrow)
        return csv_rows(self._field_bytes, self._field_ends, np.ascontiguousarray(predictions.class_index, np.int64),
                        np.ascontiguousarray(predictions.proba, dtype=np.float64), *prefix)

    def write(self, rows):
        """Write the rows ``encode`` made, in the input's order (after the header, the first time)."""
        self._write_header()
        self._f.write(rows)

    def finish(self):
        self._write_header()  # an input of no rows: the header alone

    def _write_header(self):
        if self._header is not None:
            self._f.write(self._header)
            self._header = None


def _arrow_modules(name, purpose):
    """(pyarrow, ``pyarrow.<name>``), imported on the calling thread (before the threads that encode start), or
    MissingDependency naming the extra ``arrow``."""
    return _compat.pyarrow(purpose=purpose, extra="arrow"), _compat.pyarrow(name, purpose, extra="arrow")


#: What the compute functions put around a field that needs quotes (one holding a comma, a quote or a line end),
#: once its quotes are doubled, as the csv module quotes.
_QUOTED = {"pattern": '(?s)^(.*[,"\\r\\n].*)$', "replacement": '"\\1"'}


def _csv_fields(columns, pa, pc):
    """(bytes, offsets) of each row's fields of the Arrow ``columns``, as CSV writes them: each value as text
    (nulls empty), quoted as the csv module quotes, joined by commas."""
    fields = []
    for name, column in zip(columns.column_names, columns.columns):
        try:
            text = pc.cast(column, pa.string())
        except pa.ArrowException:
            raise ValueError(f"the column {name!r} ({column.type}) cannot be written as CSV: write .parquet or "
                             ".arrow") from None
        doubled = pc.replace_substring(text, pattern='"', replacement='""')
        fields.append(pc.replace_substring_regex(doubled, **_QUOTED))
    joined = pc.binary_join_element_wise(*fields, string_array([","])[0], null_handling="replace")
    return string_buffers(joined.combine_chunks())


class NpyWriter(_Writer):
    """A .npy array: labels (n,), records (label, proba[n_classes]) with --proba, or records (label_1, proba_1,
    ..., label_K, proba_K) with --top-k K.

    The row count is known only at the end, so rows stream to a temporary file
    and ``finish`` writes numpy's header (``numpy.lib.format``), then the rows.
    """

    def __init__(self, f, classes, *, proba=False, top_k=None):
        label = classes.dtype
        if top_k:
            self._dtype = np.dtype([(name, label if name.startswith("label") else np.float64)
                                    for name in prediction_columns(classes, proba, top_k)])
        else:
            self._dtype = np.dtype([("label", label), ("proba", np.float64, (len(classes),))]) if proba else label
        if self._dtype.hasobject:
            raise ValueError("a .npy output cannot hold labels of Python objects; write CSV instead")
        self._f, self._classes, self._n_rows, self._rows = f, classes, 0, tempfile.TemporaryFile()

    def encode(self, predictions):
        """The records of a block's :class:`Predictions`, as bytes: made in any thread."""
        labels = self._classes[predictions.class_index]
        if self._dtype.names is None:
            return labels[:, 0].astype(self._dtype, copy=False).tobytes()
        rows = np.empty(len(labels), dtype=self._dtype)
        if "proba" in self._dtype.names:
            rows["label"], rows["proba"] = labels[:, 0], predictions.proba
        else:
            for k in range(labels.shape[1]):
                rows[f"label_{k + 1}"], rows[f"proba_{k + 1}"] = labels[:, k], predictions.proba[:, k]
        return rows.tobytes()

    def write(self, rows):
        """Write the records ``encode`` made, in the input's order."""
        self._rows.write(rows)
        self._n_rows += len(rows) // self._dtype.itemsize

    def finish(self):
        header = {"descr": np.lib.format.dtype_to_descr(self._dtype), "fortran_order": False, "shape": (self._n_rows,)}
        np.lib.format.write_array_header_1_0(self._f, header)
        self._rows.seek(0)
        shutil.copyfileobj(self._rows, self._f)

    def __exit__(self, *exc_info):
        self._rows.close()


class _ArrowWriter(_Writer):
    """What the Parquet and Arrow IPC writers share: a block's rows as an Arrow table, the kept columns as they
    are, the labels of the type of the model's classes, the probabilities float64.

    The file's schema is the first block's; a later block whose kept columns have other types (another input
    file's) is cast to it.  An output of no rows has kept columns of Arrow's null type.
    """

    #: What the output is called in messages, and the pyarrow module that writes it.
    what = module = None

    def __init__(self, f, classes, *, proba=False, top_k=None, kept=()):
        # pyarrow.compute too: the threads that encode use it (Array.take), and import nothing themselves
        self._pa, self._writes = _arrow_modules(self.module, f"{self.what} output")
        _arrow_modules("compute", f"{self.what} output")
        self._f, self._kept, self._writer, self._schema = f, tuple(kept), None, None
        self._classes = arrow_values(classes)
        self._names = [*self._kept, *prediction_columns(classes, proba, top_k)]
        self._groups, self._n_proba = (top_k, top_k) if top_k else (1, len(classes) if proba else 0)

    def encode(self, predictions):
        """The Arrow table of a block's :class:`Predictions`: made in any thread."""
        pa, groups = self._pa, self._groups
        per_group = self._n_proba // groups
        proba = np.ascontiguousarray(predictions.proba.T, dtype=np.float64)  # a column a row
        arrays = [] if predictions.columns is None else predictions.columns.columns
        for g in range(groups):
            arrays.append(self._classes.take(arrow_values(predictions.class_index[:, g])))
            arrays.extend(arrow_values(column) for column in proba[g * per_group:(g + 1) * per_group])
        return pa.Table.from_arrays(arrays, names=self._names)

    def write(self, table):
        """Write a table ``encode`` made, in the input's order."""
        if self._writer is None:
            self._schema, self._writer = table.schema, self._open(table.schema)
        elif table.schema != self._schema:
            try:
                table = table.cast(self._schema)
            except self._pa.ArrowException as exc:
                raise ValueError(f"the kept columns have other types than in the first rows, which they cannot "
                                 f"be cast to: {exc}") from None
        self._write(table)

    def finish(self):
        if self._writer is None:  # no rows
            kept = self._pa.table({name: self._pa.nulls(0) for name in self._kept})
            empty = Predictions(np.zeros((0, self._groups), np.int64), np.zeros((0, self._n_proba)), kept)
            self._writer = self._open(self.encode(empty).schema)
        self._end()
        self._writer.close()

    def __exit__(self, *exc_info):
        if self._writer is not None and exc_info[0] is not None:
            self._writer.close()


class ParquetWriter(_ArrowWriter):
    """A Parquet file, in row groups of about :data:`ROW_GROUP_ROWS` rows (blocks are gathered until then).

    Only the label columns are dictionary-encoded (a few distinct values each): Parquet's default, a dictionary
    tried on every column, took 6 times as long for probabilities and ids, and made a larger file.
    """

    what, module = "Parquet", "parquet"
    ROW_GROUP_ROWS = 1 << 17

    def __init__(self, f, classes, **options):
        super().__init__(f, classes, **options)
        self._pending, self._n_pending = [], 0

    def _open(self, schema):
        labels = [name for name in self._names[len(self._kept):] if name.startswith("label")]
        try:
            return self._writes.ParquetWriter(self._f, schema, use_dictionary=labels)
        except self._pa.ArrowException as exc:
            field = next((field for field in schema if not self._storable(field)), None)
            if field is None:  # not a column's type
                raise
            raise ValueError(f"the column {field.name!r} ({field.type}) cannot be written to Parquet ({exc}); write "
                             ".arrow, which stores any column") from None

    def _storable(self, field):
        """Whether Parquet has a type for ``field`` (a union, say, has none)."""
        try:
            self._writes.ParquetWriter(self._pa.BufferOutputStream(), self._pa.schema([field])).close()
        except self._pa.ArrowException:
            return False
        return True

    def _write(self, table):
        self._pending.append(table)
        self._n_pending += table.num_rows
        if self._n_pending >= self.ROW_GROUP_ROWS:
            self._end()

    def _end(self):
        """Write the blocks gathered as one row group."""
        if self._pending:
            table = self._pa.concat_tables(self._pending)
            self._writer.write_table(table, row_group_size=table.num_rows)
            self._pending, self._n_pending = [], 0


class ArrowWriter(_ArrowWriter):
    """An Arrow IPC file (Feather version 2), a record batch per block."""

    what, module = "Arrow", "ipc"

    def _open(self, schema):
        return self._writes.new_file(self._f, schema)

    def _write(self, table):
        self._writer.write_table(table)

    def _end(self):
        pass
