"""One lock per estimator instance, so that ``partial_fit`` calls on one model run one after the other.

``partial_fit`` reads the fitted statistics, adds its batch to a copy and installs the sum: two calls at
once would both start from the same statistics and one batch would be lost.  The locks are kept here, by
instance, not in the instances: a model's state (its ``__dict__``, what pickles, copies and clones see) never
holds one, and a refused call leaves it exactly as it was.
"""

import functools
import threading
import weakref

#: id(instance) -> its re-entrant lock, dropped when the instance is collected.
_LOCKS = {}
#: Guards ``_LOCKS`` (two first calls at once get the same lock).
_CREATING = threading.Lock()


def instance_lock(model):
    """The re-entrant lock of ``model``, made on first use."""
    with _CREATING:
        lock = _LOCKS.get(id(model))
        if lock is None:
            lock = _LOCKS[id(model)] = threading.RLock()
            weakref.finalize(model, _LOCKS.pop, id(model), None)
    return lock


def serialized(method):
    """Decorator: ``method`` runs under the instance's lock (one call at a time per model)."""

    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with instance_lock(self):
            return method(self, *args, **kwargs)

    return locked
