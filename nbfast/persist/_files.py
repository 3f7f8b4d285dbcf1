"""Writing a file without ever leaving half of it, and without replacing what is not a file.

A regular file (or a path that does not exist yet) is written to a temporary file beside it, created exclusively
(so it is a new name: no existing file, input or other, can be it), renamed into place at the end and removed on
any failure, interruption included; an existing file's permission bits are kept.  A symbolic link is written
through: its target is replaced that way and the link is kept.  A device, a FIFO or another file that is not
regular (``/dev/null``, ``/dev/stdout`` on a pipe or a terminal) is opened and written directly.
"""

import contextlib
import os
import secrets
import signal
import stat

#: The signals the command line turns into a clean exit (temporary files removed): terminate, terminal closed.
CLEANUP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def _temporary_name(path):
    """A new random name for a temporary file in ``path``'s folder."""
    folder, name = os.path.split(os.path.abspath(path))
    return os.path.join(folder, f".{name}.{secrets.token_hex(6)}.partial")


def _status(path):
    """``os.stat`` of ``path`` (links followed), None when it does not exist (or is a dangling link)."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None


@contextlib.contextmanager
def _replacing_regular(path, mode):
    """Yield a binary file whose bytes replace the regular file ``path`` (kept with permission bits ``mode``, when
    not None) when the block ends without an exception."""
    # The file is named first and created inside the try that removes it: a signal's exception (raised in the
    # main thread wherever it runs, even as open() returns) cannot come between its creation and the try.
    temporary = _temporary_name(path)
    try:
        while True:
            try:
                f = open(temporary, "xb")  # exclusive: a new file, never an existing one
                break
            except FileExistsError:  # pragma: no cover - 48 random bits
                temporary = _temporary_name(path)
        with f:
            if mode is not None:
                os.chmod(f.fileno(), mode)
            yield f
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def replacing(path):
    """Yield a binary file whose bytes replace ``path`` when the block ends without an exception.

    A regular file is replaced whole at the end (on any exception, KeyboardInterrupt and the command line's
    SIGTERM and SIGHUP included, the temporary file is removed and ``path`` is left as it was) and keeps its
    permission bits; a symbolic link is kept and its target replaced; a device or a FIFO is written directly.

    Parameters
    ----------
    path : str or os.PathLike
        The destination.

    Yields
    ------
    file
        A binary file open for writing.
    """
    path = os.fspath(path)
    status = _status(path)
    if status is not None and not stat.S_ISREG(status.st_mode):  # a device, a FIFO (a folder fails to open)
        with open(path, "wb") as f:
            yield f
        return
    destination = os.path.realpath(path) if os.path.islink(path) else path
    with _replacing_regular(destination, None if status is None else stat.S_IMODE(status.st_mode)) as f:
        yield f
