"""``nbfast train``: fit a model on svmlight / .npz / text files chunk by chunk with partial_fit.

Two passes over the input, each at memory bounded by a few chunks per core: the first
collects the class labels (partial_fit needs all of them up front) and the
number of features, the second accumulates the model's statistics.  Raw text
is vectorized chunk by chunk by a :class:`nbfast.text.HashingVectorizer`
(counts: ``alternate_sign=False``, ``norm=None``; the default), or by a
:class:`nbfast.text.CountVectorizer` or :class:`nbfast.text.TfidfVectorizer`
whose vocabulary the first pass builds from the documents as they stream by.
The vectorizer (its settings, and its vocabulary and idf) is stored in the
model file, so ``nbfast predict`` vectorizes text the same way.  A model that
does not learn batch by batch (``--model discriminative``) keeps the blocks of
the second pass and is fitted on all of them at its end: its memory grows with
the input.
"""

import sys
import time
import warnings

import numpy as np

from nbfast import _sparse as sp
from nbfast._model_input import model_input, rows_input, takes_sparse
from nbfast.cli._alpha_search import AUTO, alpha_grid, alpha_or_auto, fold_count, report_search, search_params
from nbfast.cli._errors import CommandError, document_frequency, positive_int
from nbfast.cli._input import (
    Progress,
    add_input_arguments,
    blamed_on,
    check_inputs,
    check_output,
    integral_labels,
    labels_of,
    read_blocks,
    svmlight_inputs,
    text_inputs,
)
from nbfast.naive_bayes import ALPHA_SEARCHES, ESTIMATORS
from nbfast.naive_bayes._base import unique_classes
from nbfast.naive_bayes._batches import BatchFit
from nbfast.naive_bayes._cv import DEFAULT_ALPHAS
from nbfast.persist import save
from nbfast.readers import COLUMNAR_FORMATS, input_format, read_once
from nbfast.text import VECTORIZERS as TEXT_VECTORIZERS
from nbfast.text import CountVectorizer, HashingVectorizer
from nbfast.text._counted_parts import CountedParts

#: --model name (the class name without "NB", lowercased) -> estimator class, for every registered estimator
#: that can be made from command-line options (not the composite MixedNB, which is built from parts).
MODEL_KINDS = {name.removesuffix("NB").lower(): cls for name, cls in ESTIMATORS.items() if not cls._composite}
#: --model -> the estimator that chooses its alpha by cross-validation (MultinomialNBCV, ...): what --alpha auto fits.
SEARCHES = {kind: ALPHA_SEARCHES[cls] for kind, cls in MODEL_KINDS.items() if cls in ALPHA_SEARCHES}
TEXT_N_FEATURES = 2**20
#: --max-n-features by default: hashed text (2**20) and real vocabularies pass, a stray index of 10**8 does not
#: (the scoring table of a model is n_classes x n_features; predict reads it whole).
MAX_N_FEATURES = 2**24
#: --model categorical without --max-categories: the largest category value the input may hold (CategoricalNB
#: makes a column for every value up to each feature's largest).
MAX_CATEGORY = 2**16 - 1
#: --vectorizer name -> the vectorizer class that turns text into the model's input.
VECTORIZERS = {name.removesuffix("Vectorizer").lower(): cls for name, cls in TEXT_VECTORIZERS.items()}
#: Rows whose out-of-fold scores fit the temperature of --calibrate-cv, at most.
MAX_CALIBRATION_ROWS = 200_000


def add_arguments(parser):
    add_input_arguments(parser)
    parser.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file to write")
    parser.add_argument("--model", choices=list(MODEL_KINDS), default="multinomial",
                        help="Naive Bayes model (default multinomial)")
    parser.add_argument("--n-features", type=positive_int, metavar="D",
                        help="number of features (default: the largest index seen in the input; "
                             f"{TEXT_N_FEATURES} hashed features for text)")
    parser.add_argument("--max-n-features", type=positive_int, default=MAX_N_FEATURES, metavar="D",
                        help=f"refuse a model wider than D features (columns of the scoring table; default "
                             f"{MAX_N_FEATURES:,}), before allocating it")
    parser.add_argument("--max-categories", type=positive_int, metavar="K",
                        help="--model categorical: clip values at K - 1, every feature K categories "
                             "(CategoricalNB's max_categories); without it, a value above "
                             f"{MAX_CATEGORY:,} in the input is refused")
    parser.add_argument("--alpha", type=alpha_or_auto, metavar="A",
                        help="smoothing (default: the estimator's), or auto: chosen by cross-validation among "
                             "--alphas (--model " + ", ".join(SEARCHES) + "); the model then needs all the rows "
                             "at once (its memory grows with the input)")
    search = parser.add_argument_group("--alpha auto (the model's CV estimator, such as MultinomialNBCV)")
    search.add_argument("--cv", type=fold_count, metavar="K",
                        help="folds of the cross-validation, stratified by class (default 5)")
    search.add_argument("--alphas", type=alpha_grid, metavar="A1,A2,...",
                        help="the alphas to choose from, the first of the best mean accuracies winning (default "
                             + ",".join(f"{alpha:g}" for alpha in DEFAULT_ALPHAS) + ")")
    text = parser.add_argument_group("text input (stored in the model for `nbfast predict`)")
    text.add_argument("--ngram-max", type=int, choices=(1, 2), metavar="{1,2}",
                      help="words (1, the default) or words and word pairs (2) as features")
    text.add_argument("--binary", action="store_true", default=None,
                      help="count each feature once per document (presence, not count)")
    text.add_argument("--vectorizer", choices=list(VECTORIZERS), default=None,
                      help="hashing (the default: 2**20 hashed columns, no vocabulary), count (a vocabulary of the "
                           "training text, term counts) or tfidf (a vocabulary, tf-idf weights l2-normalized); a "
                           "vocabulary is built by the first pass over the input and stored in the model")
    text.add_argument("--stop-words", choices=("english",), default=None,
                      help="drop scikit-learn's English stop words")
    text.add_argument("--min-df", type=document_frequency, metavar="DF",
                      help="count/tfidf: keep terms in at least DF documents (a whole number) or a fraction DF of "
                           "them (a number in [0, 1] with a point, e.g. 0.01); default 1")
    text.add_argument("--max-df", type=document_frequency, metavar="DF",
                      help="count/tfidf: keep terms in at most DF documents or a fraction DF of them; default 1.0")
    text.add_argument("--max-features", type=positive_int, metavar="N",
                      help="count/tfidf: keep the N terms most frequent in the training text")
    parser.add_argument("--calibrate-cv", type=positive_int, metavar="K",
                        help="calibrate the posteriors (a temperature, fitted on out-of-fold scores of K folds of the "
                             "training rows: one more pass over the input); see nbfast.calibrate")
    text.add_argument("--no-lowercase", dest="lowercase", action="store_false", default=None,
                      help="keep the case of the text (default: lowercase it)")


def make_estimator(args):
    cls = MODEL_KINDS[args.model]
    if args.alpha == AUTO and args.model not in SEARCHES:
        raise ValueError(f"--alpha auto applies to --model {', '.join(SEARCHES)} (the models with a CV estimator), "
                         f"not {args.model}")
    params = search_params(args)
    if args.alpha == AUTO:
        cls = SEARCHES[args.model]
    elif args.alpha is not None:
        if "alpha" not in cls().get_params():
            raise ValueError(f"--alpha does not apply to --model {args.model}")
        params["alpha"] = args.alpha
    if args.max_categories is not None:
        if "max_categories" not in cls().get_params():
            raise ValueError(f"--max-categories does not apply to --model {args.model}")
        params["max_categories"] = args.max_categories
    return cls(**params)


def _options(names):
    """Option names as the subject of "apply": '--a applies', '--a, --b apply'."""
    return f"{', '.join(names)} {'applies' if len(names) == 1 else 'apply'}"


def make_vectorizer(args):
    """The vectorizer for text inputs (None without any), refusing text options without text and options that do
    not apply to the chosen vectorizer."""
    text_options = {"--ngram-max": args.ngram_max, "--binary": args.binary, "--no-lowercase": args.lowercase,
                    "--vectorizer": args.vectorizer, "--stop-words": args.stop_words}
    vocabulary_options = {"--min-df": args.min_df, "--max-df": args.max_df, "--max-features": args.max_features}
    if not text_inputs(args):
        given = [name for name, value in {**text_options, **vocabulary_options}.items() if value is not None]
        if given:
            raise ValueError(f"{_options(given)} only to text input (lines, tsv, jsonl, parquet, arrow, csv)")
        return None
    kind = args.vectorizer or "hashing"
    params = dict(ngram_range=(1, args.ngram_max or 1), binary=bool(args.binary), lowercase=args.lowercase is not False,
                  stop_words=args.stop_words)
    if kind == "hashing":
        given = [name for name, value in vocabulary_options.items() if value is not None]
        if given:
            raise ValueError(f"{_options(given)} only to --vectorizer count or tfidf")
        return HashingVectorizer(n_features=args.n_features or TEXT_N_FEATURES, norm=None, alternate_sign=False,
                                 **params)
    if args.n_features is not None:
        raise ValueError(f"--n-features does not apply to --vectorizer {kind} (its vocabulary sets the width): "
                         "use --max-features")
    vocabulary_params = {"min_df": args.min_df, "max_df": args.max_df, "max_features": args.max_features}
    return VECTORIZERS[kind](**params, **{k: v for k, v in vocabulary_params.items() if v is not None})


def _check_document_frequencies(args, n_documents):
    """Say which of --min-df / --max-df leave no room when the vectorizer refused them (CommandError)."""
    def count(df, default):
        df = default if df is None else df
        return df if isinstance(df, int) else df * n_documents

    min_count, max_count = count(args.min_df, 1), count(args.max_df, 1.0)
    if max_count >= min_count:
        return
    if args.max_df is None:
        raise CommandError(f"--min-df {args.min_df}: the input holds only {n_documents} documents, so no term can "
                           f"be in {args.min_df} of them; lower --min-df")
    min_df = "the default --min-df 1" if args.min_df is None else f"--min-df {args.min_df}"
    raise CommandError(f"--max-df {args.max_df} keeps terms in at most {max_count:g} of the {n_documents} "
                       f"documents, fewer than {min_df} asks for")


def _categorical(args):
    """Whether --model makes a column per category (CategoricalNB: its max_categories parameter)."""
    return "max_categories" in MODEL_KINDS[args.model]._get_param_names()


def scan(args, vectorizer):
    """First pass: (sorted class labels, number of features, number of rows) of the whole input; a vocabulary
    vectorizer is fitted on the documents as they stream by (the number of features is its vocabulary's size).
    For CategoricalNB, refuses a value above MAX_CATEGORY unless --max-categories clips the values.

    Warns (one line on stderr) when the labels look like a header or like documents (see :func:`check_labels`).
    """
    progress = Progress("scanning", args.input)
    label_counts, first_rows, max_index = [], [], -1
    largest, categories = None, _categorical(args)  # the largest value and where it is, for CategoricalNB
    # a vocabulary is counted block by block in the threads that read them, and the counts merged in order
    parts = CountedParts(vectorizer) if isinstance(vectorizer, CountVectorizer) else None

    def labels_and_terms(block):
        """The distinct labels of a block with their counts, and its terms' counts: in the block's thread."""
        return np.unique(labels_of(block, "train on"), return_counts=True), parts and parts.count(block.documents)

    for block in read_blocks(args, progress, then=labels_and_terms):
        labels, terms = block.output
        label_counts.append(labels)
        if parts is not None:
            parts.add(terms)
        if not first_rows or first_rows[-1][0] != block.path:
            first_rows.append((block.path, block.row_numbers[0], block.y[0]))
        max_index = max(max_index, block.max_index())
        if categories and block.data.size:
            data = block.data[~np.isnan(block.data)] if block.data.dtype.kind == "f" else block.data
            if data.size and (largest is None or data.max() > largest[0]):
                row = np.searchsorted(block.indptr, np.argmax(block.data == data.max()), side="right") - 1
                largest = (data.max().item(), f"{block.path} {block.unit} {block.row_numbers[row]}")
    if parts is not None and label_counts:
        try:
            vectorizer.fit(parts)
        except ValueError:
            _check_document_frequencies(args, progress.n_rows)
            raise
        max_index = vectorizer._n_terms() - 1  # vocabulary_ is not built as a dict for it
    progress.close()
    if largest is not None and largest[0] > MAX_CATEGORY and args.max_categories is None:
        raise CommandError(f"{largest[1]}: the value {largest[0]:g} would make CategoricalNB a column for every "
                           f"category up to it (more than {MAX_CATEGORY + 1:,}); pass --max-categories K to clip "
                           "values at K - 1")
    if not label_counts:
        raise ValueError(f"no samples in {' '.join(map(str, args.input))}")
    classes = integral_labels(unique_classes(np.concatenate([values for values, _ in label_counts])))
    if text_inputs(args):
        check_labels(args, classes, label_counts, first_rows, progress.n_rows)
    return classes, max_index + 1, progress.n_rows


def check_labels(args, classes, label_counts, first_rows, n_rows):
    """Warn, one line on stderr, when text labels look like documents (about one class per row: are the columns
    swapped?) or when a file's first label occurs nowhere else (a header row?)."""
    if n_rows > 20 and len(classes) > n_rows / 2:
        print(f"nbfast train: warning: {len(classes):,} classes in {n_rows:,} rows: the labels look like documents; "
              "a .tsv line is label<TAB>text (are the columns swapped?), a .jsonl label is in --label-field",
              file=sys.stderr)
        return
    if args.header:
        return
    for path, line, label in first_rows:
        if input_format(path, args.file_format) in COLUMNAR_FORMATS:  # a header names the columns there
            continue
        occurrences = sum(int(counts[values == label].sum()) for values, counts in label_counts)
        if occurrences == 1 and n_rows > 1:
            shown = np.asarray(label).item()
            print(f"nbfast train: warning: {path} line {line}: the label {shown!r} occurs on no other line; if this "
                  "line is a header, pass --header to skip it", file=sys.stderr)


def labelled_blocks(args, progress, vectorizer, estimator, n_features, classes, *, as_rows=False, then=None):
    """(number of the first row, block, X, y) of each block of the input, rows numbered through all of it; X
    the block's buffers as they are when ``as_rows`` and the estimator reads them (:func:`rows_input`).  X and
    y are made in the thread that read the block, and ``then(X, y)``, when given, in place of (X, y)."""
    def rows_and_labels(block):
        X = (rows_input if as_rows else model_input)(block, estimator, n_features)
        y = labels_of(block, "train on").astype(classes.dtype, copy=False)
        if then is None:
            return X, y
        with blamed_on(block):
            return then(X, y)

    start = 0
    for block in read_blocks(args, progress, vectorizer=vectorizer, then=rows_and_labels):
        yield start, block, *block.output
        start += block.n_rows


def calibrated_out_of_fold(args, fold_models, vectorizer, n_features, classes, n_rows):
    """The fold models merged and calibrated on out-of-fold scores: a third pass over the input.

    Each row is scored by the model of the other folds; at most MAX_CALIBRATION_ROWS rows, groups of K
    consecutive rows spread evenly through the input, fit the temperature.
    """
    from nbfast.calibration import calibrate_from_scores  # loaded only when asked for: it costs start-up time
    from nbfast.naive_bayes._calibrated import other_folds_model
    n_folds = len(fold_models)
    full = type(fold_models[0])._merge(fold_models)
    others = [other_folds_model(full, fold_models, k) for k in range(n_folds)]
    stride = -(-n_rows // MAX_CALIBRATION_ROWS)
    scores, labels = [], []
    progress = Progress("calibrating", args.input)
    for start, _, X, y in labelled_blocks(args, progress, vectorizer, full, n_features, classes):
        index = np.arange(start, start + len(y))
        kept = (index // n_folds) % stride == 0
        for fold, model in enumerate(others):
            rows = kept & (index % n_folds == fold)
            if rows.any():
                scores.append(model.predict_joint_log_proba(X[rows]))
                labels.append(y[rows])
    progress.close()
    return calibrate_from_scores(full, np.concatenate(scores), np.concatenate(labels), cv=n_folds)


def check_width(args, n_features, source):
    """Refuse (CommandError) a model wider than --max-n-features, counting CategoricalNB's category columns
    (n_features x (K + 1) with --max-categories K), before anything of that width is allocated."""
    width, what, remedy = n_features, f"{n_features:,} features ({source})", ""
    if args.max_categories is not None and _categorical(args):
        width = n_features * (args.max_categories + 1)
        what = f"{n_features:,} features ({source}) x {args.max_categories + 1:,} category columns (--max-categories)"
        remedy = " (or lower --max-categories)"
    if width > args.max_n_features:
        raise CommandError(f"a model of {what} is wider than --max-n-features {args.max_n_features:,}: raise "
                           f"--max-n-features to train it{remedy}")


def check_rereadable(args):
    """Refuse inputs that cannot be read twice (a pipe, a terminal, standard input): training reads its input
    once for the labels and once to fit (CommandError)."""
    for path in args.input:
        if read_once(path):  # folders were refused before
            raise CommandError(f"{path} is not a regular file (a pipe or a device?): `nbfast train` reads its input "
                               "more than once (the labels first, then the fit); save it to a file first")


def run(args):
    started = time.perf_counter()  # the summary reports the whole run, every pass over the input included
    check_output(args.output, args.input, ("", ".nbf"), "a model file is written as .nbf (or without an extension)")
    check_inputs(args)
    check_rereadable(args)
    estimator = make_estimator(args)
    vectorizer = make_vectorizer(args)
    if vectorizer is not None and not takes_sparse(estimator):
        raise ValueError(f"--model {args.model} needs dense input, too large for text features")
    check_width(args, args.n_features or 0, "--n-features")  # before reading anything
    classes, n_seen, n_rows = scan(args, vectorizer)
    if isinstance(vectorizer, HashingVectorizer):
        n_features = vectorizer.n_features
    else:  # a vocabulary's size, or the input's width
        n_features = n_seen if vectorizer is not None else args.n_features or max(n_seen, 1)
    check_width(args, n_features, "--n-features" if args.n_features else "the vocabulary" if vectorizer is not
                None else "the largest feature index of the input")
    n_folds = args.calibrate_cv or 1
    if n_folds > n_rows:
        raise CommandError(f"--calibrate-cv {n_folds}: the input has only {n_rows} rows")
    # One model, or with --calibrate-cv one per fold (rows numbered through the whole input, modulo K), merged.
    if n_folds > 1 and not estimator._incremental:
        raise ValueError(f"--calibrate-cv does not apply to --model {args.model}")
    models = [estimator] if n_folds == 1 else [make_estimator(args) for _ in range(n_folds)]
    whole = None if estimator._incremental else ([], [])  # a model fitted on all rows at once keeps the blocks
    progress = Progress("training", args.input, start=started)
    # one model learning a block at a time takes the blocks' buffers (no scipy matrix); folds select rows of
    # a matrix, and a model fitted at once stacks them
    as_rows = n_folds == 1 and whole is None
    # statistics that add up are summed block by block, and the parameters derived once, at the end
    fitting = BatchFit(estimator, classes) if as_rows and BatchFit.fits(estimator) else None
    # with BatchFit, a block's rows and labels are checked in its thread too (X, y: checked, label indices)
    for start, block, X, y in labelled_blocks(args, progress, vectorizer, estimator, n_features, classes,
                                              as_rows=as_rows, then=fitting and fitting.checked):
        with blamed_on(block):
            if whole is not None:
                whole[0].append(X)
                whole[1].append(y)
                continue
            try:
                with warnings.catch_warnings():  # the labels were judged on the whole input by scan
                    warnings.filterwarnings("ignore", "The number of unique classes", UserWarning)
                    if fitting is not None:
                        fitting.add_checked(X, y)
                        continue
                    for fold, model in enumerate(models):
                        in_fold = None if n_folds == 1 else np.arange(start, start + len(y)) % n_folds == fold
                        if in_fold is None or in_fold.any():  # a block of fewer than K rows leaves some folds without
                            X_fold, y_fold = (X, y) if in_fold is None else (X[in_fold], y[in_fold])
                            model.partial_fit(X_fold, y_fold, classes=classes)
            except MemoryError:
                raise ValueError(f"not enough memory for a model of {len(classes)} classes x {n_features:,} "
                                 "features (the largest feature index of the input, or --n-features, sets the "
                                 "width)") from None
    if fitting is not None:
        fitting.finish()
    progress.close()
    if whole is not None:
        estimator.fit(sp.vstack(whole[0], format="csr"), np.concatenate(whole[1]))
    if n_folds > 1:
        estimator = calibrated_out_of_fold(args, models, vectorizer, n_features, classes, n_rows)
    training_input = {"kind": "text" if vectorizer is not None else "vectors",
                      "zero_based": bool(args.zero_based) if svmlight_inputs(args) else None}
    save(estimator, args.output, vectorizer=vectorizer, training_input=training_input)
    if args.alpha == AUTO:
        report_search(estimator)
    progress.close(f"trained {type(estimator).__name__} ({len(classes)} classes, {n_features} features) "
                   f"-> {args.output}")
    return 0
