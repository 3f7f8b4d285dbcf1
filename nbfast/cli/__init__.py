"""The ``nbfast`` command line: one subcommand per module.

Each command module defines ``add_arguments(parser)`` and ``run(args) -> int``.
Errors a user can fix (bad file, bad option, bad input) print one line on
stderr and exit with status 2; they never end in a traceback.  SIGTERM ends a
command like Ctrl-C does, removing its temporary files (exit status 143).
"""

import argparse
import importlib
import signal
import sys

from nbfast._version import __version__
from nbfast.cli._errors import USER_ERRORS, CommandError, in_cli_words

__all__ = ["CommandError", "main"]

# name -> (module, one-line help)
COMMANDS = {
    "demo": ("nbfast.cli.demo", "train and batch-score a synthetic corpus, beside scikit-learn when installed"),
    "info": ("nbfast.cli.info", "describe a model file (class, parameters, classes, features) without loading its "
             "arrays (--top-features N loads it)"),
    "train": ("nbfast.cli.train", "fit a model on svmlight/.npz or text files, chunk by chunk"),
    "predict": ("nbfast.cli.predict", "score svmlight/.npz or text files with a model, chunk by chunk, to CSV or .npy"),
    "evaluate": ("nbfast.cli.evaluate", "report accuracy, per-class precision/recall/F1, log-loss and the confusion "
                 "matrix of a model on labelled files, chunk by chunk (--plot draws the matrix)"),
    "explain": ("nbfast.cli.explain", "the features that most raise each class's log-odds, or why each row of an "
                "input gets its class"),
    "bench": ("nbfast.cli.bench", "time fit, partial_fit, predict and predict_proba (--text: raw text to CSR and to "
              "labels) against scikit-learn in one process"),
}


def build_parser():
    parser = argparse.ArgumentParser(prog="nbfast", description="Fast Naive Bayes for count data.", allow_abbrev=False)
    parser.add_argument("--version", action="version", version=f"nbfast {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module_name, help_text) in COMMANDS.items():
        sub = subparsers.add_parser(name, help=help_text, description=help_text, allow_abbrev=False)
        module = importlib.import_module(module_name)
        module.add_arguments(sub)
        sub.set_defaults(_run=module.run, _parser=sub)
    return parser


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so that every ``finally`` runs (temporary files are removed)."""


def _terminate(signum, frame):
    raise Terminated()


def _on_sigterm(handler):
    """Install ``handler`` for SIGTERM (only the main thread can); return the previous one, or None."""
    try:
        return signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread
        return None


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
        args, unknown = build_parser().parse_known_args(argv)
        if unknown:  # blamed on the subcommand, with its usage
            args._parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    except SystemExit as exc:  # argparse has printed --help, --version, or the usage and the error (status 2)
        return exc.code
    previous = _on_sigterm(_terminate)
    try:
        return args._run(args) or 0
    except USER_ERRORS as exc:
        print(f"nbfast {args.command}: error: {in_cli_words(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"nbfast {args.command}: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print(f"nbfast {args.command}: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    finally:
        if previous is not None:
            _on_sigterm(previous)


