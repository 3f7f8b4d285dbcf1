"""Make scikit-learn hand out nbfast's estimators and text vectorizers, so existing code speeds up without edits.

Only module attributes are replaced (``sklearn.naive_bayes.<Name>`` and
``sklearn.feature_extraction.text.<Name>``): code that already did
``from sklearn.naive_bayes import MultinomialNB`` before patching keeps the
class it imported.
"""

import sys
import threading

from nbfast import text as _text
from nbfast._compat import PATCHED_ORIGINALS, sklearn_module
from nbfast.naive_bayes import ESTIMATORS

#: Patching and restoring run one at a time: a restore under way would otherwise let a patch record nbfast's
#: class as scikit-learn's original, which no unpatch could then put back.
_PATCHING = threading.Lock()


def _replacements(text):
    """(scikit-learn module, {name: nbfast's class}) for each module patched."""
    replacements = [(sklearn_module("naive_bayes", "patch_sklearn"), ESTIMATORS)]
    if text:
        vectorizers = {name: getattr(_text, name) for name in _text.__all__}
        replacements.append((sklearn_module("feature_extraction.text", "patch_sklearn"), vectorizers))
    return replacements


def patch_sklearn(*, text=True):
    """Make scikit-learn's estimators and vectorizers resolve to nbfast's classes of the same names.

    Patches every one of scikit-learn's Naive Bayes estimators that nbfast
    provides (``sklearn.naive_bayes.<Name>``) and, unless ``text`` is False,
    its text vectorizers (``sklearn.feature_extraction.text``: CountVectorizer,
    HashingVectorizer, TfidfTransformer and TfidfVectorizer), so that a script
    of ``make_pipeline(TfidfVectorizer(), MultinomialNB())`` runs on nbfast
    from end to end.  Calling it again is harmless.

    Parameters
    ----------
    text : bool, default=True
        Also patch the text vectorizers; False keeps scikit-learn's (and
        restores them if an earlier call patched them).

    Returns
    -------
    names : tuple of str
        The names now served by nbfast.
    """
    replacements = _replacements(text)
    patched = []
    with _PATCHING:
        if not text:
            _restore(sklearn_module("feature_extraction.text", "patch_sklearn").__name__)
        for module, classes in replacements:
            for name, replacement in classes.items():
                key = (module.__name__, name)
                original = PATCHED_ORIGINALS.get(key, vars(module).get(name))
                if original is None:  # a class scikit-learn does not have (PoissonNB, MixedNB)
                    continue
                PATCHED_ORIGINALS[key] = original
                setattr(module, name, replacement)
                patched.append(name)
    return tuple(sorted(patched))


def unpatch_sklearn():
    """Restore scikit-learn's own classes (harmless when not patched)."""
    with _PATCHING:
        _restore()


def _restore(module_name=None):
    """Put back the originals of ``module_name`` (of every module when None); under ``_PATCHING``."""
    for key in [key for key in PATCHED_ORIGINALS if module_name in (None, key[0])]:
        setattr(sys.modules[key[0]], key[1], PATCHED_ORIGINALS.pop(key))
