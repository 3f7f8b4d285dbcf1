"""Text input in another encoding than UTF-8, or with bytes not valid in its encoding: --encoding and
--decode-errors, named by the error that stops a run."""

import pytest

from nbfast.cli import main

DOCUMENTS = ["café crème", "thé vert", "café noir", "thé noir"]


def _run(capsys, *argv):
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def folder(tmp_path, capsys):
    """m.nbf trained on UTF-8 text; docs.txt (UTF-8), latin1.txt (the same in Latin-1) and bad.txt (UTF-8 with
    one Latin-1 byte on line 3)."""
    (tmp_path / "d.tsv").write_text("".join(f"{label}\t{doc}\n" for label, doc in
                                            zip(["coffee", "tea", "coffee", "tea"], DOCUMENTS)), encoding="utf-8")
    (tmp_path / "docs.txt").write_text("\n".join(DOCUMENTS) + "\n", encoding="utf-8")
    (tmp_path / "latin1.txt").write_text("\n".join(DOCUMENTS) + "\n", encoding="latin-1")
    (tmp_path / "bad.txt").write_bytes(b"caf\xc3\xa9\nth\xc3\xa9\ncaf\xe9 noir\nth\xc3\xa9 noir\n")
    status, _, err = _run(capsys, "train", tmp_path / "d.tsv", "-o", tmp_path / "m.nbf", "--vectorizer", "count")
    assert status == 0, err
    return tmp_path


def test_invalid_bytes_name_the_line_and_the_options(folder, capsys):
    status, out, err = _run(capsys, "predict", folder / "m.nbf", folder / "bad.txt", "-o", "-")
    assert status == 2 and out == ""
    assert err.count("\n") == 1
    assert f"{folder / 'bad.txt'} line 3: not valid UTF-8" in err
    assert "--encoding NAME" in err and "--decode-errors replace or ignore" in err


@pytest.mark.parametrize("decode_errors", ["replace", "ignore"])
def test_decode_errors_reads_every_line(folder, capsys, decode_errors):
    status, out, err = _run(capsys, "predict", folder / "m.nbf", folder / "bad.txt", "-o", "-", "--decode-errors",
                            decode_errors)
    assert status == 0, err
    assert out.splitlines() == ["label", "coffee", "tea", "coffee", "tea"]


def test_encoding_reads_text_as_its_utf8_twin(folder, capsys):
    status, utf8, err = _run(capsys, "predict", folder / "m.nbf", folder / "docs.txt", "-o", "-", "--proba")
    assert status == 0, err
    status, latin1, err = _run(capsys, "predict", folder / "m.nbf", folder / "latin1.txt", "-o", "-", "--proba",
                               "--encoding", "latin-1")
    assert status == 0, err
    assert latin1 == utf8


@pytest.mark.parametrize(("options", "message"), [
    (["--encoding", "utf-16"], "does not write a line end as one newline byte"),
    (["--encoding", "no-such-encoding"], "unknown text encoding 'no-such-encoding'"),
    (["--decode-errors", "maybe"], "invalid choice: 'maybe'"),
])
def test_encodings_that_cannot_work_are_refused(folder, capsys, options, message):
    status, out, err = _run(capsys, "predict", folder / "m.nbf", folder / "docs.txt", "-o", "-", *options)
    assert status == 2 and out == ""
    assert message in err and "Traceback" not in err


def test_encoding_options_apply_only_to_text(files, capsys):
    status, _, err = _run(capsys, "predict", files / "m.nbf", files / "d.svm", "-o", "-", "--encoding", "latin-1")
    assert status == 2 and "--encoding applies only to text input" in err
