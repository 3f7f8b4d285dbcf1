"""float32 against float64 input, timed alternately in one process: a MultinomialNB's predict and predict_proba on
the default corpus (``make_documents``, 2^18 features, 20 classes) at each thread count, medians of ``--repeats``.

Timing one dtype after the other lets the second inherit a different state of the caches and of the
allocator; alternating the two calls gives each the same.

    python benchmarks/float32_vs_float64.py --n-samples 200000 --threads 1 2 --repeats 7
"""

import argparse
import statistics
import time

import numpy as np

import nbfast
from nbfast._kernels.threads import n_jobs_limit
from nbfast.datasets import make_documents


def median_times(function, inputs, repeats):
    """{name: median seconds of ``function(X)``} for the named inputs, called alternately, after a warm-up."""
    times = {name: [] for name in inputs}
    for round_ in range(repeats + 1):
        for name, X in inputs.items():
            start = time.perf_counter()
            function(X)
            if round_:
                times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=200_000)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    X, y = make_documents(args.n_samples, 2**18, 20, random_state=0)
    model = nbfast.MultinomialNB().fit(X, y)
    inputs = {"float64": X, "float32": X.astype(np.float32)}
    print(f"{args.n_samples:,} documents x 2^18 features, 20 classes, {X.nnz:,} nonzeros; medians of {args.repeats}")
    print(f"{'threads':>7}  {'operation':<14}{'float64 s':>11}{'float32 s':>11}{'float32 / float64':>19}")
    for threads in args.threads:
        with n_jobs_limit(threads):
            for operation in ("predict", "predict_proba"):
                medians = median_times(getattr(model, operation), inputs, args.repeats)
                ratio = medians["float32"] / medians["float64"]
                print(f"{threads:>7}  {operation:<14}{medians['float64']:>11.4f}{medians['float32']:>11.4f}{ratio:>19.2f}")


if __name__ == "__main__":
    main()
