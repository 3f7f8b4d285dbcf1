"""The user guide's cluster recipe, run: nbfast shipped to a Spark standalone cluster as a packed virtual environment.

    python benchmarks/spark_cluster.py [--n-docs 20000] [--workdir DIR]

What it runs, in order (docs/guide/spark.md, "What a cluster needs", shows the same commands):

1. ``python -m venv DIR/env``, then ``DIR/env/bin/pip install SOURCE pyarrow pandas venv-pack`` (SOURCE: this
   working tree, installed as a wheel, not editable) and ``DIR/env/bin/venv-pack -p DIR/env -o DIR/env.tar.gz``;
   skipped when DIR/env.tar.gz exists (``--workdir`` keeps it for the next run);
2. a standalone master and one worker (2 cores) on 127.0.0.1, with ``spark-class`` from pyspark's own files;
3. ``spark-submit --master spark://127.0.0.1:PORT --archives DIR/env.tar.gz#environment
   --conf spark.pyspark.python=./environment/bin/python`` of this file's ``--job`` part, whose driver runs this
   Python (``spark.pyspark.driver.python``), and whose executors run the packed environment's: it checks that the
   executors' nbfast comes from the archive, fits MultinomialNB with ``nbfast.spark.fit`` (a HashingVectorizer,
   then an unfitted CountVectorizer), compares the counts with one local fit, and the labels of
   ``nbfast.spark.predict`` with local predictions, on every row;
4. the worker and the master are stopped, whatever happened.

Prints what the job found and exits with 0 only when every check held.  Needs pyspark (``nbfast[spark]``), Java, and
PyPI for the packages of the environment.
"""

import argparse
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, process, seconds=120):
    """Wait until something listens on 127.0.0.1:port; RuntimeError if ``process`` ends first or time runs out."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[1]} ended with status {process.returncode} before it listened")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.5)
    raise RuntimeError(f"nothing listens on port {port} after {seconds} s")


def run(command, **kwargs):
    print("+", " ".join(map(str, command)), flush=True)
    subprocess.run(command, check=True, **kwargs)


def packed_environment(workdir):
    """DIR/env.tar.gz: a virtual environment with nbfast installed from this tree, packed by venv-pack."""
    archive = workdir / "env.tar.gz"
    if archive.exists():
        print(f"reusing {archive}", flush=True)
        return archive
    env = workdir / "env"
    run([sys.executable, "-m", "venv", env])
    run([env / "bin" / "pip", "install", "--quiet", SOURCE, "pyarrow", "pandas", "venv-pack"])
    run([env / "bin" / "venv-pack", "-p", env, "-o", archive])
    return archive


def spark_class(spark_home, *arguments, log):
    """A Spark daemon (master or worker) in the foreground of its own process, its output in ``log``: without
    this process's PYTHONPATH, which the executors would inherit instead of the archive's packages."""
    command = [str(Path(spark_home) / "bin" / "spark-class"), *map(str, arguments)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(SPARK_HOME=spark_home, SPARK_LOCAL_IP="127.0.0.1")
    print("+", " ".join(command), flush=True)
    return subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def stop(process):
    if process is not None and process.poll() is None:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def cluster_run(args):
    from pyspark.find_spark_home import _find_spark_home

    spark_home = _find_spark_home()
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="nbfast-spark-cluster-")).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    archive = packed_environment(workdir)
    env = dict(os.environ, SPARK_HOME=spark_home, SPARK_LOCAL_IP="127.0.0.1")
    master = worker = None
    port, master_ui, worker_ui = free_port(), free_port(), free_port()
    try:
        with open(workdir / "master.log", "wb") as master_log, open(workdir / "worker.log", "wb") as worker_log:
            master = spark_class(spark_home, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                                 "--port", port, "--webui-port", master_ui, log=master_log)
            wait_for_port(port, master)
            worker = spark_class(spark_home, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                                 "--cores", "2", "--memory", "2g", "--webui-port", worker_ui,
                                 "--work-dir", workdir / "work", f"spark://127.0.0.1:{port}", log=worker_log)
            wait_for_port(worker_ui, worker)
            submit = [str(Path(spark_home) / "bin" / "spark-submit"), "--master", f"spark://127.0.0.1:{port}",
                      "--archives", f"{archive}#environment",
                      "--conf", "spark.pyspark.python=./environment/bin/python",
                      "--conf", f"spark.pyspark.driver.python={sys.executable}",
                      "--conf", "spark.ui.enabled=false", "--conf", "spark.ui.showConsoleProgress=false",
                      __file__, "--job", "--n-docs", str(args.n_docs)]
            print("+", " ".join(submit), flush=True)
            result = subprocess.run(submit, env=env, cwd=workdir, stdout=subprocess.PIPE, text=True)
    finally:
        stop(worker)
        stop(master)
        print("master and worker stopped", flush=True)
    print(result.stdout, end="")
    if not args.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return result.returncode


def job(args):
    """The submitted application: runs on the driver, its tasks in the packed environment's Python."""
    import numpy as np
    from pyspark.sql import SparkSession

    import nbfast
    import nbfast.spark as nbspark
    from nbfast.datasets import make_text_documents
    from nbfast.text import CountVectorizer, HashingVectorizer

    spark = SparkSession.builder.appName("nbfast-cluster-recipe").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    docs, y = make_text_documents(args.n_docs, 5, mean_length=20, random_state=1)
    docs, y = [str(d) for d in docs], np.asarray(y, dtype=np.int64)
    df = spark.createDataFrame(list(zip(docs, y.tolist())), ["text", "label"]).repartition(4).cache()

    def where_nbfast_runs(_):
        import sys

        import nbfast
        yield sys.executable, nbfast.__file__

    executors = sorted(set(df.rdd.mapPartitions(where_nbfast_runs).collect()))
    found = {"executors' Python and nbfast": executors,
             "from the archive": all("environment" in python and "environment" in module
                                     for python, module in executors)}
    rows = df.collect()
    texts, labels = [row.text for row in rows], np.asarray([row.label for row in rows])
    for vectorizer in (HashingVectorizer(n_features=2**18, alternate_sign=False, norm=None), CountVectorizer()):
        name = type(vectorizer).__name__
        model = nbspark.fit(nbfast.MultinomialNB(), df, vectorizer=vectorizer)
        local_vectorizer = CountVectorizer().fit(texts) if name == "CountVectorizer" else vectorizer
        local = nbfast.MultinomialNB().fit(local_vectorizer.transform(texts), labels)
        found[f"{name}: counts equal to a local fit"] = bool(
            np.array_equal(model.feature_count_, local.feature_count_)
            and np.array_equal(model.class_count_, local.class_count_))
        if name == "CountVectorizer":
            found[f"{name}: vocabulary equal to a local fit"] = vectorizer.vocabulary_ == local_vectorizer.vocabulary_
        scored = nbspark.predict(model, df, vectorizer=vectorizer, keep_cols=["text"]).collect()
        expected = local.predict(local_vectorizer.transform([row.text for row in scored]))
        found[f"{name}: labels equal to local predictions ({len(scored):,} rows)"] = bool(
            np.array_equal([row.prediction for row in scored], expected))
    spark.stop()
    print(json.dumps(found, indent=2))
    return 0 if all(value for key, value in found.items() if key != "executors' Python and nbfast") else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-docs", type=int, default=20_000)
    parser.add_argument("--workdir", help="keep the environment, its archive and the logs here (reused next time)")
    parser.add_argument("--job", action="store_true", help=argparse.SUPPRESS)  # the part spark-submit runs
    args = parser.parse_args(argv)
    return job(args) if args.job else cluster_run(args)


if __name__ == "__main__":
    sys.exit(main())
