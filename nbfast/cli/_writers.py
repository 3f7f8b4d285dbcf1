"""The outputs of ``nbfast predict``: each writer makes a block's rows in any thread (``encode``) and writes
them in the input's order (``write``)."""

import csv
import shutil
import tempfile

import numpy as np

from nbfast._kernels.csvrows import csv_rows


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


class _Writer:
    """What the writers share: each is a context manager releasing what it holds, even after an error;
    ``encode`` (any thread) makes a block's bytes, ``write`` writes them in order, ``finish`` ends a
    complete output."""

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        pass

    def finish(self):
        pass


class CsvWriter(_Writer):
    """label[,proba_<class>...] rows after a header; probabilities with 17 significant digits (exact).

    Each class is formatted once (numbers as they are, other labels quoted where needed); a kernel then
    writes a block's rows without the GIL: the fields of its class indices, and any probabilities.  The
    header is written with the first rows (or by ``finish``): an input that fails before its first block
    is scored leaves nothing written, not even on standard output.
    """

    def __init__(self, f, classes, proba, *, safe_labels=False):
        self._f = f
        strings = _label_strings(classes)
        if classes.dtype.kind in "iufb":  # numbers: never quoted, never a formula
            fields = strings
        else:
            fields = [_csv_record([_safe_label(label) if safe_labels else label]) for label in strings]
        encoded = [field.encode() for field in fields]
        self._field_bytes = b"".join(encoded)
        self._field_ends = np.cumsum([len(field) for field in encoded], dtype=np.int64)
        header = ["label"] + ([f"proba_{c}" for c in strings] if proba else [])
        self._header = (_csv_record(header) + "\n").encode()

    def encode(self, class_index, proba):
        """The CSV rows of a block's classes (indices into the model's classes) and probabilities (None: the
        labels alone), as a bytearray: made in any thread."""
        class_index = np.asarray(class_index, dtype=np.int64)[:, None]
        proba = np.empty((class_index.shape[0], 0)) if proba is None else proba
        return csv_rows(self._field_bytes, self._field_ends, class_index, np.ascontiguousarray(proba, dtype=np.float64))

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


class NpyWriter(_Writer):
    """A .npy array: labels (n,), or records (label, proba[n_classes]) with --proba.

    The row count is known only at the end, so rows stream to a temporary file
    and ``finish`` writes numpy's header (``numpy.lib.format``), then the rows.
    """

    def __init__(self, f, classes, proba):
        label = classes.dtype
        self._dtype = np.dtype([("label", label), ("proba", np.float64, (len(classes),))]) if proba else label
        if self._dtype.hasobject:
            raise ValueError("a .npy output cannot hold labels of Python objects; write CSV instead")
        self._f, self._classes, self._n_rows, self._rows = f, classes, 0, tempfile.TemporaryFile()

    def encode(self, class_index, proba):
        """The records of a block's classes (indices into the model's classes) and probabilities, as bytes:
        made in any thread."""
        labels = self._classes[class_index]
        if proba is None:
            rows = labels.astype(self._dtype, copy=False)
        else:
            rows = np.empty(len(labels), dtype=self._dtype)
            rows["label"], rows["proba"] = labels, proba
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
