"""What every ``nbfast bench`` benchmark shares: timing both libraries in one process, thread limits, the
machine's description, argument checks and plain-text tables."""

import contextlib
import os
import platform
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import scipy

from nbfast import _compat
from nbfast._version import __version__

_BANDWIDTH_BYTES = 256 * 2**20


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


def thread_limit(n_threads):
    """Context limiting OpenMP and BLAS threads (threadpoolctl), or a no-op when n_threads is None."""
    if n_threads is None:
        return contextlib.nullcontext()
    return _compat.threadpoolctl("--threads").threadpool_limits(limits=n_threads)


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


def sklearn_estimator(name):
    """scikit-learn's estimator of that name, or None when it (or scikit-learn) is missing."""
    return _compat.sklearn_class("naive_bayes", name, "the benchmark") if _compat.SKLEARN_INSTALLED else None


@contextlib.contextmanager
def busy_core(busy=True):
    """Run a CPU-bound process for the duration of the block (when ``busy``), as another job on a shared machine.

    Yields the process (None when not ``busy``); it is killed when the block ends.
    """
    if not busy:
        yield None
        return
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.2)  # let it start and take its core
        yield spinner
    finally:
        spinner.kill()
        spinner.wait()


def machine_info(bandwidth, n_threads):
    """The machine, library versions and thread pools of a report (``bandwidth`` is left out when None)."""
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    versions = {"python": platform.python_version(), "numpy": np.__version__, "scipy": scipy.__version__,
                "nbfast": __version__}
    if _compat.sklearn_version() is not None:
        versions["scikit-learn"] = _compat.sklearn_version()
    info = {"cpu": cpu, "nproc": os.cpu_count(), "threads": n_threads}
    if bandwidth is not None:
        info["bandwidth_bytes_per_s"] = bandwidth
    info.update(versions=versions, platform=platform.platform(), thread_pools=_thread_pools())
    return info


def _thread_pools():
    """The native thread pools in use (BLAS kernel, OpenMP runtime), when threadpoolctl is installed."""
    threadpoolctl = _compat.threadpoolctl_if_installed()
    if threadpoolctl is None:
        return []
    keys = ("user_api", "internal_api", "version", "architecture", "num_threads")
    return [{k: pool[k] for k in keys if k in pool} for pool in threadpoolctl.threadpool_info()]


def check_common_args(args, defaults):
    """Set the options left unset to ``defaults`` (name: value), then check the options every benchmark takes."""
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if min(args.n_samples, args.n_features, args.n_classes) < 2:
        raise ValueError("--n-samples, --n-features and --n-classes must be at least 2")


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
