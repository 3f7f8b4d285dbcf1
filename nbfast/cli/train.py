"""``nbfast train``: fit a model on svmlight / .npz / text files chunk by chunk with partial_fit.

Two passes over the input, each at memory bounded by one chunk: the first
collects the class labels (partial_fit needs all of them up front) and the
number of features, the second accumulates the model's statistics.  Raw text
is vectorized chunk by chunk by a :class:`nbfast.text.HashingVectorizer`
(counts: ``alternate_sign=False``, ``norm=None``) whose settings are stored in
the model file, so ``nbfast predict`` vectorizes text the same way.
"""

import numpy as np

from nbfast.cli._input import (
    MODEL_KINDS,
    Progress,
    add_input_arguments,
    check_output,
    model_input,
    read_blocks,
    takes_sparse,
    text_inputs,
)
from nbfast.naive_bayes._base import unique_classes
from nbfast.persist import save
from nbfast.text import HashingVectorizer

TEXT_N_FEATURES = 2**20


def add_arguments(parser):
    add_input_arguments(parser)
    parser.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file to write")
    parser.add_argument("--model", choices=list(MODEL_KINDS), default="multinomial",
                        help="Naive Bayes model (default multinomial)")
    parser.add_argument("--n-features", type=int, metavar="D",
                        help="number of features (default: the largest index seen in the input; "
                             f"{TEXT_N_FEATURES} hashed features for text)")
    parser.add_argument("--alpha", type=float, metavar="A", help="smoothing (default: the estimator's)")
    text = parser.add_argument_group("text input (stored in the model for `nbfast predict`)")
    text.add_argument("--ngram-max", type=int, choices=(1, 2), metavar="{1,2}",
                      help="words (1, the default) or words and word pairs (2) as features")
    text.add_argument("--binary", action="store_true", default=None,
                      help="count each feature once per document (presence, not count)")
    text.add_argument("--no-lowercase", dest="lowercase", action="store_false", default=None,
                      help="keep the case of the text (default: lowercase it)")


def make_estimator(args):
    cls = MODEL_KINDS[args.model]
    params = {}
    if args.alpha is not None:
        if "alpha" not in cls().get_params():
            raise ValueError(f"--alpha does not apply to --model {args.model}")
        params["alpha"] = args.alpha
    return cls(**params)


def make_vectorizer(args):
    """The HashingVectorizer for text inputs (None without any), refusing text options without text."""
    text_options = {"--ngram-max": args.ngram_max, "--binary": args.binary, "--no-lowercase": args.lowercase}
    if not text_inputs(args):
        given = [name for name, value in text_options.items() if value is not None]
        if given:
            raise ValueError(f"{', '.join(given)} apply only to text input (lines, tsv, jsonl)")
        return None
    return HashingVectorizer(
        n_features=args.n_features or TEXT_N_FEATURES, ngram_range=(1, args.ngram_max or 1),
        binary=bool(args.binary), lowercase=args.lowercase is not False, norm=None, alternate_sign=False,
    )


def labels_of(block):
    if block.y is None:
        raise ValueError(f"{block.path}: holds no labels to train on (an .npz needs an array 'y'; "
                         "text needs --format tsv or jsonl)")
    return block.y


#: Floats are exact integers up to 2**53: beyond, distinct labels could become one int64.
_EXACT_INTEGERS = 2.0**53


def integral_labels(y):
    """Float labels that are all whole numbers (as svmlight stores them) and exact become int64."""
    if y.dtype.kind == "f" and np.all(np.mod(y, 1) == 0) and np.all(np.abs(y) <= _EXACT_INTEGERS):
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
    check_output(args.output, args.input)
    estimator = make_estimator(args)
    if args.n_features is not None and args.n_features < 1:
        raise ValueError(f"--n-features must be at least 1, got {args.n_features}")
    vectorizer = make_vectorizer(args)
    if vectorizer is not None and not takes_sparse(estimator):
        raise ValueError(f"--model {args.model} needs dense input, too large for {vectorizer.n_features} hashed "
                         "text features")
    classes, n_seen = scan(args)
    n_features = vectorizer.n_features if vectorizer is not None else args.n_features or max(n_seen, 1)
    progress = Progress("training", args.input)
    for block in read_blocks(args, progress, vectorizer=vectorizer):
        X = model_input(block, estimator, n_features)
        y = labels_of(block).astype(classes.dtype, copy=False)
        try:
            estimator.partial_fit(X, y, classes=classes)
        except ValueError as exc:
            first, last = block.row_numbers[0], block.row_numbers[-1]
            raise ValueError(f"{block.path} {block.unit}s {first}-{last}: {exc}") from None
        except MemoryError:
            raise ValueError(f"not enough memory for a model of {len(classes)} classes x {n_features:,} features "
                             "(the largest feature index of the input, or --n-features, sets the width)") from None
    save(estimator, args.output, vectorizer=vectorizer)
    progress.close(f"trained {type(estimator).__name__} ({len(classes)} classes, {n_features} features) "
                   f"-> {args.output}")
    return 0
