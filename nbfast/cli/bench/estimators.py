"""``nbfast bench``: nbfast against scikit-learn, side by side in one process on the same data.

Every operation (fit, fit then the first predict, partial_fit in batches cut beforehand,
predict, predict_proba) runs once as a warm-up under ``tracemalloc`` (numpy
reports its allocations there, so this is the peak memory the call allocates),
then ``--repeats`` times for the median time.  Models are fitted and used for
one single-row prediction before their predict and predict_proba are timed, as
in a service that scores batch after batch (a model updated by partial_fit
builds its scoring table on the first prediction); "fit+predict" times that
first prediction, on all of X, with the fit.  The model's memory is the bytes of the arrays a fitted
model holds after predicting (:func:`nbfast.naive_bayes._base.held_nbytes`).
The physical bound of a kernel is the time to stream X once from memory: the
bytes of its data, indices and indptr over a memory bandwidth measured in the
same process by timing a large numpy copy.

``--corpus`` chooses the documents (:data:`CORPORA`): ``default`` (1M
documents x 2^18 features, 20 classes), ``hashed`` (a modest corpus over a
large hashed vocabulary: 50,000 short documents x 2^20 features, 50 classes)
or ``frequency`` (the default corpus with its vocabulary numbered by
frequency, the most frequent words at the lowest indices).
"""

import json
import sys

import numpy as np

from nbfast._compat import pyplot
from nbfast._kernels.threads import effective_n_threads
from nbfast.cli.bench._harness import (
    DOCS_PER_S,
    LIBRARY,
    PEAK_MIB,
    SECONDS,
    SPEEDUP,
    _si,
    agreement_of,
    agreement_text,
    check_common_args,
    column,
    input_bytes,
    machine_info,
    measure_bandwidth,
    print_rows,
    sklearn_estimator,
    thread_limit,
    time_call,
    time_libraries,
)
from nbfast.datasets import make_documents
from nbfast.naive_bayes import ESTIMATORS
from nbfast.naive_bayes._memory import held_nbytes

OPERATIONS = ("fit", "fit+predict", "partial_fit", "predict", "predict_proba")
#: --corpus: the defaults of the corpus options, and the other make_documents keywords.
CORPORA = {
    "default": ({"n_samples": 1_000_000, "n_features": 2**18, "n_classes": 20}, {}),
    "hashed": ({"n_samples": 50_000, "n_features": 2**20, "n_classes": 50}, {"mean_length": 40}),
    "frequency": ({"n_samples": 1_000_000, "n_features": 2**18, "n_classes": 20}, {"ordered_by_frequency": True}),
}
#: partial_fit is timed over this many batches unless --batch-size says otherwise.
N_BATCHES = 10
#: The estimators benchmarked: every registered one but the composites (MixedNB, CalibratedNB), built of the others.
BENCHED = {name: cls for name, cls in ESTIMATORS.items() if not cls._composite and cls._incremental}
#: Estimators that take dense input: they are timed on the first DENSE_FEATURES
#: columns of the corpus as a dense array (all of it would not fit in memory).
DENSE_ESTIMATORS = ("GaussianNB", "CategoricalNB")
DENSE_FEATURES = 64
_LIBRARIES = ("nbfast", "scikit-learn")
# Defaults of the options of the estimator benchmark (and CORPORA's of the corpus); --text has its own
# corpus size and refuses the others.
ESTIMATOR_DEFAULTS = {"corpus": "default", "dtype": ["float64"], "estimator": ["MultinomialNB"]}


def row_batches(X, y, batch_size):
    """(X, y) cut into batches of ``batch_size`` consecutive rows, as a reader streams them: views of X's arrays
    (scipy's row slicing copies the nonzeros, single-threaded, which would be timed with partial_fit)."""
    batches = []
    for start in range(0, X.shape[0], batch_size):
        stop = min(start + batch_size, X.shape[0])
        if isinstance(X, np.ndarray):
            X_batch = X[start:stop]
        else:
            first, last = X.indptr[start], X.indptr[stop]
            buffers = X.data[first:last], X.indices[first:last], X.indptr[start:stop + 1] - first
            X_batch = type(X)(buffers, shape=(stop - start, X.shape[1]))
            # scipy copies a view of a small part of an array, and may narrow the indices: the buffers as they are
            X_batch.data, X_batch.indices, X_batch.indptr = buffers
        batches.append((X_batch, y[start:stop]))
    return batches


def operation_calls(cls, operation, X, y, classes, batch_size):
    """A zero-argument callable performing ``operation`` with a fresh or fitted ``cls`` instance."""
    if operation == "fit":
        return lambda: cls().fit(X, y)
    if operation == "fit+predict":
        return lambda: cls().fit(X, y).predict(X)
    if operation == "partial_fit":
        batches = row_batches(X, y, batch_size)

        def stream():
            model = cls()
            for X_batch, y_batch in batches:
                model.partial_fit(X_batch, y_batch, classes=classes)
            return model

        return stream
    model = cls().fit(X, y)
    model.predict(X[:1])  # one-off set-up (tables a model derives on first use) happens here, not in the timed calls
    method = getattr(model, operation)
    return lambda: method(X)


def bench_estimator(name, X, y, args, bandwidth):
    """Time every operation of one estimator for both libraries on (X, y); return result rows."""
    implementations = {"nbfast": BENCHED[name], "scikit-learn": sklearn_estimator(name)}
    classes = np.unique(y)
    n_samples, nnz = X.shape[0], (X.size if isinstance(X, np.ndarray) else X.nnz)
    bound = input_bytes(X) / bandwidth
    model_bytes = {}
    for library, cls in implementations.items():
        if cls is not None:
            model = cls().fit(X, y)
            model.predict(X[:1])
            model_bytes[library] = held_nbytes(model)
            del model
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
            row["model_bytes"] = model_bytes[row["library"]]
        if len(outputs) == 2 and operation in ("predict_proba", "predict"):
            pair[0]["agreement"] = agreement_of(operation, *outputs.values())
        if len(pair) == 2:
            pair[0]["memory_ratio"] = model_bytes["scikit-learn"] / model_bytes["nbfast"]
        rows.extend(pair)
    return rows


def throughput_curve(name, X, y, args):
    """docs/s of fit and predict_proba for both libraries on growing slices X[:m]."""
    n = X.shape[0]
    sizes = sorted({max(2, n // 4**k) for k in range(4)})
    points = []
    for m in sizes:
        part = {"n_samples": m}
        for library in _LIBRARIES:
            cls = BENCHED[name] if library == "nbfast" else sklearn_estimator(name)
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
    plt = pyplot("--plot")
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


def _check_args(args):
    check_common_args(args, {**ESTIMATOR_DEFAULTS, **CORPORA[args.corpus or "default"][0]})
    if args.batch_size is None:
        args.batch_size = -(-args.n_samples // N_BATCHES)
    available = BENCHED
    names = list(available) if args.estimator == ["all"] else args.estimator
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ValueError(f"unknown estimator(s) {unknown}; nbfast has {sorted(available)}")
    if args.plot:
        pyplot("--plot")  # before the benchmark runs: a missing matplotlib fails now, not after minutes
    return names


def run(args):
    names = _check_args(args)
    log = sys.stderr if args.json else sys.stdout
    with thread_limit(args.threads):
        n_threads = effective_n_threads()
        print(f"Generating the {args.corpus} corpus: {args.n_samples:,} documents x {args.n_features:,} features, "
              f"{args.n_classes} classes ...", file=log, flush=True)
        X64, y = make_documents(args.n_samples, args.n_features, args.n_classes, random_state=args.seed,
                                **CORPORA[args.corpus][1])
        bandwidth = measure_bandwidth()
        report = {
            "machine": {**machine_info(bandwidth, n_threads), "busy": args.busy},
            "corpus": {"name": args.corpus, "n_samples": args.n_samples, "n_features": args.n_features,
                       "n_classes": args.n_classes, "nnz": int(X64.nnz), "seed": args.seed},
            "batch_size": args.batch_size,
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


def print_table(report):
    """Print the results as a plain-text table."""
    machine, corpus = report["machine"], report["corpus"]
    print(
        f"\n{corpus['name']} corpus: {corpus['n_samples']:,} documents x {corpus['n_features']:,} features, "
        f"{corpus['n_classes']} classes, {corpus['nnz']:,} nonzeros; partial_fit in batches of "
        f"{report['batch_size']:,}; {machine['threads']} thread(s) of {machine['nproc']} cores ({machine['cpu']}); "
        f"memory bandwidth {machine['bandwidth_bytes_per_s'] / 1e9:.1f} GB/s (numpy copy); "
        f"median of {report['repeats']} runs\n"
    )
    print_rows(report["results"], [
        column("estimator", "<14"), column("dtype", "<9"), column("operation", "<15"), LIBRARY, SECONDS, DOCS_PER_S,
        column("nnz/s", ">10", lambda r: _si(r["nnz_per_s"])), PEAK_MIB, SPEEDUP,
        column("x bound", ">9", lambda r: f"{r['bound_ratio']:.0f}" if r["library"] == "nbfast" else ""),
        column("model MiB", ">11", lambda r: f"{r['model_bytes'] / 2**20:.1f}"),
    ])  # fmt: skip
    print(
        "\nspeed-up: scikit-learn's median time over nbfast's; x bound: nbfast's time over the time to stream "
        "X (data + indices + indptr) once at the measured bandwidth; peak MiB: numpy allocations during one call "
        "(tracemalloc); model MiB: the arrays a fitted model holds after predicting."
    )
    memory = {r["estimator"]: r["memory_ratio"] for r in report["results"] if "memory_ratio" in r}
    if memory:
        print("\nmodel arrays, scikit-learn's over nbfast's: "
              + ", ".join(f"{name} {ratio:.1f}x" for name, ratio in memory.items()))
    checked = [r for r in report["results"] if "agreement" in r]
    if checked:
        print("\nagreement with scikit-learn:")
    for r in checked:
        print(f"  {r['estimator']} {r['dtype']} {r['operation']}: {agreement_text(r['operation'], r['agreement'])}")
