"""``nbfast evaluate``: stream labelled inputs through a model chunk by chunk and report how good it is.

Accuracy, per-class precision / recall / F1 / support, macro and weighted
averages, log-loss and the confusion matrix, as ``sklearn.metrics`` computes
them, and the expected calibration error (see :mod:`nbfast.evaluation`), at
memory bounded by a few chunks per core.  The input is read as the model's
training input was (raw text vectorized with the stored settings).  Labels the
model never saw count as errors and are named in a warning line on stderr.
"""

import json
import sys

from nbfast._compat import pyplot
from nbfast._model_input import rows_input
from nbfast.cli._errors import CommandError, in_cli_words
from nbfast.cli._input import (
    Progress,
    add_input_arguments,
    blamed_on,
    check_output,
    integral_labels,
    labels_of,
    load_model,
    read_blocks,
)
from nbfast.evaluation import EvaluationCounts

_PLOT_SUFFIXES = (".png", ".svg", ".pdf")


def add_arguments(parser):
    parser.add_argument("model", metavar="MODEL", help="model file written by `nbfast train` or nbfast.save")
    add_input_arguments(parser)
    parser.add_argument("--json", action="store_true",
                        help="write every figure as one JSON object on stdout instead of the text report")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="draw the confusion matrix, normalized per true label, and the reliability diagram "
                             "to an image (needs matplotlib)")


def check_plot(path, inputs):
    """Refuse a plot path that cannot be written before any work: an input, its folder, its extension, matplotlib."""
    check_output(path, inputs, _PLOT_SUFFIXES, "the plot is written as .png, .svg or .pdf")
    pyplot("--plot")


def unseen_warning(unseen):
    """The warning line naming the labels the model never saw (None when there are none)."""
    if not unseen:
        return None
    shown = ", ".join(f"{label!r} ({count} row{'s' if count > 1 else ''})" for label, count in list(unseen.items())[:10])
    more = f", and {len(unseen) - 10} more" if len(unseen) > 10 else ""
    return (f"nbfast evaluate: warning: {len(unseen)} label(s) the model never saw, counted as errors: "
            f"{shown}{more}")


def run(args):
    if args.plot:
        check_plot(args.plot, [args.model, *args.input])
    model, vectorizer = load_model(args)
    counts = EvaluationCounts(model)
    progress = Progress("evaluating", args.input)
    try:
        for block in read_blocks(args, progress, vectorizer=vectorizer):
            y = integral_labels(labels_of(block, "evaluate on"))
            X = rows_input(block, model, model.n_features_in_)
            with blamed_on(block):
                counts.update(X, y)
    except BaseException:
        progress.close()
        raise
    if counts.n_samples == 0:
        progress.close()
        raise CommandError(f"no samples in {' '.join(map(str, args.input))}")
    progress.close(f"evaluated {type(model).__name__}")
    evaluation = counts.result()
    warning = unseen_warning(evaluation.unseen_labels)
    if warning:
        print(warning, file=sys.stderr)
    if args.json:
        json.dump(evaluation.to_dict(), sys.stdout)
        sys.stdout.write("\n")
    else:
        print(in_cli_words(evaluation.report()))
    if args.plot:
        evaluation.plot(args.plot)
        print(f"nbfast: confusion matrix and reliability diagram drawn to {args.plot}", file=sys.stderr)
    return 0
