"""Standard input and output: ``-`` reads standard input, and ``-o -`` writes nothing before the input is known
to be readable."""

import subprocess
import sys

import pytest

from nbfast.cli import main

DOCUMENTS = "cheap offer now\nmeeting agenda\nwin cheap\n"


@pytest.fixture
def text_model(tmp_path, capsys):
    """A folder holding m.nbf (trained on text) and docs.txt."""
    (tmp_path / "d.tsv").write_text("spam\tcheap offer now win\nham\tmeeting agenda report\n")
    (tmp_path / "docs.txt").write_text(DOCUMENTS)
    assert main(["train", str(tmp_path / "d.tsv"), "-o", str(tmp_path / "m.nbf")]) == 0
    capsys.readouterr()
    return tmp_path


def _nbfast(folder, *args, stdin=""):
    return subprocess.run([sys.executable, "-m", "nbfast.cli", *args], cwd=folder, input=stdin, capture_output=True,
                          text=True, timeout=120)


def test_dash_reads_standard_input(text_model):
    result = _nbfast(text_model, "predict", "m.nbf", "-", "--format", "lines", "-o", "-", "--proba",
                     stdin=DOCUMENTS)
    assert result.returncode == 0, result.stderr
    from_file = _nbfast(text_model, "predict", "m.nbf", "docs.txt", "-o", "-", "--proba")
    assert result.stdout == from_file.stdout
    assert result.stdout.splitlines()[0].startswith("label,") and len(result.stdout.splitlines()) == 4


def _assert_one_line_error(result, fragment):
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and fragment in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_standard_input_is_refused_where_it_cannot_be_read(text_model):
    _assert_one_line_error(_nbfast(text_model, "train", "-", "--format", "tsv", "-o", "m2.nbf",
                                   stdin="spam\tcheap\n"), "reads its input more than once")
    _assert_one_line_error(_nbfast(text_model, "predict", "m.nbf", "-", "-", "--format", "lines", "-o", "-",
                                   stdin=DOCUMENTS), "given more than once")
    _assert_one_line_error(_nbfast(text_model, "predict", "m.nbf", "-", "--format", "npz", "-o", "-"),
                           "cannot be read as .npz")


@pytest.mark.parametrize("proba", [[], ["--proba"]])
def test_nothing_is_written_to_standard_output_before_an_input_error(files, capsys, proba):
    (files / "bad.svm").write_text("x 1:1\n0 1:1\n")
    for inputs, fragment in [([files / "missing.svm"], "missing.svm: No such file or directory"),
                             ([files / "d.svm", files / "missing.svm"], "missing.svm: No such file or directory"),
                             ([files / "bad.svm"], "bad.svm line 1")]:
        status = main(["predict", str(files / "m.nbf"), *map(str, inputs), "-o", "-", *proba])
        out, err = capsys.readouterr()
        assert status == 2
        assert out == ""
        assert err.count("\n") == 1 and fragment in err, err


def test_an_input_of_no_rows_still_gets_its_header(files, capsys):
    (files / "empty.svm").write_text("")
    assert main(["predict", str(files / "m.nbf"), str(files / "empty.svm"), "-o", "-"]) == 0
    assert capsys.readouterr().out == "label\n"


@pytest.mark.parametrize("lines_read", [1, 300])
def test_a_reader_leaving_mid_block_ends_the_command_with_sigpipe_status(tmp_path, capsys, lines_read):
    """`nbfast predict ... -o - | head -N`: a block larger than the pipe, its reader gone while it is written,
    ends the command with 128 + SIGPIPE and no error line, never a success that dropped rows."""
    (tmp_path / "d.tsv").write_text("spam\tcheap offer now win\nham\tmeeting agenda report\n")
    (tmp_path / "docs.txt").write_text(DOCUMENTS * 5000)
    assert main(["train", str(tmp_path / "d.tsv"), "-o", str(tmp_path / "m.nbf")]) == 0
    capsys.readouterr()
    command = [sys.executable, "-m", "nbfast.cli", "predict", str(tmp_path / "m.nbf"), str(tmp_path / "docs.txt"),
               "-o", "-", "--proba", "--chunk-size", "20000"]
    for _ in range(3):
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(lines_read):
            process.stdout.readline()
        process.stdout.close()
        stderr = process.stderr.read().decode()
        assert process.wait(timeout=120) == 141, stderr
        assert "error" not in stderr and "Traceback" not in stderr, stderr
