"""CalibratedNB.fit takes every input nbfast.calibrate and the estimators take: lists, any sparse format."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import nbfast
from nbfast.datasets import make_documents

LAYOUTS = {
    "list": lambda X: X.toarray().tolist(),
    "dense": lambda X: X.toarray(),
    "coo": sp.coo_matrix,
    "dia": sp.dia_matrix,
    "bsr": sp.bsr_matrix,
    "csc": sp.csc_matrix,
    "coo-array": sp.coo_array,
}


@pytest.fixture(scope="module")
def data():
    X, y = make_documents(300, 40, 3, mean_length=20, random_state=0)
    return X, y, nbfast.CalibratedNB(cv=3).fit(X, y)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_calibrated_fit_takes_the_inputs_calibrate_takes(data, layout):
    X, y, reference = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sp.SparseEfficiencyWarning)  # a DIA matrix of many diagonals
        given = LAYOUTS[layout](X)
    nbfast.calibrate(nbfast.MultinomialNB().fit(given, y), given, y)
    model = nbfast.CalibratedNB(cv=3).fit(given, y)
    assert model.temperature_ == reference.temperature_
    np.testing.assert_array_equal(model.predict_proba(X), reference.predict_proba(X))
