"""Spark ML against nbfast inside Spark, on generated documents: fit and scoring times, and the results checked.

    python benchmarks/spark_scoring.py --n-docs 1000000 --n-classes 20 --repeats 2

Writes the documents (``nbfast.datasets.make_text_documents``) to Parquet files,
reads them with Spark (``local[N]``) and caches them, then, for a hashing and a
vocabulary vectorizer, times each ``--repeats`` times:

- Spark ML: Tokenizer + HashingTF (2^bits features) or CountVectorizer + NaiveBayes (multinomial), ``fit``,
  and ``transform`` written to Spark's ``noop`` sink (every row computed, nothing stored);
- nbfast: ``nbfast.spark.fit`` (MultinomialNB with a HashingVectorizer of 2^bits features, or with an unfitted
  CountVectorizer, which learns its vocabulary in a first pass) and ``nbfast.spark.predict`` to the same sink.

Then checks, on every row: the nbfast labels equal local nbfast predictions; the
Spark-fitted model's counts (and the vocabulary) equal one local fit's.  Needs
``nbfast[spark]`` and Java.  Not a pytest suite: a Spark session costs seconds
before the first job.
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
from nbfast.text import CountVectorizer, HashingVectorizer


def timed(function, repeats):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return times, result


def shown(times):
    return f"{statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f})"


def spark_ml_pipeline(kind, bits):
    from pyspark.ml import Pipeline
    from pyspark.ml.classification import NaiveBayes
    from pyspark.ml.feature import CountVectorizer as SparkCountVectorizer
    from pyspark.ml.feature import HashingTF, Tokenizer

    counter = HashingTF(inputCol="words", outputCol="features", numFeatures=2**bits) if kind == "hashing" else \
        SparkCountVectorizer(inputCol="words", outputCol="features")
    return Pipeline(stages=[Tokenizer(inputCol="text", outputCol="words"), counter,
                            NaiveBayes(modelType="multinomial", smoothing=1.0)])


def nbfast_vectorizer(kind, bits):
    """A fresh vectorizer: hashing, or an unfitted CountVectorizer (fitted by nbfast.spark.fit)."""
    if kind == "hashing":
        return HashingVectorizer(n_features=2**bits, alternate_sign=False, norm=None)
    return CountVectorizer()


def noop(df):
    df.write.format("noop").mode("overwrite").save()


def compare(kind, df, texts, labels, args):
    """Times and checks of one vectorizer kind: a dict of the table's cells."""
    spark_fit, spark_model = timed(lambda: spark_ml_pipeline(kind, args.bits).fit(df), args.repeats)
    spark_score, _ = timed(lambda: noop(spark_model.transform(df).select("prediction")), args.repeats)
    classes = np.arange(args.n_classes, dtype=np.float64)
    fitted = []

    def nbfast_fit(classes):
        vectorizer = nbfast_vectorizer(kind, args.bits)
        fitted[:] = [nbspark.fit(nbfast.MultinomialNB(), df, vectorizer=vectorizer, classes=classes), vectorizer]
        return fitted

    nb_fit, _ = timed(lambda: nbfast_fit(classes), args.repeats)
    model, vectorizer = fitted
    nb_fit_found, _ = timed(lambda: nbfast_fit(None), 1)
    nb_score, _ = timed(lambda: noop(nbspark.predict(model, df, vectorizer=vectorizer, keep_cols=[])),
                        args.repeats)
    local_vectorizer = nbfast_vectorizer(kind, args.bits)
    X = local_vectorizer.fit_transform(texts)
    local = nbfast.MultinomialNB().fit(X, labels)
    same_model = np.array_equal(model.feature_count_, local.feature_count_) and \
        np.array_equal(model.class_count_, local.class_count_) and \
        (kind == "hashing" or vectorizer.vocabulary_ == local_vectorizer.vocabulary_)
    predicted = [row.prediction for row in nbspark.predict(model, df, vectorizer=vectorizer, keep_cols=[]).collect()]
    return {"spark_fit": spark_fit, "spark_score": spark_score, "nb_fit": nb_fit, "nb_fit_found": nb_fit_found,
            "nb_score": nb_score, "same_model": same_model, "same_labels": np.array_equal(predicted, local.predict(X)),
            "n_features": X.shape[1]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-docs", type=int, default=100_000)
    parser.add_argument("--n-classes", type=int, default=20)
    parser.add_argument("--bits", type=int, default=18, help="2^bits hashed features (default 18)")
    parser.add_argument("--files", type=int, default=4, help="Parquet files (Spark's input partitions)")
    parser.add_argument("--cores", type=int, default=2, help="local[N]")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--vectorizers", default="hashing,vocabulary", help="hashing, vocabulary or both")
    args = parser.parse_args(argv)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    docs, y = make_text_documents(args.n_docs, args.n_classes, random_state=0)
    docs, y = [str(d) for d in docs], np.asarray(y, dtype=np.int64)
    folder = tempfile.mkdtemp(prefix="nbfast-spark-bench-")
    for part, rows in enumerate(np.array_split(np.arange(len(docs)), args.files)):
        table = pa.table({"text": pa.array([docs[i] for i in rows], pa.string()),
                          "label": pa.array(y[rows].astype(np.float64))})
        pq.write_table(table, os.path.join(folder, f"part-{part:05d}.parquet"))
    del docs, y
    spark = (SparkSession.builder.master(f"local[{args.cores}]").config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false").config("spark.driver.memory", "4g")
             .config("spark.sql.shuffle.partitions", str(args.cores)).getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    df = spark.read.parquet(folder).cache()
    table = df.toArrow()  # the cached rows, in the order every job reads them
    texts, labels = table.column("text").to_pylist(), table.column("label").to_numpy()
    del table
    results = {kind: compare(kind, df, texts, labels, args) for kind in args.vectorizers.split(",")}
    spark.stop()

    print(f"{args.n_docs:,} documents, {args.n_classes} classes, {args.files} Parquet files, local[{args.cores}], "
          f"{args.repeats} repeats (median, min, max)")
    print("| work | Spark ML | nbfast inside Spark | ratio |")
    print("|---|---|---|---|")
    for kind, r in results.items():
        what = f"HashingTF / HashingVectorizer, 2^{args.bits} features" if kind == "hashing" else \
            f"CountVectorizer, {r['n_features']:,} terms"
        print(f"| fit, {what} | {shown(r['spark_fit'])} | {shown(r['nb_fit'])} (classes found: "
              f"{r['nb_fit_found'][0]:.2f} s) | {statistics.median(r['spark_fit']) / statistics.median(r['nb_fit']):.1f}x |")
        print(f"| score (noop sink), {what} | {shown(r['spark_score'])} | {shown(r['nb_score'])} | "
              f"{statistics.median(r['spark_score']) / statistics.median(r['nb_score']):.1f}x |")
    for kind, r in results.items():
        print(f"{kind}: merged model equal to a local fit: {r['same_model']}; labels equal to local nbfast on all "
              f"{len(texts):,} rows: {r['same_labels']}")


if __name__ == "__main__":
    main()
