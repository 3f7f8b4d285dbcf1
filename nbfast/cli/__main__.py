"""``python -m nbfast.cli``: the ``nbfast`` command."""

import sys

from nbfast.cli import console_script

sys.exit(console_script())
