"""partial_fit from several threads on one model: every batch counted, as if the calls ran one after the other."""

import copy
import pickle
import threading

import numpy as np
import pytest
from support.helpers import data_for

import nbfast
from nbfast._compat import clone
from nbfast.naive_bayes._locking import instance_lock

INCREMENTAL = ["MultinomialNB", "BernoulliNB", "ComplementNB", "PoissonNB", "GaussianNB", "CategoricalNB", "MixedNB"]
N_THREADS, BATCH = 7, 1000


def batches(name):
    X, y = data_for(name, n_samples=(N_THREADS + 1) * BATCH, n_features=20, n_classes=3)
    return [(X[i:i + BATCH], y[i:i + BATCH]) for i in range(0, X.shape[0], BATCH)], np.unique(y)


def in_threads(model, parts):
    """``partial_fit`` of every batch of ``parts``, each in its own thread, all started at once."""
    barrier = threading.Barrier(len(parts))
    errors = []

    def work(X, y):
        barrier.wait()
        try:
            model.partial_fit(X, y)
        except Exception as exc:  # reported by the test thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=part) for part in parts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


@pytest.mark.parametrize("name", INCREMENTAL)
def test_concurrent_partial_fit_loses_no_batch(name):
    parts, classes = batches(name)
    sequential = getattr(nbfast, name)()
    for X, y in parts:
        sequential.partial_fit(X, y, classes=classes)
    for _ in range(3):  # the race, when there is one, shows within a few tries
        model = getattr(nbfast, name)().partial_fit(*parts[0], classes=classes)
        in_threads(model, parts[1:])
        assert model.class_count_.sum() == (N_THREADS + 1) * BATCH
        np.testing.assert_array_equal(model.class_count_, sequential.class_count_)
        np.testing.assert_allclose(model.predict_joint_log_proba(parts[0][0]),
                                   sequential.predict_joint_log_proba(parts[0][0]), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", INCREMENTAL)
def test_the_lock_is_no_part_of_the_model_and_copies_have_their_own(name):
    parts, classes = batches(name)
    model = getattr(nbfast, name)().partial_fit(*parts[0], classes=classes)
    assert not any(isinstance(value, type(instance_lock(model))) for value in vars(model).values())
    for made in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model), copy.copy(model), clone(model)):
        made.partial_fit(*parts[1], classes=classes)
        assert instance_lock(made) is not instance_lock(model)
    assert model.class_count_.sum() == BATCH
