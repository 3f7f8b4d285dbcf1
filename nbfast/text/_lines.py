"""Documents that are the lines of one block of a text file: what the text readers hand to the vectorizers.

A block's lines are found by a kernel (``nbfast._kernels.lines``) in its UTF-8
bytes, or in the str it decodes to in another encoding; the vectorizers' kernels
then read each document in place, so a block of documents costs no str per line
(and a UTF-8 block no str at all).
"""

from abc import abstractmethod
from collections.abc import Iterable, Sequence
from itertools import chain

import numpy as np

from nbfast._kernels import lines as _lines
from nbfast._kernels import tokens as _tokens

#: to_array gathers documents of at most this many code points (memory: 4 bytes per document and code point).
MAX_GATHERED_WIDTH = 64


class InPlaceDocuments(Sequence):
    """Documents the vectorizers' kernels read where they are: indexing gives a document as a str, slicing
    (step 1) documents of the same kind over the same memory, and :meth:`views` describes them for the
    kernels."""

    @abstractmethod
    def views(self, lowercase):
        """(data, kind, length, lower) arrays describing the documents for the kernels (see
        ``nbfast._kernels.tokens.document_views``), and what they point into, to keep alive meanwhile."""


class TextLines(InPlaceDocuments):
    """A sequence of documents, each a span ``text[start[i]:stop[i]]`` of one str.

    Indexing gives the document as a str; slicing gives a TextLines over the same
    str.  Vectorizers read the spans in place.

    Parameters
    ----------
    text : str
    start, stop : ndarray of int64
        Where each document begins and ends in ``text`` (code points).
    """

    def __init__(self, text, start, stop):
        self.text, self.start, self.stop = text, start, stop

    def __len__(self):
        return self.start.shape[0]

    def __getitem__(self, index):
        if isinstance(index, slice):  # contiguous, as the kernels read the spans (a step would not be)
            return TextLines(self.text, np.ascontiguousarray(self.start[index]), np.ascontiguousarray(self.stop[index]))
        return self.text[self.start[index]:self.stop[index]]

    def __iter__(self):
        return map(self.text.__getitem__, map(slice, self.start.tolist(), self.stop.tolist()))

    def to_array(self):
        """The documents as a numpy array of str (as ``np.array(list(self))`` gives them); short ones, as labels
        are, gathered from the text's code points without a str each."""
        lengths = self.stop - self.start
        width = int(lengths.max()) if len(self) else 0
        if not 0 < width <= MAX_GATHERED_WIDTH:
            return np.array(list(self))
        codes = np.frombuffer(self.text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        columns = np.arange(width)
        index = np.minimum(self.start[:, None] + columns, codes.shape[0] - 1)
        return np.where(columns < lengths[:, None], codes[index], 0).astype(np.uint32).view(f"<U{width}").ravel()

    def views(self, lowercase):
        """(data, kind, length, lower) arrays describing the documents for the kernels, and the str they
        point into (see ``nbfast._kernels.tokens.document_views``).  Documents holding a capital sigma are
        lowercased here by ``str.lower`` when ``lowercase`` (its lowercase depends on its neighbours)."""
        n = len(self)
        arrays = (np.empty(n, np.uint64), np.empty(n, np.uint8), np.empty(n, np.int64), np.empty(n, np.uint8))
        sigma = np.empty(n, np.uint8)
        keep_alive = [self.text]
        if _lines.line_views(self.text, self.start, self.stop, bool(lowercase), *arrays, sigma):
            keep_alive = _described_lowered(self, arrays, sigma, keep_alive)
        return arrays, keep_alive


class Utf8Lines(InPlaceDocuments):
    """A sequence of documents, each a span ``data[start[i]:stop[i]]`` of one buffer of valid UTF-8 bytes.

    Indexing gives the document as a str (decoded then); slicing gives Utf8Lines over the same bytes.
    Vectorizers read the spans in place, as UTF-8.

    Parameters
    ----------
    data : bytes
    start, stop : ndarray of int64
        Where each document begins and ends in ``data`` (bytes).
    """

    def __init__(self, data, start, stop):
        self.data, self.start, self.stop = data, start, stop

    def __len__(self):
        return self.start.shape[0]

    def __getitem__(self, index):
        if isinstance(index, slice):
            return Utf8Lines(self.data, np.ascontiguousarray(self.start[index]), np.ascontiguousarray(self.stop[index]))
        return self.data[self.start[index]:self.stop[index]].decode()

    def __iter__(self):
        return (self.data[start:stop].decode() for start, stop in zip(self.start.tolist(), self.stop.tolist()))

    def to_array(self):
        """The documents as a numpy array of str (as ``np.array(list(self))`` gives them); short ones, as labels
        are, gathered from the bytes, each distinct one decoded once."""
        lengths = self.stop - self.start
        width = int(lengths.max()) if len(self) else 0
        if not 0 < width <= MAX_GATHERED_WIDTH:
            return np.array(list(self))
        codes = np.frombuffer(self.data, dtype=np.uint8)
        columns = np.arange(width)
        index = np.minimum(self.start[:, None] + columns, codes.shape[0] - 1)
        gathered = np.where(columns < lengths[:, None], codes[index], 0).astype(np.uint8)
        if gathered.max() < 0x80:  # ASCII: numpy decodes it
            return gathered.view(f"S{width}").ravel().astype(f"U{width}")
        distinct, inverse = np.unique(gathered.view(f"S{width}").ravel(), return_inverse=True)
        return np.array([document.decode() for document in distinct.tolist()])[inverse.ravel()]

    def views(self, lowercase):
        buffer = np.frombuffer(self.data, dtype=np.uint8)
        return utf8_views(self, buffer, self.start, self.stop, lowercase, keep_alive=[self.data])


def utf8_views(documents, buffer, start, stop, lowercase, keep_alive, sigma=None):
    """:meth:`InPlaceDocuments.views` of UTF-8 documents ``buffer[start[i]:stop[i]]`` (``buffer`` a uint8 array),
    ``documents[i]`` each as a str.  ``keep_alive`` holds what ``buffer`` points into; a document holding U+03A3
    is lowercased by ``str.lower`` (when ``lowercase``) and described as that str.  ``sigma``, when given, says
    which documents hold U+03A3 (nonzero) instead of a search of their bytes."""
    n = start.shape[0]
    data = np.uint64(buffer.ctypes.data) + start.astype(np.uint64) if buffer.size else np.zeros(n, np.uint64)
    arrays = (data, np.full(n, _tokens.KIND_UTF8, np.uint8), stop - start, np.full(n, bool(lowercase), np.uint8))
    if lowercase and sigma is None:
        sigma = np.empty(n, np.uint8)
        _lines.utf8_holding_sigma(buffer, start, stop, sigma)
    if lowercase and sigma.any():
        keep_alive = _described_lowered(documents, arrays, sigma, keep_alive)
    return arrays, keep_alive


def _described_lowered(documents, arrays, sigma, keep_alive):
    """Describe again, in ``arrays``, each document with ``sigma[i]`` set as its ``str.lower`` (a capital sigma's
    lowercase depends on its neighbours); return ``keep_alive`` with those str."""
    index = np.flatnonzero(sigma)
    lowered = [documents[i].lower() for i in index.tolist()]
    parts = [np.empty(index.shape[0], array.dtype) for array in arrays]
    _tokens.document_views(lowered, False, *parts)
    for array, part in zip(arrays, parts):
        array[index] = part
    return [*keep_alive, *lowered]


class DocumentBlocks(Iterable):
    """Documents that arrive in blocks (InPlaceDocuments or lists of str), as a file's blocks are read.

    Iterating gives the documents one by one; the vectorizers take the blocks as they come instead,
    so InPlaceDocuments are read in place.  It can be iterated once.

    Parameters
    ----------
    blocks : iterable of InPlaceDocuments or list of str
    """

    def __init__(self, blocks):
        self.blocks = iter(blocks)

    def __iter__(self):
        return chain.from_iterable(self.blocks)
