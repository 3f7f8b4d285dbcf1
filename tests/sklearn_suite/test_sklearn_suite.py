"""scikit-learn's own ``sklearn/tests/test_naive_bayes.py`` passes on nbfast's estimators.

The installed file runs in a pytest of its own, under scikit-learn's conftest and
with the ``sklearn_on_nbfast`` plugin (which patches scikit-learn and lists the
deselected tests); a failure shows that run's report.
"""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

SKLEARN_TESTS = "sklearn.tests.test_naive_bayes"


@pytest.mark.parametrize("float32", ["0", "1"], ids=["float64", "float32-too"])
def test_scikit_learns_naive_bayes_tests_pass_on_nbfast(float32):
    """Once as scikit-learn runs by default, once with its float32 variants (SKLEARN_RUN_FLOAT32_TESTS=1)."""
    pytest.importorskip("sklearn")
    if importlib.util.find_spec(SKLEARN_TESTS) is None:
        pytest.skip(f"this scikit-learn was installed without its tests ({SKLEARN_TESTS})")
    paths = [str(Path(__file__).parent), *filter(None, [os.environ.get("PYTHONPATH")])]
    command = [sys.executable, "-m", "pytest", "-p", "sklearn_on_nbfast", "--pyargs", SKLEARN_TESTS,
               "-q", "-rfE", "-p", "no:cacheprovider"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths), SKLEARN_RUN_FLOAT32_TESTS=float32)
    run = subprocess.run(command, capture_output=True, text=True, env=env)
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""
    assert run.returncode == 0 and " passed" in summary, f"{' '.join(command)}\n{run.stdout[-6000:]}{run.stderr[-3000:]}"
    assert " deselected" in summary  # the plugin was loaded
