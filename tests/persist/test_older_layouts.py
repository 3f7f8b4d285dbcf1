"""Files written before a fitted attribute changed meaning still load, converted to the current meaning."""

import numpy as np
import pytest
from support.crafting import _layout, _saved, _with_header

import nbfast
from nbfast import ModelFormatError
from nbfast.datasets import make_documents


def _partly_labelled():
    X, y = make_documents(300, 40, 3, random_state=0)
    y = y.copy()
    y[np.arange(len(y)) % 3 != 0] = -1
    return X, y


def _old_semi_supervised_file(model, n_iter=None):
    """``model`` saved, then rewritten as before SemiSupervisedNB's n_iter_ counted the fit on the labelled rows:
    n_iter_ was the number of EM iterations, one less than log_likelihood_'s values (which are unchanged)."""
    def edit(header):
        fitted = header["model"]["fitted"]
        fitted["n_iter_"] = fitted["n_iter_"] - 1 if n_iter is None else n_iter

    return _with_header(_saved(model), edit)


@pytest.mark.parametrize("max_iter", [0, 1, 3])
def test_semi_supervised_files_saved_before_n_iter_counted_the_labelled_fit_load(max_iter, tmp_path):
    X, y = _partly_labelled()
    model = nbfast.SemiSupervisedNB(max_iter=max_iter, tol=0.0).fit(X, y)
    raw = _old_semi_supervised_file(model)
    assert _layout(raw)[0]["model"]["fitted"]["n_iter_"] == max_iter  # the old meaning: EM iterations
    (tmp_path / "old.nbf").write_bytes(raw)
    loaded = nbfast.load(tmp_path / "old.nbf")
    assert loaded.n_iter_ == model.n_iter_ == max_iter + 1 and type(loaded.n_iter_) is int
    np.testing.assert_array_equal(loaded.log_likelihood_, model.log_likelihood_)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    nbfast.save(loaded, tmp_path / "again.nbf")  # saved again in the current layout
    assert _layout((tmp_path / "again.nbf").read_bytes())[0]["model"]["fitted"]["n_iter_"] == max_iter + 1


def test_an_old_semi_supervised_part_of_another_model_loads(tmp_path):
    X, y = make_documents(300, 40, 3, random_state=0)
    model = nbfast.MixedNB([("semi", nbfast.SemiSupervisedNB(), list(range(40)))]).fit(X, y)  # n_iter_ 1

    def edit(header):
        header["model"]["fitted"]["estimators_"][0]["__estimator__"]["fitted"]["n_iter_"] -= 1

    (tmp_path / "old.nbf").write_bytes(_with_header(_saved(model), edit))
    loaded = nbfast.load(tmp_path / "old.nbf")
    assert loaded.estimators_[0].n_iter_ == model.estimators_[0].n_iter_ == 1
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


@pytest.mark.parametrize("n_iter", [1, 5, -1])
def test_other_mismatches_of_n_iter_and_log_likelihood_are_still_refused(n_iter, tmp_path):
    X, y = _partly_labelled()
    model = nbfast.SemiSupervisedNB(max_iter=2, tol=0.0).fit(X, y)  # n_iter_ 3, three values
    (tmp_path / "bad.nbf").write_bytes(_old_semi_supervised_file(model, n_iter))
    with pytest.raises(ModelFormatError, match="n_iter_|log_likelihood_"):
        nbfast.load(tmp_path / "bad.nbf")
