"""Sparse matrices: scipy.sparse imported when first used, and CSR rows that need none.

Importing scipy.sparse takes longer than importing numpy and all of nbfast (scipy's array-API layer imports
numpy.f2py, numpy.testing and numpy.ma with it).  Modules take it as ``from nbfast import _sparse as sp``,
which imports it on the first use of a name other than those defined here.  The vectorizers' kernels make
:class:`Rows`, which the streaming readers keep and the models that declare ``_reads_rows`` (MultinomialNB,
ComplementNB) learn from and score without a scipy matrix: the command line trains them on raw text and
scores raw text with them without importing scipy.sparse.
"""

import sys
from typing import NamedTuple

import numpy as np


def issparse(x):
    """``scipy.sparse.issparse(x)``, answered without importing scipy.sparse when it is not imported yet (no
    sparse matrix exists before)."""
    sparse = sys.modules.get("scipy.sparse")
    check = getattr(sparse, "issparse", None)  # None too while another thread is still importing it
    return check is not None and check(x)


def __getattr__(name):
    import scipy.sparse

    return getattr(scipy.sparse, name)


class Rows(NamedTuple):
    """The buffers of CSR rows (``data``, ``indices``, ``indptr``) and the matrix's shape, as nbfast's
    kernels and readers make them, before they become a csr_matrix (:func:`as_csr`).

    The vectorizers' rows are canonical (each row's indices sorted, none twice).  Models whose partial_fit and
    predictions read only these buffers take them as they are (see ``_BaseNB._reads_rows``)."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def nnz(self):
        return self.data.shape[0]

    def astype(self, dtype):
        """The rows with data of ``dtype``: for canonical rows, what scipy's ``astype`` gives."""
        return self._replace(data=self.data.astype(dtype))


def csr(data, indices, indptr, shape):
    """A csr_matrix of these buffers, as they are (scipy's constructor may downcast the index dtype)."""
    import scipy.sparse

    X = scipy.sparse.csr_matrix((data, indices, indptr), shape=shape, copy=False)
    X.indices, X.indptr = indices, indptr
    return X


def as_csr(X):
    """Rows as a csr_matrix of their buffers; a scipy matrix as it is."""
    return csr(*X) if isinstance(X, Rows) else X
