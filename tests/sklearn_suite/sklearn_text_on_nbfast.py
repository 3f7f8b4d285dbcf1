"""pytest plugin: scikit-learn's own text vectorizer tests, run against ``nbfast.text``.

    PYTHONPATH=tests/sklearn_suite pytest -p sklearn_text_on_nbfast --pyargs sklearn.feature_extraction.tests.test_text

(test_sklearn_text_suite.py runs exactly that, so the default ``pytest`` run includes it).
When the plugin is configured, the test module is imported with only its four
vectorizer names (CountVectorizer, TfidfVectorizer, TfidfTransformer,
HashingVectorizer) bound to nbfast's classes; ``sklearn.feature_extraction.text``
itself is left as it is, so scikit-learn's other code and tests use its own.
Collection fails if the test module does not test nbfast's classes or if a
deselected test no longer exists.
"""

import importlib
import sys

import pytest
from _deselection import check_deselected_exist, deselect

import nbfast.text

SKLEARN_TEST_MODULE = "sklearn.feature_extraction.tests.test_text"
SKLEARN_TEXT = "sklearn.feature_extraction.text"
REBOUND = ("CountVectorizer", "TfidfVectorizer", "TfidfTransformer", "HashingVectorizer")

#: Deselected tests, by name (every parametrization) or by name[parameters]: each
#: exercises a private helper of scikit-learn or expects its exact error wording.
DESELECTED = frozenset({
    # scikit-learn's private helper _check_stop_words_consistency(stop_words, preprocess, tokenize),
    # called with its signature and return values.
    "test_vectorizer_stop_words_inconsistent",
    "test_stop_word_validation_custom_preprocessor",
    # scikit-learn's private helper CountVectorizer._sort_features.
    "test_countvectorizer_sort_features_64bit_sparse_indices",
})


def pytest_configure(config):
    """Import the test module with the four names bound to nbfast's classes, then restore scikit-learn's."""
    text = importlib.import_module(SKLEARN_TEXT)
    originals = {name: vars(text)[name] for name in REBOUND}
    try:
        for name in REBOUND:
            setattr(text, name, getattr(nbfast.text, name))
        importlib.import_module(SKLEARN_TEST_MODULE)
    finally:
        for name, cls in originals.items():
            setattr(text, name, cls)


def _check_module(module):
    """The test module's vectorizers are nbfast's, and every deselected test still exists in it."""
    not_ours = sorted(name for name in REBOUND if vars(module).get(name) is not getattr(nbfast.text, name))
    if not_ours:
        raise pytest.UsageError(f"{SKLEARN_TEST_MODULE} does not test nbfast's {not_ours}.")
    check_deselected_exist(module, DESELECTED)


def pytest_collection_modifyitems(config, items):
    module = sys.modules.get(SKLEARN_TEST_MODULE)
    if module is not None:
        _check_module(module)
    deselect(config, items, DESELECTED)
