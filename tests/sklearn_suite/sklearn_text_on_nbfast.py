"""pytest plugin: scikit-learn's own text vectorizer tests, run against ``nbfast.text``.

    PYTHONPATH=tests/sklearn_suite pytest -p sklearn_text_on_nbfast --pyargs sklearn.feature_extraction.tests.test_text

(test_sklearn_text_suite.py runs exactly that, so the default ``pytest`` run includes it).
When the plugin is configured, ``nbfast.patch_sklearn()`` makes
``sklearn.feature_extraction.text`` hand out nbfast's four vectorizers
(CountVectorizer, TfidfVectorizer, TfidfTransformer, HashingVectorizer) for the
whole run, as a user's patched script sees them, before the test module is
imported.  Collection fails if the test module does not test nbfast's classes or
if a deselected test no longer exists.
"""

import importlib
import sys

import pytest
from _deselection import check_deselected_exist, deselect

import nbfast
import nbfast.text

SKLEARN_TEST_MODULE = "sklearn.feature_extraction.tests.test_text"
REBOUND = ("CountVectorizer", "TfidfVectorizer", "TfidfTransformer", "HashingVectorizer")

#: Deselected tests, by name (every parametrization) or by name[parameters]: each
#: exercises a private helper of scikit-learn, or pickles what patching cannot let pickle.
DESELECTED = frozenset({
    # scikit-learn's private helper _check_stop_words_consistency(stop_words, preprocess, tokenize),
    # called with its signature and return values.
    "test_vectorizer_stop_words_inconsistent",
    "test_stop_word_validation_custom_preprocessor",
    # scikit-learn's private helper CountVectorizer._sort_features.
    "test_countvectorizer_sort_features_64bit_sparse_indices",
    # While scikit-learn is patched, the functions build_analyzer, build_preprocessor and build_tokenizer
    # return hold an instance of scikit-learn's own vectorizer, which pickle looks up by its patched name
    # and refuses; the vectorizers themselves, and fitted pipelines, pickle (tests/test_patch.py).
    "test_pickling_built_processors",
})


def pytest_configure(config):
    """Patch scikit-learn, then import the test module: it binds nbfast's classes."""
    nbfast.patch_sklearn()
    importlib.import_module(SKLEARN_TEST_MODULE)


def pytest_unconfigure(config):
    nbfast.unpatch_sklearn()


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
