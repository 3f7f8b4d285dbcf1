"""The one place that decides how many threads a kernel uses, and what the build gave."""
from nbfast._kernels._openmp cimport NBFAST_OPENMP, omp_get_max_threads

cdef extern from *:
    int NBFAST_BOUNDSCHECK  # set by setup.py: 1 in the debug build (NBFAST_DEBUG_BUILD=1)


def openmp_enabled():
    """Return True when the kernels were compiled with OpenMP."""
    return bool(NBFAST_OPENMP)


#: Units of work (stored nonzeros, or output entries) below which a kernel
#: runs on one thread: waking and joining threads would cost more than it
#: saves. Results never depend on the thread count, so this only moves time.
MIN_WORK_PER_THREAD = 20_000


def effective_n_threads(n_work=None):
    """Number of threads for the next kernel call.

    OpenMP's current maximum: all cores by default, lowered by ``OMP_NUM_THREADS``
    or by ``threadpoolctl.threadpool_limits(..., user_api="openmp")``; and, when
    ``n_work`` is given, no more than one thread per ``MIN_WORK_PER_THREAD``.
    """
    n_threads = max(1, omp_get_max_threads())
    if n_work is not None:
        n_threads = min(n_threads, max(1, int(n_work) // MIN_WORK_PER_THREAD))
    return n_threads


def bounds_checked():
    """Return True for the debug build, whose kernels check every memoryview index."""
    return bool(NBFAST_BOUNDSCHECK)
