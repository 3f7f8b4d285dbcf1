"""What an estimator cannot do, declared once, where its class is defined, and refused the same way everywhere.

A Naive Bayes model whose fitted state is a sum of per-row statistics learns batch by batch (``partial_fit``) and
merges shards exactly (:func:`nbfast.merge`, :func:`nbfast.dask.fit`, the command line's folds).  One whose fit
revisits every row (a search, a calibration, EM, a discriminative refinement) can do neither; its class says so
with one line, ``partial_fit = NotIncremental(reason)``, and every consumer asks :func:`refuse_unless_incremental`
before any work starts.
"""


class NotIncremental:
    """Declares, as ``partial_fit = NotIncremental(reason)``, that a class does not learn batch by batch.

    Reading ``partial_fit`` raises AttributeError with the reason, so ``hasattr(model, "partial_fit")`` is
    False, as scikit-learn's meta-estimators expect; the class's ``_incremental`` flag becomes False.
    """

    def __init__(self, reason):
        self.reason = reason

    def __set_name__(self, owner, name):
        if name != "partial_fit":
            raise TypeError(f"NotIncremental declares partial_fit, not {name}.")
        owner._incremental = False

    def __get__(self, instance, owner=None):
        raise AttributeError(f"{owner.__name__} has no partial_fit: it does not learn batch by batch. {self.reason}")


def refuse_unless_incremental(estimator, purpose):
    """Raise TypeError, naming ``purpose`` and the class's reason, unless ``estimator`` (or class) learns batch by
    batch and merges."""
    cls = estimator if isinstance(estimator, type) else type(estimator)
    if cls._incremental:
        return
    declared = next(vars(c)["partial_fit"] for c in cls.__mro__ if isinstance(vars(c).get("partial_fit"), NotIncremental))
    raise TypeError(f"{purpose} needs a model that learns batch by batch (partial_fit) and merges shards; "
                    f"{cls.__name__} does not. {declared.reason}")
