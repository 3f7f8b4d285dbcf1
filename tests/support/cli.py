"""Helpers for tests of the command line: a run's outcome, and the shape of its errors."""

from nbfast.cli import main


def run_cli(capsys, *argv):
    """(exit status, stdout, stderr) of ``nbfast ARGV`` (each argument as ``str``)."""
    status = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_line_error(status, err, *fragments):
    """The run failed with exit status 2 and one line on stderr, without a traceback, holding every fragment."""
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, err
