"""Strings a file stores (a vocabulary's terms, feature names, an .npz archive's format) reach the terminal
escaped: a crafted file cannot drive it (move the cursor, clear the screen, set the window title)."""

import json
import warnings

import numpy as np
import pytest

import nbfast
from nbfast.cli import main
from nbfast.text import CountVectorizer

CLEAR, TITLE = "\x1b[2Jclear", "\x1b]0;title\x07x"


def _run(capsys, *argv):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _assert_no_control_characters(text):
    assert "\x1b" not in text and "\x07" not in text


def test_explain_escapes_vocabulary_terms(tmp_path, capsys):
    documents, labels = ["clear win", "meeting agenda", "clear win", "agenda report"], ["spam", "ham"] * 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # upper case in the vocabulary: never matched
        vectorizer = CountVectorizer(vocabulary=[CLEAR, "win", "meeting", "agenda", TITLE, "clear"])
        model = nbfast.MultinomialNB().fit(vectorizer.fit_transform(documents), labels)
    nbfast.save(model, tmp_path / "m.nbf", vectorizer=vectorizer)
    status, out, err = _run(capsys, "explain", tmp_path / "m.nbf", "--top", "6")
    assert status == 0, err
    _assert_no_control_characters(out)
    assert "\\x1b[2Jclear" in out and "\\x1b]0;title\\x07x" in out
    status, out, err = _run(capsys, "explain", tmp_path / "m.nbf", "--top", "6", "--json")
    assert status == 0, err
    _assert_no_control_characters(out)  # JSON escapes them; the names read back are the terms
    names = {entry["name"] for entries in json.loads(out)["classes"].values() for entry in entries}
    assert {CLEAR, TITLE} <= names


def test_explain_escapes_the_model_s_feature_names_per_row(tmp_path, capsys):
    model = nbfast.MultinomialNB().fit(np.array([[2, 0, 1], [0, 3, 0], [1, 0, 2], [0, 2, 1]]), [1, 2, 1, 2])
    model.feature_names_in_ = np.array([CLEAR, "ok", TITLE], dtype=object)
    nbfast.save(model, tmp_path / "m.nbf")
    (tmp_path / "d.svm").write_text("1 1:2 3:1\n2 2:3\n")
    status, out, err = _run(capsys, "explain", tmp_path / "m.nbf", tmp_path / "d.svm", "--top", "3")
    assert status == 0, err
    _assert_no_control_characters(out)
    assert "\\x1b[2Jclear" in out and "\\x1b]0;title\\x07x" in out
    status, out, err = _run(capsys, "explain", tmp_path / "m.nbf", tmp_path / "d.svm", "--top", "3", "--json")
    assert status == 0, err
    _assert_no_control_characters(out)
    assert [feature["name"] for feature in json.loads(out.splitlines()[0])["features"]] == [CLEAR, TITLE]


@pytest.mark.parametrize("command", ["train", "predict"])
def test_an_npz_format_member_is_escaped_in_errors(files, capsys, command):
    arrays = {"format": np.array(b"\x1b[2J\x1b]0;pwned\x07"), "shape": np.array([2, 3]), "data": np.ones(2),
              "indices": np.array([0, 1], dtype=np.int32), "indptr": np.array([0, 1, 2], dtype=np.int32),
              "y": np.array([0, 1])}
    np.savez(files / "crafted.npz", **arrays)
    argv = ([command, files / "crafted.npz", "-o", files / "m2.nbf"] if command == "train"
            else [command, files / "m.nbf", files / "crafted.npz", "-o", "-"])
    status, out, err = _run(capsys, *argv)
    assert status == 2 and out == ""
    _assert_no_control_characters(err)
    assert "crafted.npz: holds a '\\x1b[2J\\x1b]0;PWNED\\x07' matrix" in err
