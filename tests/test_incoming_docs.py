"""The Python examples of the documentation pages waiting in docs/_incoming/ run from the clone's root, as the
README's do (see test_readme)."""

import subprocess
import sys

import pytest
from test_readme import ROOT, python_examples

PAGES = sorted((ROOT / "docs" / "_incoming").glob("*.md"))
EXAMPLES = [(page, index) for page in PAGES for index in range(len(python_examples(page)))]


@pytest.mark.parametrize("page, index", EXAMPLES, ids=[f"{page.name}-{index}" for page, index in EXAMPLES])
def test_incoming_example_runs_from_the_clone_root(page, index):
    pytest.importorskip("sklearn")
    result = subprocess.run([sys.executable, "-c", python_examples(page)[index]], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
