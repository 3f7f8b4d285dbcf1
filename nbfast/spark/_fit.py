"""Fit an nbfast model on a Spark DataFrame: partition-local statistics, merged exactly.

Each partition's Python worker vectorizes its Arrow batches and folds them into
a fresh copy of the estimator (``partial_fit`` with every class); the
partition's model travels back as the bytes of its model file, and
:func:`nbfast.merge` adds the statistics up: on the driver, or on the
executors as a tree (``treeReduce``) when there are many partitions.  Only
statistics travel, never the documents.  Counts are sums, so the merged model
equals one local fit on all the rows (exactly where the counts and weights are
integers, to rounding otherwise).  An unfitted CountVectorizer or
TfidfVectorizer first learns its vocabulary in a pass of its own
(:mod:`nbfast.spark._vocabulary`).
"""

import functools
import io

import numpy as np

from nbfast import _compat
from nbfast.merge import merge
from nbfast.naive_bayes._base import _BaseNB, unique_classes
from nbfast.naive_bayes._capabilities import refuse_unless_incremental
from nbfast.persist import load, save
from nbfast.spark._common import check_input_type, column_values, features, limit_threads, reduce_partitions
from nbfast.spark._vocabulary import check_vocabulary_fit, fit_vocabulary
from nbfast.text import CountVectorizer, HashingVectorizer

__all__ = ["fit"]

def _check_estimator(estimator):
    """An estimator whose partition models merge into the model of all the rows: refused up front otherwise."""
    if not isinstance(estimator, _BaseNB):
        raise TypeError(f"estimator must be an nbfast Naive Bayes estimator, got {type(estimator).__name__}.")
    refuse_unless_incremental(estimator, "nbfast.spark.fit")
    if estimator._composite:
        raise TypeError(f"nbfast.spark.fit fits models of documents; {type(estimator).__name__}'s parts read the "
                        "columns of a table: fit each part's estimator with nbfast.spark.fit.")


def _learns_vocabulary(vectorizer):
    """Whether ``vectorizer`` must first learn its vocabulary from the DataFrame (an unfitted nbfast
    CountVectorizer or TfidfVectorizer); refuses one that no partition could apply alone."""
    if vectorizer is None or isinstance(vectorizer, HashingVectorizer):
        return False
    try:
        vectorizer.transform([""])
    except _compat.NotFittedError:
        if not isinstance(vectorizer, CountVectorizer):
            raise ValueError(f"the {type(vectorizer).__name__} has no vocabulary yet, and every partition must use "
                             "the same one: fit it first, or use nbfast.text's CountVectorizer or "
                             "TfidfVectorizer (which nbfast.spark.fit fits on all the rows) or HashingVectorizer "
                             "(which needs no vocabulary).") from None
        check_vocabulary_fit(vectorizer)
        return True
    return False


def _model_bytes(model):
    buffer = io.BytesIO()
    save(model, buffer)
    return buffer.getvalue()


def _fit_partition(batches, *, estimator, vectorizer, input_col, label_col, weight_col, classes):
    """mapInArrow's function: one row with the partition's model file, or none for an empty partition."""
    pa = _compat.pyarrow()
    limit_threads()
    model = None
    for batch in batches:
        if batch.num_rows == 0:
            continue
        column = batch.column(input_col)
        X = features(column, vectorizer, None if vectorizer is not None else _array_width(column), input_col)
        y = column_values(batch.column(label_col), label_col)
        weight = None if weight_col is None else \
            column_values(batch.column(weight_col), weight_col).astype(np.float64, copy=False)
        if model is None:
            model = _compat.clone(estimator)
        model.partial_fit(X, y, classes=classes, sample_weight=weight)
    if model is not None:
        yield pa.RecordBatch.from_arrays([pa.array([_model_bytes(model)], pa.binary())], names=["model"])


def _array_width(column):
    """The features of an array column: its first row's length (``features`` holds every row to it, partial_fit
    every batch, and merge every partition)."""
    offsets = column.offsets.to_numpy()
    return int(offsets[1] - offsets[0])


def _merge(models):
    """The model file of several partitions' models (model files) merged."""
    return _model_bytes(merge([load(data) for data in models]))


def _classes(df, label_col, classes):
    if classes is not None:
        return unique_classes(np.asarray(classes))
    rows = df.select(label_col).distinct().collect()
    labels = [row[0] for row in rows]
    if any(label is None for label in labels):
        raise ValueError(f"column {label_col!r} holds nulls: fill them or filter them out first.")
    if not labels:
        raise ValueError("Found array with 0 sample(s): the DataFrame has no rows to fit on.")
    return unique_classes(np.asarray(labels, dtype=str) if isinstance(labels[0], str) else np.asarray(labels))


def fit(estimator, df, *, vectorizer, input_col="text", label_col="label", weight_col=None, classes=None):
    """Fit a copy of ``estimator`` on a Spark DataFrame, partition by partition, and return it.

    Parameters
    ----------
    estimator : nbfast estimator
        MultinomialNB, BernoulliNB, ComplementNB, PoissonNB, CategoricalNB or
        GaussianNB, unfitted or not: its parameters are used, it is not
        modified.  Estimators whose fit is not a sum over rows are refused,
        with the alternative.
    df : pyspark.sql.DataFrame
    vectorizer : nbfast.text vectorizer or None
        Applied to each partition's documents: a HashingVectorizer; a
        CountVectorizer or TfidfVectorizer already fitted, whose vocabulary
        every partition shares; or an unfitted CountVectorizer or
        TfidfVectorizer, which is fitted in place first, on all the rows, in
        a pass of its own (each partition's terms counted, the counts added up
        and ``min_df``, ``max_df`` and ``max_features`` applied to the sums):
        its ``vocabulary_`` and ``idf_`` are those of ``vectorizer.fit`` on
        all the documents.  None when ``input_col`` holds arrays of numbers.
    input_col : str, default="text"
    label_col : str, default="label"
        Numbers, booleans or strings; no nulls.
    weight_col : str, default=None
        Sample weights, or None for weight 1.
    classes : array-like, default=None
        Every label; found with one pass over ``label_col`` when None.

    Returns
    -------
    model : estimator
        A fitted local estimator whose statistics are the sums of the
        partitions': equal to ``estimator.fit`` on all the rows (exactly when
        counts and weights are integers).  Keep the vectorizer beside it (or
        ``nbfast.save(model, path, vectorizer=vectorizer)``) to score text.

    Raises
    ------
    TypeError, ValueError
        On the driver, before the data is read: an estimator that cannot be
        fitted this way, a vectorizer that cannot learn its vocabulary here,
        columns that are missing or of the wrong type.
    """
    sql, types = _compat.pyspark("sql"), _compat.pyspark("sql.types")
    _check_estimator(estimator)
    learns_vocabulary = _learns_vocabulary(vectorizer)
    if not isinstance(df, sql.DataFrame):
        raise TypeError(f"df must be a pyspark.sql.DataFrame, got {type(df).__name__}.")
    for name in (input_col, label_col) + (() if weight_col is None else (weight_col,)):
        if name not in df.columns:
            raise ValueError(f"the DataFrame has no column {name!r} (its columns: {df.columns}).")
    check_input_type(df.schema[input_col].dataType, input_col, vectorizer)
    if weight_col is not None and not isinstance(df.schema[weight_col].dataType, types.NumericType):
        raise TypeError(f"column {weight_col!r} must hold numbers (sample weights).")
    classes = _classes(df, label_col, classes)
    if learns_vocabulary:
        fit_vocabulary(vectorizer, df, input_col)
    template = _compat.clone(estimator)
    function = functools.partial(_fit_partition, estimator=template, vectorizer=vectorizer, input_col=input_col,
                                 label_col=label_col, weight_col=weight_col, classes=classes)
    selected = df.select(*dict.fromkeys([input_col, label_col] + ([] if weight_col is None else [weight_col])))
    parts = selected.mapInArrow(function, types.StructType([types.StructField("model", types.BinaryType(), False)]))
    return load(reduce_partitions(parts, _merge))
