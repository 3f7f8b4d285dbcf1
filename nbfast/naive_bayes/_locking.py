"""One lock per estimator instance, so that ``partial_fit`` calls on one model run one after the other.

``partial_fit`` reads the fitted statistics, adds its batch to a copy and installs the sum: two calls at
once would both start from the same statistics and one batch would be lost.  The lock is made on first use
and is not part of the model's state: pickles, deep copies and clones leave it out and make their own.
"""

import functools
import threading

#: The instance attribute holding the lock (absent until the first ``partial_fit``).
_LOCK = "_partial_fit_lock"
#: Guards the creation of the instance locks (two first calls at once get the same lock).
_CREATING = threading.Lock()


def instance_lock(model):
    """The re-entrant lock of ``model``, made on first use."""
    lock = model.__dict__.get(_LOCK)
    if lock is None:
        with _CREATING:
            lock = model.__dict__.setdefault(_LOCK, threading.RLock())
    return lock


def serialized(method):
    """Decorator: ``method`` runs under the instance's lock (one call at a time per model)."""

    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with instance_lock(self):
            return method(self, *args, **kwargs)

    return locked


def without_lock(state):
    """``state`` (a copy of an instance's ``__dict__``) without the lock, which does not pickle nor copy."""
    state.pop(_LOCK, None)
    return state
