"""Time and memory of saving and loading a large model file, read vs memory-mapped.

    PYTHONPATH=. python benchmarks/persist_load.py [--n-features 524288] [--n-classes 20]

Each load runs in a fresh process; after the load and a first predict it reports
its private (anonymous) and file-backed resident memory, from /proc/self/status.
"""

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
import time


def resident_mb():
    """(private anonymous, file-backed) resident memory of this process in MB (Linux)."""
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return tuple(int(fields[key].split()[0]) / 1024 for key in ("RssAnon", "RssFile"))


def child(path, mode):
    import numpy as np

    import nbfast

    anon_before, file_before = resident_mb()
    start = time.perf_counter()
    if mode == "pickle":
        with open(path, "rb") as f:
            model = pickle.load(f)
    else:
        model = nbfast.load(path, mmap=mode == "mmap")
    load = time.perf_counter() - start
    X = np.zeros((1, model.n_features_in_))
    X[0, ::97] = 1
    start = time.perf_counter()
    model.predict_proba(X)
    first = time.perf_counter() - start
    anon, file = resident_mb()
    print(f"{mode:<7} load {load:6.3f} s   first predict {first:6.3f} s   "
          f"private memory +{anon - anon_before:6.1f} MB   file pages +{file - file_before:6.1f} MB")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-features", type=int, default=2**19)
    parser.add_argument("--n-classes", type=int, default=20)
    parser.add_argument("--child", nargs=2)
    args = parser.parse_args()
    if args.child:
        return child(*args.child)

    import nbfast
    from nbfast.datasets import make_documents

    X, y = make_documents(4000, args.n_features, args.n_classes, mean_length=50)
    model = nbfast.MultinomialNB().fit(X, y)
    with tempfile.TemporaryDirectory() as directory:
        path, pickled = os.path.join(directory, "model.nbf"), os.path.join(directory, "model.pkl")
        start = time.perf_counter()
        nbfast.save(model, path)
        print(f"save    {time.perf_counter() - start:7.3f} s   file {os.path.getsize(path) / 2**20:.1f} MB "
              f"({args.n_classes} classes x {args.n_features} features)")
        with open(pickled, "wb") as f:
            pickle.dump(model, f, protocol=5)
        for mode, target in (("read", path), ("mmap", path), ("pickle", pickled)):
            subprocess.run([sys.executable, __file__, "--child", target, mode], check=True)


if __name__ == "__main__":
    main()
