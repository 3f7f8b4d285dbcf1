"""The ``nbfast`` command line: one subcommand per module.

Each command module defines ``add_arguments(parser)`` and ``run(args) -> int``.
Errors a user can fix (bad file, bad option, bad input) print one line on
stderr and exit with status 2; they never end in a traceback.  SIGTERM and SIGHUP
(the terminal closed) end a command like Ctrl-C does, removing its temporary
files (exit status 128 + the signal's number: 143, 129).
"""

import argparse
import contextlib
import gc
import importlib
import os
import signal
import sys

from nbfast._version import __version__
from nbfast.cli import _blas  # noqa: F401 - loads numpy, before any module below does: see its docstring
from nbfast.cli._errors import USER_ERRORS, CommandError, error_line

__all__ = ["CommandError", "console_script", "main"]

# name -> (module, one-line help)
COMMANDS = {
    "demo": ("nbfast.cli.demo", "train and batch-score a synthetic corpus, beside scikit-learn when installed"),
    "info": ("nbfast.cli.info", "describe a model file (class, parameters, classes, features) without loading its "
             "arrays (--top-features N loads it)"),
    "train": ("nbfast.cli.train", "fit a model on svmlight/.npz, text or Parquet/Arrow/CSV files, chunk by chunk"),
    "predict": ("nbfast.cli.predict", "score svmlight/.npz, text or Parquet/Arrow/CSV files with a model, chunk by "
                "chunk, to CSV, Parquet, Arrow or .npy"),
    "evaluate": ("nbfast.cli.evaluate", "report accuracy, per-class precision/recall/F1, log-loss and the confusion "
                 "matrix of a model on labelled files, chunk by chunk (--plot draws the matrix)"),
    "explain": ("nbfast.cli.explain", "the features that most raise each class's log-odds, or why each row of an "
                "input gets its class"),
    "bench": ("nbfast.cli.bench", "time fit, partial_fit, predict and predict_proba (--text: raw text to CSR and to "
              "labels) against scikit-learn in one process"),
}


def build_parser(commands=None):
    """The ``nbfast`` argument parser; only the options of ``commands`` (default: all) are loaded.

    Each command's options come from its module, so loading only the one that
    runs keeps ``nbfast --version`` and ``nbfast --help`` from importing them all.
    """
    parser = argparse.ArgumentParser(prog="nbfast", description="Fast Naive Bayes for count data.", allow_abbrev=False)
    parser.add_argument("--version", action="version", version=f"nbfast {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module_name, help_text) in COMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text, allow_abbrev=False)
        if commands is None or name in commands:
            module = importlib.import_module(module_name)
            module.add_arguments(sub)
            sub.set_defaults(_run=module.run, _parser=sub)
    return parser


class Terminated(BaseException):
    """SIGTERM or SIGHUP, raised in the main thread so that every ``finally`` runs (temporary files are removed)."""

    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _terminate(signum, frame):
    from nbfast.persist._files import CLEANUP_SIGNALS

    # The clean-up that Terminated starts (temporary files removed) must not be interrupted by a second signal.
    _on_signals(dict.fromkeys(CLEANUP_SIGNALS, signal.SIG_IGN))
    raise Terminated(signum)


def _on_signals(handlers):
    """Install ``handlers`` ({signal: handler}; only the main thread can); return the previous ones ({} if not)."""
    previous = {}
    try:
        for signum, handler in handlers.items():
            previous[signum] = signal.signal(signum, handler)
    except ValueError:  # not the main thread
        pass
    return previous


def main(argv=None):
    """Run the ``nbfast`` command line, as the console script does.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments after ``nbfast`` (``["train", "data.svm", "-o", "m.nbf"]``);
        None reads ``sys.argv[1:]``.

    Returns
    -------
    status : int
        The exit status: 0 on success, 2 for an error (reported as one line on
        stderr), 130 when interrupted.
    """
    try:
        argv = sys.argv[1:] if argv is None else list(argv)
        # The command is the first word that is not an option (the only options before it are --help, --version).
        command = next((word for word in argv if not word.startswith("-")), None)
        args, unknown = build_parser(commands={command}).parse_known_args(argv)
        if unknown:  # blamed on the subcommand, with its usage
            args._parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exc:  # argparse has printed --help, --version, or the usage and the error (status 2)
        return exc.code
    from nbfast.persist._files import CLEANUP_SIGNALS  # here: --version and --help need none of persist

    previous = _on_signals(dict.fromkeys(CLEANUP_SIGNALS, _terminate))
    try:
        if getattr(args, "jobs", None) is None:
            return args._run(args) or 0
        from nbfast._kernels.threads import n_jobs_limit

        with n_jobs_limit(args.jobs, ceiling=True):  # every kernel of this thread, the threads that make blocks
            return args._run(args) or 0
    except BrokenPipeError:  # the reader of standard output left (`| head`): stop quietly, as command-line tools do
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python exits
        return 128 + getattr(signal, "SIGPIPE", 13)
    except USER_ERRORS as exc:
        print(f"nbfast {args.command}: error: {error_line(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"nbfast {args.command}: interrupted", file=sys.stderr)
        return 130
    except Terminated as exc:
        with contextlib.suppress(OSError):  # after SIGHUP, the terminal may be gone
            print(f"nbfast {args.command}: terminated ({signal.Signals(exc.signum).name})", file=sys.stderr)
        return 128 + exc.signum
    finally:
        _on_signals(previous)


def console_script():
    """The ``nbfast`` executable (and ``python -m nbfast``, ``python -m nbfast.cli``): :func:`main` on
    ``sys.argv``, in a process that ends when it returns.

    The objects left then are freed with the process; the interpreter's last garbage collection of them
    (a loaded model, every imported module) would only cost time, some tens of milliseconds, so they are
    frozen out of it.
    """
    status = main()
    gc.freeze()
    return status
