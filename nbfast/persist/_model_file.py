"""One model file opened once: its header read and checked a single time, then the model, the vectorizer and the
training input it describes, each decoded when asked for.

``load``, ``load_vectorizer`` and ``load_training_input`` each open a file for one of them;
``nbfast predict`` needs all three, and a header holding a vocabulary is the larger part of reading a
model: :class:`ModelFile` reads it once.  The file stays open until closed, so the arrays come from the
file whose header was read even if another file is renamed over its path meanwhile.

A model may also come as bytes (from a database, a broadcast variable, a network message) or a binary file
object: it is read into memory and checked exactly as a file is.
"""

import contextlib
import io
import os

import numpy as np

from nbfast.persist._codec import _Decoder
from nbfast.persist._container import ModelFormatError, _array_views, _read_data, _read_header
from nbfast.persist._training_input import check_training_input_entry
from nbfast.persist._vectorizer import _rebuild_vectorizer


class ModelFile:
    """A model file, its header read and checked; a context manager that closes it.

    Parameters
    ----------
    source : str, os.PathLike, bytes-like or binary file object
        A model file written by :func:`nbfast.save`: its path, its bytes, or a file object open for reading in
        binary mode, read from its current position to its end (and left open).

    Raises
    ------
    ModelFormatError
        If the file is empty, truncated, foreign, from a newer format version, or its header is corrupted or
        invalid (the message starts with the path, or says the bytes were given).
    TypeError
        If ``source`` is none of the above, or a file object open in text mode.
    OSError
        If the file cannot be opened or read.
    """

    def __init__(self, source):
        self._f, self.path, self._mappable = _opened(source)
        try:
            with _blamed(self.path):
                self.header, self._data_start = _read_header(self._f)
        except BaseException:
            self._f.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()

    def close(self):
        self._f.close()

    def model(self, *, mmap=False):
        """The fitted model the file holds (see :func:`nbfast.load`), its data checksum verified."""
        if mmap and not self._mappable:
            raise ValueError("mmap=True maps a model file from its path; a model given as bytes or a file object is "
                             "read into memory: leave mmap False.")
        header = self.header
        with _blamed(self.path):
            data, digest = _read_data(self._f, self._data_start, header["data_nbytes"], mmap)
            if digest != header["data_sha256"]:
                raise ModelFormatError("corrupted: the data checksum does not match.")
            try:
                with np.errstate(all="ignore"):  # a crafted value may overflow while rebuilding: refused after
                    model = _Decoder(_array_views(data, header["arrays"])).model(header["model"])
            except ModelFormatError:
                raise
            except (ValueError, TypeError, AttributeError, IndexError, KeyError, ArithmeticError,
                    RecursionError) as exc:
                raise ModelFormatError(f"invalid or inconsistent model: {exc}") from exc
            if header["model"].get("fitted") is None:
                raise ModelFormatError("the file holds an unfitted model.")
            _check_summary(header["summary"], model)
            return model

    def vectorizer(self, *, trust=False):
        """The text vectorizer stored with the model, or None (see :func:`nbfast.persist.load_vectorizer`)."""
        return self._entry("vectorizer", lambda entry: _rebuild_vectorizer(
            entry, self.header["summary"].get("n_features_in"), trust))

    def training_input(self):
        """How the training input was read, or None (see :func:`nbfast.persist.load_training_input`)."""
        return self._entry("training_input", check_training_input_entry)

    def _entry(self, key, decode):
        """``decode(entry)`` of an optional header entry, None without it."""
        if key not in self.header:
            return None
        with _blamed(self.path):
            try:
                return decode(self.header[key])
            except RecursionError:
                raise ModelFormatError(f"invalid {key} entry: nested too deeply.") from None


def _opened(source):
    """``source`` as (a binary file to read the model from, its name in messages, whether it can be mapped)."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return io.BytesIO(source), "<bytes>", False
    if isinstance(source, io.TextIOBase):
        raise TypeError("a model file is binary: open it with open(path, 'rb'), not in text mode.")
    if hasattr(source, "read"):
        data = source.read()
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"the file object gave {type(data).__name__}, not bytes: open it in binary mode ('rb').")
        return io.BytesIO(data), str(getattr(source, "name", "<file object>")), False
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"a model is loaded from a path, bytes or a binary file object; got {type(source).__name__}.")
    path = os.fspath(source)
    return open(path, "rb"), path, True


@contextlib.contextmanager
def _blamed(path):
    """A ModelFormatError raised inside starts with the file's path."""
    try:
        yield
    except ModelFormatError as exc:
        raise ModelFormatError(f"{path}: {exc}") from exc.__cause__


def _check_summary(summary, model):
    """The header's summary (what ``nbfast info`` shows) must describe the model the file holds."""
    if summary.get("classes") != model.classes_.tolist() or summary.get("n_features_in") != model.n_features_in_:
        raise ModelFormatError("the header's summary (classes, n_features_in) does not describe the model it holds.")
