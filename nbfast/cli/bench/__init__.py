"""``nbfast bench``: nbfast against scikit-learn, side by side in one process on the same data.

:mod:`nbfast.cli.bench.estimators` times the estimators on generated count data (the default);
:mod:`nbfast.cli.bench.text` (``--text``) times raw text to CSR and to labels.
"""

from nbfast.cli._errors import positive_int
from nbfast.cli.bench import estimators, processes, text
from nbfast.cli.bench._harness import busy_core


def add_arguments(parser):
    parser.add_argument(
        "--text", action="store_true",
        help="time raw text instead: HashingVectorizer.transform, and raw text to labels with a "
        "HashingVectorizer + MultinomialNB pipeline",
    )
    parser.add_argument(
        "--cli", action="store_true",
        help="time whole processes instead: `nbfast train` and `nbfast predict` on short raw documents against a "
        "scikit-learn + pandas script (benchmarks/sklearn_text_cli.py), peak memory, identical labels",
    )
    parser.add_argument(
        "--documents", metavar="FILE.tsv",
        help="with --cli: real text instead of generated documents, label<TAB>text lines; FILE is the training "
        "input, and its documents repeated up to --n-samples the documents to label",
    )
    parser.add_argument(
        "--n-samples", type=positive_int, help="documents (default 1000000; 50000 with --corpus hashed, 200000 with "
        "--text, 940000 to label with --cli)",
    )
    parser.add_argument(
        "--n-features", type=positive_int, help="vocabulary size, or hashed features with --text (default 262144; "
        "1048576 with --corpus hashed or --text)",
    )
    parser.add_argument(
        "--corpus", choices=list(estimators.CORPORA), help="documents to time the estimators on: default (1M x 2^18, "
        "20 classes), hashed (50,000 short documents x 2^20 features, 50 classes) or frequency (the default corpus, "
        "its vocabulary numbered by frequency); --n-samples, --n-features and --n-classes change its size",
    )
    parser.add_argument("--n-classes", type=positive_int, help="number of classes (default 20; 50 with --corpus hashed, 40 with --cli)")
    parser.add_argument(
        "--dtype", nargs="+", choices=["float64", "float32"], help="dtype(s) of X, for both libraries (default float64)"
    )
    parser.add_argument("--estimator", nargs="+", help="estimator name(s), or 'all' (default MultinomialNB)")
    parser.add_argument(
        "--threads", type=positive_int, nargs="+", default=None, metavar="N",
        help="threads for both libraries (nbfast's OpenMP and the BLAS); default: all cores. With --cli, one or "
        "more counts: nbfast's processes run with each (-j N) and a scaling table gives each count's time, "
        "speed-up over the first count and serial share",
    )
    parser.add_argument("--repeats", type=positive_int, default=3, help="timed runs per operation, median reported (default 3)")
    parser.add_argument(
        "--batch-size", type=positive_int, help="rows per partial_fit call (default: a tenth of the corpus)"
    )
    parser.add_argument(
        "--busy", action="store_true",
        help="run a CPU-bound process beside the measurement, as another job on a shared machine",
    )
    parser.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    parser.add_argument(
        "--plot", metavar="FILE.png",
        help="also time fit and predict_proba on growing slices of the corpus and plot throughput (needs matplotlib)",
    )


def run(args):
    if args.documents and not args.cli:
        raise ValueError("--documents applies only with --cli")
    if not args.cli and args.threads is not None:
        if len(args.threads) > 1:
            raise ValueError("--threads takes several counts only with --cli")
        args.threads = args.threads[0]
    with busy_core(args.busy):
        return (processes if args.cli else text if args.text else estimators).run(args)
