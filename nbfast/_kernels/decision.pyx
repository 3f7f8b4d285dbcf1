"""Bayes decisions row by row: expected loss, its minimum and the reject option,
without the (n_samples, n_classes) array of expected losses.

Each row is computed on its own (its expected losses summed over the true
classes in index order), so the result does not depend on the thread count.
"""
from cython.parallel cimport parallel, prange
from libc.stdlib cimport free, malloc

from nbfast._kernels._openmp cimport ROW_BLOCK
from nbfast._kernels._types cimport floating


def decide_rows(
    const floating[:, ::1] proba,
    const double[:, ::1] loss,
    bint use_loss,
    bint reject,
    double reject_cost,
    Py_ssize_t[::1] out,
    int n_threads,
):
    """Write the chosen action of every row into ``out``.

    Without ``use_loss`` (0-1 loss): the first most probable class, or -1 when
    ``reject`` and its probability is below ``1 - reject_cost``.  With
    ``use_loss``: the first class of minimal ``sum_i proba[i] * loss[i, j]``, or
    -1 when ``reject`` and ``reject_cost`` is strictly below that minimum.
    """
    cdef Py_ssize_t n_samples = proba.shape[0]
    cdef Py_ssize_t n_classes = proba.shape[1]
    cdef Py_ssize_t r, i, j, best
    cdef double value
    cdef double threshold = 1.0 - reject_cost
    cdef double *expected
    cdef int failed = 0
    cdef int *failed_flag = &failed  # written through a pointer: shared by the threads

    if n_samples == 0 or n_classes == 0:
        return
    with nogil, parallel(num_threads=n_threads):
        expected = <double *> malloc(n_classes * sizeof(double)) if use_loss else NULL  # only the loss needs it
        if use_loss and expected == NULL:
            failed_flag[0] = 1
        for r in prange(n_samples, schedule="dynamic", chunksize=ROW_BLOCK):
            best = 0
            if use_loss:
                if expected == NULL:  # this thread has no scratch: its rows are left undone, and MemoryError raised
                    continue
                for j in range(n_classes):
                    expected[j] = 0.0
                for i in range(n_classes):
                    value = proba[r, i]
                    if value != 0.0:
                        for j in range(n_classes):
                            expected[j] += value * loss[i, j]
                for j in range(1, n_classes):
                    if expected[j] < expected[best]:
                        best = j
                if reject and reject_cost < expected[best]:
                    best = -1
            else:
                for j in range(1, n_classes):
                    if proba[r, j] > proba[r, best]:
                        best = j
                if reject and proba[r, best] < threshold:
                    best = -1
            out[r] = best
        free(expected)
    if failed:
        raise MemoryError(f"nbfast: cannot allocate the per-thread expected losses ({n_classes} doubles)")
