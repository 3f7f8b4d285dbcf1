"""Columns of Arrow strings as documents, read where Arrow holds them.

A pyarrow ``StringArray``/``LargeStringArray`` (a ``StringViewArray`` is cast to one), a ``ChunkedArray`` of
them, a pandas Series of ``string[pyarrow]`` and a polars ``String`` Series all keep their documents as UTF-8
bytes back to back and an array of offsets.  The tokenizer reads those bytes in place (``KIND_UTF8`` views):
no Python str is made per document, except for the rare document holding U+03A3 when lowercasing, whose
lowercase ``str.lower`` decides (it depends on its neighbours).  Null documents are refused, as None is in a
list of str.
"""

from collections.abc import Sequence

import numpy as np

from nbfast import _compat
from nbfast.text._lines import InPlaceDocuments, utf8_views


class ArrowDocuments(InPlaceDocuments):
    """Documents in one Arrow string array: its UTF-8 bytes and int64 offsets (``offsets[i]`` to
    ``offsets[i + 1]`` in ``data`` is document i).  Indexing gives a str; slicing an ArrowDocuments over the
    same bytes."""

    def __init__(self, array, data, offsets):
        self.array, self.data, self.offsets = array, data, offsets

    def __len__(self):
        return self.offsets.shape[0] - 1

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                raise ValueError("Arrow documents are sliced with a step of 1.")
            stop = max(start, stop)
            return ArrowDocuments(self.array.slice(start, stop - start), self.data, self.offsets[start:stop + 1])
        return self.array[index].as_py()

    def __iter__(self):
        return iter(self.array.to_pylist())

    def views(self, lowercase):
        return utf8_views(self, self.data, self.offsets[:-1], self.offsets[1:], lowercase,
                          keep_alive=[self.array, self.data])

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
    place, offsets widened to int64; ValueError for malformed UTF-8 or offsets."""
    pa = _compat.pyarrow(purpose="Arrow text input", extra="arrow")
    try:
        array.validate(full=True)  # UTF-8 and offsets
    except pa.ArrowInvalid as exc:
        raise ValueError(f"the Arrow column is malformed: {exc}") from None
    return ArrowDocuments(array, *string_buffers(array))


def string_buffers(array):
    """(data, offsets) of an Arrow ``string`` or ``large_string`` array, read in place: its UTF-8 bytes as uint8
    and int64 offsets, ``data[offsets[i]:offsets[i + 1]]`` the bytes of string i (nulls are empty)."""
    pa = _compat.pyarrow(purpose="Arrow text input", extra="arrow")
    _, offsets_buffer, data_buffer = array.buffers()
    width = np.int64 if pa.types.is_large_string(array.type) else np.int32
    offsets = np.frombuffer(offsets_buffer, dtype=width, count=len(array) + 1, offset=array.offset * width().itemsize)
    data = np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None else np.empty(0, np.uint8)
    return data, offsets.astype(np.int64)
