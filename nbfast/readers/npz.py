"""``.npz`` archives of a CSR matrix as written by ``scipy.sparse.save_npz`` (labels in an extra array ``y``),
read member by member without loading the arrays whole."""

import zipfile
import zlib

import numpy as np
import scipy.sparse as sp

from nbfast.readers._block import Block


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
            raise ValueError(f"{path}: not a scipy sparse .npz archive (save it with nbfast.readers.save_npz)")
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
