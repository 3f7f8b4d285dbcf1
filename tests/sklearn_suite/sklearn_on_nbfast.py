"""pytest plugin: scikit-learn's own Naive Bayes tests, run against nbfast's estimators.

    PYTHONPATH=tests/sklearn_suite pytest -p sklearn_on_nbfast --pyargs sklearn.tests.test_naive_bayes

(test_sklearn_suite.py runs exactly that, so the default ``pytest`` run includes it).
``nbfast.patch_sklearn()`` runs when the plugin is configured, before any test
module is imported, so the test module's ``from sklearn.naive_bayes import ...``
binds nbfast's classes; collection fails if it did not.
"""

import sys

import pytest
from _deselection import check_deselected_exist, deselect

import nbfast

SKLEARN_TEST_MODULE = "sklearn.tests.test_naive_bayes"

#: Deselected tests, by name (every parametrization) or by name[parameters]: each
#: exercises a private helper of scikit-learn, or expects scikit-learn's behaviour
#: where nbfast documents a deliberate difference.
DESELECTED = frozenset({
    # scikit-learn's private helper GaussianNB._update_mean_variance.
    "test_gnb_check_update_with_no_data",
    # scikit-learn's private helper _check_alpha(), with its signature.
    "test_check_alpha",
    # Calls the private _check_alpha() too; its public checks are in tests/naive_bayes/test_discrete.py.
    "test_alpha_vector",
    # Its last check needs the fit that just raised (class_prior of the wrong length) to have left
    # classes_=[0, 1, 2] behind; in nbfast a fit that raises leaves the model unchanged (tests/naive_bayes/test_base.py).
    "test_discretenb_provide_prior",
    # Fits CategoricalNB on iris' real-valued measurements; nbfast's CategoricalNB refuses non-integer codes (README).
    "test_discretenb_provide_prior_with_partial_fit[CategoricalNB]",
})

_patched = ()


def pytest_configure(config):
    global _patched
    _patched = nbfast.patch_sklearn()


def _check_module(module):
    """The test module's estimators are nbfast's, and every deselected test still exists in it."""
    estimators = {name: value for name, value in vars(module).items() if isinstance(value, type) and name.endswith("NB")}
    not_ours = sorted(name for name, cls in estimators.items() if name not in _patched or cls is not getattr(nbfast, name))
    if not estimators or not_ours:
        raise pytest.UsageError(f"{SKLEARN_TEST_MODULE} does not test nbfast's {not_ours or 'estimators'}.")
    check_deselected_exist(module, DESELECTED)


def pytest_collection_modifyitems(config, items):
    module = sys.modules.get(SKLEARN_TEST_MODULE)
    if module is not None:
        _check_module(module)
    deselect(config, items, DESELECTED)
