"""The command line: the demo runs, and user errors are one line on stderr."""

import subprocess
import sys

from nbfast.cli import main


def test_demo_prints_accuracy_and_throughput(capsys):
    assert main(["demo", "--n-samples", "3000", "--n-features", "500", "--n-classes", "4"]) == 0
    out = capsys.readouterr().out
    assert "nbfast" in out and "accuracy" in out and "docs/s" in out
    assert "scikit-learn" in out


def test_bad_option_is_one_line_without_traceback():
    result = subprocess.run(
        [sys.executable, "-m", "nbfast.cli", "demo", "--n-samples", "1"], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().count("\n") == 0 and "error" in result.stderr
