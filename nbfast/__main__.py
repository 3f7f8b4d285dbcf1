"""``python -m nbfast``: the ``nbfast`` command, as the console script runs it."""

import sys

from nbfast.cli import console_script

sys.exit(console_script())
