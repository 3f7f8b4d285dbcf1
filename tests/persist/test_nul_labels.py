"""Labels that end in NUL: numpy's string arrays drop trailing NULs, so a model file could not keep them apart
from the label without it; save refuses such a model rather than write a file that does not load."""

import numpy as np
import pytest

import nbfast


def test_save_refuses_labels_ending_in_nul(tmp_path):
    X, y = np.eye(4), np.array(["a", "a\x00", "b", "b"], dtype=object)
    model = nbfast.MultinomialNB().fit(X, y)
    assert model.classes_.tolist() == ["a", "a\x00", "b"]  # kept apart in memory
    with pytest.raises(ValueError, match="ends in NUL"):
        nbfast.save(model, tmp_path / "model.nbf")
    assert not (tmp_path / "model.nbf").exists()


def test_labels_with_inner_nul_round_trip(tmp_path):
    X, y = np.eye(4), np.array(["a", "a\x00b", "b", "b"], dtype=object)
    model = nbfast.MultinomialNB().fit(X, y)
    nbfast.save(model, tmp_path / "model.nbf")
    assert nbfast.load(tmp_path / "model.nbf").classes_.tolist() == ["a", "a\x00b", "b"]
