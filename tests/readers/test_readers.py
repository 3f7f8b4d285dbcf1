"""Input formats told by file name, and the reading of any format in blocks."""

import re

import numpy as np
import pytest

from nbfast.readers import input_format, iter_blocks


@pytest.mark.parametrize("name, fmt", [
    ("a.txt", "lines"), ("a.txt.gz", "lines"), ("a.tsv", "tsv"), ("a.tsv.bz2", "tsv"), ("a.jsonl", "jsonl"),
    ("a.ndjson.gz", "jsonl"), ("a.svm", "svmlight"), ("a.libsvm.bz2", "svmlight"), ("a.npz", "npz"),
    ("rcv1_train.binary", "svmlight"), ("a.parquet", "parquet"), ("a.arrow", "arrow"), ("a.feather", "arrow"),
    ("a.ipc", "arrow"), ("a.csv", "csv"), ("a.csv.gz", "csv"),
])  # fmt: skip
def test_format_by_extension(name, fmt):
    assert input_format(name) == fmt
    assert input_format(name, "tsv") == "tsv"


@pytest.mark.parametrize("name", ["a.xlsx", "a.JSON.gz", "data.pkl"])
def test_unsupported_input_formats_are_named(name):
    with pytest.raises(ValueError, match=f"{re.escape(name)}: .* is not a supported input format") as raised:
        input_format(name)
    assert "pass file_format to read it as one" in str(raised.value) and "--" not in str(raised.value)
    assert input_format(name, "svmlight") == "svmlight"  # an explicit format reads it as one


def test_label_scan_reads_no_text(tmp_path):
    labels = np.array(["eggs", "ham", "spam"])[np.arange(240) % 3]
    path = tmp_path / "d.tsv"
    path.write_text("".join(f"{label}\tsome words {i}\n" for i, label in enumerate(labels)), encoding="utf-8")
    blocks = list(iter_blocks([path], 100))
    assert [b.n_rows for b in blocks] == [100, 100, 40] and all(b.max_index() == -1 for b in blocks)
    np.testing.assert_array_equal(np.concatenate([b.y for b in blocks]), labels)
    np.testing.assert_array_equal(blocks[2].row_numbers, np.arange(201, 241))
