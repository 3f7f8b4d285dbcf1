# Fused types shared by every kernel: float32/float64 data, int32/int64 indices.
from libc.stdint cimport int32_t, int64_t

ctypedef fused floating:
    float
    double

ctypedef fused integral:
    int32_t
    int64_t

# The feature pointers of compact statistics: int32 while their entries fit.
ctypedef fused pointer_integral:
    int32_t
    int64_t
