"""Make ``sklearn.naive_bayes`` hand out nbfast's estimators, so existing code
speeds up without edits.

Only the module attributes are replaced: code that already did
``from sklearn.naive_bayes import MultinomialNB`` before patching keeps the
class it imported.
"""

import importlib

#: The scikit-learn estimators nbfast can stand in for.
SKLEARN_NAMES = ("BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB")

# scikit-learn's classes replaced by patch_sklearn, by name.
_originals = {}


def _naive_bayes_module():
    try:
        return importlib.import_module("sklearn.naive_bayes")
    except ImportError as exc:
        raise ImportError("patch_sklearn needs scikit-learn: pip install 'nbfast[sklearn]'.") from exc


def patch_sklearn():
    """Make ``sklearn.naive_bayes.<Name>`` resolve to nbfast's class of the same name.

    Patches every one of scikit-learn's Naive Bayes estimators that nbfast
    provides.  Calling it again is harmless.

    Returns
    -------
    names : tuple of str
        The names now served by nbfast.
    """
    import nbfast

    module = _naive_bayes_module()
    patched = []
    for name in SKLEARN_NAMES:
        replacement = getattr(nbfast, name, None)
        if replacement is None:
            continue
        _originals.setdefault(name, getattr(module, name))
        setattr(module, name, replacement)
        patched.append(name)
    return tuple(patched)


def unpatch_sklearn():
    """Restore scikit-learn's own classes in ``sklearn.naive_bayes`` (harmless when not patched)."""
    if not _originals:
        return
    module = _naive_bayes_module()
    for name, original in _originals.items():
        setattr(module, name, original)
    _originals.clear()
