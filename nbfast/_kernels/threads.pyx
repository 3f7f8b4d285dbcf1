"""The one place that decides how many threads a kernel uses, and what the build gave.

The policy (docs/performance.md, "Threads on a shared machine"): an explicit limit is obeyed as given,
``OMP_NUM_THREADS`` in the environment or a runtime limit (``threadpoolctl.threadpool_limits(...,
user_api="openmp")``); without one, OpenMP's default is capped at the CPUs this process may really use, its
CPU affinity mask and its cgroup's CPU quota, as ``os.process_cpu_count`` and loky count them. Small calls run
on one thread (``MIN_WORK_PER_THREAD``).
"""
import math
import os

from nbfast._kernels._openmp cimport NBFAST_OPENMP, omp_get_max_threads, omp_set_num_threads

cdef extern from *:
    int NBFAST_BOUNDSCHECK  # set by setup.py: 1 in the debug build (NBFAST_DEBUG_BUILD=1)


def openmp_enabled():
    """Return True when the kernels were compiled with OpenMP."""
    return bool(NBFAST_OPENMP)


#: Units of work (stored nonzeros, or output entries) below which a kernel
#: runs on one thread: waking and joining threads would cost more than it
#: saves. Results never depend on the thread count, so this only moves time.
MIN_WORK_PER_THREAD = 20_000

#: Where the cgroup CPU controller's files are
#: (v2: ``cpu.max``; v1: ``cpu/cpu.cfs_quota_us`` and ``cpu.cfs_period_us``).
CGROUP_ROOT = "/sys/fs/cgroup"

# OpenMP's maximum before anyone limited it, and whether the environment set it: a maximum that differs
# from this default, or one OMP_NUM_THREADS chose, is an explicit limit.
_DEFAULT_MAX_THREADS = max(1, omp_get_max_threads())
_ENVIRONMENT_LIMIT = bool(os.environ.get("OMP_NUM_THREADS", "").strip())
_cpu_budget = None


def _read_words(path):
    try:
        with open(path) as f:
            return f.read().split()
    except (OSError, UnicodeDecodeError):
        return None


def cgroup_cpu_limit(cgroup_root=CGROUP_ROOT):
    """CPUs the cgroup's quota allows (quota / period rounded up, at least 1), or None when unlimited or unknown.

    Parameters
    ----------
    cgroup_root : str, default "/sys/fs/cgroup"
        The cgroup file system's mount point: v2's ``cpu.max`` ("max 100000" or "200000 100000") is read
        there, else v1's ``cpu/cpu.cfs_quota_us`` (-1 when unlimited) and ``cpu/cpu.cfs_period_us``.

    Returns
    -------
    n_cpus : int or None
    """
    words = _read_words(os.path.join(cgroup_root, "cpu.max"))
    if words is None:
        quota = _read_words(os.path.join(cgroup_root, "cpu", "cpu.cfs_quota_us"))
        period = _read_words(os.path.join(cgroup_root, "cpu", "cpu.cfs_period_us"))
        words = None if quota is None or period is None else quota[:1] + period[:1]
    if not words or len(words) < 2 or words[0] == "max":
        return None
    try:
        quota, period = int(words[0]), int(words[1])
    except ValueError:
        return None
    if quota <= 0 or period <= 0:  # v1 writes -1 for "no quota"
        return None
    return max(1, math.ceil(quota / period))


def available_cpus(cgroup_root=CGROUP_ROOT):
    """CPUs this process may use: its affinity mask, capped by its cgroup's CPU quota.

    Parameters
    ----------
    cgroup_root : str, default "/sys/fs/cgroup"
        See :func:`cgroup_cpu_limit`.

    Returns
    -------
    n_cpus : int
    """
    try:
        n_cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity masks on this platform
        n_cpus = os.cpu_count() or 1
    quota = cgroup_cpu_limit(cgroup_root)
    return max(1, n_cpus if quota is None else min(n_cpus, quota))


def effective_n_threads(n_work=None):
    """Number of threads for the next kernel call.

    An explicit limit as given (``OMP_NUM_THREADS``, or
    ``threadpoolctl.threadpool_limits(..., user_api="openmp")``); otherwise
    OpenMP's default capped at :func:`available_cpus` (read once per process).
    When ``n_work`` is given, no more than one thread per ``MIN_WORK_PER_THREAD``.

    Parameters
    ----------
    n_work : int, optional
        The call's units of work (stored nonzeros, or output entries).

    Returns
    -------
    n_threads : int
    """
    global _cpu_budget
    n_threads = max(1, omp_get_max_threads())
    if n_threads == _DEFAULT_MAX_THREADS and not _ENVIRONMENT_LIMIT:
        if _cpu_budget is None:
            _cpu_budget = available_cpus()
        n_threads = min(n_threads, _cpu_budget)
    if n_work is not None:
        n_threads = min(n_threads, max(1, int(n_work) // MIN_WORK_PER_THREAD))
    return n_threads


def limit_this_thread(int n_threads):
    """Run the kernels this thread calls on at most ``n_threads`` threads (an explicit limit, see
    :func:`effective_n_threads`).  OpenMP keeps the setting per thread: other threads are not affected.

    Parameters
    ----------
    n_threads : int
        At least 1.
    """
    if n_threads < 1:
        raise ValueError(f"n_threads must be at least 1, got {n_threads}")
    omp_set_num_threads(n_threads)


def bounds_checked():
    """Return True for the debug build, whose kernels check every memoryview index."""
    return bool(NBFAST_BOUNDSCHECK)
