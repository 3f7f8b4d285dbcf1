"""The analysis methods scikit-learn documents on its vectorizers (``build_analyzer``,
``build_preprocessor``, ``build_tokenizer``, ``decode``, ``get_stop_words``), shared by
CountVectorizer, TfidfVectorizer and HashingVectorizer, and the Python path they take.

A subclass may override any of these methods (scikit-learn's documented way to add
stemming or a custom tokenizer).  Such a vectorizer never runs the kernels: it runs
scikit-learn's vectorizer of the same options (its "twin"), with every overridden
method bound to the subclass's, so the result is scikit-learn's for that subclass.
"""

from nbfast import _compat
from nbfast.text import _common

#: The methods a subclass may override; an override sends the vectorizer to the Python path.
ANALYSIS_METHODS = ("build_analyzer", "build_preprocessor", "build_tokenizer", "decode", "get_stop_words")


class AnalysisMixin:
    """scikit-learn's ``_VectorizerMixin`` API, honouring a subclass's overrides.

    A class using it names its scikit-learn counterpart (``_sklearn_name``), the
    options that counterpart takes (``_sklearn_params``) and what nbfast's kernels
    implement (``_native``, for the error when scikit-learn is missing).
    """

    _sklearn_name = None
    _sklearn_params = ()
    _native = ""

    def _overridden(self):
        """The analysis methods this object's class defines itself (not those of nbfast)."""
        cls = type(self)
        return tuple(name for name in ANALYSIS_METHODS if getattr(cls, name) is not getattr(AnalysisMixin, name))

    def _sklearn_twin(self, exclude=None):
        """scikit-learn's vectorizer with the same options, whose analysis methods are this object's
        overrides (all but ``exclude``), and which knows the stop lists already checked."""
        cls = _common.sklearn_class(self._sklearn_name, self, self._native)
        twin = cls(**{name: getattr(self, name) for name in self._sklearn_params})
        for name in self._overridden():
            if name != exclude:
                setattr(twin, name, getattr(self, name))
        if "_stop_words_id" in self.__dict__:
            twin._stop_words_id = self._stop_words_id
        return twin

    def _import_dependencies(self):
        """Import the optional modules that transforming with these settings needs, on the calling thread.

        Call it before threads transform with this vectorizer: a module that two threads import for the
        first time at once can be seen half-initialised by one of them (or deadlock the import system).
        Raises :class:`nbfast._compat.MissingDependency` when one is not installed.
        """
        if not self._is_native():
            self._sklearn_twin()
        if isinstance(self.stop_words, str):
            AnalysisMixin.get_stop_words(self)

    def _keep_stop_words_check(self, twin):
        """Remember that the twin checked this stop list (scikit-learn warns once per list)."""
        if "_stop_words_id" in twin.__dict__:
            self._stop_words_id = twin._stop_words_id

    def build_analyzer(self):
        """Return a callable to process input data: preprocessing, tokenization and n-grams.

        Returns
        -------
        analyzer : callable
            A function from a document to its features (scikit-learn's, built with
            this object's ``build_preprocessor``, ``build_tokenizer``, ``decode`` and
            ``get_stop_words``).
        """
        twin = self._sklearn_twin(exclude="build_analyzer")
        analyzer = twin.build_analyzer()
        self._keep_stop_words_check(twin)
        return analyzer

    def build_preprocessor(self):
        """Return a function to preprocess the text before tokenization.

        Returns
        -------
        preprocessor : callable
            A function from a str to a str (accents stripped, lowercased, as configured).
        """
        return self._sklearn_twin(exclude="build_preprocessor").build_preprocessor()

    def build_tokenizer(self):
        """Return a function that splits a string into a sequence of tokens.

        Returns
        -------
        tokenizer : callable
            A function from a str to a list of tokens.
        """
        return self._sklearn_twin(exclude="build_tokenizer").build_tokenizer()

    def decode(self, doc):
        """Decode the input into a string of unicode symbols, as scikit-learn does.

        Parameters
        ----------
        doc : bytes or str
            The document (a file name or file object with ``input="filename"`` or ``"file"``).

        Returns
        -------
        doc : str
            The document as a str.
        """
        return self._sklearn_twin(exclude="decode").decode(doc)

    def get_stop_words(self):
        """Build or fetch the effective stop words list.

        Returns
        -------
        stop_words : frozenset or None
            The stop words ("english" is scikit-learn's ``ENGLISH_STOP_WORDS``).
        """
        if self.stop_words is None:
            return None
        if isinstance(self.stop_words, str):
            if self.stop_words != "english":
                raise ValueError(f"not a built-in stop list: {self.stop_words}")
            text = _compat.sklearn_module(
                "feature_extraction.text", "stop_words='english' (scikit-learn's list; or give stop_words as a list instead)"
            )
            return text.ENGLISH_STOP_WORDS
        return frozenset(self.stop_words)
