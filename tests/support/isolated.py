"""Risky calls run in a fresh interpreter, so that a crash (a segmentation fault, an abort) fails the test that
made the call instead of killing the test run.

A test module defines ``CASES``, a dict of name -> zero-argument callable, and gets their outcomes from
``run_cases(__file__)`` (or a test from ``case_test``): every case runs in a child interpreter and its outcome
comes back as ``"ok"`` or ``"<ExceptionType>: <message>"``.  A case that ends the interpreter by a
signal gets the outcome ``"signal <n>"``, one that runs longer than ``CASE_TIMEOUT`` seconds ``"exit 1"`` (with
the stack where it hung), and the remaining cases run in a new interpreter.  A child's address
space is limited (``MEMORY_LIMIT``): a runaway allocation is a MemoryError, not a machine out of memory.
"""

import faulthandler
import importlib.util
import json
import os
import re
import resource
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parents[1]
MEMORY_LIMIT = 6 << 30
#: Seconds a case may take (a module may set its own CASE_TIMEOUT); a case that takes longer ends its child.
CASE_TIMEOUT = 120
_START, _DONE = "isolated-start", "isolated-done"


def outcome(call):
    """``"ok"``, or the type and message of the exception ``call()`` raises (the message cut at 300 characters)."""
    try:
        call()
    except Exception as exc:  # reported to the parent
        return f"{type(exc).__name__}: {str(exc)[:300]}"
    return "ok"


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_cases(path, names=None, timeout=600):
    """{case name: outcome} of the ``CASES`` of the module at ``path`` (those in ``names``, by default all)."""
    names = list(_load(path).CASES) if names is None else list(names)
    outcomes = {}
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]))
    while len(outcomes) < len(names):
        remaining = [name for name in names if name not in outcomes]
        child = subprocess.run(
            [sys.executable, __file__, str(path), json.dumps(remaining)], capture_output=True, text=True,
            timeout=timeout, env=env, preexec_fn=_limit_memory,
        )
        started = None
        for line in child.stdout.splitlines():
            kind, _, rest = line.partition("\t")
            if kind == _START:
                started = rest
            elif kind == _DONE:
                name, _, result = rest.partition("\t")
                outcomes[name] = json.loads(result)
                started = None
        if child.returncode != 0 or started is not None:
            if started is None:  # failed before its first case
                raise RuntimeError(f"the child interpreter failed: {child.stderr[-3000:]}")
            how = f"signal {-child.returncode}" if child.returncode < 0 else f"exit {child.returncode}"
            outcomes[started] = f"{how}: {child.stderr[-500:]}"
    return outcomes


_OUTCOMES = {}


def case_test(path, cases, expected):
    """A test, parametrized over ``cases``, that each case ended as ``expected[case]`` says (a regular
    expression matched at the start of the outcome; "ok" when absent).  The cases run once, in child
    interpreters, the first time the test runs."""
    import pytest

    @pytest.mark.parametrize("case", list(cases))
    def test(case):
        if path not in _OUTCOMES:
            _OUTCOMES[path] = run_cases(path)
        outcome = _OUTCOMES[path][case]
        assert re.match(expected.get(case, "ok"), outcome), f"{case}: {outcome}"

    return test


def _load(path):
    spec = importlib.util.spec_from_file_location(Path(path).stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _main(path, names):
    module = _load(path)
    cases, case_timeout = module.CASES, getattr(module, "CASE_TIMEOUT", CASE_TIMEOUT)
    for name in names:
        print(f"{_START}\t{name}", flush=True)
        # A hang ends the child (a watchdog thread, which runs even while a kernel holds the CPU).
        faulthandler.dump_traceback_later(case_timeout, exit=True)
        result = outcome(cases[name])
        faulthandler.cancel_dump_traceback_later()
        print(f"{_DONE}\t{name}\t{json.dumps(result)}", flush=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(sys.argv[1]).parent))
    _main(sys.argv[1], json.loads(sys.argv[2]))
