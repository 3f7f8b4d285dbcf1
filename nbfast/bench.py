"""``nbfast bench``: nbfast against scikit-learn, side by side in one process on the same data.

Every operation (fit, partial_fit, predict, predict_proba) runs once as a
warm-up under ``tracemalloc`` (numpy reports its allocations there, so this is
the peak memory the call allocates), then ``--repeats`` times for the median
time.  Models are fitted and used for one single-row prediction before their
predict and predict_proba are timed, as in a service that scores batch after
batch (nbfast builds its float32 scoring table on the first float32
prediction).  The physical bound of a kernel is the time to stream X once from memory:
the bytes of its data, indices and indptr over a memory bandwidth measured in
the same process by timing a large numpy copy.  ``--text`` runs the raw-text
benchmark of :mod:`nbfast.bench_text` instead.
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
# Defaults of the options of the estimator benchmark; --text has its own corpus size and refuses the others.
ESTIMATOR_DEFAULTS = {
    "n_samples": 1_000_000, "n_features": 2**18, "dtype": ["float64"], "estimator": ["MultinomialNB"],
    "batch_size": 100_000,
}  # fmt: skip


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
    parser.add_argument(
        "--text", action="store_true",
        help="time raw text instead: HashingVectorizer.transform, and raw text to labels with a "
        "HashingVectorizer + MultinomialNB pipeline",
    )
    parser.add_argument("--n-samples", type=int, help="documents (default 1000000; 200000 with --text)")
    parser.add_argument(
        "--n-features", type=int, help="vocabulary size, or hashed features with --text (default 262144; 1048576 "
        "with --text)",
    )
    parser.add_argument("--n-classes", type=int, default=20, help="number of classes (default 20)")
    parser.add_argument(
        "--dtype", nargs="+", choices=["float64", "float32"], help="dtype(s) of X, for both libraries (default float64)"
    )
    parser.add_argument("--estimator", nargs="+", help="estimator name(s), or 'all' (default MultinomialNB)")
    parser.add_argument(
        "--threads", type=int, default=None,
        help="threads for both libraries (nbfast's OpenMP and the BLAS); default: all cores",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per operation, median reported (default 3)")
    parser.add_argument("--batch-size", type=int, help="rows per partial_fit call (default 100000)")
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


def time_libraries(calls, repeats, n_samples, **fields):
    """Time each library's zero-argument call (see :func:`time_call`), nbfast's first.

    Returns ``(rows, outputs)``: a result row per library (``fields``, the library, the median and every time, docs/s,
    peak bytes) and each call's output; nbfast's row has the speed-up when scikit-learn ran too.
    """
    rows, outputs = [], {}
    for library, func in calls.items():
        times, peak, outputs[library] = time_call(func, repeats)
        seconds = float(np.median(times))
        rows.append({
            **fields, "library": library, "seconds": seconds, "times": times, "docs_per_s": n_samples / seconds,
            "peak_bytes": int(peak),
        })
    if len(rows) == 2:
        rows[0]["speedup"] = rows[1]["seconds"] / rows[0]["seconds"]
    return rows, outputs


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
        calls = {
            library: operation_calls(cls, operation, X, y, classes, args.batch_size)
            for library, cls in implementations.items() if cls is not None
        }
        pair, outputs = time_libraries(calls, args.repeats, n_samples, estimator=name, dtype=X.dtype.name,
                                       operation=operation)
        for row in pair:
            row["nnz_per_s"] = nnz / row["seconds"]
            row["bound_ratio"] = row["seconds"] / bound
        if len(outputs) == 2 and operation in ("predict_proba", "predict"):
            pair[0]["agreement"] = agreement_of(operation, *outputs.values())
        rows.extend(pair)
    return rows


def agreement_of(operation, nb_out, sk_out):
    """max |difference| of probabilities, or the fraction of equal labels."""
    if operation == "predict_proba":
        return float(np.max(np.abs(nb_out - sk_out))) if nb_out.size else 0.0
    return float(np.mean(nb_out == sk_out))


def agreement_text(operation, agreement):
    """How an agreement figure of :func:`agreement_of` reads in a table."""
    if operation == "predict_proba":
        return f"max |difference| of probabilities {agreement:.1e}"
    return f"{100 * agreement:.2f}% equal labels"


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
    """The machine, library versions and thread pools of a report (``bandwidth`` is left out when None)."""
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
    info = {"cpu": cpu, "nproc": os.cpu_count(), "threads": n_threads}
    if bandwidth is not None:
        info["bandwidth_bytes_per_s"] = bandwidth
    info.update(versions=versions, platform=platform.platform(), thread_pools=_thread_pools())
    return info


def _thread_pools():
    """The native thread pools in use (BLAS kernel, OpenMP runtime), when threadpoolctl is installed."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    keys = ("user_api", "internal_api", "version", "architecture", "num_threads")
    return [{k: pool[k] for k in keys if k in pool} for pool in threadpool_info()]


# ------------------------------------------------------------------ running
def check_common_args(args, defaults):
    """Set the options left unset to ``defaults`` (name: value), then check the options every benchmark takes."""
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if min(args.n_samples, args.n_features, args.n_classes) < 2:
        raise ValueError("--n-samples, --n-features and --n-classes must be at least 2")
    if args.repeats < 1:
        raise ValueError("--repeats must be at least 1")
    if args.threads is not None and args.threads < 1:
        raise ValueError("--threads must be at least 1")


def _check_args(args):
    check_common_args(args, ESTIMATOR_DEFAULTS)
    if args.batch_size < 1:
        raise ValueError("--batch-size must be at least 1")
    available = nbfast_estimators()
    names = list(available) if args.estimator == ["all"] else args.estimator
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ValueError(f"unknown estimator(s) {unknown}; nbfast has {sorted(available)}")
    return names


def run(args):
    if args.text:
        from nbfast import bench_text

        return bench_text.run(args)
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


def column(title, spec, cell=None):
    """A table column: its title, a format spec (width and alignment), and cell(row) -> str (default row[title])."""
    return title, spec, cell or (lambda row: row[title])


LIBRARY = column("library", "<14")
SECONDS = column("median s", ">10", lambda r: f"{r['seconds']:.3f}")
DOCS_PER_S = column("docs/s", ">10", lambda r: _si(r["docs_per_s"]))
PEAK_MIB = column("peak MiB", ">10", lambda r: f"{r['peak_bytes'] / 2**20:.1f}")
SPEEDUP = column("speed-up", ">10", lambda r: f"{r['speedup']:.1f}x" if "speedup" in r else "")


def print_rows(rows, columns):
    """Print result rows as a plain-text table of the given columns (see :func:`column`)."""
    header = "".join(f"{title:{spec}}" for title, spec, _ in columns)
    print(header)
    print("-" * len(header))
    for row in rows:
        print("".join(f"{cell(row):{spec}}" for _, spec, cell in columns))


def print_table(report):
    """Print the results as a plain-text table."""
    machine, corpus = report["machine"], report["corpus"]
    print(
        f"\n{corpus['n_samples']:,} documents x {corpus['n_features']:,} features, {corpus['n_classes']} classes, "
        f"{corpus['nnz']:,} nonzeros; {machine['threads']} thread(s) of {machine['nproc']} cores ({machine['cpu']}); "
        f"memory bandwidth {machine['bandwidth_bytes_per_s'] / 1e9:.1f} GB/s (numpy copy); "
        f"median of {report['repeats']} runs\n"
    )
    print_rows(report["results"], [
        column("estimator", "<14"), column("dtype", "<9"), column("operation", "<15"), LIBRARY, SECONDS, DOCS_PER_S,
        column("nnz/s", ">10", lambda r: _si(r["nnz_per_s"])), PEAK_MIB, SPEEDUP,
        column("x bound", ">9", lambda r: f"{r['bound_ratio']:.0f}" if r["library"] == "nbfast" else ""),
    ])  # fmt: skip
    print(
        "\nspeed-up: scikit-learn's median time over nbfast's; x bound: nbfast's time over the time to stream "
        "X (data + indices + indptr) once at the measured bandwidth; peak MiB: numpy allocations during one call "
        "(tracemalloc)."
    )
    checked = [r for r in report["results"] if "agreement" in r]
    if checked:
        print("\nagreement with scikit-learn:")
    for r in checked:
        print(f"  {r['estimator']} {r['dtype']} {r['operation']}: {agreement_text(r['operation'], r['agreement'])}")
