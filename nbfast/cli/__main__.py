"""``python -m nbfast.cli``: the ``nbfast`` command."""

import sys

from nbfast.cli import main

sys.exit(main())
