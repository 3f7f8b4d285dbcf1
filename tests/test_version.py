"""The version is written once, in nbfast/_version.py, and the package metadata reads it from there."""

import re
from pathlib import Path

import pytest

import nbfast
from nbfast import _version

ROOT = Path(__file__).parents[1]
tomllib = pytest.importorskip("tomllib")  # Python 3.11+


def test_pyproject_reads_the_version_from_the_package():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and "version" in project["project"]["dynamic"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "nbfast._version.__version__"}


def test_the_version_is_a_release_number_exported_by_nbfast():
    assert re.fullmatch(r"\d+\.\d+\.\d+", _version.__version__)
    assert nbfast.__version__ == _version.__version__
