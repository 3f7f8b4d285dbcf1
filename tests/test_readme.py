"""The README's Python examples run where a user stands after the set-up: the clone's root.

From there the source folder ``nbfast/`` is on ``sys.path`` first, so an
install that leaves the kernels elsewhere (a plain ``pip install .``) would
make ``import nbfast`` fail; the README's editable install does not.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]  # the clone
README = ROOT / "README.md"
NOT_RUN = "# not run by the README test"


def python_examples(page=README):
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)


def test_the_readme_has_examples_and_skips_only_marked_ones():
    examples = python_examples()
    assert len(examples) >= 8
    assert sum(NOT_RUN in example for example in examples) == 1  # Dask: it needs a cluster


@pytest.mark.parametrize("index", range(len(python_examples())))
def test_readme_example_runs_from_the_clone_root(index):
    pytest.importorskip("sklearn")
    example = python_examples()[index]
    if NOT_RUN in example:
        pytest.skip("needs a Dask cluster")
    before = set(ROOT.iterdir())
    try:
        result = subprocess.run([sys.executable, "-c", example], cwd=ROOT, capture_output=True, text=True,
                                timeout=300)
    finally:
        for created in set(ROOT.iterdir()) - before:  # model files the examples save where they run
            created.unlink()
    assert result.returncode == 0, result.stderr
