"""``.npz`` archives of a CSR matrix as written by ``scipy.sparse.save_npz`` (labels in an extra array ``y``),
read member by member without loading the arrays whole."""

import functools
import tokenize
import zipfile
import zlib

import numpy as np

from nbfast import _sparse as sp
from nbfast.readers._block import Block, finished, ordered_map

#: What each member may hold: (dtype kinds, what the message calls them).
_KINDS = {"format": ("SU", "a string"), "shape": ("iu", "integers"), "data": ("biuf", "numbers"),
          "indices": ("iu", "integers"), "indptr": ("iu", "integers"),
          "y": ("biufU", "numbers or strings (not bytes or records)")}
#: Errors numpy's header reader raises on a malformed header (a version-3 header read as 2.0: TokenError).
_HEADER_ERRORS = (ValueError, SyntaxError, TypeError, EOFError, RecursionError, tokenize.TokenError)


class _NpyMember:
    """Sequential reader of one .npy array inside an open zip archive, its header checked before any read:
    a supported version, a dtype of ``_KINDS[name]``, one dimension (none for ``format``), and no more bytes
    than the archive says the member holds."""

    def __init__(self, archive, path, name):
        member = f"{name}.npy"
        self._stream, self.path, self.name = archive.open(member), path, member
        try:
            version = np.lib.format.read_magic(self._stream)
            if version not in ((1, 0), (2, 0)):
                raise ValueError(f"version {version[0]}.{version[1]} is not read (save the arrays with numpy's "
                                 "defaults)")
            read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                np.lib.format.read_array_header_2_0
            self.shape, _, self.dtype = read_header(self._stream)  # Fortran order means nothing in 1-D
        except _HEADER_ERRORS as exc:
            self._stream.close()
            raise ValueError(f"{path}: member {member}: malformed .npy header ({exc})") from None
        kinds, what = _KINDS[name]
        if self.dtype.kind not in kinds or self.dtype.hasobject or self.dtype.fields is not None:
            self._stream.close()
            raise ValueError(f"{path}: member {member} holds {self.dtype}; it must hold {what}")
        if name != "format" and len(self.shape) != 1:  # format is a scalar (see _read_small)
            self._stream.close()
            raise ValueError(f"{path}: member {member} has shape {self.shape}; it must be one-dimensional")
        size = int(np.prod(self.shape, dtype=object)) * self.dtype.itemsize
        if size > archive.getinfo(member).file_size:
            self._stream.close()
            raise ValueError(f"{path}: member {member} declares {size:,} bytes of data, more than it holds")

    @property
    def length(self):
        return self.shape[0] if self.shape else 1

    def read(self, count):
        n_bytes = count * self.dtype.itemsize
        buffer = self._stream.read(n_bytes)
        if len(buffer) != n_bytes:
            raise ValueError(f"{self.path}: member {self.name} is truncated")
        return np.frombuffer(buffer, dtype=self.dtype)

    def read_all(self):
        return self.read(self.length).reshape(self.shape)

    def close(self):
        self._stream.close()


def _read_small(archive, path, name, shapes):
    """The whole array ``name`` (format or shape), whose shape must be one of ``shapes``."""
    member = _NpyMember(archive, path, name)
    try:
        if member.shape not in shapes:
            raise ValueError(f"{path}: member {name}.npy has shape {member.shape}, expected {shapes[0]}")
        return member.read_all()
    finally:
        member.close()


def _check_indptr(path, indptr, first, nnz_total):
    """Refuse a chunk's row pointers that decrease or point past the stored entries."""
    steps = np.diff(indptr)
    if steps.size and steps.min() < 0:
        row = first + int(np.argmax(steps < 0)) + 1
        raise ValueError(f"{path}: indptr decreases at row {row} (not a valid CSR matrix)")
    if indptr[-1] > nnz_total:
        raise ValueError(f"{path}: indptr points past the {nnz_total:,} stored entries near row {first + 1}")


def _open_members(archive, path, names):
    """The members data, indices, indptr (and y) as :class:`_NpyMember` s, their shapes checked against the
    matrix's shape; (members, n_samples, n_features)."""
    sparse_format = _read_small(archive, path, "format", ((), (1,))).item()
    sparse_format = sparse_format.decode("utf-8", "replace") if isinstance(sparse_format, bytes) else str(sparse_format)
    if sparse_format != "csr":
        shown = sparse_format[:20].upper()  # the file's text: escaped unless printable (no terminal sequence)
        raise ValueError(f"{path}: holds a {shown if shown.isprintable() else ascii(shown)} matrix; convert it to CSR "
                         "(X.tocsr())")
    n_samples, n_features = (int(v) for v in _read_small(archive, path, "shape", ((2,),)))
    if n_samples < 0 or n_features < 0:
        raise ValueError(f"{path}: negative shape ({n_samples}, {n_features})")
    members = {}
    try:
        for name in ("data", "indices", "indptr", "y"):
            if name != "y" or "y.npy" in names:
                members[name] = _NpyMember(archive, path, name)
        expected = {"indptr": n_samples + 1, "indices": members["data"].length, "y": n_samples}
        for name, length in expected.items():
            if name in members and members[name].length != length:
                raise ValueError(f"{path}: member {name}.npy holds {members[name].length:,} values, expected "
                                 f"{length:,} for a ({n_samples}, {n_features}) matrix")
    except BaseException:
        for member in members.values():
            member.close()
        raise
    return members, n_samples, n_features


def iter_npz(path, chunk_size, *, then=None):
    """Yield :class:`Block` s of at most ``chunk_size`` rows of a CSR ``.npz`` archive.

    The archive is read member by member, sequentially: memory stays bounded by
    the chunk even for a compressed archive larger than memory.  Every member's
    header is checked before any row is read (dtypes, shapes, sizes), and each
    chunk's row pointers before its entries are.  ``then`` is a step run on the
    blocks in parallel (see :func:`nbfast.readers._block.finished`).
    """
    blocks = _npz_blocks(path, chunk_size)
    return blocks if then is None else ordered_map(functools.partial(finished, then=then), blocks)


def _npz_blocks(path, chunk_size):
    """The blocks of :func:`iter_npz`, read in turn."""
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise ValueError(f"{path}: not a .npz archive ({exc})") from None
    with archive:
        names = set(archive.namelist())
        if not {"format.npy", "shape.npy", "data.npy", "indices.npy", "indptr.npy"} <= names:
            raise ValueError(f"{path}: not a scipy sparse .npz archive (save it with nbfast.readers.save_npz)")
        try:
            members, n_samples, n_features = _open_members(archive, path, names)
        except (zipfile.BadZipFile, EOFError, zlib.error) as exc:
            raise ValueError(f"{path}: corrupt archive ({exc})") from None
        nnz_total = members["data"].length
        try:
            start = int(members["indptr"].read(1)[0])
            if start != 0:
                raise ValueError(f"{path}: indptr starts at {start}, not 0 (not a valid CSR matrix)")
            for first in range(0, n_samples, chunk_size):
                n_rows = min(chunk_size, n_samples - first)
                ends = members["indptr"].read(n_rows)
                if ends.dtype.kind == "u" and ends.size and ends.max() > np.uint64(np.iinfo(np.int64).max):
                    raise ValueError(f"{path}: indptr holds {ends.max()} near row {first + 1}, beyond int64 (not a "
                                     "valid CSR matrix)")
                indptr = np.empty(n_rows + 1, dtype=np.int64)
                indptr[0], indptr[1:] = start, ends
                _check_indptr(path, indptr, first, nnz_total)
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
        except (zipfile.BadZipFile, EOFError, zlib.error) as exc:
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
