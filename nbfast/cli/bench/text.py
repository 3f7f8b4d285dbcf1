"""``nbfast bench --text``: raw text to CSR and raw text to labels, nbfast against scikit-learn in one process.

On one :func:`nbfast.datasets.make_text_documents` corpus, each library's call is
timed by :func:`nbfast.cli.bench.time_libraries` (one warm-up run under tracemalloc,
then the median of ``--repeats`` runs), ``nbfast.text`` and ``nbfast``'s
estimators against ``sklearn.feature_extraction.text`` and ``sklearn.naive_bayes``:

* ``HashingVectorizer(n_features=...).transform(documents)``, unigrams and
  (1, 2) n-grams: the two matrices must be identical;
* ``CountVectorizer(ngram_range=...)`` and ``TfidfVectorizer(ngram_range=...)``,
  ``.fit_transform(documents)`` then ``.transform(documents)`` on the fitted
  vectorizer, unigrams and (1, 2) n-grams: the same vocabulary and identical
  matrices (tf-idf: the same entries, values within a relative difference);
* raw text to labels: ``make_pipeline(HashingVectorizer(n_features=...,
  alternate_sign=False), MultinomialNB())`` ``.predict(documents)`` and
  ``.predict_proba(documents)``, both pipelines fitted beforehand on the same
  documents and labels: the fraction of equal labels and the largest
  difference of probabilities;
* raw text to labels, train + predict: ``make_pipeline(TfidfVectorizer(),
  MultinomialNB())`` and the same with ``ComplementNB()``, ``.fit(documents,
  y).predict(documents)``: the fraction of equal labels.
"""

import functools
import json
import sys

import numpy as np

from nbfast import _compat
from nbfast._kernels.threads import effective_n_threads
from nbfast.cli.bench._harness import (
    DOCS_PER_S,
    LIBRARY,
    PEAK_MIB,
    SECONDS,
    SPEEDUP,
    agreement_of,
    agreement_text,
    check_common_args,
    column,
    machine_info,
    print_rows,
    thread_limit,
    time_libraries,
)
from nbfast.datasets import make_text_documents
from nbfast.naive_bayes import ESTIMATORS as NBFAST_ESTIMATORS
from nbfast.text import VECTORIZERS as NBFAST_VECTORIZERS

NGRAM_RANGES = ((1, 1), (1, 2))
VECTORIZERS = tuple(NBFAST_VECTORIZERS)
#: The estimators timed on text.
ESTIMATORS = ("MultinomialNB", "ComplementNB")
#: The vocabulary vectorizers timed fitting (fit_transform) and transforming.
VOCABULARY_VECTORIZERS = tuple(name for name in VECTORIZERS if name != "HashingVectorizer")
#: (vectorizer, estimator) of the pipelines timed from raw text to labels, train + predict.
TRAIN_PREDICT_PIPELINES = (("TfidfVectorizer", "MultinomialNB"), ("TfidfVectorizer", "ComplementNB"))
PIPELINE_OPERATIONS = ("predict", "predict_proba")
DEFAULTS = {"n_samples": 200_000, "n_features": 2**20, "n_classes": 20}
# Options of the estimator benchmark, refused with --text: (attribute, flag).
ESTIMATOR_OPTIONS = (("estimator", "--estimator"), ("dtype", "--dtype"), ("batch_size", "--batch-size"),
                     ("plot", "--plot"), ("corpus", "--corpus"))


def run(args):
    """Time the text benchmark and print its table (or JSON with ``--json``); return the exit status."""
    _check_args(args)
    implementations = {"nbfast": _nbfast_classes(), "scikit-learn": _sklearn_classes()}
    log = sys.stderr if args.json else sys.stdout
    with thread_limit(args.threads):
        n_threads = effective_n_threads()
        print(f"Generating {args.n_samples:,} documents, {args.n_classes} classes ...", file=log, flush=True)
        documents, y = make_text_documents(args.n_samples, args.n_classes, random_state=args.seed)
        report = {
            "machine": {**machine_info(None, n_threads), "busy": args.busy},
            "corpus": {"n_samples": len(documents), "characters": sum(map(len, documents)),
                       "n_features": args.n_features, "n_classes": args.n_classes, "seed": args.seed},
            "repeats": args.repeats, "results": [],
        }  # fmt: skip
        for ngram_range in NGRAM_RANGES:
            print(f"timing HashingVectorizer.transform, ngram_range={ngram_range} ...", file=log, flush=True)
            report["results"].extend(bench_transform(documents, ngram_range, implementations, args))
        for name in VOCABULARY_VECTORIZERS:
            for ngram_range in NGRAM_RANGES:
                print(f"timing {name}.fit_transform and .transform, ngram_range={ngram_range} ...", file=log,
                      flush=True)
                report["results"].extend(bench_vocabulary(documents, name, ngram_range, implementations, args))
        print("fitting both hashing pipelines, then timing raw text to labels ...", file=log, flush=True)
        report["results"].extend(bench_pipeline(documents, y, implementations, args))
        for vectorizer, estimator in TRAIN_PREDICT_PIPELINES:
            print(f"timing make_pipeline({vectorizer}(), {estimator}()), train + predict ...", file=log, flush=True)
            report["results"].extend(bench_train_predict(documents, y, vectorizer, estimator, implementations, args))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    return 0


def _check_args(args):
    given = [flag for name, flag in ESTIMATOR_OPTIONS if getattr(args, name) is not None]
    if given:
        raise ValueError(f"{', '.join(given)}: not an option of --text (which times text vectorizers and "
                         "text-to-label pipelines)")
    check_common_args(args, DEFAULTS)


def _sklearn_classes():
    """scikit-learn's vectorizers and estimators by name, or a CommandError saying how to install them."""
    purpose = "--text (which compares with scikit-learn)"
    return {**{name: _compat.sklearn_class("feature_extraction.text", name, purpose, "bench") for name in VECTORIZERS},
            **{name: _compat.sklearn_class("naive_bayes", name, purpose, "bench") for name in ESTIMATORS}}


def _nbfast_classes():
    return {**{name: NBFAST_VECTORIZERS[name] for name in VECTORIZERS},
            **{name: NBFAST_ESTIMATORS[name] for name in ESTIMATORS}}


def bench_transform(documents, ngram_range, implementations, args):
    """Rows of both libraries' ``HashingVectorizer.transform``; nbfast's says whether the matrices are identical."""
    calls = {
        library: functools.partial(classes["HashingVectorizer"](n_features=args.n_features,
                                                                ngram_range=ngram_range).transform, documents)
        for library, classes in implementations.items()
    }
    rows, outputs = time_libraries(calls, args.repeats, len(documents), subject="HashingVectorizer",
                                   operation="transform", ngram_range=list(ngram_range))
    rows[0]["identical"] = identical(*outputs.values())
    return rows


def bench_vocabulary(documents, name, ngram_range, implementations, args):
    """Rows of both libraries' ``fit_transform`` then ``transform`` of the vectorizer ``name``; nbfast's say whether
    the vocabularies are the same and how the matrices compare (:func:`compare`)."""
    vectorizers = {library: classes[name](ngram_range=ngram_range) for library, classes in implementations.items()}
    rows = []
    for operation in ("fit_transform", "transform"):
        calls = {library: functools.partial(getattr(v, operation), documents) for library, v in vectorizers.items()}
        pair, outputs = time_libraries(calls, args.repeats, len(documents), subject=name, operation=operation,
                                       ngram_range=list(ngram_range))
        pair[0].update(compare(*outputs.values()))
        pair[0]["same_vocabulary"] = vectorizers["nbfast"].vocabulary_ == vectorizers["scikit-learn"].vocabulary_
        rows.extend(pair)
    return rows


def bench_pipeline(documents, y, implementations, args):
    """Rows of both fitted hashing pipelines' predict and predict_proba, raw text in, with their agreement."""
    make_pipeline = _compat.sklearn_module("pipeline", "--text", extra="bench").make_pipeline
    pipelines = {
        library: make_pipeline(classes["HashingVectorizer"](n_features=args.n_features, alternate_sign=False),
                               classes["MultinomialNB"]()).fit(documents, y)
        for library, classes in implementations.items()
    }
    rows = []
    for operation in PIPELINE_OPERATIONS:
        calls = {library: functools.partial(getattr(p, operation), documents) for library, p in pipelines.items()}
        pair, outputs = time_libraries(calls, args.repeats, len(documents), subject="HashingVectorizer + MultinomialNB",
                                       operation=operation, ngram_range=[1, 1])
        pair[0]["agreement"] = agreement_of(operation, *outputs.values())
        rows.extend(pair)
    return rows


def bench_train_predict(documents, y, vectorizer, estimator, implementations, args):
    """Rows of both libraries' ``make_pipeline(vectorizer(), estimator()).fit(documents, y).predict(documents)``,
    raw text to labels, with the fraction of equal labels."""
    make_pipeline = _compat.sklearn_module("pipeline", "--text", extra="bench").make_pipeline

    def train_predict(classes):
        return make_pipeline(classes[vectorizer](), classes[estimator]()).fit(documents, y).predict(documents)

    calls = {library: functools.partial(train_predict, classes) for library, classes in implementations.items()}
    rows, outputs = time_libraries(calls, args.repeats, len(documents), subject=f"{vectorizer} + {estimator}",
                                   operation="fit+predict", ngram_range=[1, 1])
    rows[0]["agreement"] = agreement_of("predict", *outputs.values())
    return rows


def compare(A, B):
    """``identical`` (see :func:`identical`) and, for float matrices with the same entries, the largest relative
    difference of their values (``max_relative_difference``; inf when the entries differ)."""
    result = {"identical": identical(A, B)}
    if A.dtype.kind == "f":
        same_entries = A.shape == B.shape and all(np.array_equal(a, b) for a, b in ((A.indptr, B.indptr),
                                                                                   (A.indices, B.indices)))
        scale = np.maximum(np.abs(A.data), np.abs(B.data)) if same_entries else None
        result["max_relative_difference"] = (
            float(np.max(np.abs(A.data - B.data) / np.where(scale > 0, scale, 1), initial=0.0))
            if same_entries else float("inf"))
    return result


def identical(A, B):
    """Whether two CSR matrices have the same shape, dtypes, indptr, indices and values."""
    return bool(
        A.shape == B.shape
        and all(a.dtype == b.dtype and np.array_equal(a, b)
                for a, b in ((A.indptr, B.indptr), (A.indices, B.indices), (A.data, B.data)))
    )


def print_table(report):
    """Print the results of the text benchmark as a plain-text table."""
    machine, corpus = report["machine"], report["corpus"]
    print(
        f"\n{corpus['n_samples']:,} documents ({corpus['characters'] / corpus['n_samples']:.0f} characters on "
        f"average), {corpus['n_features']:,} hashed features, {corpus['n_classes']} classes; {machine['threads']} "
        f"thread(s) of {machine['nproc']} cores ({machine['cpu']}); median of {report['repeats']} runs\n"
    )
    print_rows(report["results"], [column("subject", "<35"), column("operation", "<15"),
                                   column("ngram_range", "<13", _ngrams), LIBRARY, SECONDS, DOCS_PER_S, PEAK_MIB,
                                   SPEEDUP])
    print(
        f"\nHashingVectorizer: HashingVectorizer(n_features={corpus['n_features']}, ngram_range).transform(documents); "
        "CountVectorizer, TfidfVectorizer: Vectorizer(ngram_range).fit_transform(documents), then .transform("
        "documents) on the fitted vectorizer; predict, predict_proba: raw text to labels by make_pipeline("
        f"HashingVectorizer(n_features={corpus['n_features']}, alternate_sign=False), MultinomialNB()), fitted on the "
        "same documents; fit+predict: make_pipeline(TfidfVectorizer(), estimator()).fit(documents, y).predict("
        "documents). speed-up: scikit-learn's median time over nbfast's; peak MiB: numpy allocations during one call "
        "(tracemalloc)."
    )
    print("\nagreement with scikit-learn:")
    for r in report["results"]:
        what = f"  {r['subject']} {r['operation']} {_ngrams(r)}: "
        if "identical" in r:
            print(what + _matrices_text(r))
        elif "agreement" in r:
            print(what + agreement_text(r["operation"], r["agreement"]))


def _matrices_text(row):
    vocabulary = {True: "same vocabulary, ", False: "the vocabularies DIFFER, ", None: ""}[row.get("same_vocabulary")]
    if row["identical"]:
        return vocabulary + "identical matrices"
    difference = row.get("max_relative_difference", float("inf"))
    if difference < float("inf"):
        return vocabulary + f"same entries, values within {difference:.1e} relative"
    return vocabulary + "the matrices DIFFER"


def _ngrams(row):
    return "({}, {})".format(*row["ngram_range"])
