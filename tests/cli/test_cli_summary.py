"""The one-line summary that ends a command reports the whole run."""

import re
import time

from nbfast.cli import main, train


def _seconds(err):
    (seconds,) = re.findall(r"rows in ([0-9.]+) s", err)
    return float(seconds)


def test_train_reports_the_time_of_every_pass(files, capsys, monkeypatch):
    scan = train.scan

    def slow_scan(args, vectorizer):  # the first pass (labels, vocabulary) takes a second
        time.sleep(1.0)
        return scan(args, vectorizer)

    monkeypatch.setattr(train, "scan", slow_scan)
    assert main(["train", str(files / "d.svm"), "-o", str(files / "m2.nbf")]) == 0
    err = capsys.readouterr().err
    assert "60 rows in" in err
    assert _seconds(err) >= 1.0
