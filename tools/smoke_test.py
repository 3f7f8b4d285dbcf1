"""Check an installed nbfast as a user first meets it: the command line on raw text, and the Python API.

Run it with the environment's Python from a folder outside the source tree, so that the installed package is the
one imported::

    cd "$(mktemp -d)" && /path/to/venv/bin/python /path/to/tools/smoke_test.py

With ``--no-compiler`` it also checks that no C compiler is reachable, as for a wheel installed where none is.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import nbfast
from nbfast.datasets import make_text_documents


def _nbfast(*args):
    """Run the ``nbfast`` command of this environment, failing with its output."""
    command = [str(Path(sys.executable).with_name("nbfast")), *args]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return result.stdout


def _write_tsv(path, documents, labels):
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(f"{label}\t{document}\n" for label, document in zip(labels, documents))


def check_installed_package(expect_openmp):
    from nbfast._kernels.threads import openmp_enabled

    assert openmp_enabled() or not expect_openmp, "the kernels were built without OpenMP"
    source_tree = Path(__file__).resolve().parent.parent / "nbfast"
    imported = Path(nbfast.__file__).resolve().parent
    assert imported != source_tree, f"nbfast was imported from the source tree {imported}, not from the install"
    version = _nbfast("--version").split()[-1]
    assert version == nbfast.__version__, (version, nbfast.__version__)
    print(f"nbfast {version} from {imported}, OpenMP {'on' if openmp_enabled() else 'off'}, "
          f"numpy {np.__version__}, Python {sys.version.split()[0]}")


def check_command_line(folder):
    documents, labels = make_text_documents(n_samples=3_000, n_classes=4, random_state=0)
    train, test = folder / "train.tsv", folder / "test.tsv"
    _write_tsv(train, documents[:2_400], labels[:2_400])
    _write_tsv(test, documents[2_400:], labels[2_400:])
    for vectorizer in ("hashing", "count", "tfidf"):
        model = folder / f"{vectorizer}.nbf"
        _nbfast("train", str(train), "-o", str(model), "--vectorizer", vectorizer)
        _nbfast("predict", str(model), str(test), "-o", str(folder / "labels.csv"))
        header, *rows = (folder / "labels.csv").read_text(encoding="utf-8").splitlines()
        assert header == "label", header
        predicted = [int(row) for row in rows]
        assert len(predicted) == 600, f"{vectorizer}: {len(predicted)} labels for 600 documents"
        accuracy = np.mean(np.array(predicted) == labels[2_400:])
        assert accuracy > 0.8, f"{vectorizer}: accuracy {accuracy:.3f}"
        loaded = nbfast.load(model)
        print(f"nbfast train/predict --vectorizer {vectorizer}: accuracy {accuracy:.3f}, loads as {loaded!r:.60}")


def check_python_api(folder):
    from nbfast.datasets import make_documents

    X, y = make_documents(n_samples=2_000, n_features=500, n_classes=5, random_state=0)
    model = nbfast.MultinomialNB(alpha=0.5).fit(X[:1_500], y[:1_500])
    model.partial_fit(X[1_500:1_800], y[1_500:1_800])
    nbfast.save(model, folder / "model.nbf")
    loaded = nbfast.load(folder / "model.nbf")
    np.testing.assert_array_equal(loaded.predict(X[1_800:]), model.predict(X[1_800:]))
    np.testing.assert_allclose(loaded.predict_proba(X[1_800:]), model.predict_proba(X[1_800:]), rtol=1e-12)
    print("MultinomialNB fit, partial_fit, save and load: same predictions")


def check_no_compiler():
    found = {name: shutil.which(name) for name in ("cc", "gcc", "clang")}
    assert not any(found.values()), f"a compiler is reachable: {found}"
    assert os.environ.get("CC") == "false", "CC is not set to 'false'"
    print("no C compiler reachable")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-compiler", action="store_true", help="also check that no C compiler is reachable")
    parser.add_argument("--expect-openmp", action="store_true", help="fail if the kernels were built without OpenMP")
    args = parser.parse_args()
    if args.no_compiler:
        check_no_compiler()
    check_installed_package(args.expect_openmp)
    with tempfile.TemporaryDirectory() as folder:
        check_command_line(Path(folder))
        check_python_api(Path(folder))
    print("smoke test passed")


if __name__ == "__main__":
    main()
