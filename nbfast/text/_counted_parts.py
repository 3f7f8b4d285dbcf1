"""A corpus counted in parts on several threads, for fitting a vocabulary exactly as on the whole corpus."""

import numpy as np

from nbfast._kernels import vocabulary as _vocabulary
from nbfast._params import check_parameters
from nbfast.text import _common


class CountedParts:
    """The term statistics of a corpus whose parts (the blocks of a file, say) are counted apart, in any thread.

    :meth:`count` counts one part on the calling thread (a list of str, a block's documents or a column of
    Arrow strings), :meth:`add` takes the parts' counts in corpus order, and ``vectorizer.fit(parts)`` then
    learns the vocabulary (and, for a TfidfVectorizer, the idf) that fitting it on all the documents at once
    would: the same terms, indices and frequencies, whatever the number of threads (the kernels'
    ``VocabularyBuilder.merge``).  Only the terms and their frequencies are kept, never the documents or their
    rows; :meth:`statistics` and :meth:`from_statistics` carry a part's counts to another process.

    Parameters
    ----------
    vectorizer : CountVectorizer or TfidfVectorizer
        The vectorizer to fit, with the settings the parts are counted with.  Refused (ValueError) when its
        kernels do not implement its settings, when its ``vocabulary`` is given, or when ``max_features``
        ranks the terms by a matrix's inexact column sums (a dtype other than int32, int64 or float64).
    """

    def __init__(self, vectorizer):
        check_parameters(vectorizer)
        if not vectorizer._is_native() or vectorizer.vocabulary is not None or vectorizer._ranks_by_matrix():
            raise ValueError(f"this {type(vectorizer).__name__} cannot be fitted on counted parts (its settings "
                             "need the documents themselves): fit it on the documents")
        self._vectorizer, self._params = vectorizer, vectorizer.get_params()
        self._stop = vectorizer._stop_terms()  # on this thread: its warning, and the table, made once
        _common.lowercase_table()  # built here, before the threads that count read it
        self._merged = None

    def count(self, documents):
        """The counts of one part of the corpus (a list of str, a block's InPlaceDocuments or a column of Arrow
        strings), counted on the calling thread, to give to :meth:`add`."""
        counts = _vocabulary.VocabularyBuilder(False)
        self._vectorizer._count_batches(counts, _common.documents(documents), self._stop)
        return counts

    @staticmethod
    def statistics(counts):
        """(terms, document frequencies, term frequencies, number of documents) of a part's counts: what
        another process needs to make them again (:meth:`from_statistics`), plain lists and arrays.  The terms
        come in their order of first occurrence; parts of a corpus counted apart may also be added up as these
        (frequencies summed term by term, each term placed where it first occurs)."""
        return *counts.statistics(), counts.n_documents

    @staticmethod
    def from_statistics(terms, document_frequencies, term_frequencies, n_documents):
        """The counts of :meth:`statistics`' values (of one part, or of several added up), for :meth:`add`."""
        return _vocabulary.VocabularyBuilder.from_statistics(
            list(terms), np.ascontiguousarray(document_frequencies, dtype=np.int64),
            np.ascontiguousarray(term_frequencies, dtype=np.int64), int(n_documents))

    def add(self, counts):
        """Add the counts of the next part of the corpus (what :meth:`count` returned); in corpus order."""
        if self._merged is None:
            self._merged = counts
        else:
            self._merged.merge(counts)

    def merged(self, vectorizer, want_matrix=False):
        """The counts of every part added, for fitting ``vectorizer``: the one they were counted for, its
        settings unchanged (ValueError otherwise).  They are handed over once.  ``want_matrix`` (a
        ``fit_transform``) is refused: the counts hold no rows."""
        if want_matrix:
            raise ValueError("fit_transform needs the documents, not counts of them: fit on the counted parts, "
                             "then transform the documents")
        if vectorizer is not self._vectorizer or vectorizer.get_params() != self._params:
            raise ValueError("these parts were counted for another vectorizer, or its settings have changed since")
        if self._merged is None:
            raise ValueError("no counted parts to fit on (none added, or already fitted on)")
        merged, self._merged = self._merged, None
        return merged
