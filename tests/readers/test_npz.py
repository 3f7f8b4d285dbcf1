"""The .npz reader: rows in chunks, with or without labels, and archives it refuses."""

import numpy as np
import pytest
import scipy.sparse as sp

from nbfast.datasets import make_documents
from nbfast.readers import iter_blocks, iter_npz, save_npz


@pytest.fixture(scope="module")
def corpus():
    X, y = make_documents(900, 200, 4, mean_length=25, class_separation=0.3, random_state=7)
    return X, y


def test_npz_reader_streams_rows(tmp_path, corpus):
    X, y = corpus
    save_npz(tmp_path / "x.npz", X, y, compressed=False)
    sp.save_npz(tmp_path / "plain.npz", X)
    for path, labels in [(tmp_path / "x.npz", y), (tmp_path / "plain.npz", None)]:
        blocks = list(iter_npz(path, 128))
        assert [b.n_rows for b in blocks] == [128] * 7 + [4]
        assert (sp.vstack([b.to_csr(200) for b in blocks]) != X).nnz == 0
        if labels is not None:
            np.testing.assert_array_equal(np.concatenate([b.y for b in blocks]), labels)
    sp.save_npz(tmp_path / "csc.npz", X.tocsc())
    with pytest.raises(ValueError, match="CSC matrix"):
        list(iter_npz(tmp_path / "csc.npz", 10))
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a .npz archive"):
        list(iter_blocks([tmp_path / "junk.npz"], 10))
