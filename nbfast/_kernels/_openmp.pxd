# OpenMP shims: the kernels call these whether or not the build found OpenMP.
cdef extern from *:
    """
    #ifdef _OPENMP
    #include <omp.h>
    #define NBFAST_OPENMP 1
    #else
    #define NBFAST_OPENMP 0
    static inline int omp_get_max_threads(void) { return 1; }
    static inline int omp_get_thread_num(void) { return 0; }
    #endif
    """
    bint NBFAST_OPENMP
    int omp_get_max_threads() nogil
    int omp_get_thread_num() nogil
