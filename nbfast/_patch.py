"""Make ``sklearn.naive_bayes`` hand out nbfast's estimators, so existing code
speeds up without edits.

Only the module attributes are replaced: code that already did
``from sklearn.naive_bayes import MultinomialNB`` before patching keeps the
class it imported.
"""

from nbfast._compat import sklearn_naive_bayes
from nbfast.naive_bayes import ESTIMATORS

# scikit-learn's classes replaced by patch_sklearn, by name.
_originals = {}


def _naive_bayes_module():
    return sklearn_naive_bayes("patch_sklearn")


def patch_sklearn():
    """Make ``sklearn.naive_bayes.<Name>`` resolve to nbfast's class of the same name.

    Patches every one of scikit-learn's Naive Bayes estimators that nbfast
    provides.  Calling it again is harmless.

    Returns
    -------
    names : tuple of str
        The names now served by nbfast.
    """
    module = _naive_bayes_module()
    patched = []
    for name, replacement in ESTIMATORS.items():
        original = _originals.get(name, vars(module).get(name))
        if original is None:  # an estimator scikit-learn does not have (PoissonNB, MixedNB)
            continue
        _originals[name] = original
        setattr(module, name, replacement)
        patched.append(name)
    return tuple(sorted(patched))


def unpatch_sklearn():
    """Restore scikit-learn's own classes in ``sklearn.naive_bayes`` (harmless when not patched)."""
    if not _originals:
        return
    module = _naive_bayes_module()
    for name, original in _originals.items():
        setattr(module, name, original)
    _originals.clear()
