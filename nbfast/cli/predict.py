"""``nbfast predict``: stream inputs through a model chunk by chunk, writing labels (and probabilities, or
the K most probable classes) as CSV, or as .npy, Parquet or Arrow IPC by OUT's extension; columns of a
columnar input may be copied to the output, row for row (``--id-field``, ``--keep``), to join it back on them.

Raw text is vectorized with the settings stored in the model by ``nbfast train``.

The output is written to a new temporary file beside OUT (a name no existing
file has) and renamed at the end: a failed or interrupted run (SIGTERM and
SIGHUP included) leaves neither a truncated OUT nor the temporary file behind.
A link OUT is kept (its target is replaced), a device or a FIFO is written
directly, ``-`` is standard output.  OUT may not be the model or an input.
"""

import concurrent.futures
import os

import numpy as np

from nbfast._model_input import rows_input
from nbfast.cli._errors import CommandError, positive_int
from nbfast.cli._input import (
    Progress,
    add_input_arguments,
    check_inputs,
    check_output,
    open_model,
    output_file,
    read_blocks,
)
from nbfast.cli._writers import ArrowWriter, CsvWriter, NpyWriter, ParquetWriter, Predictions, prediction_columns
from nbfast.readers import COLUMNAR_FORMATS, input_format, read_once
from nbfast.readers.columnar import column_names

#: OUT's extension -> its writer; CSV for any other (.csv, .txt, none, or - for standard output).
WRITERS = {".npy": NpyWriter, ".parquet": ParquetWriter, ".arrow": ArrowWriter, ".feather": ArrowWriter,
           ".ipc": ArrowWriter}


def add_arguments(parser):
    parser.add_argument("model", metavar="MODEL", help="model file written by `nbfast train`")
    add_input_arguments(parser)
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="CSV file ([id columns,]label[,proba_<class>...] per row), .parquet, .arrow (.feather, "
                             ".ipc) or .npy; - for standard output (CSV)")
    parser.add_argument("--proba", action="store_true", help="write the probability of every class too")
    parser.add_argument("--top-k", type=positive_int, metavar="K",
                        help="write each row's K most probable classes and their probabilities instead of the "
                             "label: label_1,proba_1,...,label_K,proba_K; label_1 is the predicted label, equal "
                             "probabilities come in the order of the model's classes")
    parser.add_argument("--id-field", action="append", default=[], dest="id_fields", metavar="NAME",
                        help="columnar input (parquet, arrow, csv): copy the column NAME to the output, row for "
                             "row, before the label, to join the output back on it; repeat for more columns")
    parser.add_argument("--keep", action="store_true",
                        help="columnar input: copy every column of the input but the text to the output, as "
                             "--id-field copies one (the columns of the first input, which the others must hold)")
    parser.add_argument("--csv-safe-labels", action="store_true",
                        help="CSV: write a text label that starts with =, +, -, @, a tab or a carriage return after "
                             "a single quote (') so that a spreadsheet shows it as text, never runs it as a formula")


def check_options(args):
    """The writer of the output; refuses, before any work, options that contradict each other, the output or
    the input (CommandError)."""
    check_output(args.output, [args.model, *args.input], ("", ".csv", ".txt", *WRITERS),
                 "the output is CSV (.csv, .txt), .parquet, .arrow (.feather, .ipc) or .npy", stdout=True)
    writer = WRITERS.get(os.path.splitext(str(args.output))[1].lower(), CsvWriter)
    if args.csv_safe_labels and writer is not CsvWriter:
        raise CommandError("--csv-safe-labels applies only to CSV output")
    if args.top_k and args.proba:
        raise CommandError("--top-k writes the probabilities of the K most probable classes, --proba those of every "
                           "class: give one of them")
    copying = "--keep" if args.keep else "--id-field"
    if args.keep and args.id_fields:
        raise CommandError("--keep copies every column but the text, --id-field the columns it names: give one of "
                           "them")
    if args.id_fields or args.keep:
        if writer is NpyWriter:
            raise CommandError(f"{copying}: a .npy output holds no input columns; write .csv, .parquet or .arrow")
        other = next((path for path in args.input if input_format(path, args.file_format) not in COLUMNAR_FORMATS),
                     None)
        if other is not None:
            raise CommandError(f"{copying} applies only to columnar input ({', '.join(COLUMNAR_FORMATS)}): {other} "
                               f"is read as {input_format(other, args.file_format)}")
        repeated = next((name for name in args.id_fields if args.id_fields.count(name) > 1), None)
        if repeated is not None:
            raise CommandError(f"--id-field {repeated} is given twice")
    if args.keep:
        args.id_fields = kept_columns(args)
    return writer


def kept_columns(args):
    """The columns --keep copies: those of the first input, but the text's (CommandError for standard input,
    which can be read only once)."""
    first = args.input[0]
    if read_once(first):
        raise CommandError("--keep reads the columns of its input first, which standard input or a pipe does not "
                           "allow: name the columns to copy with --id-field")
    check_inputs(args)  # before reading them
    return [name for name in column_names(first, input_format(first, args.file_format)) if name != args.text_field]


def check_columns(args, classes):
    """Refuse, once the model's classes are known, a --top-k above their number and an --id-field named as an
    output column (CommandError)."""
    if args.top_k and args.top_k > len(classes):
        raise CommandError(f"--top-k {args.top_k}: the model has only {len(classes)} classes")
    taken = next((name for name in args.id_fields if name in prediction_columns(classes, args.proba, args.top_k)),
                 None)
    if taken is not None and args.keep:
        raise CommandError(f"--keep: the input's column {taken!r} has the name of an output column; name the columns "
                           "to copy with --id-field")
    if taken is not None:
        raise CommandError(f"--id-field {taken}: the output has a column of that name already")


def predictions(model, X, args, columns, best_classes):
    """A block's :class:`nbfast.cli._writers.Predictions`: the label (and every class's probability), or the
    --top-k best classes (by ``best_classes``, :func:`nbfast.decision.best_classes`) and their probabilities;
    ``columns`` the input's kept columns."""
    class_index = model._predict_index(X)[1]
    if args.top_k:
        return Predictions(*best_classes(model.predict_proba(X), class_index, args.top_k), columns)
    proba = model.predict_proba(X) if args.proba else np.empty((class_index.shape[0], 0))
    return Predictions(class_index[:, None], proba, columns)


def run(args):
    writer_class = check_options(args)
    model_file, vectorizer = open_model(args)
    progress = Progress("predicting", args.input)
    # The model and its writer, made here while the first blocks are read and vectorized; each block is then
    # scored and formatted in the thread that read it, and written here in the input's order.
    ready = concurrent.futures.Future()

    def scored(block):
        model, writer, best_classes = ready.result()
        X = rows_input(block, model, model.n_features_in_)
        return writer.encode(predictions(model, X, args, block.columns, best_classes))

    options = {"proba": args.proba, "top_k": args.top_k}
    if args.id_fields:
        options["kept"] = tuple(args.id_fields)
    if args.csv_safe_labels:
        options["safe_labels"] = True
    with model_file, read_blocks(args, progress, vectorizer=vectorizer, labels=False, keep=tuple(args.id_fields),
                                 then=scored) as blocks:
        try:
            model = model_file.model()
            check_columns(args, model.classes_)
            # imported here, on this thread, before a block needs it: with the model, its estimators are loaded
            from nbfast.decision import best_classes
            with output_file(args.output) as f, writer_class(f, model.classes_, **options) as writer:
                ready.set_result((model, writer, best_classes))
                for block in blocks:
                    writer.write(block.output)
                writer.finish()
        finally:
            if not ready.done():  # no model: the blocks waiting for it end
                ready.set_exception(CommandError("no model to score with"))
    progress.close(f"scored with {type(model).__name__} -> {'standard output' if args.output == '-' else args.output}")
    return 0
