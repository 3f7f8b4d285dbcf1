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


def _project():
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_classifiers_name_every_supported_python_from_the_minimum_on():
    project = _project()["project"]
    minimum = re.fullmatch(r">=3\.(\d+)", project["requires-python"])[1]
    versions = [int(c.rsplit(".", 1)[1]) for c in project["classifiers"]
                if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
    assert versions == list(range(int(minimum), int(minimum) + len(versions))) and len(versions) >= 4


def test_the_kernels_target_the_oldest_numpy_declared():
    """setup.py builds against numpy 2 but targets the API of the minimum numpy, or the kernels would not import
    there (numpy's headers target a newer one by default)."""
    (minimum,) = [r.removeprefix("numpy>=") for r in _project()["project"]["dependencies"] if r.startswith("numpy")]
    major, minor = minimum.split(".")[:2]
    assert f'("NPY_TARGET_VERSION", "NPY_{major}_{minor}_API_VERSION")' in (ROOT / "setup.py").read_text()


def test_every_kernel_source_is_package_data():
    """What the sdist and the wheels carry of nbfast/_kernels besides Python files: every .pyx, .pxd and .h."""
    patterns = _project()["tool"]["setuptools"]["package-data"]["nbfast._kernels"]
    kernels = ROOT / "nbfast" / "_kernels"
    sources = [path for path in kernels.iterdir() if path.suffix in (".pyx", ".pxd", ".h")]
    assert len(sources) >= 20
    assert all(any(path.match(pattern) for pattern in patterns) for path in sources)
