"""The package's layers, read from its source: imports only go down, and no import circle anywhere.

Every ``import`` and ``from ... import`` of every module counts, function-level
ones included.  The layer order is the one list in ``nbfast/_layers.py``: a
module in a layer may import from its own layer (without a circle) and from
those below it, and every module must be in a layer.  The lists written out for
readers (``docs/architecture.md``, the package docstring) are checked against it.
"""

import ast
import re
from pathlib import Path

import pytest

import nbfast
from nbfast._layers import LAYERS

PACKAGE = Path(nbfast.__file__).parent
DOCS = PACKAGE.parent / "docs"


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


KERNELS = "nbfast._kernels"
MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}
MODULES[KERNELS] = PACKAGE / "_kernels"  # compiled (.pyx), only cimports between them


def layer_of(module):
    """The index of the layer that names ``module`` or the package holding it (``nbfast`` names only itself),
    or None."""
    best = max(((len(prefix), index) for index, prefixes in enumerate(LAYERS) for prefix in prefixes
                if module == prefix or (prefix != "nbfast" and module.startswith(prefix + "."))), default=None)
    return None if best is None else best[1]


def resolve(module, level, importer):
    """The absolute name of a (possibly relative) import in ``importer``."""
    if level == 0:
        return module
    package = importer.split(".")
    is_package = MODULES[importer].name == "__init__.py"
    base = package[: len(package) - level + (1 if is_package else 0)]
    return ".".join(base + ([module] if module else []))


def imports_of(name):
    """The nbfast modules that module ``name`` imports, anywhere in its body."""
    found = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text(), str(MODULES[name]))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = resolve(node.module or "", node.level, name)
            for alias in node.names:  # `from package import submodule` imports the submodule
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
    internal = set()
    for target in found:
        if target.startswith(KERNELS):  # compiled modules: the kernels import nothing of the package
            target = KERNELS
        while target and target not in MODULES:  # an imported name, not a module: the module holding it
            target = target.rpartition(".")[0]
        if target == "nbfast" or target.startswith("nbfast."):
            internal.add(target)
    internal.discard(name)
    return internal


GRAPH = {name: (set() if name == KERNELS else imports_of(name)) for name in MODULES}


def test_every_module_has_a_layer():
    assert not [name for name in MODULES if layer_of(name) is None]
    assert {"nbfast.naive_bayes._base", "nbfast.persist", "nbfast.readers", "nbfast.cli"} <= set(MODULES)
    listed = [prefix for prefixes in LAYERS for prefix in prefixes]
    assert len(listed) == len(set(listed)) and set(listed) <= set(MODULES), "each layer names existing modules once"


def test_a_new_top_level_module_needs_a_layer():
    """A module no layer names is not taken into the package's layer (``nbfast``): it has none until listed."""
    assert layer_of("nbfast.newly_added") is None and layer_of("nbfast.newly_added.part") is None
    assert layer_of("nbfast.naive_bayes.newly_added") == layer_of("nbfast.naive_bayes")
    assert layer_of("nbfast") is not None


def listed_layers(text):
    """The modules each numbered entry of a written-out layer list names before its first colon, as full names
    (``_compat`` or ``nbfast._compat``: ``nbfast._compat``)."""
    entries = re.split(r"^\d+\. ", text, flags=re.M)[1:]
    heads = [entry.split(": ", 1)[0] for entry in entries]
    return [tuple(name if name.startswith("nbfast") else f"nbfast.{name}" for name in re.findall(r"`+([^`]+)`+", head))
            for head in heads]


@pytest.mark.parametrize("where", ["docs/architecture.md", "the package docstring"])
def test_written_out_layer_lists_match_the_one_list(where):
    if where == "the package docstring":
        text = nbfast.__doc__
    else:
        text = (DOCS / "architecture.md").read_text().split("## The layers\n", 1)[1].split("\n## ", 1)[0]
    assert listed_layers(text) == [tuple(prefixes) for prefixes in LAYERS]


@pytest.mark.parametrize("name", sorted(set(MODULES) - {KERNELS}))
def test_imports_only_go_down(name):
    upward = sorted(t for t in GRAPH[name] if layer_of(t) > layer_of(name))
    assert not upward, f"{name} (layer {layer_of(name)}) imports from higher layers: {upward}"


def test_no_import_circle():
    state, circles = {}, []

    def visit(name, path):
        state[name] = "open"
        for target in sorted(GRAPH[name]):
            if state.get(target) == "open":
                circles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, path + [target])
        state[name] = "done"

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [name])
    assert not circles, f"import circles: {circles}"


def test_the_walk_sees_function_level_and_relative_imports(tmp_path, monkeypatch):
    """The checks above would catch an upward import hidden inside a function."""
    source = "def f():\n    from nbfast.cli import main\n    from . import _discrete\n"
    monkeypatch.setitem(MODULES, "nbfast.naive_bayes._probe", tmp_path / "_probe.py")
    (tmp_path / "_probe.py").write_text(source)
    assert imports_of("nbfast.naive_bayes._probe") == {"nbfast.cli", "nbfast.naive_bayes._discrete"}
    assert layer_of("nbfast.cli") > layer_of("nbfast.naive_bayes._probe")


OPTIONAL_MODULES = ("sklearn", "dask", "distributed", "tqdm", "threadpoolctl", "matplotlib", "pandas", "pyarrow",
                    "polars", "pyspark")


def names_optional_module(text):
    return any(text == top or text.startswith(top + ".") for top in OPTIONAL_MODULES)


@pytest.mark.parametrize("name", sorted(set(MODULES) - {KERNELS, "nbfast._compat"}))
def test_only_compat_names_optional_modules(name):
    """Imports of optional modules, and module names given as strings (to a loader), live in ``_compat`` alone."""
    tree = ast.parse(MODULES[name].read_text(), str(MODULES[name]))
    named = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    named += [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module]
    named += [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    assert not [text for text in named if names_optional_module(text)]


def _calls(tree, name):
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name]


#: The modules that know which representation (dense or compact) statistics and tables have.
REPRESENTATION_MODULES = {"nbfast.naive_bayes._counts", "nbfast.naive_bayes._tables"}
#: The names that ask or decide it: only those modules (and the fold counts of a search, built on the policy's
#: thresholds) may use them.
REPRESENTATION_NAMES = {"fits_compact", "is_compact", "is_compact_table", "COMPACT_DENSITY",
                        "COMPACT_INPUT_DENSITY"}


@pytest.mark.parametrize("name", sorted(set(MODULES) - {KERNELS} - REPRESENTATION_MODULES))
def test_only_the_counts_and_tables_modules_know_the_representation(name):
    """Whether statistics or tables are dense or compact is known to ``_counts`` and ``_tables`` alone: no
    other module tests it with isinstance, and no estimator module imports or reads the policy's predicate
    and thresholds, nor the compact counts' fields that decide it."""
    tree = ast.parse(MODULES[name].read_text(), str(MODULES[name]))
    representations = {"SparseCounts", "DenseCounts", "CompactTable", "DenseTable"}
    tested = [ast.unparse(call) for call in _calls(tree, "isinstance")
              if {node.id for node in ast.walk(call.args[1]) if isinstance(node, ast.Name)} & representations]
    assert not tested
    if name.startswith("nbfast.naive_bayes.") and name != "nbfast.naive_bayes._fold_counts":
        named = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
        named |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
        named |= {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
        assert not named & (REPRESENTATION_NAMES | {"n_pending"}), f"{name} decides the representation itself"


def test_the_representation_check_sees_a_predicate(tmp_path, monkeypatch):
    """The check above would catch an estimator module that decides dense or compact itself."""
    probe = tmp_path / "_probe.py"
    probe.write_text("from nbfast.naive_bayes._counts import fits_compact\n")
    monkeypatch.setitem(MODULES, "nbfast.naive_bayes._probe", probe)
    with pytest.raises(AssertionError, match="decides the representation"):
        test_only_the_counts_and_tables_modules_know_the_representation("nbfast.naive_bayes._probe")


@pytest.mark.parametrize("name", sorted(set(MODULES) - {KERNELS}))
def test_capabilities_are_declared_not_probed(name):
    """No capability learned by catching NotImplementedError, and no state looked up in an estimator's own
    instance dict (``vars(self)``): both are declared (class attributes, abstract methods, None defaults)."""
    tree = ast.parse(MODULES[name].read_text(), str(MODULES[name]))
    caught = [node for node in ast.walk(tree) if isinstance(node, ast.ExceptHandler) and node.type is not None
              and "NotImplementedError" in ast.unparse(node.type)]
    own_dict = [call for call in _calls(tree, "vars") if [ast.unparse(a) for a in call.args] == ["self"]]
    assert not caught and not own_dict


@pytest.mark.parametrize("name", sorted(set(MODULES) - {KERNELS}))
def test_no_module_over_700_lines(name):
    assert len(MODULES[name].read_text().splitlines()) <= 700
