"""Chunked readers for the streaming command line: memory bounded by one chunk.

Two feature-vector formats (raw text is read by :mod:`nbfast.textio`):

- svmlight / libsvm text (optionally ``.gz`` or ``.bz2``), parsed by the
  compiled parser in ``nbfast._kernels.svmlight`` a block of lines at a time;
- ``.npz`` archives of a CSR matrix as written by ``scipy.sparse.save_npz``
  (labels, for training, in an extra array ``y``: see :func:`save_npz`), read
  member by member without loading the arrays whole.

Each reader yields :class:`Block` objects; ``Block.to_csr(n_features)`` checks
feature indices against the model's and names the offending line.
"""

import bz2
import gzip
import queue
import threading
import zipfile
from itertools import islice

import numpy as np
import scipy.sparse as sp

from nbfast._kernels import svmlight

_PARSE_ERRORS = {
    svmlight.Status.BAD_LABEL: "malformed label (expected a number)",
    svmlight.Status.BAD_FEATURE: "malformed feature (expected index:value)",
    svmlight.Status.INDEX_BELOW_BASE: "feature index 0 in a one-based file (pass --zero-based if indices start at 0)",
    svmlight.Status.UNSORTED: "feature indices must be sorted and unique",
}


class Block:
    """A chunk of rows read from one input file.

    Attributes
    ----------
    data, indices, indptr : ndarray
        The rows in CSR form, with indices counted from 0.
    y : ndarray or None
        Labels (None when the file has none).
    row_numbers : ndarray
        The 1-based line (text files) or row (.npz) of each row in its file, for messages.
    n_bytes : int
        Input bytes the block consumed (for progress).
    """

    def __init__(self, path, data, indices, indptr, y, row_numbers, n_bytes, *, unit="line", base=0):
        self.path, self.data, self.indices, self.indptr = path, data, indices, indptr
        self.y, self.row_numbers, self.n_bytes, self.unit, self.base = y, row_numbers, n_bytes, unit, base

    @property
    def n_rows(self):
        return self.indptr.shape[0] - 1

    def max_index(self):
        """Largest feature index in the block, -1 when it has no entries."""
        return int(self.indices.max()) if self.indices.size else -1

    def to_csr(self, n_features):
        """The rows as a (n_rows, n_features) CSR array; an index beyond ``n_features`` raises ValueError."""
        if self.max_index() >= n_features:
            position = int(np.argmax(self.indices >= n_features))
            row = int(np.searchsorted(self.indptr, position, side="right")) - 1
            raise ValueError(
                f"{self.path} {self.unit} {self.row_numbers[row]}: feature index {self.indices[position] + self.base} "
                f"is beyond the model's {n_features} features"
            )
        return sp.csr_array((self.data, self.indices, self.indptr), shape=(self.n_rows, n_features), copy=False)


def _open_text(path):
    if str(path).endswith(".gz"):
        return gzip.open(path, "rb")
    if str(path).endswith(".bz2"):
        return bz2.open(path, "rb")
    return open(path, "rb")


def quote_line(line):
    """A line of input (bytes) for an error message: decoded, stripped, at most 60 characters, quoted."""
    text = line.decode("utf-8", "replace").strip()
    return repr(text if len(text) <= 60 else text[:57] + "...")


def iter_svmlight(path, chunk_size, *, zero_based=False):
    """Yield :class:`Block` s of at most ``chunk_size`` lines of an svmlight / libsvm file.

    Parameters
    ----------
    path : str or path-like
    chunk_size : int
        Lines per block (blank and comment lines count but hold no row).
    zero_based : bool, default=False
        Whether feature indices start at 0 (scikit-learn's ``dump_svmlight_file``
        default) rather than 1 (libsvm's convention).
    """
    base = 0 if zero_based else 1
    first_line = 1
    with _open_text(path) as f:
        while True:
            lines = list(islice(f, chunk_size))
            if not lines:
                return
            block = b"".join(lines)
            status, y, data, indices, indptr, row_lines, error_line, _ = svmlight.parse_block(block, base)
            if status != svmlight.Status.OK:
                shown = quote_line(lines[error_line])
                raise ValueError(f"{path} line {first_line + error_line}: {_PARSE_ERRORS[status]}: {shown}")
            yield Block(path, data, indices, indptr, y, row_lines + first_line, len(block), base=base)
            first_line += len(lines)


class _NpyMember:
    """Sequential reader of one .npy array inside an open zip archive."""

    def __init__(self, archive, name):
        self._stream = archive.open(name)
        version = np.lib.format.read_magic(self._stream)
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        self.shape, fortran_order, self.dtype = read_header(self._stream)
        if self.dtype.hasobject or (fortran_order and len(self.shape) > 1):
            raise ValueError(f"unsupported array {name} (object dtype or Fortran order)")

    def read(self, count):
        n_bytes = count * self.dtype.itemsize
        buffer = self._stream.read(n_bytes)
        if len(buffer) != n_bytes:
            raise ValueError("truncated array")
        return np.frombuffer(buffer, dtype=self.dtype)

    def close(self):
        self._stream.close()


def _read_small(archive, name):
    with archive.open(name) as f:
        return np.lib.format.read_array(f, allow_pickle=False)


def iter_npz(path, chunk_size):
    """Yield :class:`Block` s of at most ``chunk_size`` rows of a CSR ``.npz`` archive.

    The archive is read member by member, sequentially: memory stays bounded by
    the chunk even for a compressed archive larger than memory.
    """
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise ValueError(f"{path}: not a .npz archive ({exc})") from None
    with archive:
        names = set(archive.namelist())
        if not {"format.npy", "shape.npy", "data.npy", "indices.npy", "indptr.npy"} <= names:
            raise ValueError(f"{path}: not a scipy sparse .npz archive (save it with nbfast.io.save_npz)")
        sparse_format = _read_small(archive, "format.npy").item()
        sparse_format = sparse_format.decode() if isinstance(sparse_format, bytes) else str(sparse_format)
        if sparse_format != "csr":
            raise ValueError(f"{path}: holds a {sparse_format.upper()} matrix; convert it to CSR (X.tocsr())")
        n_samples, n_features = (int(v) for v in _read_small(archive, "shape.npy"))
        members = {name: _NpyMember(archive, f"{name}.npy") for name in ("data", "indices", "indptr")}
        if "y.npy" in names:
            members["y"] = _NpyMember(archive, "y.npy")
        try:
            start = members["indptr"].read(1)[0]
            for first in range(0, n_samples, chunk_size):
                n_rows = min(chunk_size, n_samples - first)
                indptr = np.concatenate([[start], members["indptr"].read(n_rows)]).astype(np.int64)
                nnz = int(indptr[-1] - indptr[0])
                data = members["data"].read(nnz)
                indices = members["indices"].read(nnz).astype(np.int64)
                if indices.size and (indices.min() < 0 or indices.max() >= n_features):
                    raise ValueError(f"{path}: column index outside [0, {n_features}) near row {first + 1}")
                y = members["y"].read(n_rows) if "y" in members else None
                start = indptr[-1]
                row_numbers = np.arange(first + 1, first + n_rows + 1)
                yield Block(path, data, indices, indptr - indptr[0], y, row_numbers,
                            nnz * (data.itemsize + indices.itemsize), unit="row")
        except (zipfile.BadZipFile, EOFError) as exc:
            raise ValueError(f"{path}: corrupt archive ({exc})") from None
        finally:
            for member in members.values():
                member.close()


def save_npz(path, X, y=None, compressed=True):
    """Save CSR ``X`` (and labels ``y``) in the ``.npz`` layout ``nbfast train`` / ``predict`` read.

    The archive is the one ``scipy.sparse.save_npz`` writes, plus ``y``:
    ``scipy.sparse.load_npz`` still reads it.
    """
    X = sp.csr_array(X)
    arrays = {
        "format": np.array(b"csr"), "shape": np.array(X.shape),
        "data": X.data, "indices": X.indices, "indptr": X.indptr,
    }
    if y is not None:
        y = np.asarray(y)
        if y.shape != (X.shape[0],):
            raise ValueError(f"y has shape {y.shape}, expected ({X.shape[0]},)")
        arrays["y"] = y
    (np.savez_compressed if compressed else np.savez)(path, **arrays)


#: Input formats, and the file extensions (also under .gz/.bz2) that select them.
FORMATS = ("svmlight", "npz", "lines", "tsv", "jsonl")
_EXTENSIONS = {".npz": "npz", ".svm": "svmlight", ".libsvm": "svmlight", ".svmlight": "svmlight",
               ".txt": "lines", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def input_format(path, file_format=None):
    """The format of an input: ``file_format`` when given, else by extension (svmlight when unknown)."""
    if file_format is not None:
        return file_format
    name = str(path)
    for compressed in (".gz", ".bz2"):
        name = name.removesuffix(compressed)
    return next((fmt for ext, fmt in _EXTENSIONS.items() if name.endswith(ext)), "svmlight")


def iter_blocks(paths, chunk_size, *, zero_based=False, file_format=None, vectorizer=None, fields=("label", "text")):
    """Yield the :class:`Block` s of every input in turn.

    Each input is read in its :func:`input_format` (``file_format`` for all,
    when given): ``.npz`` archives, svmlight text, or raw text (see
    :mod:`nbfast.textio`, which ``vectorizer`` and ``fields`` are for).
    """
    from nbfast.textio import iter_text

    if chunk_size < 1:
        raise ValueError(f"--chunk-size must be at least 1, got {chunk_size}")
    for path in paths:
        fmt = input_format(path, file_format)
        if fmt == "npz":
            yield from iter_npz(path, chunk_size)
        elif fmt == "svmlight":
            yield from iter_svmlight(path, chunk_size, zero_based=zero_based)
        else:
            yield from iter_text(path, chunk_size, fmt, vectorizer=vectorizer, fields=fields)


def prefetch(iterable):
    """Iterate ``iterable`` in a background thread, one item ahead.

    The parser releases the GIL, so reading and parsing the next block overlaps
    with the caller's work on the current one. At most three items are alive
    at once; an exception in the producer is raised in the consumer.
    """
    items = queue.Queue(maxsize=1)
    done = object()
    stop = threading.Event()

    def produce():
        try:
            for item in iterable:
                if stop.is_set():
                    return
                items.put((item, None))
            items.put((done, None))
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer
            items.put((done, exc))

    thread = threading.Thread(target=produce, daemon=True)
    thread.start()
    try:
        while True:
            item, error = items.get()
            if item is done:
                if error is not None:
                    raise error
                return
            yield item
    finally:
        stop.set()
        while thread.is_alive():  # unblock a producer waiting on a full queue
            try:
                items.get(timeout=0.05)
            except queue.Empty:
                pass
        thread.join()
