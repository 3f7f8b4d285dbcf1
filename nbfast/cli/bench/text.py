"""``nbfast bench --text``: raw text to CSR and raw text to labels, nbfast against scikit-learn in one process.

On one :func:`nbfast.datasets.make_text_documents` corpus, each library's call is
timed by :func:`nbfast.cli.bench.time_libraries` (one warm-up run under tracemalloc,
then the median of ``--repeats`` runs):

* ``HashingVectorizer(n_features=...).transform(documents)``, unigrams and
  (1, 2) n-grams, ``nbfast.text`` against ``sklearn.feature_extraction.text``:
  the two matrices must be identical;
* raw text to labels: ``make_pipeline(HashingVectorizer(n_features=...,
  alternate_sign=False), MultinomialNB())`` ``.predict(documents)`` and
  ``.predict_proba(documents)``, both pipelines fitted beforehand on the same
  documents and labels: the fraction of equal labels and the largest
  difference of probabilities.
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
from nbfast.naive_bayes import MultinomialNB
from nbfast.text import HashingVectorizer

NGRAM_RANGES = ((1, 1), (1, 2))
PIPELINE_OPERATIONS = ("predict", "predict_proba")
DEFAULTS = {"n_samples": 200_000, "n_features": 2**20}
# Options of the estimator benchmark, refused with --text: (attribute, flag).
ESTIMATOR_OPTIONS = (("estimator", "--estimator"), ("dtype", "--dtype"), ("batch_size", "--batch-size"),
                     ("plot", "--plot"))


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
            "machine": machine_info(None, n_threads),
            "corpus": {"n_samples": len(documents), "characters": sum(map(len, documents)),
                       "n_features": args.n_features, "n_classes": args.n_classes, "seed": args.seed},
            "repeats": args.repeats, "results": [],
        }  # fmt: skip
        for ngram_range in NGRAM_RANGES:
            print(f"timing HashingVectorizer.transform, ngram_range={ngram_range} ...", file=log, flush=True)
            report["results"].extend(bench_transform(documents, ngram_range, implementations, args))
        print("fitting both pipelines, then timing raw text to labels ...", file=log, flush=True)
        report["results"].extend(bench_pipeline(documents, y, implementations, args))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    return 0


def _check_args(args):
    given = [flag for name, flag in ESTIMATOR_OPTIONS if getattr(args, name) is not None]
    if given:
        raise ValueError(f"{', '.join(given)}: not an option of --text (which times HashingVectorizer and "
                         "HashingVectorizer + MultinomialNB pipelines)")
    check_common_args(args, DEFAULTS)


def _sklearn_classes():
    """scikit-learn's (HashingVectorizer, MultinomialNB), or a CommandError saying how to install them."""
    text = _compat.require("sklearn.feature_extraction.text", "bench", "--text (which compares with scikit-learn)")
    return text.HashingVectorizer, _compat.require("sklearn.naive_bayes", "bench", "--text").MultinomialNB


def _nbfast_classes():
    return HashingVectorizer, MultinomialNB


def bench_transform(documents, ngram_range, implementations, args):
    """Rows of both libraries' ``HashingVectorizer.transform``; nbfast's says whether the matrices are identical."""
    calls = {
        library: functools.partial(vectorizer(n_features=args.n_features, ngram_range=ngram_range).transform,
                                   documents)
        for library, (vectorizer, _) in implementations.items()
    }
    rows, outputs = time_libraries(calls, args.repeats, len(documents), operation="transform",
                                   ngram_range=list(ngram_range))
    rows[0]["identical"] = identical(*outputs.values())
    return rows


def bench_pipeline(documents, y, implementations, args):
    """Rows of both fitted pipelines' predict and predict_proba, raw text in, with their agreement."""
    make_pipeline = _compat.require("sklearn.pipeline", "bench", "--text").make_pipeline
    pipelines = {
        library: make_pipeline(vectorizer(n_features=args.n_features, alternate_sign=False), nb()).fit(documents, y)
        for library, (vectorizer, nb) in implementations.items()
    }
    rows = []
    for operation in PIPELINE_OPERATIONS:
        calls = {library: functools.partial(getattr(p, operation), documents) for library, p in pipelines.items()}
        pair, outputs = time_libraries(calls, args.repeats, len(documents), operation=operation, ngram_range=[1, 1])
        pair[0]["agreement"] = agreement_of(operation, *outputs.values())
        rows.extend(pair)
    return rows


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
        f"average) x {corpus['n_features']:,} hashed features, {corpus['n_classes']} classes; {machine['threads']} "
        f"thread(s) of {machine['nproc']} cores ({machine['cpu']}); median of {report['repeats']} runs\n"
    )
    print_rows(report["results"], [column("operation", "<15"), column("ngram_range", "<13", _ngrams), LIBRARY, SECONDS,
                                   DOCS_PER_S, PEAK_MIB, SPEEDUP])
    print(
        f"\ntransform: HashingVectorizer(n_features={corpus['n_features']}, ngram_range).transform(documents); "
        f"predict, predict_proba: raw text to labels by make_pipeline(HashingVectorizer(n_features="
        f"{corpus['n_features']}, alternate_sign=False), MultinomialNB()), fitted on the same documents. speed-up: "
        "scikit-learn's median time over nbfast's; peak MiB: numpy allocations during one call (tracemalloc)."
    )
    print("\nagreement with scikit-learn:")
    for r in report["results"]:
        if "identical" in r:
            print(f"  transform {_ngrams(r)}: {'identical matrices' if r['identical'] else 'the matrices DIFFER'}")
        elif "agreement" in r:
            print(f"  {r['operation']}: {agreement_text(r['operation'], r['agreement'])}")


def _ngrams(row):
    return "({}, {})".format(*row["ngram_range"])
