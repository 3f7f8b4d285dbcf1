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
    static inline void omp_set_num_threads(int n) { (void) n; }
    #endif
    """
    bint NBFAST_OPENMP
    int omp_get_max_threads() nogil
    int omp_get_thread_num() nogil
    void omp_set_num_threads(int n) nogil


# The fixed blocks the parallel loops hand out dynamically: a thread that loses its core holds up
# at most one block, and no block's size depends on the number of threads. A block of rows is a few
# tens of microseconds of scoring (256 rows of 20 nonzeros x 20 classes); a block of values is one
# vectorized pass over 32 KiB of float64.
cdef enum:
    ROW_BLOCK = 256
    VALUE_BLOCK = 4096
