"""Learning batch by batch is declared once per class, and every consumer refuses a model that cannot, up front,
with the class's own reason."""

import importlib

import numpy as np
import pytest
from support.helpers import data_for

import nbfast
from nbfast.naive_bayes import ESTIMATORS
from nbfast.naive_bayes._capabilities import NotIncremental, refuse_unless_incremental

NOT_INCREMENTAL = {"CalibratedNB", "SemiSupervisedNB", "DiscriminativeNB", "MultinomialNBCV", "BernoulliNBCV",
                   "ComplementNBCV", "CategoricalNBCV", "PoissonNBCV"}


@pytest.mark.parametrize("name", ESTIMATORS)
def test_the_flag_the_method_and_the_declaration_agree(name):
    cls = ESTIMATORS[name]
    assert cls._incremental == (name not in NOT_INCREMENTAL)
    assert hasattr(cls(), "partial_fit") == cls._incremental
    declared = [vars(c)["partial_fit"] for c in cls.__mro__ if isinstance(vars(c).get("partial_fit"), NotIncremental)]
    assert bool(declared) != cls._incremental
    if not cls._incremental:
        with pytest.raises(AttributeError, match=f"{name} has no partial_fit: it does not learn batch by batch. "):
            cls().partial_fit(None, None)
        with pytest.raises(TypeError, match=f"somewhere needs a model that learns batch by batch .* {name} does not. "
                                            f"{declared[0].reason[:20]}"):
            refuse_unless_incremental(cls(), "somewhere")
    else:
        refuse_unless_incremental(cls, "somewhere")


def test_declaring_another_method_is_an_error():
    with pytest.raises(TypeError, match="NotIncremental declares partial_fit, not fit"):
        NotIncremental("no").__set_name__(type("Odd", (), {}), "fit")


def test_dask_fit_refuses_before_any_work(monkeypatch):
    dask_array = pytest.importorskip("dask.array")
    nbfast_dask = importlib.import_module("nbfast.dask")

    X, y = data_for("MultinomialNB", n_samples=40, n_classes=3)
    X = dask_array.from_array(np.asarray(X.toarray() if hasattr(X, "toarray") else X), chunks=(10, -1))

    def computed(*args, **kwargs):
        raise AssertionError("work started before the refusal")

    monkeypatch.setattr(nbfast_dask.dask, "compute", computed)
    for estimator in (nbfast.DiscriminativeNB(), nbfast.CalibratedNB(), nbfast.MultinomialNBCV(),
                      nbfast.SemiSupervisedNB()):
        with pytest.raises(TypeError, match=rf"nbfast\.dask\.fit needs a model that learns batch by batch .*"
                                            rf"{type(estimator).__name__} does not"):
            nbfast_dask.fit(estimator, X, y)
