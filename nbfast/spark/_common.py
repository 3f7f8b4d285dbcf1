"""What scoring and fitting on Spark share: the model as model-file bytes, the per-worker model cache, Arrow
columns to features and labels, the task's thread budget, and the reduction of the partitions' results.

Functions here run on the driver (checking what the user gave before any job
starts) or in Spark's Python workers (``mapInArrow`` and Arrow UDFs call them
with Arrow record batches).
"""

import hashlib
import io
import os
import threading
from collections import OrderedDict

import numpy as np

from nbfast import _compat
from nbfast._kernels.threads import effective_n_threads, limit_this_thread
from nbfast.persist import load, load_vectorizer, save

#: Models loaded in this Python worker, by the digest of their bytes (the most recent few), and its lock.
_LOADED = OrderedDict()
_LOADED_LOCK = threading.Lock()
_KEEP_LOADED = 4

#: With at most this many partitions, their results are collected and merged on the driver at once; with more,
#: as a tree on the executors (``treeReduce``).
COLLECT_AT_MOST = 64


class ModelBytes:
    """A fitted model as the bytes of its model file (with its vectorizer), checked on the driver.

    Attributes: ``data`` (the bytes), ``key`` (their SHA-256, naming the model in
    the workers' cache), ``model`` and ``vectorizer`` (loaded back from the
    bytes, as the workers will see them).
    """

    def __init__(self, model, vectorizer=None):
        if isinstance(model, (str, os.PathLike)):
            with open(model, "rb") as f:
                data = f.read()
            if vectorizer is not None:  # a model file saved without its vectorizer, given one here
                buffer = io.BytesIO()
                save(load(data), buffer, vectorizer=vectorizer)
                data = buffer.getvalue()
        else:
            buffer = io.BytesIO()
            save(model, buffer, vectorizer=vectorizer)  # refuses what is not a fitted model (or two-step Pipeline)
            data = buffer.getvalue()
        self.data = data
        self.key = hashlib.sha256(data).hexdigest()
        self.model = load(data)
        self.vectorizer = load_vectorizer(data)


def worker_model(broadcast, key):
    """(model, vectorizer, labels as an Arrow array) of the broadcast model file, loaded once per Python worker."""
    with _LOADED_LOCK:
        entry = _LOADED.get(key)
        if entry is None:
            data = broadcast.value
            model = load(data)
            entry = (model, load_vectorizer(data), arrow_labels(model.classes_)[1])
            _LOADED[key] = entry
            while len(_LOADED) > _KEEP_LOADED:
                _LOADED.popitem(last=False)
        else:
            _LOADED.move_to_end(key)
        return entry


def limit_threads():
    """Run this task's kernels on the task's cores (``spark.task.cpus``) at most, or fewer if the environment
    (``OMP_NUM_THREADS``, which Spark sets in its Python workers) or the CPUs available say so."""
    context = _compat.pyspark().TaskContext.get()
    n_threads = effective_n_threads()
    if context is not None:
        n_threads = min(n_threads, max(1, int(context.cpus())))
    limit_this_thread(n_threads)


def arrow_labels(classes):
    """(Spark SQL type, Arrow array of ``classes``) for a prediction column of these labels."""
    pa, types = _compat.pyarrow(), _compat.pyspark("sql.types")
    kind = classes.dtype.kind
    if kind == "O" and all(isinstance(label, str) for label in classes):
        kind = "U"
    if kind == "b":
        return types.BooleanType(), pa.array(classes, pa.bool_())
    if kind in "iu" and (classes.size == 0 or int(classes.max()) < 2**63):
        return types.LongType(), pa.array(classes.astype(np.int64), pa.int64())
    if kind == "f":
        return types.DoubleType(), pa.array(classes.astype(np.float64), pa.float64())
    if kind == "U":
        return types.StringType(), pa.array(classes.tolist(), pa.string())
    raise TypeError(f"a Spark column cannot hold these labels ({classes.dtype}): use numbers or strings.")


def _is_text(arrow_type):
    pa = _compat.pyarrow()
    return pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type) or \
        pa.types.is_string_view(arrow_type)


def check_input_type(spark_type, column, vectorizer):
    """Refuse, on the driver, an input column that does not fit the model: text needs a vectorizer, numbers an
    array column without one."""
    types = _compat.pyspark("sql.types")
    if isinstance(spark_type, types.StringType):
        if vectorizer is None:
            raise ValueError(f"column {column!r} holds text, but the model has no vectorizer: pass vectorizer=, a "
                             "two-step Pipeline, or a model file saved with its vectorizer.")
        return
    if isinstance(spark_type, types.ArrayType) and isinstance(spark_type.elementType, types.NumericType):
        if vectorizer is not None:
            raise ValueError(f"column {column!r} holds arrays of numbers, but a vectorizer was given: the model "
                             "would read text.")
        return
    raise TypeError(f"column {column!r} is {spark_type.simpleString()}: nbfast reads a string column (with a "
                    "vectorizer) or an array of numbers (one entry per feature).")


def refuse_nulls(column, name):
    """Refuse an Arrow column that holds nulls."""
    if column.null_count:
        raise ValueError(f"column {name!r} holds nulls: fill them (DataFrame.fillna) or filter them out first.")


def features(column, vectorizer, n_features, name):
    """The model's input for an Arrow column: a vectorized text column, or an array column as a dense matrix."""
    pa = _compat.pyarrow()
    refuse_nulls(column, name)
    if _is_text(column.type):
        return vectorizer.transform(column)  # read in place: no Python str per document
    if not (pa.types.is_list(column.type) or pa.types.is_large_list(column.type)):
        raise TypeError(f"column {name!r} is {column.type}, neither text nor an array of numbers.")
    offsets = column.offsets.to_numpy()
    if np.any(np.diff(offsets) != n_features):
        raise ValueError(f"column {name!r} holds arrays whose length is not the model's {n_features} features.")
    values = column.flatten()
    if values.null_count:
        raise ValueError(f"column {name!r} holds arrays with null entries.")
    return values.to_numpy(zero_copy_only=False).astype(np.float64, copy=False).reshape(len(column), n_features)


def column_values(column, name):
    """A label or weight column's values as a numpy array (strings as str), refusing nulls."""
    refuse_nulls(column, name)
    if _is_text(column.type):
        return np.asarray(column.to_pylist(), dtype=str)
    return column.to_numpy(zero_copy_only=False)


def reduce_partitions(parts, merge):
    """The partitions' results (a DataFrame of one binary column, at most one row per partition) merged into
    one by ``merge`` (a list of results to one result): on the driver at once, or as a tree on the executors
    when there are more than ``COLLECT_AT_MOST`` partitions.  ValueError when there is no result (no rows)."""
    if parts.rdd.getNumPartitions() <= COLLECT_AT_MOST:
        results = [bytes(row[0]) for row in parts.collect()]
    else:
        partial = parts.rdd.map(lambda row: bytes(row[0]))
        results = [] if partial.isEmpty() else [partial.treeReduce(lambda a, b: merge([a, b]), depth=2)]
    if not results:
        raise ValueError("Found array with 0 sample(s): the DataFrame has no rows to fit on.")
    return results[0] if len(results) == 1 else merge(results)
