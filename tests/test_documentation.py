"""The README and the documentation site's pages: their Python examples run where a user stands after the set-up
(the clone's root), the README stays a first visit's length and its links resolve in the repository, and the API
reference names every public name.

From the clone's root the source folder ``nbfast/`` is on ``sys.path`` first, so an install that leaves the
kernels elsewhere (a plain ``pip install .``) would make ``import nbfast`` fail; the README's editable install
does not.  The site itself is built by CI (``sphinx-build -W``), which runs the gallery.

Each example runs as ``python -c`` runs it, in a process of its own forked from one interpreter that has imported
the third-party modules only (numpy, scipy, pandas, pyarrow: most of an example's start-up); nbfast and
scikit-learn, whose order of import nbfast's behaviour depends on, are imported by the example itself.
"""

import importlib
import json
import re
import subprocess
import sys
import textwrap
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


#: Reads requests (JSON: code, stdout and stderr file names) from its standard input; runs each in a forked child
#: as ``python -c code`` would (``__main__``, exit status 1 and the traceback on stderr for an exception, at most
#: 300 s) and answers its exit status.
_FORKING_RUNNER = textwrap.dedent("""
    import atexit, json, os, signal, sys, traceback, warnings
    import numpy, pandas, pyarrow, scipy.sparse, scipy.sparse.linalg, scipy.stats

    for line in sys.stdin:
        request = json.loads(line)
        with warnings.catch_warnings():  # Python 3.12+ warns of a fork beside threads (the BLAS's, which handle it)
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:
            signal.alarm(300)
            for fd, name in ((1, request["stdout"]), (2, request["stderr"])):
                os.dup2(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
            status = 0
            try:
                exec(compile(request["code"], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
                atexit._run_exitfuncs()
            except SystemExit as exc:
                status = exc.code if isinstance(exc.code, int) else 1
            except BaseException:
                traceback.print_exc()
                status = 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
        print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
""")


@pytest.fixture(scope="module")
def run_example(tmp_path_factory):
    """A function running Python code as ``python -c`` would from the clone's root: (exit status, stderr)."""
    folder = tmp_path_factory.mktemp("examples")
    runner = subprocess.Popen([sys.executable, "-c", _FORKING_RUNNER], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)

    def run(code):
        request = {"code": code, "stdout": str(folder / "stdout"), "stderr": str(folder / "stderr")}
        runner.stdin.write(json.dumps(request) + "\n")
        runner.stdin.flush()
        status = runner.stdout.readline()
        assert status, "the runner ended"
        return int(status), (folder / "stderr").read_text()

    yield run
    runner.stdin.close()
    runner.wait(timeout=60)


@pytest.mark.parametrize(("path", "index"), EXAMPLES, ids=[f"{p.relative_to(ROOT)}-{i}" for p, i in EXAMPLES])
def test_example_runs_from_the_clone_root(path, index, run_example):
    pytest.importorskip("sklearn")
    example = python_examples(path)[index]
    if NOT_RUN in example:
        pytest.skip("needs a Dask or Spark cluster")
    before = set(ROOT.iterdir())
    try:
        status, stderr = run_example(example)
    finally:
        for created in set(ROOT.iterdir()) - before:  # model and text files the examples write where they run
            created.unlink()
    assert status == 0, stderr


def test_examples_run_as_python_c_runs_them(run_example):
    """As in a fresh ``python -c``: ``__main__``, nbfast and scikit-learn not imported yet, the clone's source
    folder first on ``sys.path``, and an exception's or ``sys.exit``'s exit status."""
    code = ("import sys; from pathlib import Path; assert __name__ == '__main__'; "
            "assert not {'nbfast', 'sklearn'} & set(sys.modules), sorted(sys.modules); "
            "import nbfast; assert Path(nbfast.__file__).parent == Path('nbfast').resolve(), nbfast.__file__")
    assert run_example(code) == (0, "")
    status, stderr = run_example("raise KeyError('missing')")
    assert status == 1 and "KeyError: 'missing'" in stderr
    assert run_example("import sys; sys.exit(3)")[0] == 3


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
