"""A command loads numpy with OpenBLAS's threads told to sleep at once (``OPENBLAS_THREAD_TIMEOUT``), and leaves
the environment of the processes it starts as it found it."""

import os
import subprocess
import sys

import pytest

# Imports the command line in a fresh interpreter and prints the setting as numpy's import saw it, then as the
# environment holds it afterwards.
SPY = """
import os, sys
seen = []
class Spy:
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" and not seen:
            seen.append(os.environ.get("OPENBLAS_THREAD_TIMEOUT"))
        return None
sys.meta_path.insert(0, Spy())
import nbfast.cli
print(seen[0], os.environ.get("OPENBLAS_THREAD_TIMEOUT"))
"""


def spied(env):
    result = subprocess.run([sys.executable, "-c", SPY], capture_output=True, text=True, env=env, check=True)
    return result.stdout.split()


@pytest.fixture
def environment():
    return {name: value for name, value in os.environ.items() if name != "OPENBLAS_THREAD_TIMEOUT"}


def test_numpy_is_loaded_with_the_shortest_wait_then_the_setting_is_taken_out(environment):
    assert spied(environment) == ["4", "None"]


def test_a_wait_the_user_set_is_kept(environment):
    assert spied({**environment, "OPENBLAS_THREAD_TIMEOUT": "20"}) == ["20", "20"]


def test_numpy_loaded_before_is_left_alone(monkeypatch):
    from nbfast.cli import _blas

    class Recorded(dict):
        def __setitem__(self, name, value):
            written.append(name)
            super().__setitem__(name, value)

    written = []
    monkeypatch.setattr(os, "environ", Recorded(os.environ))
    monkeypatch.delitem(os.environ, _blas.SETTING, raising=False)
    _blas.load_numpy()  # numpy is loaded in this process already
    assert written == []
