"""Documents that are the lines of one str: what the text readers hand to the vectorizers.

A block of a text file is decoded into one str and its lines found by a kernel
(``nbfast._kernels.lines``); the vectorizers' kernels then read each document
in place, so a block of documents costs no str per line.
"""

from collections.abc import Iterable, Sequence
from itertools import chain

import numpy as np

from nbfast._kernels import lines as _lines
from nbfast._kernels import tokens as _tokens

#: to_array gathers documents of at most this many code points (memory: 4 bytes per document and code point).
MAX_GATHERED_WIDTH = 64


class TextLines(Sequence):
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
            index = np.flatnonzero(sigma)
            lowered = [self[i].lower() for i in index.tolist()]
            parts = [np.empty(index.shape[0], array.dtype) for array in arrays]
            _tokens.document_views(lowered, False, *parts)
            for array, part in zip(arrays, parts):
                array[index] = part
            keep_alive.extend(lowered)
        return arrays, keep_alive


class DocumentBlocks(Iterable):
    """Documents that arrive in blocks (TextLines or lists of str), as a file's blocks are read.

    Iterating gives the documents one by one; the vectorizers take the blocks as they come instead,
    so TextLines are read in place.  It can be iterated once.

    Parameters
    ----------
    blocks : iterable of TextLines or list of str
    """

    def __init__(self, blocks):
        self.blocks = iter(blocks)

    def __iter__(self):
        return chain.from_iterable(self.blocks)
