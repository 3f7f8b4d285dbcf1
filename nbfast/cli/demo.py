"""``nbfast demo``: train and batch-score a synthetic corpus, and compare with scikit-learn."""

import time

import numpy as np

from nbfast._compat import SKLEARN_INSTALLED, sklearn_class
from nbfast._kernels.threads import effective_n_threads
from nbfast.cli._errors import positive_int
from nbfast.datasets import make_documents
from nbfast.naive_bayes._discrete import MultinomialNB


def add_arguments(parser):
    parser.add_argument("--n-samples", type=positive_int, default=200_000, help="documents in the corpus (default 200000)")
    parser.add_argument("--n-features", type=positive_int, default=2**16, help="vocabulary size (default 65536)")
    parser.add_argument("--n-classes", type=positive_int, default=20, help="number of classes (default 20)")
    parser.add_argument("--repeats", type=positive_int, default=3, help="timed runs per operation, median shown (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")


def _median_seconds(func, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _measure(cls, X_train, y_train, X_test, y_test, repeats):
    """docs/s of fit, of the first predict of a fitted model, and of predict_proba and predict after a warm-up."""
    fit = _median_seconds(lambda: cls().fit(X_train, y_train), repeats)
    firsts = []
    for _ in range(repeats):  # a fresh model each time: its first call builds what later calls reuse
        model = cls().fit(X_train, y_train)
        firsts.append(_median_seconds(lambda model=model: model.predict(X_test), 1))
    model.predict_proba(X_test)  # warm-up
    proba = _median_seconds(lambda: model.predict_proba(X_test), repeats)
    predict = _median_seconds(lambda: model.predict(X_test), repeats)
    n_train, n_test = X_train.shape[0], X_test.shape[0]
    return {
        "accuracy": float(np.mean(model.predict(X_test) == y_test)),
        "fit": n_train / fit,
        "first predict": n_test / float(np.median(firsts)),
        "predict_proba": n_test / proba,
        "predict": n_test / predict,
    }


def run(args):
    if min(args.n_samples, args.n_features, args.n_classes) < 2:
        raise ValueError("--n-samples, --n-features and --n-classes must be at least 2")
    print(f"Generating {args.n_samples:,} documents x {args.n_features:,} words, {args.n_classes} classes ...")
    X, y = make_documents(args.n_samples, args.n_features, args.n_classes, random_state=args.seed)
    half = args.n_samples // 2
    X_train, y_train, X_test, y_test = X[:half], y[:half], X[half:], y[half:]
    print(f"MultinomialNB: train on {half:,} documents, score {X_test.shape[0]:,} ({X_test.nnz:,} nonzeros), "
          f"{effective_n_threads()} thread(s); median of {args.repeats} runs after a warm-up\n")

    classes = {"nbfast": MultinomialNB}
    if SKLEARN_INSTALLED:
        classes["scikit-learn"] = sklearn_class("naive_bayes", "MultinomialNB", "the demo")
    results = {name: _measure(cls, X_train, y_train, X_test, y_test, args.repeats) for name, cls in classes.items()}

    columns = ("fit", "first predict", "predict_proba", "predict")
    print(f"{'documents/s':<14}{'accuracy':>10}" + "".join(f"{c:>16}" for c in columns))
    for name, r in results.items():
        print(f"{name:<14}{r['accuracy']:>10.4f}" + "".join(f"{r[c]:>16,.0f}" for c in columns))
    if "scikit-learn" in results:
        nb, sk = results["nbfast"], results["scikit-learn"]
        print("speed-up      " + " " * 10 + "".join(f"{nb[c] / sk[c]:>15.1f}x" for c in columns))
        print("\n(first predict: a freshly fitted model's first call, with whatever it sets up on first use.)")
    else:
        print("\n(install scikit-learn to see its figures beside these: pip install 'nbfast[sklearn]')")
    print("This is a small corpus on this machine; `nbfast bench` measures every estimator and operation against "
          "scikit-learn at 1,000,000 documents, with memory and agreement.")
    return 0
