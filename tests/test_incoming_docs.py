"""The Python blocks of the user documentation waiting in docs/_incoming/ run from the clone's root."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
BLOCKS = [(page.name, block) for page in sorted((ROOT / "docs" / "_incoming").glob("*.md"))
          for block in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)]


@pytest.mark.parametrize("page, block", BLOCKS, ids=[f"{page}-{i}" for i, (page, _) in enumerate(BLOCKS)])
def test_incoming_page_block_runs_from_the_clone_root(page, block):
    result = subprocess.run([sys.executable, "-c", block], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{page}:\n{result.stderr}"
