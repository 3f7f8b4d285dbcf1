"""A model saved while another thread runs partial_fit on it is saved before or after the batch, never half-way."""

import io
import threading

import numpy as np

import nbfast
from nbfast.datasets import make_documents


def test_save_waits_for_a_batch_being_installed(monkeypatch):
    """partial_fit installs a batch's statistics, then derives the parameters from them: a save in between would
    write the counts of one state with the prior of the other (a file that loads, and matches no model)."""
    X, y = make_documents(200, 30, 3, mean_length=10, random_state=0)
    model = nbfast.MultinomialNB().partial_fit(X[:100], y[:100], classes=[0, 1, 2])
    installed, release = threading.Event(), threading.Event()
    derive = nbfast.MultinomialNB._update_params

    def held_derive(self, params):
        installed.set()  # the batch's statistics are in place
        assert release.wait(30)
        derive(self, params)

    monkeypatch.setattr(nbfast.MultinomialNB, "_update_params", held_derive)
    fitter = threading.Thread(target=model.partial_fit, args=(X[100:], y[100:]))
    fitter.start()
    assert installed.wait(30)
    saved = io.BytesIO()
    saver = threading.Thread(target=nbfast.save, args=(model, saved))
    saver.start()
    saver.join(0.5)
    waited = saver.is_alive()
    release.set()
    fitter.join(30)
    saver.join(30)
    assert waited, "save did not wait for the batch being installed"
    loaded = nbfast.load(saved.getvalue())
    np.testing.assert_array_equal(loaded.class_count_, model.class_count_)
    np.testing.assert_array_equal(loaded.class_log_prior_, model.class_log_prior_)
