"""``nbfast predict``: stream inputs through a model chunk by chunk, writing labels
(and probabilities) as CSV, or as .npy when OUT ends with .npy.

Raw text is vectorized with the settings stored in the model by ``nbfast train``.

The output is written to a new temporary file beside OUT (a name no existing
file has) and renamed at the end: a failed or interrupted run (SIGTERM
included) leaves neither a truncated OUT nor the temporary file behind.  OUT
may not be the model or an input.
"""

import io

import numpy as np

from nbfast.cli._input import Progress, add_input_arguments, check_output, model_input, read_blocks, text_inputs
from nbfast.persist import load, load_vectorizer
from nbfast.persist._files import replacing


def add_arguments(parser):
    parser.add_argument("model", metavar="MODEL", help="model file written by `nbfast train`")
    add_input_arguments(parser)
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="CSV file (label[,proba_<class>...] per row), or .npy")
    parser.add_argument("--proba", action="store_true", help="write the probability of every class too")


def _csv_field(text):
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def _label_text(labels):
    """Labels as CSV fields: ints and floats in their shortest exact form."""
    if labels.dtype.kind in "iufb":
        return labels.astype(str)
    return [_csv_field(str(label)) for label in labels]


class CsvWriter:
    """label[,proba_<class>...] rows after a header; probabilities with 17 significant digits (exact)."""

    def __init__(self, f, classes, proba):
        self._f = f
        header = ["label"] + ([f"proba_{c}" for c in _label_text(classes)] if proba else [])
        f.write((",".join(header) + "\n").encode())

    def write(self, labels, proba):
        text = _label_text(labels)
        if proba is None:
            self._f.write(("\n".join(text) + "\n").encode())
            return
        rows = io.StringIO()
        np.savetxt(rows, proba, fmt="%.17g", delimiter=",")
        self._f.write("".join(f"{label},{row}\n" for label, row in zip(text, rows.getvalue().splitlines())).encode())

    def close(self):
        pass


class NpyWriter:
    """A .npy array written as it streams: labels (n,), or records (label, proba[n_classes]) with --proba.

    The row count is unknown until the end, so the header is written last into
    space reserved for the largest count.
    """

    def __init__(self, f, classes, proba):
        self._f, self._n_rows = f, 0
        label = classes.dtype
        self._dtype = np.dtype([("label", label), ("proba", np.float64, (len(classes),))]) if proba else label
        if self._dtype.hasobject:
            raise ValueError("a .npy output cannot hold labels of Python objects; write CSV instead")
        self._header_size = len(self._header(10**18))
        f.write(b"\0" * self._header_size)

    def _header(self, n_rows, size=None):
        text = repr({"descr": np.lib.format.dtype_to_descr(self._dtype), "fortran_order": False,
                     "shape": (n_rows,)})
        prefix = 6 + 2 + 2  # magic, version 1.0, header length
        if size is None:  # pad to a multiple of 64, the format's alignment
            size = -(-(prefix + len(text) + 1) // 64) * 64
        text = text.ljust(size - prefix - 1) + "\n"
        return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode("latin1")

    def write(self, labels, proba):
        if proba is None:
            rows = labels.astype(self._dtype, copy=False)
        else:
            rows = np.empty(len(labels), dtype=self._dtype)
            rows["label"], rows["proba"] = labels, proba
        self._f.write(rows.tobytes())
        self._n_rows += len(labels)

    def close(self):
        self._f.seek(0)
        self._f.write(self._header(self._n_rows, self._header_size))


def run(args):
    check_output(args.output, [args.model, *args.input])
    model = load(args.model)
    vectorizer = load_vectorizer(args.model)
    text = text_inputs(args)
    if text and vectorizer is None:
        raise ValueError(f"{text[0]} is read as text, but {args.model} was not trained on text (it stores no "
                         "vectorizer): train it on text with `nbfast train`, or pass --format for feature vectors")
    progress = Progress("predicting", args.input)
    with replacing(args.output) as f:
        writer = (NpyWriter if str(args.output).endswith(".npy") else CsvWriter)(f, model.classes_, args.proba)
        for block in read_blocks(args, progress, vectorizer=vectorizer, labels=False):
            X = model_input(block, model, model.n_features_in_)
            writer.write(model.predict(X), model.predict_proba(X) if args.proba else None)
        writer.close()
    progress.close(f"scored with {type(model).__name__} -> {args.output}")
    return 0
