"""``nbfast explain MODEL [INPUT...]``: why a model decides as it does.

Without INPUT, for every class the features that most raise its log-odds
against the other classes (:func:`nbfast.top_features`).  With INPUT, for each
row (or only row ``--row I``) the predicted class, the runner-up and the
features whose terms decide between them (:func:`nbfast.explain`), streamed
chunk by chunk; the input is read as the model's training input was.
"""

import json
import re
import sys

import numpy as np

from nbfast._model_input import model_input
from nbfast.cli._errors import CommandError, positive_int
from nbfast.cli._input import (
    Progress,
    add_input_arguments,
    blamed_on,
    integral_labels,
    load_model,
    read_blocks,
)
from nbfast.explanation import explain, top_features
from nbfast.persist import load, load_vectorizer
from nbfast.persist._info import shorten


def add_arguments(parser):
    parser.add_argument("model", metavar="MODEL", help="model file written by `nbfast train` or nbfast.save")
    add_input_arguments(parser, required=False)
    parser.add_argument("--top", type=positive_int, default=10, metavar="N",
                        help="features listed per row, or per class without INPUT (default 10)")
    parser.add_argument("--row", type=positive_int, metavar="I",
                        help="explain only the I-th row of the input (counting from 1 across the inputs)")
    parser.add_argument("--json", action="store_true",
                        help="JSON on stdout: one object for the top features, one line per explained row")


def unnamed_note(vectorizer):
    """The line saying why features are shown by their column index."""
    if vectorizer is not None:
        return "(the model's text features are hashed: they have no names, their column indices are shown)"
    return "(the model's features have no names: their column indices are shown)"


def vocabulary_terms(vectorizer):
    """The feature names of a vocabulary vectorizer (its terms by column); None for none or a hashing one."""
    return vectorizer.get_feature_names_out() if hasattr(vectorizer, "vocabulary_") else None


def shown_feature_names(model, vectorizer):
    """The feature names (a vocabulary's terms, else the model's ``feature_names_in_``) as a terminal shows
    them, through :func:`~nbfast.persist._info.shorten`: they are strings a model file stores, which a crafted
    one can fill with terminal escape sequences.  None when the features have no names."""
    names = vocabulary_terms(vectorizer)
    if names is None:
        names = vars(model).get("feature_names_in_")
    return None if names is None else [shorten(str(name)) for name in names]


def print_top_features(model, vectorizer, n, as_json):
    """The top features of every class, as text (names escaped) or one JSON object on stdout."""
    if as_json:  # JSON escapes every control character itself
        json.dump(top_features(model, n=n, feature_names=vocabulary_terms(vectorizer)).to_dict(), sys.stdout)
        sys.stdout.write("\n")
        return
    top = top_features(model, n=n, feature_names=shown_feature_names(model, vectorizer))
    print(f"features that most raise each class's log-odds against the other classes (top {n}):")
    if not top.named:
        print(unnamed_note(vectorizer))
    print(top.text())


def hashed_terms(vectorizer, document):
    """{column: term} of the words (and n-grams) of one document under a hashing vectorizer.

    Each term is hashed on its own, so a row's hashed columns get back the
    words of its text (terms that collide in a column are joined by "|").
    Empty for an analyzer other than the word analyzer without preprocessor,
    tokenizer, stop words or accent stripping.
    """
    params = vectorizer.get_params()
    if (params["analyzer"] != "word" or params["input"] != "content"
            or any(params[k] is not None for k in ("preprocessor", "tokenizer", "stop_words", "strip_accents"))):
        return {}
    tokens = re.findall(params["token_pattern"], document.lower() if params["lowercase"] else document)
    min_n, max_n = params["ngram_range"]
    terms = {}
    for n in range(min_n, max_n + 1):
        grams = sorted({" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1)})
        if not grams:
            continue
        hashed = type(vectorizer)(**{**params, "ngram_range": (n, n)}).transform(grams)
        for gram, (start, end) in zip(grams, zip(hashed.indptr[:-1], hashed.indptr[1:])):
            for column in hashed.indices[start:end].tolist():
                terms[column] = f"{terms[column]}|{gram}" if column in terms else gram
    return terms


def name_hashed_features(explanation, vectorizer, documents, display=str):
    """Name the listed features of each explained row by the terms of its document, each as ``display`` gives
    it; whether any was named."""
    named = False
    for k, document in enumerate(documents):
        terms = hashed_terms(vectorizer, document)
        for position, column in enumerate(explanation.features[k].tolist()):
            if column in terms:
                explanation.names[k, position] = display(terms[column])
                named = True
    return named


def _row_label(block, i):
    label = f"{block.path} {block.unit} {block.row_numbers[i]}"
    if block.y is not None:
        y = integral_labels(block.y[i:i + 1])[0]
        label += f" (true label {y.item() if isinstance(y, np.generic) else y!r})"
    return label


def explain_rows(args, model, vectorizer):
    """Explain every row (or row --row) of the input, one chunk at a time."""
    progress = Progress("explaining", args.input)
    # names as they are in JSON (which escapes control characters), escaped for a terminal in text
    display = str if args.json else shorten
    seen, noted = 0, False
    terms = vocabulary_terms(vectorizer) if args.json else shown_feature_names(model, vectorizer)
    try:
        for block in read_blocks(args, progress, vectorizer=vectorizer, labels=False):
            rows = range(block.n_rows)
            if args.row is not None:
                if args.row > seen + block.n_rows:
                    seen += block.n_rows
                    continue
                rows = range(args.row - seen - 1, args.row - seen)
            X = model_input(block, model, model.n_features_in_)
            with blamed_on(block):
                explanation = explain(model, X[rows.start:rows.stop], n=args.top, feature_names=terms)
            named = explanation.named
            if terms is None and vectorizer is not None and block.documents is not None:
                named = name_hashed_features(explanation, vectorizer, block.documents[rows.start:rows.stop], display)
            if not named and not noted and not args.json:
                print(unnamed_note(vectorizer))
                noted = True
            for k, i in enumerate(rows):
                if args.json:
                    record = {"path": str(block.path), block.unit: int(block.row_numbers[i]), **explanation.row(k)}
                    sys.stdout.write(json.dumps(record) + "\n")
                else:
                    print(explanation.text(k, label=_row_label(block, i)))
            seen += block.n_rows
            if args.row is not None:
                break
    finally:
        progress.close()
    if args.row is not None and seen < args.row:
        raise CommandError(f"--row {args.row}: the input has {seen} row(s)")


def run(args):
    if not args.input:
        if args.row is not None:
            raise CommandError("--row needs INPUT: the rows to explain")
        print_top_features(load(args.model), load_vectorizer(args.model), args.top, args.json)
        return 0
    model, vectorizer = load_model(args)
    explain_rows(args, model, vectorizer)
    return 0
