"""The one place that decides how many threads a kernel uses, and what the build gave.

The policy (docs/performance.md, "Threads on a shared machine"): an explicit limit is obeyed as given,
``OMP_NUM_THREADS`` in the environment or a runtime limit (``threadpoolctl.threadpool_limits(...,
user_api="openmp")``); without one, OpenMP's default is capped at the CPUs this process may really use, its
CPU affinity mask and its cgroup's CPU quota, as ``os.process_cpu_count`` and loky count them. Small calls run
on one thread (``MIN_WORK_PER_THREAD``). An estimator's or vectorizer's ``n_jobs`` overrides the policy for
the calls it makes (:func:`n_jobs_limit`).
"""
import math
import os
import threading

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
# The thread count that an ``n_jobs`` in force in this thread chose (None: the policy decides).
_n_jobs_local = threading.local()


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

    The count of an ``n_jobs`` in force in this thread (:func:`n_jobs_limit`), else an explicit limit as
    given (``OMP_NUM_THREADS``, or ``threadpoolctl.threadpool_limits(..., user_api="openmp")``); otherwise
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
    n_threads = getattr(_n_jobs_local, "n_threads", None)
    if n_threads is None:
        n_threads = max(1, omp_get_max_threads())
        if n_threads == _DEFAULT_MAX_THREADS and not _ENVIRONMENT_LIMIT:
            n_threads = min(n_threads, _cpus())
    else:  # an n_jobs, but never beyond the limit of a thread that is itself one of several (limit_this_thread)
        n_threads = min(n_threads, getattr(_n_jobs_local, "ceiling", n_threads))
    if n_work is not None:
        n_threads = min(n_threads, max(1, int(n_work) // MIN_WORK_PER_THREAD))
    return n_threads


def _cpus():
    global _cpu_budget
    if _cpu_budget is None:
        _cpu_budget = available_cpus()
    return _cpu_budget


def threads_for_n_jobs(n_jobs):
    """The thread count an ``n_jobs`` asks for, in scikit-learn's meaning, or None for the default policy.

    Parameters
    ----------
    n_jobs : int or None
        None: the policy of :func:`effective_n_threads`; a positive int: that many threads at most (a call
        with little work still runs on fewer); -1: one per CPU this process may use (:func:`available_cpus`,
        read once per process); below -1: that many fewer, ``n_cpus + 1 + n_jobs``, at least 1.  The caller
        checked it (an int, not 0).

    Returns
    -------
    n_threads : int or None
    """
    if n_jobs is None:
        return None
    n_jobs = int(n_jobs)
    if n_jobs == 0:
        raise ValueError("n_jobs == 0 has no meaning; use None, a positive number or -1 for every CPU.")
    return n_jobs if n_jobs > 0 else max(1, _cpus() + 1 + n_jobs)


class n_jobs_limit:
    """Context: the kernels this thread calls inside it use the thread count ``n_jobs`` asks for
    (:func:`threads_for_n_jobs`); None leaves the count in force unchanged (an enclosing limit, or the
    policy).  The count is this thread's alone (threads started inside keep the policy), and the previous one
    is restored on exit, so limits nest: an inner ``n_jobs`` (an estimator's) replaces an outer one, unless the
    outer one is a ``ceiling`` (a command line's ``--jobs``), which no inner one passes.

    Parameters
    ----------
    n_jobs : int or None
    ceiling : bool, default False
    """

    def __init__(self, n_jobs, ceiling=False):
        self.n_threads = threads_for_n_jobs(n_jobs)
        self.ceiling = ceiling
        self.previous = None

    def __enter__(self):
        self.previous = (getattr(_n_jobs_local, "n_threads", None), getattr(_n_jobs_local, "ceiling", None))
        if self.n_threads is not None:
            n_threads = self.n_threads if self.previous[1] is None else min(self.n_threads, self.previous[1])
            _n_jobs_local.n_threads = n_threads
            if self.ceiling:
                _n_jobs_local.ceiling = n_threads
        return self

    def __exit__(self, *exc_info):
        _n_jobs_local.n_threads, ceiling = self.previous
        if ceiling is None:
            vars(_n_jobs_local).pop("ceiling", None)
        else:
            _n_jobs_local.ceiling = ceiling
        return False


def limit_state():
    """The ``n_jobs`` limit in force in this thread, for a thread that works for it to adopt
    (:func:`adopt_limit_state`): a background reader making blocks for a call that ``n_jobs`` limits."""
    return getattr(_n_jobs_local, "n_threads", None), getattr(_n_jobs_local, "ceiling", None)


def adopt_limit_state(state):
    """Make ``state`` (:func:`limit_state` of another thread) this thread's ``n_jobs`` limit."""
    _n_jobs_local.n_threads, ceiling = state
    if ceiling is not None:
        _n_jobs_local.ceiling = ceiling


def limit_this_thread(int n_threads):
    """Run the kernels this thread calls on at most ``n_threads`` threads (an explicit limit, see
    :func:`effective_n_threads`), whatever ``n_jobs`` an estimator called here asks for.  OpenMP keeps the
    setting per thread: other threads are not affected.

    Parameters
    ----------
    n_threads : int
        At least 1.
    """
    if n_threads < 1:
        raise ValueError(f"n_threads must be at least 1, got {n_threads}")
    omp_set_num_threads(n_threads)
    _n_jobs_local.ceiling = n_threads  # an n_jobs in force inside asks for no more


def bounds_checked():
    """Return True for the debug build, whose kernels check every memoryview index."""
    return bool(NBFAST_BOUNDSCHECK)
