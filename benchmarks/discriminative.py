"""DiscriminativeNB against Naive Bayes, LogisticRegression and fastText: ``python benchmarks/discriminative.py``.

The corpus is :func:`nbfast.datasets.make_phrase_documents` (documents of fixed
multi-word phrases, which break Naive Bayes's independence assumption), split
80/20.  nbfast's models and scikit-learn's LogisticRegression are fitted on the
same tf-idf unigrams and bigrams (nbfast's TfidfVectorizer, fitted once: its time
is printed apart); fastText's default supervised run (``thread=`` the cores used
by the others) reads the raw training text, each run in a fresh process.  Fits
alternate between the models; the table shows the median fit time of
``--rounds`` rounds, the test accuracy and the time ratio to DiscriminativeNB.

``NBFAST_BENCH=smoke`` (the default) runs one round on 2,000 documents, a quick check; ``NBFAST_BENCH=full`` the
sizes given (default 40,000 documents, 20 classes, C=3).  fastText is measured when its Python package is installed.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

import nbfast
from nbfast.datasets import make_phrase_documents
from nbfast.text import TfidfVectorizer

FULL = os.environ.get("NBFAST_BENCH", "smoke") == "full"

# A fastText run in a process of its own: its training reads the file, the test accuracy is computed here.
FASTTEXT_RUN = """
import sys, time, fasttext
train, test, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
start = time.perf_counter()
model = fasttext.train_supervised(input=train, thread=threads, verbose=0)
seconds = time.perf_counter() - start
lines = open(test, encoding="utf-8").read().splitlines()
labels = [line.split(" ", 1)[0] for line in lines]
predicted = model.predict([line.split(" ", 1)[1] for line in lines])[0]
print(seconds, sum(p[0] == t for p, t in zip(predicted, labels)) / len(lines))
"""


def models(C):
    from sklearn.linear_model import LogisticRegression

    return {
        "MultinomialNB": nbfast.MultinomialNB(alpha=0.1),
        "ComplementNB": nbfast.ComplementNB(alpha=0.3),
        f"DiscriminativeNB(C={C:g})": nbfast.DiscriminativeNB(C=C),
        f"DiscriminativeNB(C={C:g}, tol=1e-4)": nbfast.DiscriminativeNB(C=C, tol=1e-4),
        f"DiscriminativeNB(C={C:g}, complement)": nbfast.DiscriminativeNB("complement", C=C),
        f"DiscriminativeNB(C={C:g}, anchor=zero)": nbfast.DiscriminativeNB(C=C, anchor="zero"),
        f"LogisticRegression(C={C:g})": LogisticRegression(C=C),
    }


def fasttext_fit(documents, y, test_documents, test_y, threads):
    """(seconds, accuracy) of one fastText default run in a fresh process, or None without fastText."""
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for name, texts, labels in (("train", documents, y), ("test", test_documents, test_y)):
            path = os.path.join(folder, f"{name}.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.writelines(f"__label__{label} {text}\n" for text, label in zip(texts, labels))
            paths.append(path)
        run = subprocess.run([sys.executable, "-c", FASTTEXT_RUN, *paths, str(threads)], capture_output=True,
                             text=True)
    if run.returncode != 0:
        if "No module named 'fasttext'" in run.stderr:
            return None
        raise RuntimeError(run.stderr)
    seconds, accuracy = run.stdout.split()
    return float(seconds), float(accuracy)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=40_000 if FULL else 2_000)
    parser.add_argument("--n-classes", type=int, default=20)
    parser.add_argument("--C", type=float, default=3.0, help="C of DiscriminativeNB and LogisticRegression")
    parser.add_argument("--rounds", type=int, default=3 if FULL else 1)
    parser.add_argument("--threads", type=int, default=2, help="fastText's threads (the cores the others use)")
    args = parser.parse_args()

    documents, y = make_phrase_documents(n_samples=args.n_samples, n_classes=args.n_classes, random_state=0)
    cut = int(0.8 * len(documents))
    start = time.perf_counter()
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2)
    X_train = vectorizer.fit_transform(documents[:cut])
    X_test = vectorizer.transform(documents[cut:])
    print(f"{len(documents):,} documents, {args.n_classes} classes; tf-idf bigrams {X_train.shape[1]:,} features, "
          f"{X_train.nnz:,} nonzeros in training, {time.perf_counter() - start:.2f} s to vectorize")

    estimators = models(args.C)
    times = {name: [] for name in estimators} | {"fastText (default run)": []}
    accuracy = {}
    for _ in range(args.rounds):
        for name, estimator in estimators.items():
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a LogisticRegression that stops at max_iter: timed as it is
                estimator.fit(X_train, y[:cut])
            times[name].append(time.perf_counter() - start)
            accuracy[name] = float(np.mean(estimator.predict(X_test) == y[cut:]))
        result = fasttext_fit(documents[:cut], y[:cut], documents[cut:], y[cut:], args.threads)
        if result is not None:
            times["fastText (default run)"].append(result[0])
            accuracy["fastText (default run)"] = result[1]

    reference = statistics.median(times[f"DiscriminativeNB(C={args.C:g})"])
    print(f"{'model':<40} {'accuracy':>8} {'fit (s)':>9} {'x DiscriminativeNB':>19}")
    for name, measured in times.items():
        if measured:
            median = statistics.median(measured)
            print(f"{name:<40} {accuracy[name]:>8.4f} {median:>9.3f} {median / reference:>19.1f}")
    iterations = {name: estimator.n_iter_ for name, estimator in estimators.items() if hasattr(estimator, "n_iter_")}
    print(f"medians of {args.rounds} round(s); iterations: " + ", ".join(
        f"{name} {int(np.max(n))}" for name, n in iterations.items()))


if __name__ == "__main__":
    main()
