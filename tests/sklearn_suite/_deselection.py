"""What the two plugins share: refusing a stale deselect list, and deselecting by name."""

import pytest


def check_deselected_exist(module, deselected):
    """Stop the run when a deselected test (``name`` or ``name[parameters]``) is no longer in ``module``."""
    stale = sorted(key for key in deselected if not callable(vars(module).get(key.partition("[")[0])))
    if stale:
        raise pytest.UsageError(f"Deselected tests not in {module.__name__}: {stale}; update DESELECTED.")


def deselect(config, items, deselected):
    """Remove the ``deselected`` tests from ``items`` (by name, or name[parameters]), reporting them as such."""
    kept, dropped = [], []
    for item in items:
        (dropped if item.name in deselected or item.originalname in deselected else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
