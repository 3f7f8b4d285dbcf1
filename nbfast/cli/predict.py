"""``nbfast predict``: stream inputs through a model chunk by chunk, writing labels
(and probabilities) as CSV, or as .npy when OUT ends with .npy.

Raw text is vectorized with the settings stored in the model by ``nbfast train``.

The output is written to a new temporary file beside OUT (a name no existing
file has) and renamed at the end: a failed or interrupted run (SIGTERM and
SIGHUP included) leaves neither a truncated OUT nor the temporary file behind.
A link OUT is kept (its target is replaced), a device or a FIFO is written
directly, ``-`` is standard output.  OUT may not be the model or an input.
"""

import concurrent.futures

from nbfast.cli._errors import CommandError
from nbfast.cli._input import (
    Progress,
    add_input_arguments,
    check_output,
    open_model,
    output_file,
    read_blocks,
    rows_input,
)
from nbfast.cli._writers import CsvWriter, NpyWriter


def add_arguments(parser):
    parser.add_argument("model", metavar="MODEL", help="model file written by `nbfast train`")
    add_input_arguments(parser)
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="CSV file (label[,proba_<class>...] per row), or .npy; - for standard output (CSV)")
    parser.add_argument("--proba", action="store_true", help="write the probability of every class too")
    parser.add_argument("--csv-safe-labels", action="store_true",
                        help="CSV: write a text label that starts with =, +, -, @, a tab or a carriage return after "
                             "a single quote (') so that a spreadsheet shows it as text, never runs it as a formula")


def run(args):
    check_output(args.output, [args.model, *args.input], ("", ".csv", ".txt", ".npy"),
                 "the output is CSV (.csv, .txt) or .npy", stdout=True)
    as_npy = str(args.output).endswith(".npy")
    if as_npy and args.csv_safe_labels:
        raise CommandError("--csv-safe-labels applies only to CSV output")
    model_file, vectorizer = open_model(args)
    progress = Progress("predicting", args.input)
    # The model and its writer, made here while the first blocks are read and vectorized; each block is then
    # scored and formatted in the thread that read it, and written here in the input's order.
    ready = concurrent.futures.Future()

    def scored(block):
        model, writer = ready.result()
        X = rows_input(block, model, model.n_features_in_)
        return writer.encode(model._predict_index(X)[1], model.predict_proba(X) if args.proba else None)

    with model_file, read_blocks(args, progress, vectorizer=vectorizer, labels=False, then=scored) as blocks:
        try:
            model = model_file.model()
            options = {} if as_npy else {"safe_labels": args.csv_safe_labels}
            with output_file(args.output) as f, (NpyWriter if as_npy else CsvWriter)(f, model.classes_, args.proba,
                                                                                      **options) as writer:
                ready.set_result((model, writer))
                for block in blocks:
                    writer.write(block.output)
                writer.finish()
        finally:
            if not ready.done():  # no model: the blocks waiting for it end
                ready.set_exception(CommandError("no model to score with"))
    progress.close(f"scored with {type(model).__name__} -> {'standard output' if args.output == '-' else args.output}")
    return 0
