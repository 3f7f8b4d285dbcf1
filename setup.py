"""Build the Cython kernels.

OpenMP is detected by a test compile; without it the kernels build serial and a
warning says so.  Set ``NBFAST_DEBUG_BUILD=1`` to compile with bounds checking.
"""

import os
import sys
import tempfile
import textwrap
import warnings

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

KERNELS = [
    "threads", "validate", "counts", "scoring", "compact", "tables", "categories", "tokens", "lines", "csvrows", "hashing", "vocabulary", "tfidf", "decision",
    "svmlight", "gaussian", "explain", "discriminative", "sgd", "folds",
]
DEBUG = os.environ.get("NBFAST_DEBUG_BUILD", "") not in ("", "0")

OPENMP_PROBE = textwrap.dedent(
    """
    #include <omp.h>
    int main(void) {
        int n = 0;
        #pragma omp parallel reduction(+:n)
        n += 1;
        return n > 0 ? 0 : 1;
    }
    """
)


def openmp_flags(compiler):
    """Return (compile_args, link_args) for OpenMP, or ([], []) when unsupported."""
    candidates = [(["/openmp"], [])] if compiler.compiler_type == "msvc" else [(["-fopenmp"], ["-fopenmp"])]
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "probe_openmp.c")
        with open(source, "w") as f:
            f.write(OPENMP_PROBE)
        for cflags, ldflags in candidates:
            try:
                objects = compiler.compile([source], output_dir=tmp, extra_postargs=cflags)
                compiler.link_executable(objects, "probe_openmp", output_dir=tmp, extra_postargs=ldflags)
                return cflags, ldflags
            except Exception:  # any failure means "no OpenMP"
                continue
    warnings.warn("nbfast: the compiler does not support OpenMP; kernels will run single-threaded.")
    return [], []


class BuildExtWithOpenMP(build_ext):
    def finalize_options(self):
        super().finalize_options()
        if self.parallel is None:  # compile the kernels on every core unless --parallel/-j says otherwise
            self.parallel = os.cpu_count() or 1

    def build_extensions(self):
        cflags, ldflags = openmp_flags(self.compiler)
        # Release builds carry no debug information: it costs a third of the compile time and most of the wheel.
        base = ["/O2"] if self.compiler.compiler_type == "msvc" else ["-O3"] + ([] if DEBUG else ["-g0"])
        for ext in self.extensions:
            ext.extra_compile_args = base + cflags
            ext.extra_link_args = ldflags
        super().build_extensions()


directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": False,
    "initializedcheck": DEBUG,
    "cdivision": True,
    "nonecheck": False,
    "embedsignature": True,
}

extensions = [
    Extension(
        f"nbfast._kernels.{name}",
        [f"nbfast/_kernels/{name}.pyx"],
        include_dirs=[np.get_include(), "nbfast/_kernels"],
        define_macros=[
            ("NPY_NO_DEPRECATED_API", "NPY_1_9_API_VERSION"),
            # Built against numpy 2, the kernels also run on every numpy from pyproject.toml's minimum on.
            ("NPY_TARGET_VERSION", "NPY_1_24_API_VERSION"),
            ("NBFAST_BOUNDSCHECK", int(DEBUG)),
        ],
    )
    for name in KERNELS
]
# Cython's utility code (typed memoryviews, above all) compiled once, in a module the kernels share, instead of once
# in each of them: it was most of their generated C.
SHARED_UTILITY = "nbfast._kernels._cyutility"
extensions.append(Extension(SHARED_UTILITY, sources=[SHARED_UTILITY.replace(".", "/") + ".c"]))

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        # Separate generated C for the debug build, so the two builds never reuse each other's files.
        build_dir="build/cython-debug" if DEBUG else "build/cython",
        nthreads=0 if sys.platform == "win32" else os.cpu_count() or 1,
        shared_utility_qualified_name=SHARED_UTILITY,
    ),
    cmdclass={"build_ext": BuildExtWithOpenMP},
)
