"""Fixtures shared by the command-line tests."""

import pytest

from nbfast.cli import main

#: A small svmlight corpus: 60 rows, 3 classes, one-based indices.
SVM = "".join(f"{i % 3} {1 + i % 7}:1 {8 + i % 5}:2\n" for i in range(60))


@pytest.fixture
def files(tmp_path, capsys):
    """A folder holding d.svm (the corpus) and m.nbf (a model trained on it)."""
    (tmp_path / "d.svm").write_text(SVM)
    assert main(["train", str(tmp_path / "d.svm"), "-o", str(tmp_path / "m.nbf")]) == 0
    capsys.readouterr()
    return tmp_path
