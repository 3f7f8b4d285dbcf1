"""scikit-learn's own ``sklearn/feature_extraction/tests/test_text.py`` passes on ``nbfast.text``.

The installed file runs in a pytest of its own, under scikit-learn's conftest and with
the ``sklearn_text_on_nbfast`` plugin (which binds the test module's four vectorizer
names to nbfast's and lists the deselected tests); a failure shows that run's report.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

SKLEARN_TEXT_TESTS = "sklearn.feature_extraction.tests.test_text"
PLUGIN = "sklearn_text_on_nbfast"


def run_sklearn_text_tests(plugin, *args, plugin_folder=Path(__file__).parent):
    """Run scikit-learn's text tests under ``plugin``, a module of ``plugin_folder``."""
    pytest.importorskip("sklearn")
    if importlib.util.find_spec(SKLEARN_TEXT_TESTS) is None:
        pytest.skip(f"this scikit-learn was installed without its tests ({SKLEARN_TEXT_TESTS})")
    paths = [str(plugin_folder), str(Path(__file__).parent), *filter(None, [os.environ.get("PYTHONPATH")])]
    command = [sys.executable, "-m", "pytest", "-p", plugin, "--pyargs", SKLEARN_TEXT_TESTS,
               "-q", "-rfE", "-p", "no:cacheprovider", *args]
    run = subprocess.run(command, capture_output=True, text=True, check=False, env=dict(os.environ, PYTHONPATH=os.pathsep.join(paths)))
    return command, run


def test_scikit_learns_text_tests_pass_on_nbfast():
    command, run = run_sklearn_text_tests(PLUGIN)
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    assert run.returncode == 0 and " passed" in summary, f"{' '.join(command)}\n{run.stdout[-6000:]}{run.stderr[-3000:]}"
    assert " deselected" in summary  # the plugin was loaded


def test_a_deselected_test_that_no_longer_exists_stops_the_run(tmp_path):
    """The deselect list cannot outlive the tests it names."""
    source = (Path(__file__).parent / f"{PLUGIN}.py").read_text()
    stale = source.replace("DESELECTED = frozenset({", 'DESELECTED = frozenset({\n    "test_no_such_test",', 1)
    assert stale != source
    (tmp_path / "stale_text_plugin.py").write_text(stale)
    command, run = run_sklearn_text_tests("stale_text_plugin", "--collect-only", plugin_folder=tmp_path)
    assert run.returncode != 0, f"{' '.join(command)}\n{run.stdout[-3000:]}"
    assert "test_no_such_test" in run.stdout + run.stderr
