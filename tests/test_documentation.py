"""The README and the documentation site's pages: their Python examples run where a user stands after the set-up
(the clone's root), the README stays a first visit's length and its links resolve in the repository, and the API
reference names every public name.

From the clone's root the source folder ``nbfast/`` is on ``sys.path`` first, so an install that leaves the
kernels elsewhere (a plain ``pip install .``) would make ``import nbfast`` fail; the README's editable install
does not.  The site itself is built by CI (``sphinx-build -W``), which runs the gallery.
"""

import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import nbfast
import nbfast.dask
import nbfast.datasets
import nbfast.spark
import nbfast.text

ROOT = Path(__file__).parents[1]  # the clone
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README] + sorted(path for path in DOCS.rglob("*.md") if "_build" not in path.parts)
NOT_RUN = "# not run by the documentation test"


def python_examples(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


EXAMPLES = [(path, index) for path in PAGES for index in range(len(python_examples(path)))]


def test_the_pages_have_examples_and_skip_only_marked_ones():
    examples = [python_examples(path)[index] for path, index in EXAMPLES]
    assert len(python_examples(README)) >= 2 and len(examples) >= 15
    assert sum(NOT_RUN in example for example in examples) == 2  # Dask and Spark: they need a cluster


@pytest.mark.parametrize(("path", "index"), EXAMPLES, ids=[f"{p.relative_to(ROOT)}-{i}" for p, i in EXAMPLES])
def test_example_runs_from_the_clone_root(path, index):
    pytest.importorskip("sklearn")
    example = python_examples(path)[index]
    if NOT_RUN in example:
        pytest.skip("needs a Dask or Spark cluster")
    before = set(ROOT.iterdir())
    try:
        result = subprocess.run([sys.executable, "-c", example], cwd=ROOT, capture_output=True, text=True,
                                timeout=300)
    finally:
        for created in set(ROOT.iterdir()) - before:  # model and text files the examples write where they run
            created.unlink()
    assert result.returncode == 0, result.stderr


def heading_anchors(path):
    """The anchors of a Markdown page's headings, as GitHub and MyST make them."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    anchors = set()
    for heading in re.findall(r"^#+ (.+)$", text, re.M):
        anchors.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return anchors


def test_the_readme_is_short_and_its_links_resolve():
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert len(links) >= 10
    for link in links:
        assert not link.startswith(("http:", "https:")), f"{link}: the README links into the repository"
        target, _, anchor = link.partition("#")
        path = ROOT / target
        assert path.exists(), f"README links to {link}, which does not exist"
        if anchor:
            assert anchor in heading_anchors(path), f"README links to {link}: no such heading"


def documented_names():
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    names, module = set(), None
    for line in text.splitlines():
        if line.startswith(".. currentmodule::"):
            module = line.split("::")[1].strip()
        elif re.fullmatch(r"   \w+", line):
            names.add(f"{module}.{line.strip()}")
    return names, text


@pytest.mark.parametrize("module", [nbfast, nbfast.text, nbfast.dask, nbfast.spark, nbfast.datasets],
                         ids=lambda m: m.__name__)
def test_every_public_name_is_in_the_api_reference(module):
    names, text = documented_names()
    for name in module.__all__:
        if name == "__version__":
            assert "``nbfast.__version__``" in text
        else:
            assert f"{module.__name__}.{name}" in names, f"{module.__name__}.{name} is missing from docs/api.rst"
    for name in names:  # and nothing that does not exist
        owner, _, attribute = name.rpartition(".")
        assert hasattr(importlib.import_module(owner), attribute), name


def used_names(text):
    """``module.name`` of every nbfast name a page uses: ``nbfast.x.y(...)`` in text or code, or
    ``from nbfast.x import y`` in an example (a method or attribute after the name is not part of it)."""
    references = re.findall(r"\bnbfast(?:\.\w+)+", text)
    for module, names in re.findall(r"^\s*from (nbfast(?:\.\w+)*) import (\([^)]*\)|[^\n]+)", text, re.M):
        references += [f"{module}.{name.strip()}" for name in names.strip("()").split(",") if name.strip()]
    for reference in references:
        parts = reference.split(".")
        for length in range(len(parts) - 1, 0, -1):  # the longest importable module, then the name in it
            try:
                module = importlib.import_module(".".join(parts[:length]))
            except ImportError:
                continue
            yield module, parts[length]
            break


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_function_the_guides_use_is_in_the_api_reference(path):
    names, _ = documented_names()
    documented = {id(getattr(importlib.import_module(name.rpartition(".")[0]), name.rpartition(".")[2]))
                  for name in names}
    for module, name in used_names(path.read_text(encoding="utf-8")):
        used = getattr(module, name, None)
        if callable(used):
            assert id(used) in documented, f"{path.name} uses {module.__name__}.{name}, missing from docs/api.rst"


def test_the_gallery_covers_what_the_guide_promises():
    examples = {path.stem for path in (DOCS / "examples").glob("plot_*.py")}
    assert {"plot_speed_vs_corpus_size", "plot_confusion_matrix", "plot_top_features", "plot_reject_option",
            "plot_semi_supervised"} <= examples
