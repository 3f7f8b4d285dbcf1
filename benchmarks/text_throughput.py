"""Documents per second of nbfast.text.HashingVectorizer and scikit-learn's on a synthetic corpus,
and of raw text to labels (vectorizer + MultinomialNB.predict) against the scikit-learn pipeline.

    python benchmarks/text_throughput.py [--documents 40000] [--repeat 5]

Prints, per configuration, the best wall-clock time of ``--repeat`` runs and the
process CPU time of that run (CPU time is the fairer single-thread figure on a
shared machine; wall-clock is what the 2-thread figure means).
"""

import argparse
import time

from threadpoolctl import threadpool_limits

from nbfast import MultinomialNB
from nbfast.datasets import make_text_documents
from nbfast.text import HashingVectorizer

CONFIGURATIONS = {"unigrams": dict(ngram_range=(1, 1)), "bigrams": dict(ngram_range=(1, 2))}


def best_run(function, repeat):
    """(wall seconds, CPU seconds) of the fastest of ``repeat`` calls."""
    runs = []
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        runs.append((time.perf_counter() - wall, time.process_time() - cpu))
    return min(runs)


def main():
    from sklearn.feature_extraction.text import HashingVectorizer as SklearnHashingVectorizer
    from sklearn.naive_bayes import MultinomialNB as SklearnMultinomialNB
    from sklearn.pipeline import make_pipeline

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=40000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    documents, y = make_text_documents(n_samples=args.documents, n_classes=20)
    print(f"{len(documents)} documents, {sum(map(len, documents)) / len(documents):.0f} characters on average")
    for name, params in CONFIGURATIONS.items():
        sk_wall, sk_cpu = best_run(lambda: SklearnHashingVectorizer(**params).transform(documents), args.repeat)
        print(f"{name:9s} scikit-learn      {len(documents) / sk_wall:9.0f} docs/s (cpu {sk_cpu:.3f} s)")
        for n_threads in (1, 2):
            with threadpool_limits(n_threads, user_api="openmp"):
                wall, cpu = best_run(lambda: HashingVectorizer(**params).transform(documents), args.repeat)
            print(
                f"{name:9s} nbfast {n_threads} thread(s) {len(documents) / wall:9.0f} docs/s (cpu {cpu:.3f} s)"
                f"  wall x{sk_wall / wall:.1f}  cpu x{sk_cpu / cpu:.1f}"
            )
    # raw text to labels: both pipelines fitted on the same documents and labels
    theirs = make_pipeline(SklearnHashingVectorizer(alternate_sign=False), SklearnMultinomialNB()).fit(documents, y)
    ours = make_pipeline(HashingVectorizer(alternate_sign=False), MultinomialNB()).fit(documents, y)
    sk_wall, sk_cpu = best_run(lambda: theirs.predict(documents), args.repeat)
    print(f"{'predict':9s} scikit-learn      {len(documents) / sk_wall:9.0f} docs/s (cpu {sk_cpu:.3f} s)")
    for n_threads in (1, 2):
        with threadpool_limits(n_threads, user_api="openmp"):
            wall, cpu = best_run(lambda: ours.predict(documents), args.repeat)
        print(
            f"{'predict':9s} nbfast {n_threads} thread(s) {len(documents) / wall:9.0f} docs/s (cpu {cpu:.3f} s)"
            f"  wall x{sk_wall / wall:.1f}  cpu x{sk_cpu / cpu:.1f}"
        )


if __name__ == "__main__":
    main()
