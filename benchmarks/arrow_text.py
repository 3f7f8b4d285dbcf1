"""Vectorizing a column of Arrow strings: ``python benchmarks/arrow_text.py [--n-samples N] [--corpus FILE] [--busy]``.

The same documents (``make_text_documents``, or with ``--corpus`` the real text of a ``label<TAB>text`` file that
``real_corpus.py`` writes, repeated up to ``--n-samples``), vectorized by nbfast's HashingVectorizer and CountVectorizer (fitted
once) three ways, alternating: as a list of str; as a pyarrow column read in place; and as a pyarrow column
turned into a list of str first (``to_pylist``).  Prints
the medians and their ratios, and checks that the matrices are identical.
"""

import argparse
import itertools
import os
import statistics
import sys
import time

import pyarrow as pa

from nbfast.cli.bench._harness import busy_core
from nbfast.datasets import make_text_documents
from nbfast.text import CountVectorizer, HashingVectorizer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import real_corpus  # noqa: E402  (this folder's module, run as a script)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", action="store_true", help="run a CPU-bound process beside the measurement")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    parser.add_argument("--mean-length", type=int, default=12, help="words per document (short, as titles are)")
    parser.add_argument("--corpus", help="a label<TAB>text file of real documents (see real_corpus.py), repeated "
                                         "up to --n-samples documents")
    args = parser.parse_args()
    if args.corpus:
        documents = list(itertools.islice(itertools.cycle(real_corpus.load(args.corpus)[1]), args.n_samples))
        described = f"the documents of {args.corpus}, repeated"
    else:
        documents, _ = make_text_documents(n_samples=args.n_samples, n_classes=20, mean_length=args.mean_length,
                                           random_state=0)
        documents = list(documents)
        described = f"documents of {args.mean_length} words on average"
    column = pa.array(documents, pa.large_string())
    vectorizers = {"HashingVectorizer": HashingVectorizer(n_features=2**20),
                   "CountVectorizer": CountVectorizer().fit(documents)}
    inputs = {"list of str": lambda: documents, "Arrow column": lambda: column,
              "Arrow column via to_pylist": lambda: column.to_pylist()}
    print(f"{len(documents):,} {described} ({'busy' if args.busy else 'idle'}), medians of {args.repeats}:")
    with busy_core(args.busy):
        for name, vectorizer in vectorizers.items():
            times = {kind: [] for kind in inputs}
            results = {}
            for _ in range(args.repeats):
                for kind, make in inputs.items():
                    start = time.perf_counter()
                    results[kind] = vectorizer.transform(make())
                    times[kind].append(time.perf_counter() - start)
            same = all((results[kind] != results["list of str"]).nnz == 0 for kind in inputs)
            medians = {kind: statistics.median(values) for kind, values in times.items()}
            arrow = medians["Arrow column"]
            print(f"  {name}.transform: " + ", ".join(f"{kind} {seconds:.2f} s ({seconds / arrow:.2f}x)"
                                                       for kind, seconds in medians.items())
                  + f"; identical: {same}")


if __name__ == "__main__":
    main()
