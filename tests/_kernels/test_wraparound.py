"""No negative index in the kernels: setup.py compiles them with ``wraparound=False``.

Under that directive Cython passes an index to the object as it is written: ``a[-1]`` on a memoryview reads
before the buffer, and on a numpy array it asks numpy for item -1, which numpy 2.5 refuses with an IndexError.
Cython's own parser reads every kernel source, so comments, strings and docstrings are never mistaken for code.
"""

from pathlib import Path

import pytest
from Cython.Compiler import ExprNodes
from Cython.Compiler.TreeFragment import parse_from_strings

import nbfast

KERNELS = Path(nbfast.__file__).parent / "_kernels"
SOURCES = sorted([*KERNELS.glob("*.pyx"), *KERNELS.glob("*.pxd")])


def _nodes(node):
    yield node
    for attr in node.child_attrs or ():
        child = getattr(node, attr, None)
        for item in child if isinstance(child, list) else (child,):
            if item is not None:
                yield from _nodes(item)


def _is_negative(expr):
    """A written negative index: a literal such as ``-1`` or any unary minus, ``-n``."""
    if isinstance(expr, ExprNodes.UnaryMinusNode):
        return True
    return isinstance(expr, ExprNodes.IntNode) and str(expr.value).lstrip().startswith("-")


def _index_parts(node):
    """The expressions of a subscript that select positions: the index, each item of a tuple index, slice bounds."""
    if isinstance(node, ExprNodes.IndexNode):
        index = node.index
        parts = index.args if isinstance(index, ExprNodes.TupleNode) else [index]
    elif isinstance(node, ExprNodes.SliceIndexNode):  # a[start:stop]
        parts = [node.start, node.stop]
    elif isinstance(node, ExprNodes.SliceNode):  # a[start:stop:step], or one slice of a tuple index
        parts = [node.start, node.stop]
    else:
        parts = []
    return [part for part in parts if part is not None]


def negative_indices(source, name="<source>"):
    """The line of every negative index or slice bound written in Cython ``source``, once for each."""
    tree = parse_from_strings(name, source)
    return sorted(
        part.pos[1]
        for node in _nodes(tree)
        for part in _index_parts(node)
        if _is_negative(part)
    )


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("def f(indptr):\n    return indptr.astype(int if indptr[-1] < 9 else float)\n", [2]),
        ("def f(double[::1] a, Py_ssize_t n):\n    return a[-n]\n", [2]),
        ("def f(a, i):\n    return a[i, -2]\n", [2]),
        ("def f(a):\n    return a[:-1], a[-3:], a[1:-1:2]\n", [2, 2, 2]),
        ("def f(a, n):\n    return a[n - 1], a[::-1], a[len(a) - 1]\n", []),
        ('def f(a):\n    """a[-1] in a docstring."""\n    # a[-1] in a comment\n    return "a[-1]"\n', []),
    ],
)
def test_the_check_finds_negative_indices(source, expected):
    assert negative_indices(source) == expected


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.name)
def test_no_negative_index_in_kernels(path):
    found = negative_indices(path.read_text(encoding="utf-8"), path.name)
    assert not found, f"{path.name}: negative index on lines {found}; the kernels compile with wraparound=False"


def test_every_kernel_source_is_checked():
    assert len([path for path in SOURCES if path.suffix == ".pyx"]) >= 18
