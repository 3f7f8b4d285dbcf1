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

``--corpus FILE`` reads real text instead, ``label<TAB>text`` lines (``benchmarks/real_corpus.py`` writes them
from a Debian package index), shuffled by a fixed seed and split 80/20; the vectorizer then is the pipeline's of
the docs, ``TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)``, the models are at their defaults
beside a tuned setting of each (DiscriminativeNB ``C=10, learning_rate=8``; fastText 25 epochs, word bigrams,
``lr=1``), and ``--curve`` adds DiscriminativeNB's accuracy and fit time over C and the epochs.
"""

import argparse
import json
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import real_corpus  # noqa: E402  (this folder's module, run as a script)

FULL = os.environ.get("NBFAST_BENCH", "smoke") == "full"

# A fastText run in a process of its own: its training reads the file, the test accuracy is computed here.
FASTTEXT_RUN = """
import json, sys, time, fasttext
train, test, threads, settings = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
start = time.perf_counter()
model = fasttext.train_supervised(input=train, thread=threads, verbose=0, **settings)
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
        f"DiscriminativeNB(C={C:g}, lbfgs)": nbfast.DiscriminativeNB(C=C, solver="lbfgs"),
        f"DiscriminativeNB(C={C:g}, lbfgs, tol=1e-4)": nbfast.DiscriminativeNB(C=C, solver="lbfgs", tol=1e-4),
        f"DiscriminativeNB(C={C:g}, complement)": nbfast.DiscriminativeNB("complement", C=C),
        f"DiscriminativeNB(C={C:g}, anchor=zero)": nbfast.DiscriminativeNB(C=C, anchor="zero"),
        f"LogisticRegression(C={C:g})": LogisticRegression(C=C),
    }


#: fastText's settings measured on a real corpus: its defaults, and a tuned run.
FASTTEXT_SETTINGS = {"fastText (default run)": {},
                     "fastText (epoch=25, wordNgrams=2, lr=1)": {"epoch": 25, "wordNgrams": 2, "lr": 1.0}}


def real_models(C):
    from sklearn.linear_model import LogisticRegression

    return {
        "MultinomialNB": nbfast.MultinomialNB(),
        "MultinomialNB(alpha=0.1)": nbfast.MultinomialNB(alpha=0.1),
        "DiscriminativeNB()": nbfast.DiscriminativeNB(),
        "DiscriminativeNB(C=10, learning_rate=8)": nbfast.DiscriminativeNB(C=10.0, learning_rate=8.0),
        "DiscriminativeNB(solver='lbfgs')": nbfast.DiscriminativeNB(solver="lbfgs"),
        f"LogisticRegression(C={C:g})": LogisticRegression(C=C),
    }


def curve(X_train, y_train, X_test, y_test):
    """DiscriminativeNB's test accuracy and fit time (one fit each) over C and the epochs."""
    print(f"{'C':>5} {'epochs':>6} {'accuracy':>8} {'fit (s)':>8}")
    for C, learning_rate in ((1.0, 1.0), (3.0, 2.0), (10.0, 8.0)):
        for epochs in (1, 2, 5, 10):
            model = nbfast.DiscriminativeNB(C=C, learning_rate=learning_rate, max_iter=epochs)
            start = time.perf_counter()
            model.fit(X_train, y_train)
            seconds = time.perf_counter() - start
            print(f"{C:>5g} {epochs:>6} {np.mean(model.predict(X_test) == y_test):>8.4f} {seconds:>8.3f}",
                  flush=True)


def fasttext_fit(documents, y, test_documents, test_y, threads, settings=None):
    """(seconds, accuracy) of one fastText run (its defaults, or ``settings``) in a fresh process, or None
    without fastText."""
    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for name, texts, labels in (("train", documents, y), ("test", test_documents, test_y)):
            path = os.path.join(folder, f"{name}.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.writelines(f"__label__{label} {text}\n" for text, label in zip(texts, labels))
            paths.append(path)
        run = subprocess.run([sys.executable, "-c", FASTTEXT_RUN, *paths, str(threads),
                              json.dumps(settings or {})], capture_output=True, text=True)
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
    parser.add_argument("--corpus", help="a label<TAB>text file of real documents (see real_corpus.py)")
    parser.add_argument("--curve", action="store_true", help="DiscriminativeNB's accuracy over C and epochs")
    parser.add_argument("--models", nargs="+", help="only the models whose names contain one of these")
    args = parser.parse_args()

    if args.corpus:
        labels, documents = real_corpus.load(args.corpus)
        order = np.random.default_rng(0).permutation(len(documents))
        documents, y = [documents[i] for i in order], np.asarray(labels)[order]
        vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True)
        estimators, fasttext_settings = real_models(args.C), FASTTEXT_SETTINGS
        reference_name = "DiscriminativeNB()"
    else:
        documents, y = make_phrase_documents(n_samples=args.n_samples, n_classes=args.n_classes, random_state=0)
        vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=2)
        estimators, fasttext_settings = models(args.C), {"fastText (default run)": {}}
        reference_name = f"DiscriminativeNB(C={args.C:g})"
    if args.models:
        def chosen(name):
            return name == reference_name or any(part in name for part in args.models)

        estimators = {name: model for name, model in estimators.items() if chosen(name)}
        fasttext_settings = {name: value for name, value in fasttext_settings.items() if chosen(name)}
    cut = int(0.8 * len(documents))
    start = time.perf_counter()
    X_train = vectorizer.fit_transform(documents[:cut])
    X_test = vectorizer.transform(documents[cut:])
    print(f"{len(documents):,} documents, {len(set(y))} classes; tf-idf bigrams {X_train.shape[1]:,} features, "
          f"{X_train.nnz:,} nonzeros in training, {time.perf_counter() - start:.2f} s to vectorize")

    times = {name: [] for name in (*estimators, *fasttext_settings)}
    accuracy = {}
    for _ in range(args.rounds):
        for name, estimator in estimators.items():
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a LogisticRegression that stops at max_iter: timed as it is
                estimator.fit(X_train, y[:cut])
            times[name].append(time.perf_counter() - start)
            accuracy[name] = float(np.mean(estimator.predict(X_test) == y[cut:]))
        for name, settings in fasttext_settings.items():
            result = fasttext_fit(documents[:cut], y[:cut], documents[cut:], y[cut:], args.threads, settings)
            if result is not None:
                times[name].append(result[0])
                accuracy[name] = result[1]

    reference = statistics.median(times[reference_name])
    print(f"{'model':<40} {'accuracy':>8} {'fit (s)':>9} {'x DiscriminativeNB':>19}")
    for name, measured in times.items():
        if measured:
            median = statistics.median(measured)
            print(f"{name:<40} {accuracy[name]:>8.4f} {median:>9.3f} {median / reference:>19.1f}")
    iterations = {name: estimator.n_iter_ for name, estimator in estimators.items() if hasattr(estimator, "n_iter_")}
    print(f"medians of {args.rounds} round(s); iterations: " + ", ".join(
        f"{name} {int(np.max(n))}" for name, n in iterations.items()))
    if args.curve:
        curve(X_train, y[:cut], X_test, y[cut:])


if __name__ == "__main__":
    main()
