"""The svmlight reader: exact numbers, comments, blank lines, and malformed lines named by their number."""

import numpy as np
import pytest
import scipy.sparse as sp

from nbfast._kernels import svmlight
from nbfast.readers import iter_svmlight

sk_datasets = pytest.importorskip("sklearn.datasets")

TRICKY = (
    b"# a comment line\n"
    b"+1 qid:3 1:0.5 3:-2 7:1e-3  # trailing comment\n"
    b"\n"
    b"-1\t2:3.14159265358979323846 4:1E+2\r\n"
    b"2.5 1:0.1 2:123456789012345678 5:.25 6:-0 8:7.\n"
    b"0\n"
    b"3 10:1.7976931348623157e308 11:4.9e-324"
)


def test_parser_matches_sklearn_on_tricky_input(tmp_path):
    path = tmp_path / "tricky.svm"
    path.write_bytes(TRICKY)
    X_sk, y_sk = sk_datasets.load_svmlight_file(str(path), zero_based=False, n_features=11)
    for chunk_size in (1, 2, 100):
        blocks = list(iter_svmlight(path, chunk_size))
        X = sp.vstack([b.to_csr(11) for b in blocks]).tocsr()
        y = np.concatenate([b.y for b in blocks])
        np.testing.assert_array_equal(y, y_sk)
        np.testing.assert_array_equal(X.indptr, X_sk.indptr)
        np.testing.assert_array_equal(X.indices, X_sk.indices)
        np.testing.assert_array_equal(X.data, X_sk.data)  # bit-exact, like strtod
        np.testing.assert_array_equal(np.concatenate([b.row_numbers for b in blocks]), [2, 4, 5, 6, 7])


def test_parser_is_exact_on_random_numbers():
    rng = np.random.default_rng(0)
    rounded = [round(v, d) for v, d in zip(rng.uniform(0, 1000, 500), rng.integers(0, 6, 500))]
    values = np.concatenate([rng.standard_normal(500) * 10.0 ** rng.integers(-8, 8, 500), rounded])
    formats = [repr, lambda v: f"{v:.6f}", lambda v: f"{v:.3e}", lambda v: f"{v:.15g}", lambda v: f"{v:.17g}"]
    for fmt in formats:
        text = "".join(f"{fmt(float(v))} 1:{fmt(float(v))}\n" for v in values).encode()
        status, labels, data, *_ = svmlight.parse_block(text, 1)
        assert status == svmlight.Status.OK
        expected = [float(fmt(float(v))) for v in values]
        np.testing.assert_array_equal(labels, expected)
        np.testing.assert_array_equal(data, expected)


@pytest.mark.parametrize("line, message", [
    (b"1 1:2 3", "line 2: malformed feature"),
    (b"1 1:2 3:", "line 2: malformed feature"),
    (b"1 1:2 x:3", "line 2: malformed feature"),
    (b"1 1:2 3:4x", "line 2: malformed feature"),
    (b"a 1:2", "line 2: malformed label"),
    (b"1,2 1:2", "line 2: malformed label"),
    (b"1 3:1 2:1", "line 2: feature indices must be sorted and unique"),
    (b"1 2:1 2:1", "line 2: feature indices must be sorted and unique"),
    (b"1 0:1", "line 2: feature index 0 in a one-based file"),
])
def test_malformed_lines_are_reported_with_their_number(tmp_path, line, message):
    path = tmp_path / "bad.svm"
    path.write_bytes(b"1 1:1\n" + line + b"\n2 2:1\n")
    with pytest.raises(ValueError, match=message):
        list(iter_svmlight(path, 1))
    with pytest.raises(ValueError, match=message):
        list(iter_svmlight(path, 10))


def test_a_zero_index_names_the_parameter_that_reads_it(tmp_path):
    path = tmp_path / "zero.svm"
    path.write_bytes(b"1 0:1 2:1\n")
    with pytest.raises(ValueError, match=r"pass zero_based=True if indices start at 0") as raised:
        list(iter_svmlight(path, 10))
    assert "--" not in str(raised.value)  # option names belong to the command line
    assert list(iter_svmlight(path, 10, zero_based=True))[0].to_csr(3).toarray().tolist() == [[1, 0, 1]]


@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_blocks_parsed_in_parallel_come_in_order(tmp_path, monkeypatch, n_threads):
    """Chunks are parsed by several threads at once: the blocks and a later chunk's error are those of one."""
    import nbfast.readers._block as block_module

    monkeypatch.setattr(block_module, "effective_n_threads", lambda: n_threads)
    rng = np.random.default_rng(0)
    lines = [f"{rng.integers(0, 3)} " + " ".join(f"{j}:{rng.random():.3f}" for j in sorted(rng.choice(50, 3, False) + 1))
             for _ in range(200)]
    path = tmp_path / "d.svm"
    path.write_text("\n".join(lines) + "\n")
    blocks = list(iter_svmlight(path, 7))
    X = sp.vstack([block.to_csr(51) for block in blocks])
    expected_y = [float(line.split()[0]) for line in lines]
    np.testing.assert_array_equal(np.concatenate([block.y for block in blocks]), expected_y)
    assert X.nnz == 600 and [block.row_numbers[0] for block in blocks] == list(range(1, 201, 7))
    path.write_text("\n".join(lines) + "\n1 3:x\n")
    with pytest.raises(ValueError, match="line 201: malformed feature"):
        list(iter_svmlight(path, 7))
