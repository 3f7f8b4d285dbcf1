"""``nbfast bench``: nbfast against scikit-learn, side by side in one process on the same data.

Every operation (fit, partial_fit, predict, predict_proba) runs once as a
warm-up under ``tracemalloc`` (numpy reports its allocations there, so this is
the peak memory the call allocates), then ``--repeats`` times for the median
time.  Models are fitted and used for one single-row prediction before their
predict and predict_proba are timed, as in a service that scores batch after
batch (nbfast builds its float32 scoring table on the first float32
prediction).  The physical bound of a kernel is the time to stream X once from memory:
the bytes of its data, indices and indptr over a memory bandwidth measured in
the same process by timing a large numpy copy.
"""

import json
import os
import platform
import sys
import time
import tracemalloc

import numpy as np

from nbfast._kernels.threads import effective_n_threads
from nbfast.datasets import make_documents

OPERATIONS = ("fit", "partial_fit", "predict", "predict_proba")
#: Estimators that take dense input: they are timed on the first DENSE_FEATURES
#: columns of the corpus as a dense array (all of it would not fit in memory).
DENSE_ESTIMATORS = ("GaussianNB", "CategoricalNB")
DENSE_FEATURES = 64
_BANDWIDTH_BYTES = 256 * 2**20
_LIBRARIES = ("nbfast", "scikit-learn")


def nbfast_estimators():
    """nbfast's Naive Bayes estimators by name, looked up in its public names."""
    import nbfast

    names = (name for name in nbfast.__all__ if name.endswith("NB"))
    return {name: getattr(nbfast, name) for name in names if isinstance(getattr(nbfast, name), type)}


def sklearn_estimator(name):
    """scikit-learn's estimator of that name, or None when it (or scikit-learn) is missing."""
    from nbfast._compat import HAVE_SKLEARN

    if not HAVE_SKLEARN:
        return None
    import sklearn.naive_bayes

    return getattr(sklearn.naive_bayes, name, None)


def add_arguments(parser):
    parser.add_argument("--n-samples", type=int, default=1_000_000, help="documents (default 1000000)")
    parser.add_argument("--n-features", type=int, default=2**18, help="vocabulary size (default 262144)")
    parser.add_argument("--n-classes", type=int, default=20, help="number of classes (default 20)")
    parser.add_argument(
        "--dtype", nargs="+", choices=["float64", "float32"], default=["float64"],
        help="dtype(s) of X, for both libraries (default float64)",
    )
    parser.add_argument(
        "--estimator", nargs="+", default=["MultinomialNB"],
        help="estimator name(s), or 'all' (default MultinomialNB)",
    )
    parser.add_argument(
        "--threads", type=int, default=None,
        help="threads for both libraries (nbfast's OpenMP and the BLAS); default: all cores",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per operation, median reported (default 3)")
    parser.add_argument("--batch-size", type=int, default=100_000, help="rows per partial_fit call (default 100000)")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    parser.add_argument(
        "--plot", metavar="FILE.png",
        help="also time fit and predict_proba on growing slices of the corpus and plot throughput (needs matplotlib)",
    )


# ------------------------------------------------------------------ measuring
def measure_bandwidth(n_bytes=_BANDWIDTH_BYTES, repeats=5):
    """Memory bandwidth in bytes/s: a large numpy copy moves 2 x n_bytes (read + write)."""
    src = np.ones(n_bytes // 8)
    dst = np.empty_like(src)
    np.copyto(dst, src)  # fault the pages in
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        np.copyto(dst, src)
        times.append(time.perf_counter() - start)
    return 2 * n_bytes / float(np.median(times))


def input_bytes(X):
    """Bytes a kernel has to read to see X once."""
    if isinstance(X, np.ndarray):
        return X.nbytes
    return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes


def time_call(func, repeats):
    """Run ``func`` once under tracemalloc (peak bytes), then ``repeats`` times; return (times, peak, result)."""
    tracemalloc.start()
    try:
        result = func()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return times, peak, result


def operation_calls(cls, operation, X, y, classes, batch_size):
    """A zero-argument callable performing ``operation`` with a fresh or fitted ``cls`` instance."""
    if operation == "fit":
        return lambda: cls().fit(X, y)
    if operation == "partial_fit":

        def stream():
            model = cls()
            for start in range(0, X.shape[0], batch_size):
                model.partial_fit(X[start:start + batch_size], y[start:start + batch_size], classes=classes)
            return model

        return stream
    model = cls().fit(X, y)
    model.predict(X[:1])  # one-off set-up (nbfast's float32 scoring table) happens here, not in the timed calls
    method = getattr(model, operation)
    return lambda: method(X)


def thread_limit(n_threads):
    """Context limiting OpenMP and BLAS threads (threadpoolctl), or a no-op when n_threads is None."""
    if n_threads is None:
        import contextlib

        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        from nbfast.cli import CommandError

        raise CommandError("--threads needs threadpoolctl: pip install 'nbfast[bench]'") from None
    return threadpool_limits(limits=n_threads)


def bench_estimator(name, X, y, args, bandwidth):
    """Time every operation of one estimator for both libraries on (X, y); return result rows."""
    implementations = {"nbfast": nbfast_estimators()[name], "scikit-learn": sklearn_estimator(name)}
    classes = np.unique(y)
    n_samples, nnz = X.shape[0], (X.size if isinstance(X, np.ndarray) else X.nnz)
    bound = input_bytes(X) / bandwidth
    rows = []
    for operation in OPERATIONS:
        outputs = {}
        for library in _LIBRARIES:
            cls = implementations[library]
            if cls is None:
                continue
            func = operation_calls(cls, operation, X, y, classes, args.batch_size)
            times, peak, outputs[library] = time_call(func, args.repeats)
            seconds = float(np.median(times))
            rows.append({
                "estimator": name, "dtype": X.dtype.name, "operation": operation, "library": library,
                "seconds": seconds, "times": times, "docs_per_s": n_samples / seconds, "nnz_per_s": nnz / seconds,
                "peak_bytes": int(peak), "bound_ratio": seconds / bound,
            })
        if len(outputs) == 2:
            nb_row, sk_row = rows[-2], rows[-1]
            nb_row["speedup"] = sk_row["seconds"] / nb_row["seconds"]
            if operation in ("predict_proba", "predict"):
                nb_row["agreement"] = _agreement(operation, *outputs.values())
    return rows


def _agreement(operation, nb_out, sk_out):
    """max |difference| of probabilities, or the fraction of equal labels."""
    if operation == "predict_proba":
        return float(np.max(np.abs(nb_out - sk_out))) if nb_out.size else 0.0
    return float(np.mean(nb_out == sk_out))


def throughput_curve(name, X, y, args):
    """docs/s of fit and predict_proba for both libraries on growing slices X[:m]."""
    n = X.shape[0]
    sizes = sorted({max(2, n // 4**k) for k in range(4)})
    points = []
    for m in sizes:
        part = {"n_samples": m}
        for library in _LIBRARIES:
            cls = nbfast_estimators()[name] if library == "nbfast" else sklearn_estimator(name)
            if cls is None:
                continue
            for operation in ("fit", "predict_proba"):
                func = operation_calls(cls, operation, X[:m], y[:m], np.unique(y), args.batch_size)
                times, _, _ = time_call(func, args.repeats)
                part[f"{library} {operation}"] = m / float(np.median(times))
        points.append(part)
    return points


def plot_curve(points, title, path):
    """Plot docs/s against corpus size (log-log) and save it to ``path``."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        from nbfast.cli import CommandError

        raise CommandError("--plot needs matplotlib: pip install 'nbfast[plot]'") from None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    sizes = [p["n_samples"] for p in points]
    for key in sorted(k for k in points[0] if k != "n_samples"):
        ax.plot(sizes, [p[key] for p in points], marker="o", linestyle="-" if key.startswith("nbfast") else "--",
                label=key)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("documents in the corpus")
    ax.set_ylabel("documents / second")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def corpus_for(name, X):
    """The input an estimator is timed on: the CSR counts, or a dense block of them."""
    if name in DENSE_ESTIMATORS:
        return np.ascontiguousarray(X[:, :DENSE_FEATURES].toarray())
    return X


def machine_info(bandwidth, n_threads):
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    import scipy

    versions = {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__}
    from nbfast import __version__

    versions["nbfast"] = __version__
    if sklearn_estimator("MultinomialNB") is not None:
        import sklearn

        versions["scikit-learn"] = sklearn.__version__
    return {
        "cpu": cpu, "nproc": os.cpu_count(), "threads": n_threads, "bandwidth_bytes_per_s": bandwidth,
        "versions": versions, "platform": platform.platform(), "thread_pools": _thread_pools(),
    }


def _thread_pools():
    """The native thread pools in use (BLAS kernel, OpenMP runtime), when threadpoolctl is installed."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    keys = ("user_api", "internal_api", "version", "architecture", "num_threads")
    return [{k: pool[k] for k in keys if k in pool} for pool in threadpool_info()]


# ------------------------------------------------------------------ running
def _check_args(args):
    if min(args.n_samples, args.n_features, args.n_classes) < 2:
        raise ValueError("--n-samples, --n-features and --n-classes must be at least 2")
    if args.repeats < 1 or args.batch_size < 1:
        raise ValueError("--repeats and --batch-size must be at least 1")
    if args.threads is not None and args.threads < 1:
        raise ValueError("--threads must be at least 1")
    available = nbfast_estimators()
    names = list(available) if args.estimator == ["all"] else args.estimator
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ValueError(f"unknown estimator(s) {unknown}; nbfast has {sorted(available)}")
    return names


def run(args):
    names = _check_args(args)
    log = sys.stderr if args.json else sys.stdout
    with thread_limit(args.threads):
        n_threads = effective_n_threads()
        print(f"Generating {args.n_samples:,} documents x {args.n_features:,} features, {args.n_classes} classes ...",
              file=log, flush=True)
        X64, y = make_documents(args.n_samples, args.n_features, args.n_classes, random_state=args.seed)
        bandwidth = measure_bandwidth()
        report = {
            "machine": machine_info(bandwidth, n_threads),
            "corpus": {"n_samples": args.n_samples, "n_features": args.n_features, "n_classes": args.n_classes,
                       "nnz": int(X64.nnz), "seed": args.seed},
            "repeats": args.repeats, "results": [],
        }
        for dtype in args.dtype:
            X_dtype = X64.astype(dtype)
            for name in names:
                print(f"timing {name} on {dtype} ...", file=log, flush=True)
                X = corpus_for(name, X_dtype)
                report["results"].extend(bench_estimator(name, X, y, args, bandwidth))
        if args.plot:
            name, X = names[0], corpus_for(names[0], X64.astype(args.dtype[0]))
            print(f"timing throughput against corpus size for {name} ...", file=log, flush=True)
            report["throughput"] = throughput_curve(name, X, y, args)
            plot_curve(report["throughput"], f"{name}, {args.n_features:,} features, {args.n_classes} classes, "
                       f"{n_threads} thread(s)", args.plot)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
        if args.plot:
            print(f"\nthroughput plot written to {args.plot}")
    return 0


def _si(value):
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.2f}{unit}"
    return f"{value:.1f}"


def print_table(report):
    """Print the results as a plain-text table."""
    machine, corpus = report["machine"], report["corpus"]
    print(
        f"\n{corpus['n_samples']:,} documents x {corpus['n_features']:,} features, {corpus['n_classes']} classes, "
        f"{corpus['nnz']:,} nonzeros; {machine['threads']} thread(s) of {machine['nproc']} cores ({machine['cpu']}); "
        f"memory bandwidth {machine['bandwidth_bytes_per_s'] / 1e9:.1f} GB/s (numpy copy); "
        f"median of {report['repeats']} runs\n"
    )
    header = (f"{'estimator':<14}{'dtype':<9}{'operation':<15}{'library':<14}{'median s':>10}{'docs/s':>10}"
              f"{'nnz/s':>10}{'peak MiB':>10}{'speed-up':>10}{'x bound':>9}")
    print(header)
    print("-" * len(header))
    for r in report["results"]:
        speedup = f"{r['speedup']:.1f}x" if "speedup" in r else ""
        bound = f"{r['bound_ratio']:.0f}" if r["library"] == "nbfast" else ""
        print(
            f"{r['estimator']:<14}{r['dtype']:<9}{r['operation']:<15}{r['library']:<14}{r['seconds']:>10.3f}"
            f"{_si(r['docs_per_s']):>10}{_si(r['nnz_per_s']):>10}{r['peak_bytes'] / 2**20:>10.1f}{speedup:>10}"
            f"{bound:>9}"
        )
    print(
        "\nspeed-up: scikit-learn's median time over nbfast's; x bound: nbfast's time over the time to stream "
        "X (data + indices + indptr) once at the measured bandwidth; peak MiB: numpy allocations during one call "
        "(tracemalloc)."
    )
    checked = [r for r in report["results"] if "agreement" in r]
    if checked:
        print("\nagreement with scikit-learn:")
    for r in checked:
        what = (f"max |difference| of probabilities {r['agreement']:.1e}" if r["operation"] == "predict_proba"
                else f"{100 * r['agreement']:.2f}% equal labels")
        print(f"  {r['estimator']} {r['dtype']} {r['operation']}: {what}")
