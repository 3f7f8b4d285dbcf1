"""The memory a fitted model holds, for the benchmarks."""

import numpy as np


def held_nbytes(model):
    """Bytes of the distinct arrays a model holds: its attributes, nested estimators and derived tables
    included.  Works on any estimator."""
    bases = {}

    def walk(value):
        if isinstance(value, np.ndarray):
            while isinstance(value.base, np.ndarray):
                value = value.base
            bases[id(value)] = value.nbytes
        elif isinstance(value, (list, tuple)):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            walk(list(value.values()))
        elif hasattr(value, "get_params") and hasattr(value, "__dict__"):  # an estimator, of any library
            walk(list(vars(value).values()))

    walk(model)
    return sum(bases.values())
