"""The errors the command line reports as one line on stderr with exit status 2."""

from nbfast._compat import MissingDependency


class CommandError(Exception):
    """A problem the user can fix (an option, a file, an input); reported as one line on stderr."""


#: Errors a user can fix: the command's own, a missing optional dependency, a file that cannot be read or
#: written, and invalid input (every reader, model file and estimator check raises ValueError, ModelFormatError
#: included).  Anything else is a bug and keeps its traceback.
USER_ERRORS = (CommandError, MissingDependency, OSError, ValueError)
