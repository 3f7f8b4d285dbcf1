"""One thread against two, idle and with the other core busy: ``python benchmarks/busy_core.py [--busy]``.

Fits and scores MultinomialNB on ``make_documents(300_000, 2**18, 20)`` with the
kernels limited to one and to two threads (threadpoolctl), each call the median
of ``--repeats`` runs, alternating the two limits so that load changes reach
both alike.  ``--busy`` runs a CPU-bound process beside the measurement (it is
killed at the end).  Prints one line per operation: the medians and the ratio
two threads / one thread (below 1: the second thread helps).
"""

import argparse
import statistics
import time

from threadpoolctl import threadpool_limits

from nbfast import MultinomialNB
from nbfast.cli.bench._harness import busy_core
from nbfast.datasets import make_documents


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", action="store_true", help="run a CPU-bound process beside the measurement")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--n-samples", type=int, default=300_000)
    args = parser.parse_args()
    X, y = make_documents(args.n_samples, 2**18, 20, random_state=0)
    model = MultinomialNB().fit(X, y)
    operations = {"fit": lambda: MultinomialNB().fit(X, y), "predict": lambda: model.predict(X),
                  "predict_proba": lambda: model.predict_proba(X)}
    with busy_core(args.busy):
        times = {(op, n): [] for op in operations for n in (1, 2)}
        for _ in range(args.repeats):
            for op, call in operations.items():
                for n in (1, 2):
                    with threadpool_limits(limits=n, user_api="openmp"):
                        start = time.perf_counter()
                        call()
                        times[op, n].append(time.perf_counter() - start)
    print(f"{'busy' if args.busy else 'idle'}: medians of {args.repeats}")
    for op in operations:
        one, two = (statistics.median(times[op, n]) for n in (1, 2))
        print(f"{op:14s} 1 thread {one:.3f} s  2 threads {two:.3f} s  2/1 = {two / one:.2f}")


if __name__ == "__main__":
    main()
