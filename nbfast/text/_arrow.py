"""Columns of Arrow strings as documents, read where Arrow holds them.

A pyarrow ``StringArray``/``LargeStringArray`` (a ``StringViewArray`` is cast to one), a ``ChunkedArray`` of
them, a pandas Series of ``string[pyarrow]`` and a polars ``String`` Series all keep their documents as UTF-8
bytes back to back and an array of offsets.  The tokenizer reads those bytes in place (``KIND_UTF8`` views):
no Python str is made per document, except for the rare document holding U+03A3 when lowercasing, whose
lowercase ``str.lower`` decides (it depends on its neighbours).  Null documents are refused, as None is in a
list of str.

The offsets are checked first, then each string's UTF-8 as Python's strict decoder judges it (a string that
starts or ends inside a character is not valid, even where the bytes back to back are), by a kernel that
releases the GIL, large columns in parallel; the same pass notes the documents holding U+03A3.
"""

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from nbfast import _compat
from nbfast._kernels import lines as _lines
from nbfast._kernels.threads import effective_n_threads
from nbfast.text._lines import InPlaceDocuments, utf8_views

#: Bytes of UTF-8 one thread checks at least: a smaller column is checked by one thread.
MIN_UTF8_BYTES_PER_THREAD = 1 << 22


class ArrowDocuments(InPlaceDocuments):
    """Documents in one Arrow string array: its UTF-8 bytes and int64 offsets (``offsets[i]`` to
    ``offsets[i + 1]`` in ``data`` is document i), and ``sigma[i]``, whether document i holds U+03A3 (found
    when its UTF-8 was checked).  Indexing gives a str; slicing an ArrowDocuments over the same bytes."""

    def __init__(self, array, data, offsets, sigma):
        self.array, self.data, self.offsets, self.sigma = array, data, offsets, sigma

    def __len__(self):
        return self.offsets.shape[0] - 1

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                raise ValueError("Arrow documents are sliced with a step of 1.")
            stop = max(start, stop)
            return ArrowDocuments(self.array.slice(start, stop - start), self.data, self.offsets[start:stop + 1],
                                  self.sigma[start:stop])
        return self.array[index].as_py()

    def __iter__(self):
        return iter(self.array.to_pylist())

    def views(self, lowercase):
        return utf8_views(self, self.data, self.offsets[:-1], self.offsets[1:], lowercase,
                          keep_alive=[self.array, self.data], sigma=self.sigma)

    def blocks(self, size):
        """Slices of at most ``size`` documents."""
        return (self[start:start + size] for start in range(0, len(self), size))


class ArrowColumn(Sequence):
    """The chunks of a column of Arrow strings, each an :class:`ArrowDocuments`, as one sequence."""

    def __init__(self, chunks):
        self.chunks = chunks
        self.ends = np.cumsum([len(chunk) for chunk in chunks], dtype=np.int64)

    def __len__(self):
        return int(self.ends[-1]) if len(self.ends) else 0

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not -len(self) <= index < len(self):
            raise IndexError("document index out of range")
        index %= len(self)
        k = int(np.searchsorted(self.ends, index, side="right"))
        return self.chunks[k][index - (int(self.ends[k - 1]) if k else 0)]

    def __iter__(self):
        for chunk in self.chunks:
            yield from chunk

    def blocks(self, size):
        """Slices of at most ``size`` documents, none across two chunks."""
        for chunk in self.chunks:
            yield from chunk.blocks(size)


def arrow_column(X):
    """X as an :class:`ArrowColumn` when it is a column of Arrow strings (pyarrow, pandas ``string[pyarrow]``
    or ``ArrowDtype``, polars), else None; ValueError for nulls or malformed UTF-8, TypeError for a column
    that does not hold strings."""
    X = _compat.as_arrow(X)
    if X is None:
        return None
    pa = _compat.pyarrow(purpose="Arrow text input", extra="arrow")
    if X.null_count:
        raise ValueError(f"{X.null_count} of the {len(X)} documents are null: fill them first, for example with "
                         "pyarrow.compute.fill_null(column, '') to read them as empty documents.")
    if pa.types.is_string_view(X.type):
        X = X.cast(pa.large_string())
    if not (pa.types.is_string(X.type) or pa.types.is_large_string(X.type)):
        raise TypeError(f"documents must be strings; the Arrow column holds {X.type}.")
    chunks = X.chunks if isinstance(X, pa.ChunkedArray) else [X]
    return ArrowColumn([arrow_documents(chunk) for chunk in chunks if len(chunk)])


def arrow_documents(array):
    """One Arrow ``string`` or ``large_string`` array without nulls as ArrowDocuments: its buffers read in
    place, offsets widened to int64; ValueError for malformed offsets or UTF-8."""
    pa = _compat.pyarrow(purpose="Arrow text input", extra="arrow")
    try:
        array.validate()  # the buffers' sizes, the first and last offsets; the rest is checked below
    except pa.ArrowInvalid as exc:
        raise ValueError(f"the Arrow column is malformed: {exc}") from None
    data, offsets = string_buffers(array)
    sigma = np.empty(len(array), np.uint8)
    problem = offsets_problem(offsets) or utf8_problem(data, offsets, sigma)
    if problem is not None:
        raise ValueError(f"the Arrow column is malformed: {problem}")
    return ArrowDocuments(array, data, offsets, sigma)


def offsets_problem(offsets):
    """What is wrong with the int64 ``offsets`` of strings (a message), or None: they may not decrease (that the
    first and the last lie within the data, ``Array.validate`` checks)."""
    decreasing = offsets[1:] < offsets[:-1]
    if not decreasing.any():
        return None
    i = int(np.argmax(decreasing))
    return f"the offsets decrease at string {i} (from {offsets[i]} to {offsets[i + 1]})"


def utf8_problem(data, offsets, sigma):
    """The first string ``data[offsets[i]:offsets[i + 1]]`` that is not valid UTF-8, as Python's strict decoder
    judges it (a message), or None; ``sigma[i]``, whether string i holds U+03A3, for every string when None.

    The strings are checked by a kernel that releases the GIL: parts of at least
    :data:`MIN_UTF8_BYTES_PER_THREAD` bytes in parallel.
    """
    n_bytes = int(offsets[-1] - offsets[0])
    n_threads = min(effective_n_threads(), max(1, n_bytes // MIN_UTF8_BYTES_PER_THREAD))
    # the strings cut into n_threads parts of about as many bytes
    cuts = np.searchsorted(offsets, np.linspace(offsets[0], offsets[-1], n_threads + 1)[1:-1]).tolist()
    bounds = [0, *cuts, len(sigma)]
    parts = [(data, offsets[a:b + 1], sigma[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    if n_threads == 1:
        errors = [_lines.utf8_strings_error(*parts[0])]
    else:
        with ThreadPoolExecutor(n_threads) as pool:
            errors = list(pool.map(lambda part: _lines.utf8_strings_error(*part), parts))
    for first, (string, offset) in zip(bounds, errors):  # the first part with an invalid string names it
        if string >= 0:
            i = first + string
            return f"string {i} is not valid UTF-8 (byte 0x{data[offsets[i] + offset]:02x} at its offset {offset})"
    return None


def string_buffers(array):
    """(data, offsets) of an Arrow ``string`` or ``large_string`` array, read in place: its UTF-8 bytes as uint8
    and int64 offsets, ``data[offsets[i]:offsets[i + 1]]`` the bytes of string i (nulls are empty)."""
    pa = _compat.pyarrow(purpose="Arrow text input", extra="arrow")
    _, offsets_buffer, data_buffer = array.buffers()
    width = np.int64 if pa.types.is_large_string(array.type) else np.int32
    offsets = np.frombuffer(offsets_buffer, dtype=width, count=len(array) + 1, offset=array.offset * width().itemsize)
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.empty(0, np.uint8)
    return data, offsets.astype(np.int64)
