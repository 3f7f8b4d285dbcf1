"""A small call through the whole pipeline: ``python benchmarks/small_pipeline.py [--busy]``.

Fits ``make_pipeline(TfidfVectorizer(), MultinomialNB())`` of nbfast and of
scikit-learn on 20,000 ``make_text_documents``, then times ``predict`` on 1,000
raw documents, alternating the two libraries, and prints the medians and their
ratio.  ``--busy`` runs a CPU-bound process beside the measurement.
"""

import argparse
import statistics
import time

from sklearn.feature_extraction.text import TfidfVectorizer as SklearnTfidfVectorizer
from sklearn.naive_bayes import MultinomialNB as SklearnMultinomialNB
from sklearn.pipeline import make_pipeline

import nbfast
from nbfast.cli.bench._harness import busy_core
from nbfast.datasets import make_text_documents
from nbfast.text import TfidfVectorizer


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", action="store_true", help="run a CPU-bound process beside the measurement")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--batch", type=int, default=1000, help="documents per predict call")
    args = parser.parse_args()
    documents, labels = make_text_documents(n_samples=20_000, n_classes=10, random_state=0)
    pipelines = {
        "nbfast": make_pipeline(TfidfVectorizer(), nbfast.MultinomialNB()).fit(documents, labels),
        "scikit-learn": make_pipeline(SklearnTfidfVectorizer(), SklearnMultinomialNB()).fit(documents, labels),
    }
    batch = documents[: args.batch]
    times = {name: [] for name in pipelines}
    with busy_core(args.busy):
        for _ in range(args.repeats):
            for name, pipeline in pipelines.items():
                start = time.perf_counter()
                pipeline.predict(batch)
                times[name].append(time.perf_counter() - start)
    ours, theirs = statistics.median(times["nbfast"]), statistics.median(times["scikit-learn"])
    print(f"{args.batch}-document pipeline predict ({'busy' if args.busy else 'idle'}), medians of {args.repeats}: "
          f"nbfast {ours * 1e3:.1f} ms, scikit-learn {theirs * 1e3:.1f} ms, {theirs / ours:.1f}x")


if __name__ == "__main__":
    main()
