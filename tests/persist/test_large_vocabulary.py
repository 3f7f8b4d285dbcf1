"""Every estimator round-trips through a model file at a large vocabulary, where count models keep compact
statistics: a model that saves must load, whatever form its parts (a wrapper's fitted estimator) are in."""

import numpy as np
import pytest
from support.helpers import ALL_ESTIMATORS, data_for, estimator_params

import nbfast

#: Large enough for the count models' compact form (few (class, feature) pairs hold a count), few rows.
N_FEATURES = 100_000


@pytest.mark.parametrize("name", ALL_ESTIMATORS)
def test_round_trip_at_a_large_vocabulary(name, tmp_path):
    # word counts are categories too: CategoricalNB takes them sparse, as a large vocabulary comes
    recipe = "MultinomialNB" if name.startswith("CategoricalNB") else name
    X, y = data_for(recipe, n_samples=24, n_features=N_FEATURES, n_classes=4)
    params = {"cv": 3} if name.endswith("NBCV") else {}
    model = getattr(nbfast, name)(**estimator_params(name, "int"), **params).fit(X, y)
    nbfast.save(model, tmp_path / "model.nbf")
    loaded = nbfast.load(tmp_path / "model.nbf")
    assert type(loaded) is type(model)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    np.testing.assert_array_equal(loaded.predict_joint_log_proba(X), model.predict_joint_log_proba(X))
