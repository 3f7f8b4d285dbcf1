"""numpy loaded for a command with OpenBLAS's threads told to sleep rather than spin.

When numpy loads OpenBLAS, OpenBLAS starts its threads, and each spins, waiting for work, for about 0.1 s of
CPU before it sleeps (and again after every BLAS call).  A command keeps every core busy with its own threads
and makes almost no BLAS call, so that spin only takes CPU time from them.  ``OPENBLAS_THREAD_TIMEOUT`` at its
shortest (2**4 cycles) makes the threads sleep at once; a BLAS call still wakes them.  OpenBLAS reads the
setting once, when numpy loads it: it is set for that import only, and taken out of the environment again, so
that the processes a command starts (the benchmark's scikit-learn script, say) run as they would.  A value the
user set is left as it is, and numpy loaded already is left alone.
"""

import os
import sys

SETTING = "OPENBLAS_THREAD_TIMEOUT"
#: OpenBLAS's shortest wait: 2**4 cycles.
SHORTEST = "4"


def load_numpy():
    """Import numpy, OpenBLAS's threads sleeping at once when this import loads it."""
    if SETTING in os.environ or "numpy" in sys.modules:
        return
    os.environ[SETTING] = SHORTEST
    try:
        import numpy  # noqa: F401 - loaded here, with the setting
    finally:
        os.environ.pop(SETTING, None)


load_numpy()
