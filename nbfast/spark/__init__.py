"""Naive Bayes on Apache Spark (optional extra ``nbfast[spark]``: pyspark, pyarrow).

- :func:`predict`, :func:`predict_proba` and :func:`predict_udf` score a
  DataFrame's documents (or feature arrays) with a fitted nbfast model: Arrow
  batches through ``mapInArrow``, the model file's bytes broadcast once and
  loaded once per Python worker, the kernels on the task's cores
  (``spark.task.cpus``).
- :func:`fit` fits a model on a DataFrame: each partition's statistics
  (``partial_fit``), shipped as model-file bytes and merged exactly, so the
  result equals one local fit; an unfitted CountVectorizer or
  TfidfVectorizer first learns its vocabulary from the partitions' summed
  term counts, as one fit on all the rows would.
- :func:`from_spark_ml` and :func:`to_spark_ml` read and write Spark ML's
  saved ``NaiveBayesModel`` folders, without a JVM (pyarrow reads the parquet).

pyspark is imported only by the functions that run on Spark: reading and
writing Spark ML models needs pyarrow alone.
"""

from nbfast.spark._fit import fit
from nbfast.spark._ml_files import from_spark_ml, to_spark_ml
from nbfast.spark._score import predict, predict_proba, predict_udf

__all__ = ["fit", "from_spark_ml", "predict", "predict_proba", "predict_udf", "to_spark_ml"]
