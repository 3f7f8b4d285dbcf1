"""Crafted .npz inputs are refused up front with one line (exit status 2), at memory bounded by one chunk."""

import io
import shutil
import subprocess
import sys
import textwrap
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

from nbfast.cli import main
from nbfast.readers import iter_npz, save_npz


def _npy(array):
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, np.asarray(array), allow_pickle=False)
    return buffer.getvalue()


def _npy_header(version, text):
    """The bytes of a .npy header of ``version`` holding ``text`` (no data after it)."""
    encoded = text.encode("utf-8")
    length = len(encoded).to_bytes(2 if version == 1 else 4, "little")
    return b"\x93NUMPY" + bytes([version, 0]) + length + encoded


def _archive(path, **members):
    """An .npz of a 3x4 CSR matrix with labels, ``members`` (name -> array or raw bytes) replacing its arrays."""
    X = sp.csr_array(np.array([[1.0, 0, 2, 0], [0, 3, 0, 0], [0, 0, 0, 4]]))
    arrays = {"format": np.array(b"csr"), "shape": np.array(X.shape), "data": X.data, "indices": X.indices,
              "indptr": X.indptr, "y": np.array([0, 1, 0])}
    arrays.update(members)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, value in arrays.items():
            archive.writestr(f"{name}.npy", value if isinstance(value, bytes) else _npy(value))
    return path


def _train(capsys, path, *options):
    status = main(["train", str(path), "-o", str(path.with_suffix(".nbf")), *map(str, options)])
    return status, capsys.readouterr().err


def _one_line_error(status, err, fragment):
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert fragment in err, err


def test_a_valid_archive_is_read_in_chunks(tmp_path):
    X = sp.random(23, 9, density=0.3, format="csr", random_state=0)
    save_npz(tmp_path / "a.npz", X, np.arange(23) % 2)
    blocks = list(iter_npz(tmp_path / "a.npz", 5))
    assert [b.n_rows for b in blocks] == [5, 5, 5, 5, 3]
    read = sp.vstack([sp.csr_array((b.data, b.indices, b.indptr), shape=(b.n_rows, 9)) for b in blocks])
    assert abs(read - X).sum() == 0


@pytest.mark.parametrize("members, message", [
    ({"y": np.zeros(3, dtype="V8")}, "member y.npy holds"),
    ({"y": np.zeros(3, dtype=[("a", "<i4")])}, "member y.npy holds"),
    ({"y": np.array([b"a", b"b", b"a"])}, "member y.npy holds |S1"),
    ({"y": np.array([0, 1])}, "member y.npy holds 2 values, expected 3"),
    ({"data": np.array(["a", "b", "c", "d"])}, "member data.npy holds"),
    ({"indices": np.zeros(4)}, "member indices.npy holds float64"),
    ({"indptr": np.array([0, 2, 3])}, "member indptr.npy holds 3 values, expected 4"),
    ({"indptr": np.array([0, 2, 1, 4])}, "indptr decreases at row 2"),
    ({"indptr": np.array([1, 2, 3, 4])}, "indptr starts at 1"),
    ({"indptr": np.array([0, 2, 3, 9])}, "indptr points past the 4 stored entries"),
    ({"indptr": np.array([0, 2, 3, 2**63 + 3], np.uint64)}, "indptr holds 9223372036854775811 near row 1, beyond"),
    ({"shape": np.array([3, 4, 5])}, "member shape.npy has shape (3,), expected (2,)"),
    ({"shape": np.array([[3, 4]])}, "member shape.npy has shape (1, 2)"),
    ({"data": np.zeros((2, 2))}, "must be one-dimensional"),
    ({"format": np.array([b"csr", b"csr"])}, "member format.npy has shape (2,)"),
    ({"shape": _npy_header(3, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,")}, "version 3.0 is not read"),
    ({"shape": _npy_header(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,")}, "malformed .npy header"),
    ({"shape": _npy_header(1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }\n")},
     "member shape.npy is truncated"),
])  # fmt: skip
def test_crafted_members_are_one_line_errors_up_front(tmp_path, capsys, members, message):
    status, err = _train(capsys, _archive(tmp_path / "x.npz", **members))
    _one_line_error(status, err, message)


def test_a_bad_member_is_refused_before_any_row_is_read(tmp_path):
    path = _archive(tmp_path / "x.npz", y=np.zeros(3, dtype="S2"))
    with pytest.raises(ValueError, match="member y.npy"):
        next(iter_npz(path, 1))


_BOUNDED = textwrap.dedent("""
    import resource, sys
    from nbfast.cli import main
    with open("/proc/self/status") as f:
        size = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize"))
    limit = size + {extra}
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.exit(main(sys.argv[1:]))
""")


def _train_bounded(path, extra_bytes):
    """`nbfast train path` in a child process whose address space may grow by ``extra_bytes`` at most."""
    command = [sys.executable, "-c", _BOUNDED.format(extra=extra_bytes), "train", str(path), "-o",
               str(path.with_suffix(".nbf")), "--chunk-size", "1"]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def _deflated_zeros(archive, name, header_text, n_bytes):
    """Write member ``name`` as a .npy header then ``n_bytes`` zero bytes, streamed (a few MB compressed)."""
    zeros = bytes(1 << 20)
    with archive.open(name, "w", force_zip64=True) as member:
        member.write(_npy_header(1, header_text))
        for _ in range(n_bytes >> 20):
            member.write(zeros)


@pytest.fixture(scope="module")
def bomb_without_shape(tmp_path_factory):
    """An .npz of a few MB whose data and indices hold 512 MiB of zeros each and whose indptr decreases at row 2,
    without its shape.npy (each test adds one)."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.npz"
    n_entries = 64 << 20  # 512 MiB of float64 zeros, about 2.3 MB deflated at level 1
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        archive.writestr("format.npy", _npy(np.array(b"csr")))
        for name, dtype in (("data", "<f8"), ("indices", "<i8")):
            header = f"{{'descr': '{dtype}', 'fortran_order': False, 'shape': ({n_entries},), }}\n"
            _deflated_zeros(archive, f"{name}.npy", header, n_entries * 8)
        archive.writestr("indptr.npy", _npy(np.array([0, 10, 5, n_entries])))
        archive.writestr("y.npy", _npy(np.array([0, 1, 0])))
    return path


@pytest.mark.parametrize("case", ["decreasing indptr", "huge shape"])
def test_small_crafted_archives_stay_within_memory(tmp_path, bomb_without_shape, case):
    """A few MB of archive never makes the reader allocate far beyond one chunk (here 1 row)."""
    path = tmp_path / "bomb.npz"
    shutil.copyfile(bomb_without_shape, path)
    with zipfile.ZipFile(path, "a") as archive:
        if case == "huge shape":
            archive.writestr("shape.npy", _npy_header(1, "{'descr': '<i8', 'fortran_order': False, "
                                                         "'shape': (8589934592,), }\n"))
        else:
            archive.writestr("shape.npy", _npy(np.array([3, 4])))
    assert path.stat().st_size < 10 << 20
    result = _train_bounded(path, 300 << 20)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    expected = "indptr decreases at row 2" if case == "decreasing indptr" else \
        "member shape.npy declares 68,719,476,736 bytes of data, more than it holds"
    assert expected in result.stderr
