"""The one place that decides how many threads a kernel uses."""
from nbfast._kernels._openmp cimport NBFAST_OPENMP, omp_get_max_threads


def openmp_enabled():
    """Return True when the kernels were compiled with OpenMP."""
    return bool(NBFAST_OPENMP)


def effective_n_threads():
    """Number of threads for the next kernel call.

    OpenMP's current maximum: all cores by default, lowered by ``OMP_NUM_THREADS``
    or by ``threadpoolctl.threadpool_limits(..., user_api="openmp")``.
    """
    return max(1, omp_get_max_threads())
