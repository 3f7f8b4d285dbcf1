"""The CSV rows kernel of `nbfast predict`: every number as Python's "%.17g" writes it, groups of a label and its
numbers, and the input's columns before them."""

import math

import numpy as np
import pytest

from nbfast._kernels.csvrows import csv_rows

EDGES = [
    0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 1 / 3, 2 / 3, 1e-4, 1e-4 * (1 - 1e-16), 9.9999999999999995e-05, 1e-5, 12345.678,
    1e15, 1e16, 9.999999999999999e16, 1e17, 99999999999999999.0, 123456789012345678.0, 1e-300, 5e-324,
    2.2250738585072014e-308, 1.7976931348623157e308, math.inf, -math.inf, math.nan, 1e22, 1e-22,
]  # fmt: skip


def test_numbers_are_written_as_python_writes_them():
    """Where %g turns from positional to scientific, rounding that carries into a new digit, subnormals, the
    largest float, signed zero and infinities, and floats of every bit pattern."""
    rng = np.random.default_rng(0)
    patterns = rng.integers(0, 2**64, 100_000, dtype=np.uint64).view(np.float64)
    values = EDGES + rng.random(20_000).tolist() + (rng.random(20_000) * 1e-12).tolist() + patterns.tolist()
    rows = csv_rows(b"", np.array([0]), np.zeros((len(values), 1), np.int64), np.array(values)[:, None])
    assert rows.decode().splitlines() == [f",{value:.17g}" for value in values]


def test_rows_are_the_fields_of_their_classes_and_the_probabilities():
    rng = np.random.default_rng(1)
    fields = ["spam", '"a, b"', "ünï", "", "東京"]
    proba = rng.dirichlet(np.ones(len(fields)), 300)
    proba[5] = [1.0, 0.0, 0.0, 0.0, 0.0]
    proba[6, :2] = [1e-300, 5e-324]
    classes = rng.integers(0, len(fields), 300)
    encoded = [field.encode() for field in fields]
    rows = csv_rows(b"".join(encoded), np.cumsum([len(e) for e in encoded]), classes[:, None], proba)
    expected = "".join(fields[c] + "".join(f",{p:.17g}" for p in row) + "\n" for c, row in zip(classes, proba))
    assert rows.decode() == expected
    assert csv_rows(b"x", np.array([1]), np.zeros((0, 1), np.int64), np.zeros((0, 1))) == b""


def test_rows_refuse_what_would_read_outside_the_fields():
    for index, proba in (((2, 1), (3, 1)), ((1, 2), (1, 3)), ((1, 0), (1, 0))):
        with pytest.raises(ValueError, match="one row each"):
            csv_rows(b"x", np.array([1]), np.zeros(index, np.int64), np.zeros(proba))
    for bad in (-1, 2):
        with pytest.raises(ValueError, match=f"class index {bad} is not one of the 2 fields"):
            csv_rows(b"ab", np.array([1, 2]), np.array([[0], [bad]]), np.zeros((2, 1)))
    for ends in ([2, 1], [1, 3]):
        with pytest.raises(ValueError, match="field_ends must rise within fields"):
            csv_rows(b"ab", np.array(ends), np.array([[0]]), np.zeros((1, 1)))
    prefix = np.frombuffer(b"abc", np.uint8)
    for offsets in ([0, 1], [0, 2, 1], [0, 1, 4], [-1, 1, 2]):
        with pytest.raises(ValueError, match="prefix_offsets must"):
            csv_rows(b"ab", np.array([1, 2]), np.zeros((2, 1), np.int64), np.zeros((2, 0)), prefix,
                     np.array(offsets))


def test_groups_are_a_label_and_its_numbers_each():
    """The k best labels with their probabilities: label_1,proba_1,label_2,proba_2 (and two numbers a group)."""
    rng = np.random.default_rng(2)
    fields = ["a", "bb", '"c,"']
    index = rng.integers(0, 3, (50, 2))
    proba = rng.random((50, 4))
    encoded = [field.encode() for field in fields]
    rows = csv_rows(b"".join(encoded), np.cumsum([len(e) for e in encoded]), index, proba)
    expected = "".join(f"{fields[i]},{p:.17g},{q:.17g},{fields[j]},{r:.17g},{s:.17g}\n"
                       for (i, j), (p, q, r, s) in zip(index, proba))
    assert rows.decode() == expected


def test_a_prefix_starts_each_row():
    """The input's columns, already CSV, before the label: empty ones too."""
    prefix = ["7", "", '"x,y"', "8,9"]
    offsets = np.cumsum([0] + [len(p) for p in prefix])
    rows = csv_rows(b"ab", np.array([1, 2]), np.array([[0], [1], [1], [0]]), np.zeros((4, 0)),
                    np.frombuffer("".join(prefix).encode(), np.uint8), offsets)
    assert rows.decode() == '7,a\n,b\n"x,y",b\n8,9,a\n'
    empty = np.zeros(0, np.uint8)
    assert csv_rows(b"a", np.array([1]), np.zeros((2, 1), np.int64), np.zeros((2, 0)), empty,
                    np.zeros(3, np.int64)) == b",a\n,a\n"
