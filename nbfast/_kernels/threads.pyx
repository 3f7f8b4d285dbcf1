"""The one place that decides how many threads a kernel uses, and what the build gave."""
from nbfast._kernels._openmp cimport NBFAST_OPENMP, omp_get_max_threads

cdef extern from *:
    int NBFAST_BOUNDSCHECK  # set by setup.py: 1 in the debug build (NBFAST_DEBUG_BUILD=1)


def openmp_enabled():
    """Return True when the kernels were compiled with OpenMP."""
    return bool(NBFAST_OPENMP)


def effective_n_threads():
    """Number of threads for the next kernel call.

    OpenMP's current maximum: all cores by default, lowered by ``OMP_NUM_THREADS``
    or by ``threadpoolctl.threadpool_limits(..., user_api="openmp")``.
    """
    return max(1, omp_get_max_threads())


def bounds_checked():
    """Return True for the debug build, whose kernels check every memoryview index."""
    return bool(NBFAST_BOUNDSCHECK)
