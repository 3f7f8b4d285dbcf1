"""Score a Spark DataFrame with a fitted nbfast model: ``mapInArrow`` over Arrow batches, or a column function.

The model travels as the bytes of its model file, broadcast once; each Python
worker loads it once (:func:`~nbfast.spark._common.worker_model`) and keeps
it for the next tasks.  Nothing goes through pandas: each Arrow batch's
column is vectorized, scored by the kernels on the task's cores, and the
labels taken from an Arrow array of the classes.
"""

import functools
from numbers import Integral

import numpy as np

from nbfast import _compat
from nbfast.decision import best_classes
from nbfast.spark._common import ModelBytes, arrow_labels, check_input_type, features, limit_threads, worker_model

__all__ = ["predict", "predict_proba", "predict_udf"]


def _rows_of(values, width):
    """An Arrow list array of ``values`` (an Arrow array), ``width`` of them per row."""
    pa = _compat.pyarrow()
    offsets = pa.array(np.arange(0, len(values) + 1, width, dtype=np.int32))
    return pa.ListArray.from_arrays(offsets, values)


def _probability_array(proba):
    pa = _compat.pyarrow()
    return _rows_of(pa.array(np.ascontiguousarray(proba).ravel(), pa.float64()), proba.shape[1])


def _scores(model, labels, X, prediction_col, probability_col, top_k):
    """The output columns of one batch's features X: the labels and/or the probabilities (of every class, or of
    the ``top_k`` most probable ones with their labels, best first)."""
    pa = _compat.pyarrow()
    if top_k is not None:
        index, probabilities = best_classes(model.predict_proba(X), model._predict_index(X)[1], top_k)
        label_column = _rows_of(labels.take(pa.array(index.ravel())), top_k)
    else:
        label_column = labels.take(pa.array(model._predict_index(X)[1])) if prediction_col is not None else None
        probabilities = model.predict_proba(X) if probability_col is not None else None
    columns = [label_column] if prediction_col is not None else []
    return columns + ([_probability_array(probabilities)] if probability_col is not None else [])


def _score_batches(batches, *, broadcast, key, input_col, kept, prediction_col, probability_col, top_k):
    """mapInArrow's function: each batch's kept columns, then the labels and/or the probabilities."""
    pa = _compat.pyarrow()
    model, vectorizer, labels = worker_model(broadcast, key)
    limit_threads()
    names = list(kept) + [name for name in (prediction_col, probability_col) if name is not None]
    for batch in batches:
        if batch.num_rows == 0:  # nothing to vectorize (a vectorizer refuses an empty sequence): no rows out
            continue
        X = features(batch.column(input_col), vectorizer, model.n_features_in_, input_col)
        columns = [batch.column(name) for name in kept]
        columns += _scores(model, labels, X, prediction_col, probability_col, top_k)
        yield pa.RecordBatch.from_arrays(columns, names=names)


def _check_top_k(top_k, n_classes):
    """``top_k`` as an int (or None), refused unless between 1 and the model's number of classes."""
    if top_k is None:
        return None
    if not isinstance(top_k, Integral) or isinstance(top_k, bool):
        raise TypeError(f"top_k must be an int or None, got {type(top_k).__name__}.")
    if not 1 <= top_k <= n_classes:
        raise ValueError(f"top_k={top_k}: the model has {n_classes} classes; top_k must be between 1 and that.")
    return int(top_k)


def _check_columns(df, input_col, output_cols, keep_cols):
    names = df.columns
    if input_col not in names:
        raise ValueError(f"the DataFrame has no column {input_col!r} (its columns: {names}).")
    kept = list(names) if keep_cols is None else list(keep_cols)
    unknown = [name for name in kept if name not in names]
    if unknown:
        raise ValueError(f"keep_cols names columns the DataFrame lacks: {unknown}.")
    clashes = [name for name in output_cols if name in kept]
    if clashes or len(set(output_cols)) != len(output_cols):
        raise ValueError(f"output column {(clashes or output_cols)[0]!r} is also an input column kept or named "
                         "twice: choose another name or leave it out of keep_cols.")
    return kept


def _scored(model, df, vectorizer, input_col, keep_cols, prediction_col, probability_col, top_k=None):
    types = _compat.pyspark("sql.types")
    if not isinstance(df, _compat.pyspark("sql").DataFrame):
        raise TypeError(f"df must be a pyspark.sql.DataFrame, got {type(df).__name__}.")
    outputs = [name for name in (prediction_col, probability_col) if name is not None]
    if not outputs:
        raise ValueError("nothing to compute: prediction_col and probability_col are both None.")
    kept = _check_columns(df, input_col, outputs, keep_cols)
    shipped = ModelBytes(model, vectorizer)
    check_input_type(df.schema[input_col].dataType, input_col, shipped.vectorizer)
    top_k = _check_top_k(top_k, len(shipped.model.classes_))
    fields = [df.schema[name] for name in kept]
    if prediction_col is not None:
        label_type = arrow_labels(shipped.model.classes_)[0]
        label_type = label_type if top_k is None else types.ArrayType(label_type, False)
        fields.append(types.StructField(prediction_col, label_type, False))
    if probability_col is not None:
        fields.append(types.StructField(probability_col, types.ArrayType(types.DoubleType(), False), False))
    broadcast = df.sparkSession.sparkContext.broadcast(shipped.data)
    function = functools.partial(_score_batches, broadcast=broadcast, key=shipped.key, input_col=input_col,
                                 kept=kept, prediction_col=prediction_col, probability_col=probability_col,
                                 top_k=top_k)
    return df.mapInArrow(function, types.StructType(fields))


def predict(model, df, *, vectorizer=None, input_col="text", prediction_col="prediction", keep_cols=None,
            top_k=None):
    """Predicted labels of a DataFrame's documents (or feature arrays), as a new DataFrame (lazy).

    Parameters
    ----------
    model : fitted nbfast estimator, two-step Pipeline, or str or os.PathLike
        A fitted estimator (with ``vectorizer``), a fitted scikit-learn
        Pipeline of an nbfast.text vectorizer and an nbfast estimator, or the
        path of a model file (saved with its vectorizer, or given one here).
    df : pyspark.sql.DataFrame
    vectorizer : nbfast.text vectorizer, default=None
        What turns ``input_col``'s text into the model's features; None when
        the model file or Pipeline holds it, or when ``input_col`` holds arrays
        of numbers (one per feature).
    input_col : str, default="text"
        A string column (documents), or an array column of numbers.
    prediction_col : str, default="prediction"
        The column of labels added: long, double, boolean or string, as the
        model's classes are.
    keep_cols : list of str, default=None
        The columns of ``df`` kept in the result, before the new ones (None:
        every column, as Spark ML's ``transform``).
    top_k : int, default=None
        Make ``prediction_col`` an array of the ``top_k`` most probable labels
        of each row, by decreasing probability (the first is the predicted
        label; equal probabilities in the order of ``classes_``), as the
        command line's ``nbfast predict --top-k``.

    Returns
    -------
    scored : pyspark.sql.DataFrame
        One row per row of ``df``, computed by ``mapInArrow`` when an action
        runs: the model file's bytes are broadcast once and loaded once per
        Python worker; each task's kernels run on at most ``spark.task.cpus``
        threads.  Rows keep their partitions (and order within them).

    Raises
    ------
    TypeError, ValueError
        On the driver, before any job: a model that is not fitted, a column
        that is missing or of the wrong type, an output column that clashes,
        a ``top_k`` that is not between 1 and the number of classes.
    """
    return _scored(model, df, vectorizer, input_col, keep_cols, prediction_col, None, top_k)


def predict_proba(model, df, *, vectorizer=None, input_col="text", prediction_col="prediction", keep_cols=None,
                  probability_col="probability", as_vector=False, top_k=None):
    """Class probabilities (and labels) of a DataFrame's documents, as a new DataFrame (lazy).

    Parameters
    ----------
    model, df, vectorizer, input_col, keep_cols
        As for :func:`predict`.
    prediction_col : str or None, default="prediction"
        The column of labels, or None to leave it out.
    probability_col : str, default="probability"
        The column of probabilities: an array of doubles in the order of the
        model's ``classes_``.
    as_vector : bool, default=False
        Make ``probability_col`` a Spark ML dense vector (as Spark ML's
        ``probability`` column) instead of an array.
    top_k : int, default=None
        Keep the ``top_k`` most probable classes of each row only, best first:
        ``probability_col`` holds their probabilities and ``prediction_col``
        an array of their labels (as :func:`predict` with ``top_k``).

    Returns
    -------
    scored : pyspark.sql.DataFrame
    """
    if probability_col is None:
        raise ValueError("probability_col must name the column of probabilities (use predict for labels only).")
    scored = _scored(model, df, vectorizer, input_col, keep_cols, prediction_col, probability_col, top_k)
    if as_vector:
        vectors = _compat.pyspark("ml.functions", "Spark ML vectors")
        scored = scored.withColumn(probability_col, vectors.array_to_vector(scored[probability_col]))
    return scored


def _udf_scores(column, *, broadcast, key, proba):
    pa = _compat.pyarrow()
    if not isinstance(column, (pa.Array, pa.ChunkedArray)):  # pandas_udf: a pandas Series
        column = pa.array(column)
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    model, vectorizer, labels = worker_model(broadcast, key)
    limit_threads()
    X = features(column, vectorizer, model.n_features_in_, "the UDF's input")
    if proba:
        return _probability_array(model.predict_proba(X))
    return labels.take(pa.array(model._predict_index(X)[1]))


def _pandas_scores(series, **kwargs):
    return _udf_scores(series, **kwargs).to_pandas()


def predict_udf(model, *, vectorizer=None, proba=False):
    """A column function that scores a column of documents (or feature arrays) with the model.

    ``df.withColumn("label", predict_udf(model, vectorizer=v)("text"))``.  An
    Arrow UDF (``pyspark.sql.functions.arrow_udf``) where Spark has it, else a
    pandas UDF; the model's bytes are broadcast (through the active Spark
    session) when the function is made, and loaded once per Python worker.

    Parameters
    ----------
    model, vectorizer
        As for :func:`predict`.
    proba : bool, default=False
        Return the class probabilities (array of doubles, in the order of
        ``classes_``) instead of the labels.

    Returns
    -------
    udf : callable
        Takes a column (name or Column) and returns a Column.
    """
    sql, functions, types = _compat.pyspark("sql"), _compat.pyspark("sql.functions"), _compat.pyspark("sql.types")
    session = sql.SparkSession.getActiveSession()
    if session is None:
        raise RuntimeError("predict_udf needs an active SparkSession (it broadcasts the model): create one first.")
    shipped = ModelBytes(model, vectorizer)
    result_type = types.ArrayType(types.DoubleType(), False) if proba else arrow_labels(shipped.model.classes_)[0]
    broadcast = session.sparkContext.broadcast(shipped.data)
    keywords = {"broadcast": broadcast, "key": shipped.key, "proba": bool(proba)}
    arrow_udf = getattr(functions, "arrow_udf", None)  # Spark 4.1 and later
    if arrow_udf is not None:
        return arrow_udf(functools.partial(_udf_scores, **keywords), result_type)
    return functions.pandas_udf(functools.partial(_pandas_scores, **keywords), result_type)
