"""``nbfast demo``: train and batch-score a synthetic corpus, and compare with scikit-learn."""

import time

import numpy as np

from nbfast._compat import HAVE_SKLEARN
from nbfast._kernels.threads import effective_n_threads
from nbfast.datasets import make_documents
from nbfast.naive_bayes._discrete import MultinomialNB


def add_arguments(parser):
    parser.add_argument("--n-samples", type=int, default=200_000, help="documents in the corpus (default 200000)")
    parser.add_argument("--n-features", type=int, default=2**16, help="vocabulary size (default 65536)")
    parser.add_argument("--n-classes", type=int, default=20, help="number of classes (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")


def _measure(model, X_train, y_train, X_test, y_test):
    start = time.perf_counter()
    model.fit(X_train, y_train)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    model.predict_proba(X_test)
    proba_seconds = time.perf_counter() - start
    start = time.perf_counter()
    labels = model.predict(X_test)
    predict_seconds = time.perf_counter() - start
    return {
        "accuracy": float(np.mean(labels == y_test)),
        "fit": fit_seconds,
        "predict_proba": proba_seconds,
        "predict": predict_seconds,
    }


def run(args):
    if min(args.n_samples, args.n_features, args.n_classes) < 2:
        raise ValueError("--n-samples, --n-features and --n-classes must be at least 2")
    print(f"Generating {args.n_samples:,} documents x {args.n_features:,} words, {args.n_classes} classes ...")
    X, y = make_documents(args.n_samples, args.n_features, args.n_classes, random_state=args.seed)
    half = args.n_samples // 2
    X_train, y_train, X_test, y_test = X[:half], y[:half], X[half:], y[half:]
    n_test = X_test.shape[0]
    print(f"train {half:,} docs, score {n_test:,} docs ({X_test.nnz:,} nonzeros), {effective_n_threads()} thread(s)\n")

    results = {"nbfast": _measure(MultinomialNB(), X_train, y_train, X_test, y_test)}
    if HAVE_SKLEARN:
        from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

        results["scikit-learn"] = _measure(SkMultinomialNB(), X_train, y_train, X_test, y_test)

    print(f"{'MultinomialNB':<14}{'accuracy':>10}{'fit s':>9}{'proba docs/s':>15}{'predict docs/s':>16}")
    for name, r in results.items():
        print(
            f"{name:<14}{r['accuracy']:>10.4f}{r['fit']:>9.3f}"
            f"{n_test / r['predict_proba']:>15,.0f}{n_test / r['predict']:>16,.0f}"
        )
    if "scikit-learn" in results:
        sk, nb = results["scikit-learn"], results["nbfast"]
        print(
            f"\nspeed-up over scikit-learn: fit {sk['fit'] / nb['fit']:.1f}x, "
            f"predict_proba {sk['predict_proba'] / nb['predict_proba']:.1f}x, "
            f"predict {sk['predict'] / nb['predict']:.1f}x (one run each; see `nbfast bench` for medians)"
        )
    else:
        print("\n(install scikit-learn to see its figures beside these: pip install 'nbfast[sklearn]')")
    return 0
