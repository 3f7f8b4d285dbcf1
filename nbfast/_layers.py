"""The package's layers, from the bottom up: the one list of them.

A module may import from its own layer (without a circle) and from the layers below, never from one above, not even
inside a function.  ``tests/test_architecture.py`` reads every import of every module and holds the package to this
list; it also fails on a module that no layer names (a new top-level module gets a place here first), and checks the
lists in ``docs/architecture.md`` and in the package docstring against this one.  A layer names modules or packages
(a package's modules are in its layer); ``nbfast`` names the package's ``__init__.py`` alone.
"""

LAYERS = (
    ("nbfast._version", "nbfast._layers", "nbfast._compat", "nbfast._sparse", "nbfast._kernels",
     "nbfast._params"),  # the ground
    ("nbfast._validation",),  # the one gate before the kernels
    ("nbfast.naive_bayes", "nbfast.text", "nbfast.datasets"),  # estimators, vectorizers, data
    ("nbfast.decision", "nbfast.linear", "nbfast.merge", "nbfast.interop", "nbfast._patch", "nbfast.calibration",
     "nbfast.evaluation", "nbfast.explanation"),  # operations on fitted models
    ("nbfast.persist", "nbfast.readers", "nbfast._model_input"),  # model files, readers, blocks as a model's input
    ("nbfast.dask", "nbfast.spark"),  # front ends that run nbfast on a cluster, beside each other
    ("nbfast",),  # the public names
    ("nbfast.cli", "nbfast.__main__"),  # the command line (`python -m nbfast` runs it)
)
