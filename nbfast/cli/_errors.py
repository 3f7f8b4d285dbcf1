"""The errors the command line reports as one line on stderr with exit status 2."""

import argparse
import math

from nbfast._compat import MissingDependency


class CommandError(Exception):
    """A problem the user can fix (an option, a file, an input); reported as one line on stderr."""


def n_jobs(text):
    """argparse type: a thread count as scikit-learn's n_jobs takes it, a whole number >= 1 or -1 (one per CPU),
    -2 (one fewer), ..."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value == 0:
        raise argparse.ArgumentTypeError("must be at least 1, or -1 for one thread per CPU (-2 for one fewer...), "
                                         "got 0")
    return value


def positive_int(text):
    """argparse type: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_float(text):
    """argparse type: a finite number >= 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {text!r}") from None
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


def document_frequency(text):
    """argparse type: a document count (a whole number >= 1) or a fraction of the documents (a number in [0, 1]
    written with a point or an exponent), as min_df and max_df take them."""
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number >= 1 or a fraction in [0, 1], got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"a fraction must be in [0, 1], got {text!r}")
    return value


#: The library's messages name its parameters and methods; the command line says its options instead.
_OPTION_OF = {"zero_based=True": "--zero-based", "file_format": "--format", "to_dict()": "--json",
              "encoding=NAME": "--encoding NAME",
              "decode_error='replace' or 'ignore'": "--decode-errors replace or ignore"}


#: Control characters written as escapes in a message (a line break of a CSV row that pyarrow quotes, the NULs
#: of UTF-16 text read as UTF-8), so that it stays one line; a tab stays.
_ESCAPES = {**{code: f"\\x{code:02x}" for code in (*range(32), 127) if code != 9}, 10: "\\n", 13: "\\r"}


def in_cli_words(message):
    """``message`` with the parameters and methods it names replaced by the options that set them."""
    for words, option in _OPTION_OF.items():
        message = message.replace(words, option)
    return message


def error_line(message):
    """An error's ``message`` as the one line the command line prints: in its words (:func:`in_cli_words`),
    control characters escaped."""
    return in_cli_words(message).translate(_ESCAPES)


#: Errors a user can fix: the command's own, a missing optional dependency, a file that cannot be read or
#: written, and invalid input (every reader, model file and estimator check raises ValueError, ModelFormatError
#: included).  Anything else is a bug and keeps its traceback.
USER_ERRORS = (CommandError, MissingDependency, OSError, ValueError)
