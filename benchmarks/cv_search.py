"""The cross-validated count models against GridSearchCV: ``python benchmarks/cv_search.py [--estimator NAME]``.

Searches 5 alphas over 5 stratified folds on a ``make_documents`` corpus with
``MultinomialNBCV`` (or another CV estimator) and with ``GridSearchCV`` over
nbfast's base model (``n_jobs=1`` and ``n_jobs=2``) and over scikit-learn's
(``n_jobs=1``, what such a search costs without nbfast), alternating them in
every round after a warm-up round, checks that they find the same alpha and
scores, and prints each one's median and the ratios.  The corpus is 200,000
documents under ``NBFAST_BENCH=full``, 2,000 otherwise (the smoke size, which
``benchmarks/test_cv_search.py`` runs).  ``--corpus FILE`` searches real text instead: the unigram and bigram
counts (nbfast's ``CountVectorizer(ngram_range=(1, 2))``, made once, outside the timings) of a
``label<TAB>text`` file, such as the one ``benchmarks/real_corpus.py`` writes from a Debian package index;
``--corpus debian`` writes that file (``debian_packages.tsv`` in the working directory) from the index apt
keeps on a Debian machine, the first time, and reads it after.  Each search's scores are checked against
the first's: the same best alpha, every split's score within 1e-12 (the largest difference is printed).
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np
from sklearn import naive_bayes as sklearn_naive_bayes
from sklearn.model_selection import GridSearchCV, StratifiedKFold

import nbfast
import nbfast.text
from nbfast.datasets import make_documents

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import real_corpus  # noqa: E402  (this folder's module, run as a script)

ALPHAS = [0.01, 0.1, 0.3, 1.0, 3.0]
#: (n_samples, n_features, n_classes) of the corpus at each size.
SIZES = {"smoke": (2_000, 2**10, 5), "full": (200_000, 2**14, 5)}


def split_scores(results):
    """The (n_splits, n_alphas) test scores of a ``cv_results_``."""
    return np.array([results[f"split{k}_test_score"] for k in range(5)])


def searches(estimator, scoring):
    """{name: a function running that search on (X, y) and returning (best alpha, every split's test scores)}."""
    cv = StratifiedKFold(5, shuffle=True, random_state=0)

    def ours(X, y):
        model = getattr(nbfast, f"{estimator}CV")(alphas=ALPHAS, cv=cv, scoring=scoring).fit(X, y)
        return model.alpha_, split_scores(model.cv_results_)

    def grid(library, n_jobs):
        def run(X, y):
            search = GridSearchCV(getattr(library, estimator)(), {"alpha": ALPHAS}, cv=cv, scoring=scoring,
                                  n_jobs=n_jobs).fit(X, y)
            return search.best_params_["alpha"], split_scores(search.cv_results_)

        return run

    searches = {f"{estimator}CV": ours, "GridSearchCV n_jobs=1": grid(nbfast, 1),
                "GridSearchCV n_jobs=2": grid(nbfast, 2)}
    if hasattr(sklearn_naive_bayes, estimator):  # PoissonNB is nbfast's own
        searches["GridSearchCV, scikit-learn's"] = grid(sklearn_naive_bayes, 1)
    return searches


def measure(estimator="MultinomialNB", scoring="accuracy", size=SIZES["smoke"], repeats=5, data=None):
    """({search: seconds of each counted round}, the largest difference of a split's score from the first
    search's) on a corpus of ``size`` (n_samples, n_features, n_classes), or on ``data`` (X, y), after checking
    that the searches agree."""
    X, y = make_documents(*size, random_state=0) if data is None else data
    runs = searches(estimator, scoring)
    times = {name: [] for name in runs}
    largest = 0.0
    for round_ in range(repeats + 1):  # round 0 warms up (and starts GridSearchCV's worker processes)
        results = {}
        for name, run in runs.items():
            start = time.perf_counter()
            results[name] = run(X, y)
            if round_:
                times[name].append(time.perf_counter() - start)
        (alpha, scores), *others = results.values()
        for other_alpha, other_scores in others:
            largest = max(largest, float(np.abs(other_scores - scores).max()))
            assert other_alpha == alpha and largest <= 1e-12, (other_alpha, alpha, largest)
    return times, largest


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--estimator", default="MultinomialNB",
                        choices=["MultinomialNB", "ComplementNB", "BernoulliNB", "PoissonNB"])
    parser.add_argument("--scoring", default="accuracy", choices=["accuracy", "neg_log_loss"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n-classes", type=int, help="classes of the corpus (default: 5)")
    parser.add_argument("--corpus", help="a label<TAB>text file, or 'debian' (see real_corpus.py): search its "
                                         "unigram and bigram counts")
    args = parser.parse_args()
    n_samples, n_features, n_classes = SIZES["full" if os.environ.get("NBFAST_BENCH") == "full" else "smoke"]
    if args.n_classes:
        n_classes = args.n_classes
    data, corpus = None, f"make_documents({n_samples}, {n_features}, {n_classes})"
    if args.corpus:
        labels, documents = real_corpus.cached() if args.corpus == "debian" else real_corpus.load(args.corpus)
        X = nbfast.text.CountVectorizer(ngram_range=(1, 2)).fit_transform(documents)
        data, corpus = (X, np.asarray(labels)), (f"{args.corpus}: {X.shape[0]:,} x {X.shape[1]:,}, {X.nnz:,} "
                                                 f"nonzeros, {len(set(labels))} classes")
    times, largest = measure(args.estimator, args.scoring, (n_samples, n_features, n_classes), args.repeats, data)
    medians = {name: statistics.median(values) for name, values in times.items()}
    ours = medians[f"{args.estimator}CV"]
    print(f"{len(ALPHAS)} alphas x 5 folds, {args.scoring}, {corpus}, "
          f"medians of {args.repeats} alternating rounds (same best alpha; split scores within {largest:.1e}):")
    for name, median in medians.items():
        print(f"  {name:<30} {median:8.3f} s  {median / ours:6.1f}x")


if __name__ == "__main__":
    main()
