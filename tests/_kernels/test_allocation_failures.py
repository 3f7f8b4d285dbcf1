"""A per-thread buffer that cannot be allocated is a MemoryError, never a crash.

Each case asks a kernel for scratch of ``HUGE`` classes (8 TiB of doubles) while its input arrays hold nothing:
a table of shape (0, HUGE) is C-contiguous and takes no memory.  The cases run in a child interpreter whose
address space is limited (see ``isolated``), so malloc returns NULL; a kernel that used the NULL would end the
child by a signal.
"""

import re
from pathlib import Path

import numpy as np
from support import isolated

from nbfast._kernels import compact, discriminative, gaussian, scoring
from nbfast._kernels.scoring import Output
from nbfast._kernels.threads import bounds_checked

KERNELS = Path(__file__).parents[2] / "nbfast" / "_kernels"
HUGE = 1 << 40
# The debug build checks every index first: an empty table's first entry is then an IndexError, no crash either.
_REFUSED = (IndexError, MemoryError) if bounds_checked() else (MemoryError,)
_OUT_OF_MEMORY = r"MemoryError: nbfast: cannot allocate" + (r"|IndexError: Out of bounds" if bounds_checked() else "")


def _empty_rows(n_rows, index_dtype=np.int32):
    """CSR arrays of ``n_rows`` rows without a nonzero: (data, indices, indptr)."""
    return np.empty(0), np.empty(0, dtype=index_dtype), np.zeros(n_rows + 1, dtype=index_dtype)


def _score_csr(n_threads, rows=None):
    def call():
        data, indices, indptr = _empty_rows(3)
        scoring.score_csr(data, indices, indptr, np.empty((0, HUGE)), np.empty(0), False, 0.0, Output.ARGMAX,
                          np.empty((0, 0)), np.empty(3, dtype=np.int64), n_threads, 0, rows)
    return call


def _score_csr_then_valid():
    """The failure leaves nothing behind: the same kernel then scores a valid problem."""
    try:
        _score_csr(2)()
    except _REFUSED:
        pass
    data, indices, indptr = np.array([1.0, 2.0]), np.array([0, 1], dtype=np.int32), np.array([0, 1, 2],
                                                                                               dtype=np.int32)
    table, bias = np.array([[0.0, 1.0], [1.0, 0.0]]), np.zeros(2)
    out = np.empty((2, 2))
    scoring.score_csr(data, indices, indptr, table, bias, False, 0.0, Output.JOINT_LOG_LIKELIHOOD, out,
                      np.empty(0, dtype=np.int64), 2)
    np.testing.assert_array_equal(out, [[0.0, 1.0], [2.0, 0.0]])


def _gaussian_score(sparse):
    def call():
        data, indices, indptr = _empty_rows(3) if sparse else (np.empty(0), np.empty(0, dtype=np.int32),
                                                               np.empty(0, dtype=np.int32))
        gaussian.score(np.empty((3, 0)), data, indices, indptr, np.empty((0, HUGE)), np.empty((0, HUGE)),
                       np.empty(0), np.empty((0, 0)), Output.ARGMAX, np.empty((0, 0)), np.empty(3, dtype=np.int64),
                       2)
    return call


def _feature_class_counts():
    """Three features, the first with one stored class."""
    compact.feature_class_counts(np.empty(0, dtype=np.int32), np.empty(0, dtype=np.int32), np.empty(0),
                                 np.array([0, 1, 1, 1], dtype=np.int32), np.zeros(1, dtype=np.int32), np.ones(1),
                                 HUGE, 2)


def _softmax_residuals():
    data, indices, indptr = _empty_rows(3)
    discriminative.softmax_residuals_csr(data, indices, indptr, np.zeros(3, dtype=np.int64), np.ones(3),
                                         np.empty((0, HUGE)), np.empty(0), np.empty((3, 0)),
                                         np.empty((discriminative.n_row_blocks(3), 0)), 2)


def _transposed_product():
    data, indices, indptr = _empty_rows(3)
    discriminative.transposed_product_csr(data, indices, indptr, np.empty((0, HUGE)), np.empty((3, 0)), 2)


CASES = {
    "score_csr_one_thread": _score_csr(1),
    "score_csr_two_threads": _score_csr(2),
    "score_csr_listed_rows": _score_csr(2, np.array([2, 0], dtype=np.intp)),
    "score_csr_then_valid": _score_csr_then_valid,
    "gaussian_score_dense": _gaussian_score(False),
    "gaussian_score_csr": _gaussian_score(True),
    "compact_feature_class_counts": _feature_class_counts,
    "softmax_residuals_csr": _softmax_residuals,
    "transposed_product_csr": _transposed_product,
}
EXPECTED = {name: _OUT_OF_MEMORY for name in CASES} | {"score_csr_then_valid": "ok"}

test_out_of_memory_is_memory_error = isolated.case_test(__file__, CASES, EXPECTED)


_ALLOCATION = re.compile(r"([\w.\[\]]+) = (?:<[^>]*> )?(?:malloc|calloc|realloc)\(")


def test_every_allocation_is_checked():
    """Each pointer a kernel allocates is compared with NULL within the next few lines."""
    unchecked = []
    for path in sorted(KERNELS.glob("*.p[yx][xd]")):
        lines = path.read_text().splitlines()
        for number, line in enumerate(lines):
            for name in _ALLOCATION.findall(line):
                following = "\n".join(lines[number:number + 10])
                if f"{name} == NULL" not in following and f"{name} != NULL" not in following:
                    unchecked.append(f"{path.name}:{number + 1}: {name}")
    assert not unchecked, unchecked
