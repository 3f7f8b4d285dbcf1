"""``nbfast train``: fit a model on svmlight / .npz files chunk by chunk with partial_fit.

Two passes over the input, each at memory bounded by one chunk: the first
collects the class labels (partial_fit needs all of them up front) and the
number of features, the second accumulates the model's statistics.
"""

import numpy as np

from nbfast._base import unique_classes
from nbfast.stream import (
    MODEL_KINDS, Progress, add_input_arguments, estimator_class, model_input, read_blocks, save_model,
)


def add_arguments(parser):
    add_input_arguments(parser)
    parser.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file to write")
    parser.add_argument("--model", choices=list(MODEL_KINDS), default="multinomial",
                        help="Naive Bayes model (default multinomial)")
    parser.add_argument("--n-features", type=int, metavar="D",
                        help="number of features (default: the largest index seen in the input)")
    parser.add_argument("--alpha", type=float, metavar="A", help="smoothing (default: the estimator's)")


def make_estimator(args):
    cls = estimator_class(args.model)
    params = {}
    if args.alpha is not None:
        if "alpha" not in cls().get_params():
            raise ValueError(f"--alpha does not apply to --model {args.model}")
        params["alpha"] = args.alpha
    return cls(**params)


def labels_of(block):
    if block.y is None:
        raise ValueError(f"{block.path}: holds no labels to train on (an .npz needs an array 'y')")
    return block.y


def integral_labels(y):
    """Float labels that are all whole numbers (as svmlight stores them) become int64."""
    if y.dtype.kind == "f" and np.all(np.mod(y, 1) == 0):
        return y.astype(np.int64)
    return y


def scan(args):
    """First pass: (sorted class labels, number of features) of the whole input."""
    progress = Progress("scanning", args.input)
    label_sets, max_index = [], -1
    for block in read_blocks(args, progress):
        label_sets.append(np.unique(labels_of(block)))
        max_index = max(max_index, block.max_index())
    progress.close()
    if not label_sets:
        raise ValueError(f"no samples in {' '.join(map(str, args.input))}")
    classes = integral_labels(unique_classes(np.concatenate(label_sets)))
    return classes, max_index + 1


def run(args):
    estimator = make_estimator(args)
    classes, n_seen = scan(args)
    if args.n_features is not None and args.n_features < 1:
        raise ValueError(f"--n-features must be at least 1, got {args.n_features}")
    n_features = args.n_features or max(n_seen, 1)
    progress = Progress("training", args.input)
    for block in read_blocks(args, progress):
        X = model_input(block, estimator, n_features)
        y = labels_of(block).astype(classes.dtype, copy=False)
        try:
            estimator.partial_fit(X, y, classes=classes)
        except ValueError as exc:
            first, last = block.row_numbers[0], block.row_numbers[-1]
            raise ValueError(f"{block.path} {block.unit}s {first}-{last}: {exc}") from None
    save_model(estimator, args.output)
    progress.close(f"trained {type(estimator).__name__} ({len(classes)} classes, {n_features} features) "
                   f"-> {args.output}")
    return 0
