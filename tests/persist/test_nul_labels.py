"""Labels that end in NUL: numpy's string arrays drop trailing NULs ("spam\\x00" becomes "spam"), so such labels
would merge with the label without it (a list of str becomes a string array) and no model file could keep them
apart.  fit and partial_fit refuse them, naming the label; save refuses a model whose classes_ were set to them
by hand.  Inner NULs are kept, in memory and in files."""

import numpy as np
import pytest

import nbfast

LABELS = {
    "list of str": ["spam", "spam\x00", "ham", "ham"],
    "object array": np.array(["spam", "spam\x00", "ham", "ham"], dtype=object),
    "column of str": [["spam"], ["spam\x00"], ["ham"], ["ham"]],
    "list of bytes": [b"spam", b"spam\x00", b"ham", b"ham"],
    "alone": ["spam\x00", "ham", "ham", "ham"],
}
ESTIMATORS = {
    "MultinomialNB": lambda: nbfast.MultinomialNB(),
    "GaussianNB": lambda: nbfast.GaussianNB(),
    "MixedNB": lambda: nbfast.MixedNB([("counts", nbfast.MultinomialNB(), [0, 1, 2, 3])]),
    "SemiSupervisedNB": lambda: nbfast.SemiSupervisedNB(nbfast.MultinomialNB(), unlabeled=""),
    "CalibratedNB": lambda: nbfast.CalibratedNB(nbfast.MultinomialNB(), cv=2),
    "MultinomialNBCV": lambda: nbfast.MultinomialNBCV(cv=2),
}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("labels", LABELS, ids=str)
@pytest.mark.parametrize("name", ESTIMATORS)
def test_fit_refuses_labels_ending_in_nul_and_names_them(name, labels):
    model = ESTIMATORS[name]()
    with pytest.raises(ValueError, match=r"label .*spam\\x00.* ends in NUL"):
        model.fit(np.eye(4), LABELS[labels])
    assert not hasattr(model, "classes_")


@pytest.mark.parametrize("name", ["MultinomialNB", "MixedNB"])
def test_partial_fit_refuses_classes_ending_in_nul(name):
    with pytest.raises(ValueError, match=r"label .*spam\\x00.* ends in NUL"):
        ESTIMATORS[name]().partial_fit(np.eye(4), ["spam", "ham"] * 2, classes=["spam", "spam\x00", "ham"])


def test_save_refuses_classes_ending_in_nul_set_by_hand(tmp_path):
    model = nbfast.MultinomialNB().fit(np.eye(4), np.array(["a", "b", "c", "c"], dtype=object))
    model.classes_ = np.array(["a", "a\x00", "b"], dtype=object)
    with pytest.raises(ValueError, match="ends in NUL"):
        nbfast.save(model, tmp_path / "model.nbf")
    assert not (tmp_path / "model.nbf").exists()


@pytest.mark.parametrize("labels", [["a", "a\x00b", "b", "b"], np.array(["a", "a\x00b", "b", "b"], dtype=object)],
                         ids=["list", "object"])
def test_labels_with_inner_nul_fit_predict_save_and_load_alike(tmp_path, labels):
    X = np.eye(4)
    model = nbfast.MultinomialNB().fit(X, labels)
    assert model.classes_.tolist() == ["a", "a\x00b", "b"]
    nbfast.save(model, tmp_path / "model.nbf")
    loaded = nbfast.load(tmp_path / "model.nbf")
    assert loaded.classes_.tolist() == ["a", "a\x00b", "b"]
    assert loaded.predict(X).tolist() == model.predict(X).tolist() == ["a", "a\x00b", "b", "b"]
