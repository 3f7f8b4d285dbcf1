"""numpy arrays to Arrow arrays and back through their buffers.

pyarrow's own conversions (``pyarrow.array``, ``pyarrow.scalar``, ``Array.to_numpy``) import pandas when it is
installed, which takes longer than a whole ``nbfast predict`` of a small file; these make the same arrays from
the buffers, and never import it.
"""

import numpy as np

from nbfast import _compat


def _pyarrow():
    return _compat.pyarrow(purpose="Arrow arrays", extra="arrow")


def arrow_values(values):
    """A 1-D numpy array of numbers, booleans or str as an Arrow array (numbers over the same memory)."""
    pa = _pyarrow()
    values = np.ascontiguousarray(values)
    if values.dtype.kind == "b":
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    if values.dtype.kind in "iuf":
        return pa.Array.from_buffers(pa.from_numpy_dtype(values.dtype), len(values), [None, pa.py_buffer(values)])
    return string_array([str(value) for value in values.tolist()])


def string_array(strings):
    """A list of str as an Arrow ``string`` array."""
    pa = _pyarrow()
    encoded = [string.encode() for string in strings]
    offsets = np.zeros(len(encoded) + 1, np.int64)
    np.cumsum([len(data) for data in encoded], out=offsets[1:])
    kind, width = (pa.string(), np.int32) if offsets[-1] < 2**31 else (pa.large_string(), np.int64)
    buffers = [None, pa.py_buffer(offsets.astype(width)), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(kind, len(encoded), buffers)


def numeric_values(array):
    """An Arrow array of integers or floats without nulls as numpy int64 or float64 (read-only)."""
    pa = _pyarrow()
    kind, dtype = (pa.float64(), np.float64) if pa.types.is_floating(array.type) else (pa.int64(), np.int64)
    if array.type != kind:
        array = _compat.pyarrow("compute", "Arrow arrays", extra="arrow").cast(array, kind)
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array), offset=array.offset * 8)
