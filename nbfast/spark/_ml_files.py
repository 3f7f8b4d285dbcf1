"""Spark ML's saved ``NaiveBayesModel`` directories, read and written without a JVM (pyarrow reads the parquet).

A saved model is a directory: ``metadata/part-00000`` holds one line of JSON
(the class, uid, Spark version, ``paramMap`` and ``defaultParamMap`` with
``modelType`` and ``smoothing``), and ``data/*.parquet`` one row with the
columns ``pi`` (a Spark ML vector: log class priors), ``theta`` (a matrix,
classes x features: log-probabilities, complement weights or means) and
``sigma`` (variances of a gaussian model, else 0 x 0).  Vectors and matrices
are Spark's user-defined types, stored as structs (``type`` 0 sparse or 1
dense, sizes, indices and values; a matrix is column-major unless
``isTransposed``).

What is read is data from a stranger: the metadata's size is bounded, its
class and model type allow-listed, every vector and matrix checked against its
own sizes before it is expanded (a sparse one never to more entries than the
file stores), and the tables checked as Spark's training makes them before the
nbfast model is rebuilt, which runs nbfast's own checks of fitted values.
"""

import json
import math
import os
import secrets
import time
from pathlib import Path

import numpy as np

from nbfast import _compat
from nbfast._validation import rebuild
from nbfast.naive_bayes import ESTIMATORS
from nbfast.persist import ModelFormatError

__all__ = ["from_spark_ml", "to_spark_ml"]

SPARK_CLASS = "org.apache.spark.ml.classification.NaiveBayesModel"
MODEL_TYPES = {"multinomial": "MultinomialNB", "bernoulli": "BernoulliNB", "complement": "ComplementNB",
               "gaussian": "GaussianNB"}
#: The most bytes of metadata read (Spark's line is a few hundred bytes).
MAX_METADATA_NBYTES = 1 << 20
#: A sparse vector or matrix may expand to at most this many entries, or to as many as the file stores.
MIN_EXPANSION = 1 << 16
#: The Spark version written: 3.0 is the first whose loader reads pi, theta and sigma.
WRITTEN_SPARK_VERSION = "3.0.0"
_DEFAULT_PARAMS = {"featuresCol": "features", "labelCol": "label", "modelType": "multinomial",
                   "predictionCol": "prediction", "probabilityCol": "probability",
                   "rawPredictionCol": "rawPrediction", "smoothing": 1.0}


def _refuse(path, problem):
    return ModelFormatError(f"{os.fspath(path)} is not a Spark ML NaiveBayesModel nbfast can read: {problem}.")


# ---- reading ---------------------------------------------------------------------------------------------------


def _read_metadata(path):
    folder = Path(path) / "metadata"
    parts = sorted(folder.glob("part-*")) if folder.is_dir() else []
    if not parts:
        raise _refuse(path, "no metadata/part-* file (is it the folder a Spark ML model was saved to?)")
    with open(parts[0], "rb") as f:
        raw = f.read(MAX_METADATA_NBYTES + 1)
    if len(raw) > MAX_METADATA_NBYTES:
        raise _refuse(path, f"its metadata is larger than {MAX_METADATA_NBYTES:,} bytes")
    try:
        metadata = json.loads(raw.decode("utf-8").splitlines()[0] if raw.strip() else "")
    except (UnicodeDecodeError, ValueError) as error:
        raise _refuse(path, f"its metadata is not JSON ({error})") from None
    if not isinstance(metadata, dict) or metadata.get("class") != SPARK_CLASS:
        found = metadata.get("class") if isinstance(metadata, dict) else type(metadata).__name__
        raise _refuse(path, f"its metadata names {str(found)[:100]!r}, not {SPARK_CLASS}")
    params = {}
    for key in ("defaultParamMap", "paramMap"):  # set parameters override the defaults
        value = metadata.get(key, {})
        if not isinstance(value, dict):
            raise _refuse(path, f"its {key} is not a JSON object")
        params.update(value)
    model_type = params.get("modelType", "multinomial")
    if model_type not in MODEL_TYPES:
        raise _refuse(path, f"modelType {str(model_type)[:40]!r} is none of {sorted(MODEL_TYPES)}")
    smoothing = params.get("smoothing", 1.0)
    if isinstance(smoothing, bool) or not isinstance(smoothing, (int, float)) or not 0 <= smoothing < math.inf:
        raise _refuse(path, f"smoothing {str(smoothing)[:40]!r} is not a finite number >= 0")
    version = str(metadata.get("sparkVersion", ""))
    major = version.partition(".")[0]
    if not major.isdigit():
        raise _refuse(path, f"its sparkVersion {version[:40]!r} is not a version")
    return model_type, float(smoothing), int(major)


def _one_row(path, table):
    if table.num_rows != 1:
        raise _refuse(path, f"its data holds {table.num_rows} rows, not 1")
    return table


def _field(column, name, path, what):
    """The child ``name`` of a struct column, or a refusal."""
    pa = _compat.pyarrow()
    if not pa.types.is_struct(column.type) or column.type.get_field_index(name) < 0:
        raise _refuse(path, f"{what} is not a Spark ML vector or matrix (no field {name!r})")
    return column.field(name)


def _scalar(column, name, path, what):
    value = _field(column, name, path, what)[0].as_py()
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise _refuse(path, f"{what}.{name} is not an integer")
    return value


def _list(column, name, path, what, dtype):
    """A list field of the row as a numpy array (None when null)."""
    pa = _compat.pyarrow()
    values = _field(column, name, path, what)
    if not pa.types.is_list(values.type) and not pa.types.is_large_list(values.type):
        raise _refuse(path, f"{what}.{name} is not a list")
    if values.null_count:
        return None
    flat = values.flatten()
    if flat.null_count or not (pa.types.is_integer(flat.type) or pa.types.is_floating(flat.type)):
        raise _refuse(path, f"{what}.{name} holds nulls or values that are not numbers")
    array = flat.to_numpy(zero_copy_only=False)
    if dtype == np.int64 and array.dtype.kind not in "iu":
        raise _refuse(path, f"{what}.{name} holds values that are not integers")
    return array.astype(dtype, copy=False)


def _check_pointers(pointers, n_outer, n_inner, indices, path, what):
    """CSC/CSR pointers and indices that describe ``len(indices)`` entries inside (n_outer, n_inner)."""
    if pointers is None or indices is None or pointers.shape != (n_outer + 1,) or pointers[0] != 0 \
            or pointers[-1] != indices.size or np.any(np.diff(pointers) < 0):
        raise _refuse(path, f"{what}'s sparse pointers do not describe its entries")
    if indices.size and (indices.min() < 0 or indices.max() >= n_inner):
        raise _refuse(path, f"{what} has an index out of its bounds")


def _vector(column, path, what, limit):
    kind = _scalar(column, "type", path, what)
    values = _list(column, "values", path, what, np.float64)
    if values is None:
        raise _refuse(path, f"{what} has no values")
    if kind == 1:
        return values
    if kind != 0:
        raise _refuse(path, f"{what} has type {kind!r}, neither 0 (sparse) nor 1 (dense)")
    size = _scalar(column, "size", path, what)
    indices = _list(column, "indices", path, what, np.int64)
    if size is None or not 0 <= size <= limit or indices is None or indices.shape != values.shape:
        raise _refuse(path, f"{what} is a sparse vector whose size or indices do not match its values")
    if indices.size and (indices.min() < 0 or indices.max() >= size or np.any(np.diff(indices) <= 0)):
        raise _refuse(path, f"{what} has indices out of order or out of its bounds")
    dense = np.zeros(size)
    dense[indices] = values
    return dense


def _matrix(column, path, what, limit):
    kind = _scalar(column, "type", path, what)
    n_rows, n_cols = _scalar(column, "numRows", path, what), _scalar(column, "numCols", path, what)
    transposed = _field(column, "isTransposed", path, what)[0].as_py()
    values = _list(column, "values", path, what, np.float64)
    if n_rows is None or n_cols is None or n_rows < 0 or n_cols < 0 or not isinstance(transposed, bool) \
            or values is None:
        raise _refuse(path, f"{what} has no valid numRows, numCols, isTransposed or values")
    if n_rows * n_cols > max(limit, values.size):
        raise _refuse(path, f"{what} is {n_rows} x {n_cols}, more entries than the file stores")
    if kind == 1:
        if values.size != n_rows * n_cols:
            raise _refuse(path, f"{what} is {n_rows} x {n_cols} but holds {values.size} values")
        return values.reshape(n_rows, n_cols) if transposed else values.reshape(n_cols, n_rows).T
    if kind != 0:
        raise _refuse(path, f"{what} has type {kind!r}, neither 0 (sparse) nor 1 (dense)")
    pointers = _list(column, "colPtrs", path, what, np.int64)
    indices = _list(column, "rowIndices", path, what, np.int64)
    n_outer, n_inner = (n_rows, n_cols) if transposed else (n_cols, n_rows)  # transposed: CSR
    _check_pointers(pointers, n_outer, n_inner, indices, path, what)
    if indices.shape != values.shape:
        raise _refuse(path, f"{what} has {indices.size} indices for {values.size} values")
    dense = np.zeros((n_outer, n_inner))
    dense[np.repeat(np.arange(n_outer), np.diff(pointers)), indices] = values
    return dense if transposed else dense.T


def _read_data(path, model_type, major):
    parquet = _compat.pyarrow("parquet", "nbfast.spark.from_spark_ml")
    folder = Path(path) / "data"
    if not folder.is_dir() or not any(folder.glob("*.parquet")):
        raise _refuse(path, "no data/*.parquet file")
    try:
        table = parquet.read_table(folder)
    except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
        raise _refuse(path, f"its data cannot be read as parquet ({error})") from None
    table = _one_row(path, table).combine_chunks()
    wanted = ("pi", "theta", "sigma") if model_type == "gaussian" or major >= 3 else ("pi", "theta")
    missing = [name for name in wanted if name not in table.column_names]
    if missing:
        raise _refuse(path, f"its data has no column {missing[0]!r}")
    columns = {name: table.column(name).chunk(0) for name in wanted}
    for name, column in columns.items():
        if column.null_count:
            raise _refuse(path, f"its {name} is null")
    stored = 0
    for name, column in columns.items():
        values = _list(column, "values", path, name, np.float64)
        stored += 0 if values is None else values.size
    limit = max(MIN_EXPANSION, stored)
    pi = _vector(columns["pi"], path, "pi", limit)
    theta = _matrix(columns["theta"], path, "theta", limit)
    sigma = _matrix(columns["sigma"], path, "sigma", limit) if "sigma" in columns else None
    return pi, theta, sigma


def _check_tables(path, model_type, pi, theta, sigma):
    n_classes, n_features = theta.shape
    if n_classes < 1 or n_features < 1 or pi.shape != (n_classes,):
        raise _refuse(path, f"pi has {pi.size} classes and theta is {n_classes} x {n_features}")
    if np.isnan(pi).any() or np.any(pi > 0):
        raise _refuse(path, "pi holds values that are not log-probabilities (NaN or above 0)")
    if model_type in ("multinomial", "bernoulli"):
        if np.isnan(theta).any() or np.any(theta > 0):
            raise _refuse(path, "theta holds values that are not log-probabilities (NaN or above 0)")
        if model_type == "bernoulli" and np.any(theta == 0):
            raise _refuse(path, "theta holds log-probabilities of 0 (a feature always present), which Spark ML "
                          "scores as NaN")
    elif not np.isfinite(theta).all():
        raise _refuse(path, "theta holds values that are not finite")
    if model_type == "gaussian":
        if sigma.shape != theta.shape or not (np.isfinite(sigma).all() and np.all(sigma > 0)):
            raise _refuse(path, f"sigma ({sigma.shape[0]} x {sigma.shape[1]}) is not theta's shape or holds "
                          "variances that are not finite and positive")
        if not np.isfinite(pi).all() or abs(np.exp(pi).sum() - 1.0) > 1e-6:
            raise _refuse(path, "the class priors exp(pi) do not sum to 1")


def _labelled(path, classes, n_classes):
    """The labels and the row order that sorts them (Spark's class i is ``classes[i]``)."""
    if classes is None:
        return np.arange(n_classes, dtype=np.float64), np.arange(n_classes)
    classes = np.asarray(classes)
    if classes.ndim != 1 or classes.shape[0] != n_classes:
        raise ValueError(f"classes must name the model's {n_classes} classes in Spark's order (label 0 first), "
                         f"got {classes.shape[0] if classes.ndim == 1 else classes.shape} of them.")
    if classes.dtype.kind not in "biufU":
        classes = classes.astype(str) if all(isinstance(c, str) for c in classes) else classes
    order = np.argsort(classes, kind="stable")
    if classes.dtype.kind not in "biufU" or np.any(classes[order][1:] == classes[order][:-1]):
        raise ValueError("classes must be distinct numbers or strings.")
    return classes[order], order


def from_spark_ml(path, *, classes=None):
    """The nbfast model of a Spark ML ``NaiveBayesModel`` saved with ``model.save(path)``, read without Spark.

    Parameters
    ----------
    path : str or os.PathLike
        The folder the Spark ML model was saved to (local: copy it from HDFS or
        object storage first).
    classes : array-like of shape (n_classes,), default=None
        The label of each of Spark's classes, in Spark's order (the ``labels``
        of the ``StringIndexer`` that made the label column); by default the
        class indices 0.0, 1.0, ... as Spark predicts them.

    Returns
    -------
    model : nbfast.MultinomialNB, BernoulliNB, ComplementNB or GaussianNB
        The estimator of the model's ``modelType``, with Spark's class priors
        and tables, so that it predicts what Spark predicts on the same
        features: ``alpha`` is Spark's ``smoothing``; a bernoulli model takes
        binary features as Spark does (``binarize=None``).  Spark ML keeps
        log-probabilities, not counts: ``class_count_`` and ``feature_count_``
        are zeros (a gaussian model's ``class_count_`` holds the class priors),
        so the model scores and saves, but ``partial_fit`` or ``merge`` would
        not continue Spark's fit.

    Raises
    ------
    ModelFormatError
        If the folder is not a Spark ML NaiveBayesModel, or holds sizes, values
        or a model type that are invalid.
    MissingDependency
        Without pyarrow (``pip install 'nbfast[spark]'``).
    """
    model_type, smoothing, major = _read_metadata(path)
    pi, theta, sigma = _read_data(path, model_type, major)
    _check_tables(path, model_type, pi, theta, sigma)
    labels, order = _labelled(path, classes, pi.shape[0])
    pi, theta = pi[order], np.ascontiguousarray(theta[order])
    n_classes, n_features = theta.shape
    cls = ESTIMATORS[MODEL_TYPES[model_type]]
    fitted = {"classes_": labels, "n_features_in_": n_features, "class_count_": np.zeros(n_classes)}
    if model_type == "gaussian":
        params = {}
        # the moments' weights must not be 0: the priors stand for the class counts Spark does not keep
        fitted.update(class_count_=np.exp(pi), class_prior_=np.exp(pi), theta_=theta, epsilon_=0.0,
                      var_=np.ascontiguousarray(sigma[order]))
    else:
        params = {"alpha": smoothing}
        if model_type == "bernoulli":
            params["binarize"] = None
        fitted.update(feature_count_=np.zeros((n_classes, n_features)), class_log_prior_=pi,
                      feature_log_prob_=theta)
        if model_type == "complement":
            fitted["feature_all_"] = np.zeros(n_features)
    try:
        return rebuild(cls, params, fitted)
    except ValueError as error:
        raise _refuse(path, str(error).rstrip(".")) from None


# ---- writing ---------------------------------------------------------------------------------------------------


def _spark_tables(model):
    """(modelType, smoothing, pi, theta, sigma or None) of a fitted nbfast model, as Spark ML scores them."""
    model_type = {name: kind for kind, name in MODEL_TYPES.items()}.get(type(model).__name__)
    if model_type is None or ESTIMATORS.get(type(model).__name__) is not type(model):
        raise TypeError(f"Spark ML has no equivalent of {type(model).__name__}: to_spark_ml writes MultinomialNB, "
                        "BernoulliNB, ComplementNB and GaussianNB models (a CV estimator's best_estimator_ is one).")
    if not hasattr(model, "classes_"):
        raise _compat.NotFittedError(f"This {type(model).__name__} instance is not fitted yet.")
    if model_type == "gaussian":
        pi = np.log(np.asarray(model.class_prior_, dtype=np.float64))
        theta = np.asarray(model.theta_, dtype=np.float64)
        sigma = np.asarray(model.var_, dtype=np.float64)
        smoothing = 1.0
    else:
        if np.ndim(model.alpha) != 0:
            raise ValueError("Spark ML's smoothing is one number: a model with one alpha per feature has none.")
        pi = np.asarray(model.class_log_prior_, dtype=np.float64)
        theta, sigma, smoothing = np.asarray(model.feature_log_prob_, dtype=np.float64), None, float(model.alpha)
    if not (np.isfinite(pi).all() and np.isfinite(theta).all() and (sigma is None or np.isfinite(sigma).all())):
        raise ValueError(f"this {type(model).__name__} has tables or priors that are not finite (a zero alpha, or "
                         "a class prior of 0), which Spark ML cannot score: fit it with alpha > 0.")
    if model_type == "bernoulli" and np.any(theta == 0):
        raise ValueError("this BernoulliNB has a feature present in every sample of a class (log-probability 0), "
                         "which Spark ML scores as NaN: fit it with alpha > 0.")
    if theta.size >= 2**31 - 1:
        raise ValueError(f"a Spark ML matrix holds fewer than 2**31 values; this model has {theta.size:,}.")
    return model_type, smoothing, pi, theta, sigma


def _udt(name, udt_class, sql_type):
    # Spark's JVM reads a UDT's field only with its Python twin named too: the JVM class's name, "org.apache."
    # replaced by "py" (data of the file format, not a module nbfast imports)
    return {"name": name, "type": {"type": "udt", "class": udt_class,
                                   "pyClass": "py" + udt_class.removeprefix("org.apache."), "sqlType": sql_type},
            "nullable": True, "metadata": {}}


def _spark_schema():
    """Spark's schema of the data row (what Spark writes in the parquet footer, so that it reads UDTs back)."""
    def field(name, kind, nullable):
        return {"name": name, "type": kind, "nullable": nullable, "metadata": {}}

    def array(kind):
        return {"type": "array", "elementType": kind, "containsNull": False}

    vector = {"type": "struct", "fields": [field("type", "byte", False), field("size", "integer", True),
                                           field("indices", array("integer"), True),
                                           field("values", array("double"), True)]}
    matrix = {"type": "struct", "fields": [
        field("type", "byte", False), field("numRows", "integer", False), field("numCols", "integer", False),
        field("colPtrs", array("integer"), True), field("rowIndices", array("integer"), True),
        field("values", array("double"), True), field("isTransposed", "boolean", False)]}
    linalg = "org.apache.spark.ml.linalg."
    return {"type": "struct", "fields": [_udt("pi", linalg + "VectorUDT", vector),
                                         _udt("theta", linalg + "MatrixUDT", matrix),
                                         _udt("sigma", linalg + "MatrixUDT", matrix)]}


def _arrow_table(pi, theta, sigma):
    pa = _compat.pyarrow(purpose="nbfast.spark.to_spark_ml")
    ints, doubles = pa.list_(pa.field("element", pa.int32(), nullable=False)), \
        pa.list_(pa.field("element", pa.float64(), nullable=False))
    vector = pa.struct([pa.field("type", pa.int8(), nullable=False), pa.field("size", pa.int32()),
                        pa.field("indices", ints), pa.field("values", doubles)])
    matrix = pa.struct([pa.field("type", pa.int8(), nullable=False), pa.field("numRows", pa.int32(), nullable=False),
                        pa.field("numCols", pa.int32(), nullable=False), pa.field("colPtrs", ints),
                        pa.field("rowIndices", ints), pa.field("values", doubles),
                        pa.field("isTransposed", pa.bool_(), nullable=False)])

    def dense(table, transposed):
        values = pa.array(np.ascontiguousarray(table).ravel(), pa.float64())
        return pa.StructArray.from_arrays(
            [pa.array([1], pa.int8()), pa.array([table.shape[0]], pa.int32()), pa.array([table.shape[1]], pa.int32()),
             pa.nulls(1, ints), pa.nulls(1, ints), pa.ListArray.from_arrays(pa.array([0, len(values)], pa.int32()),
                                                                            values, type=doubles),
             pa.array([transposed], pa.bool_())], fields=list(matrix))

    pi_values = pa.array(pi, pa.float64())
    pi_column = pa.StructArray.from_arrays(
        [pa.array([1], pa.int8()), pa.nulls(1, pa.int32()), pa.nulls(1, ints),
         pa.ListArray.from_arrays(pa.array([0, len(pi_values)], pa.int32()), pi_values, type=doubles)],
        fields=list(vector))
    sigma_column = dense(np.zeros((0, 0)) if sigma is None else sigma, sigma is not None)
    schema = pa.schema([pa.field("pi", vector), pa.field("theta", matrix), pa.field("sigma", matrix)],
                       metadata={"org.apache.spark.version": WRITTEN_SPARK_VERSION,
                                 "org.apache.spark.sql.parquet.row.metadata": json.dumps(_spark_schema())})
    return pa.Table.from_arrays([pi_column, dense(theta, True), sigma_column], schema=schema)


def to_spark_ml(model, path, *, overwrite=False):
    """Write a fitted nbfast model as a Spark ML ``NaiveBayesModel`` folder, without Spark.

    ``pyspark.ml.classification.NaiveBayesModel.load(path)`` (Spark 3.0 or
    later) reads it and predicts what the nbfast model predicts on the same
    features: Spark's class ``i`` is ``model.classes_[i]`` (map the prediction
    back with ``IndexToString(labels=...)`` when the labels are not 0, 1, ...).

    Parameters
    ----------
    model : fitted nbfast.MultinomialNB, BernoulliNB, ComplementNB or GaussianNB
        A bernoulli model is scored by Spark on binary features only (Spark
        refuses others).
    path : str or os.PathLike
        The folder to create (local: copy it to HDFS or object storage after).
    overwrite : bool, default=False
        Replace ``path`` if it exists (Spark's ``write().overwrite()``).

    Returns
    -------
    labels : list
        ``model.classes_`` as a list: the label of each Spark class index.

    Raises
    ------
    TypeError
        If the model has no Spark ML equivalent.
    ValueError
        If its tables are not finite (a zero alpha), it has one alpha per
        feature, or it is too large for a Spark ML matrix.
    FileExistsError
        If ``path`` exists and ``overwrite`` is False.
    """
    model_type, smoothing, pi, theta, sigma = _spark_tables(model)
    table = _arrow_table(pi, theta, sigma)
    parquet = _compat.pyarrow("parquet", "nbfast.spark.to_spark_ml")
    path = Path(path)
    if path.exists():
        if not overwrite:
            raise FileExistsError(f"{path} exists: pass overwrite=True to replace it.")
        _remove_saved_model(path)
    params = {"modelType": model_type, "smoothing": smoothing}
    metadata = {"class": SPARK_CLASS, "timestamp": int(time.time() * 1000), "sparkVersion": WRITTEN_SPARK_VERSION,
                "uid": f"NaiveBayes_{secrets.token_hex(6)}", "paramMap": params, "defaultParamMap": _DEFAULT_PARAMS}
    (path / "metadata").mkdir(parents=True)
    (path / "data").mkdir()
    (path / "metadata" / "part-00000").write_text(json.dumps(metadata, separators=(",", ":")) + "\n")
    parquet.write_table(table, path / "data" / "part-00000.snappy.parquet", compression="snappy")
    for folder in ("metadata", "data"):
        (path / folder / "_SUCCESS").write_bytes(b"")
    return model.classes_.tolist()


def _remove_saved_model(path):
    """Remove a saved Spark ML model folder (its metadata/ and data/ folders of files, nothing else)."""
    if not path.is_dir() or not (path / "metadata").is_dir():
        raise FileExistsError(f"{path} exists and is not a saved Spark ML model: remove it yourself.")
    for folder in (path / "metadata", path / "data"):
        for child in folder.iterdir() if folder.is_dir() else []:
            if child.is_dir():
                raise FileExistsError(f"{path} holds {child}: not a saved Spark ML model; remove it yourself.")
            child.unlink()
        if folder.is_dir():
            folder.rmdir()
    for child in path.iterdir():
        raise FileExistsError(f"{path} holds {child.name} besides a Spark ML model: remove it yourself.")
    path.rmdir()
