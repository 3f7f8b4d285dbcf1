"""Writing a file without ever leaving half of it: bytes go to a temporary file beside the destination, created
exclusively (so it is a new name: no existing file, input or other, can be it), renamed into place at the end
and removed on any failure, interruption included."""

import contextlib
import os
import secrets
import signal


def _temporary_file(path):
    """(name, open binary file) of a new file in ``path``'s folder, created exclusively (O_EXCL)."""
    folder, name = os.path.split(os.path.abspath(path))
    while True:
        temporary = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.partial")
        try:
            return temporary, open(temporary, "xb")
        except FileExistsError:  # pragma: no cover - 48 random bits
            continue


def _block_sigterm():
    """Block SIGTERM in this thread; return the previous signal mask (None where signals cannot be masked)."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})


def _restore_signals(previous):
    """Restore the signal mask: a SIGTERM that arrived meanwhile is delivered now."""
    if previous is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def replacing(path):
    """Yield a binary file whose bytes replace ``path`` when the block ends without an exception.

    On any exception (KeyboardInterrupt and the command line's SIGTERM
    included) the temporary file is removed and ``path`` is left as it was.
    """
    # SIGTERM waits while the file is created, so that it always lands inside the try below (which removes it).
    previous = _block_sigterm()
    try:
        temporary, f = _temporary_file(path)
    except BaseException:
        _restore_signals(previous)
        raise
    try:
        _restore_signals(previous)  # a SIGTERM that came meanwhile is raised here, inside the try
        with f:
            yield f
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
