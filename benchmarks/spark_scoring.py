"""Spark ML against nbfast inside Spark, on generated documents: fit and scoring times, and the labels compared.

    python benchmarks/spark_scoring.py --n-docs 200000 --n-classes 20 --repeats 3

Writes the documents (``nbfast.datasets.make_text_documents``) to Parquet files,
reads them with Spark (``local[N]``), then times, each ``--repeats`` times:

- Spark ML: Tokenizer + HashingTF (2^bits features) + NaiveBayes (multinomial), ``fit``, and ``transform``
  written to Spark's ``noop`` sink (every row computed, nothing stored);
- nbfast: ``nbfast.spark.fit`` (MultinomialNB, HashingVectorizer of 2^bits features) and
  ``nbfast.spark.predict`` to the same sink.

The nbfast labels are checked against local nbfast predictions on every row, and
the Spark-fitted model's counts against a local fit.  Needs ``nbfast[spark]`` and
Java.  Not a pytest suite: a Spark session costs seconds before the first job.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import nbfast
import nbfast.spark as nbspark
from nbfast.datasets import make_text_documents
from nbfast.text import HashingVectorizer


def timed(function, repeats):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return times, result


def shown(times):
    return f"{statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f})"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-docs", type=int, default=100_000)
    parser.add_argument("--n-classes", type=int, default=20)
    parser.add_argument("--bits", type=int, default=18, help="2^bits hashed features (default 18)")
    parser.add_argument("--files", type=int, default=4, help="Parquet files (Spark's input partitions)")
    parser.add_argument("--cores", type=int, default=2, help="local[N]")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.ml import Pipeline
    from pyspark.ml.classification import NaiveBayes
    from pyspark.ml.feature import HashingTF, Tokenizer
    from pyspark.sql import SparkSession

    docs, y = make_text_documents(args.n_docs, args.n_classes, random_state=0)
    docs, y = [str(d) for d in docs], np.asarray(y, dtype=np.int64)
    folder = tempfile.mkdtemp(prefix="nbfast-spark-bench-")
    for part, rows in enumerate(np.array_split(np.arange(len(docs)), args.files)):
        table = pa.table({"text": pa.array([docs[i] for i in rows], pa.string()),
                          "label": pa.array(y[rows].astype(np.float64))})
        pq.write_table(table, os.path.join(folder, f"part-{part:05d}.parquet"))
    spark = (SparkSession.builder.master(f"local[{args.cores}]").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").config("spark.driver.memory", "4g")
             .config("spark.sql.shuffle.partitions", str(args.cores)).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    df = spark.read.parquet(folder).cache()
    df.count()

    stages = [Tokenizer(inputCol="text", outputCol="words"),
              HashingTF(inputCol="words", outputCol="features", numFeatures=2**args.bits),
              NaiveBayes(modelType="multinomial", smoothing=1.0)]
    spark_fit, spark_model = timed(lambda: Pipeline(stages=stages).fit(df), args.repeats)
    spark_score, _ = timed(lambda: spark_model.transform(df).select("prediction").write.format("noop")
                           .mode("overwrite").save(), args.repeats)

    vectorizer = HashingVectorizer(n_features=2**args.bits, alternate_sign=False, norm=None)
    classes = np.arange(args.n_classes, dtype=np.float64)
    nb_fit, model = timed(lambda: nbspark.fit(nbfast.MultinomialNB(), df, vectorizer=vectorizer, classes=classes),
                          args.repeats)
    nb_fit_found, _ = timed(lambda: nbspark.fit(nbfast.MultinomialNB(), df, vectorizer=vectorizer), 1)
    nb_score, _ = timed(lambda: nbspark.predict(model, df, vectorizer=vectorizer, keep_cols=[]).write
                        .format("noop").mode("overwrite").save(), args.repeats)

    X = vectorizer.transform(docs)
    local = nbfast.MultinomialNB().fit(X, y.astype(np.float64))
    counts_equal = np.array_equal(model.feature_count_, local.feature_count_)
    rows = nbspark.predict(model, df, vectorizer=vectorizer, keep_cols=["text"]).collect()
    labels_equal = np.array_equal([r.prediction for r in rows], local.predict(vectorizer.transform([r.text for r in rows])))
    spark.stop()

    print(f"{args.n_docs:,} documents, {args.n_classes} classes, 2^{args.bits} hashed features, {args.files} Parquet "
          f"files, local[{args.cores}], {args.repeats} repeats (median, min, max)")
    print("| work | Spark ML (Tokenizer + HashingTF + NaiveBayes) | nbfast inside Spark | ratio |")
    print("|---|---|---|---|")
    print(f"| fit | {shown(spark_fit)} | {shown(nb_fit)} (classes found: {nb_fit_found[0]:.2f} s) | "
          f"{statistics.median(spark_fit) / statistics.median(nb_fit):.1f}x |")
    print(f"| score (noop sink) | {shown(spark_score)} | {shown(nb_score)} | "
          f"{statistics.median(spark_score) / statistics.median(nb_score):.1f}x |")
    print(f"merged counts equal to a local fit: {counts_equal}; labels equal to local nbfast on all "
          f"{len(rows):,} rows: {labels_equal}")


if __name__ == "__main__":
    main()
