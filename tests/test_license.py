"""The LICENSE file is the license pyproject.toml declares."""

import re
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_license_file_matches_pyproject():
    declared = re.search(r'^license = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    text = (ROOT / "LICENSE").read_text()
    assert declared == "BSD-3-Clause" and text.startswith("BSD 3-Clause License")
    assert "Neither the name of the copyright holder" in text
