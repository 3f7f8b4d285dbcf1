"""Spark ML's saved NaiveBayesModel folders, read and written with pyarrow alone (no JVM, no pyspark)."""

import json

import numpy as np
import pytest

import nbfast
from nbfast.datasets import make_documents
from nbfast.persist import ModelFormatError

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
from nbfast.spark import from_spark_ml, to_spark_ml  # noqa: E402  (after pyarrow: the module needs it to run)
from nbfast.spark._ml_files import _arrow_table  # noqa: E402

INTS = pa.list_(pa.field("element", pa.int32(), nullable=False))
DOUBLES = pa.list_(pa.field("element", pa.float64(), nullable=False))
VECTOR = pa.struct([("type", pa.int8()), ("size", pa.int32()), ("indices", INTS), ("values", DOUBLES)])
MATRIX = pa.struct([("type", pa.int8()), ("numRows", pa.int32()), ("numCols", pa.int32()), ("colPtrs", INTS),
                    ("rowIndices", INTS), ("values", DOUBLES), ("isTransposed", pa.bool_())])


@pytest.fixture(scope="module")
def data():
    X, y = make_documents(120, 30, 3, mean_length=15, class_separation=0.3, random_state=5)
    return X.toarray(), y


def fitted(name, X, y):
    if name == "BernoulliNB":
        return nbfast.BernoulliNB().fit((X > 0).astype(float), y)
    return getattr(nbfast, name)().fit(X, y)


MODELS = ["MultinomialNB", "BernoulliNB", "ComplementNB", "GaussianNB"]


@pytest.mark.parametrize("name", MODELS)
def test_round_trip_keeps_the_predictions(tmp_path, data, name):
    X, y = data
    model = fitted(name, X, y)
    X = (X > 0).astype(float) if name == "BernoulliNB" else X
    assert to_spark_ml(model, tmp_path / "m") == model.classes_.tolist()
    back = from_spark_ml(tmp_path / "m", classes=model.classes_)
    assert type(back) is type(model)
    np.testing.assert_array_equal(back.predict(X), model.predict(X))
    np.testing.assert_allclose(back.predict_proba(X), model.predict_proba(X), rtol=1e-12, atol=1e-15)
    metadata = json.loads((tmp_path / "m" / "metadata" / "part-00000").read_text())
    assert metadata["class"] == "org.apache.spark.ml.classification.NaiveBayesModel"
    assert metadata["paramMap"]["modelType"] == name[:-2].lower()
    # the parquet footer carries Spark's schema, so that Spark reads the columns back as vectors and matrices
    footer = pq.ParquetFile(next((tmp_path / "m" / "data").glob("*.parquet"))).schema_arrow.metadata
    fields = json.loads(footer[b"org.apache.spark.sql.parquet.row.metadata"])["fields"]
    assert [(f["name"], f["type"]["class"], f["type"]["pyClass"]) for f in fields] == [
        ("pi", "org.apache.spark.ml.linalg.VectorUDT", "pyspark.ml.linalg.VectorUDT"),
        ("theta", "org.apache.spark.ml.linalg.MatrixUDT", "pyspark.ml.linalg.MatrixUDT"),
        ("sigma", "org.apache.spark.ml.linalg.MatrixUDT", "pyspark.ml.linalg.MatrixUDT")]
    # nbfast's own model file keeps what was read
    assert nbfast.load(_saved(back)).predict(X).tolist() == model.predict(X).tolist()


def _saved(model):
    import io

    buffer = io.BytesIO()
    nbfast.save(model, buffer)
    return buffer.getvalue()


def test_default_labels_are_spark_class_indices_and_classes_name_them(tmp_path, data):
    X, y = data
    model = nbfast.MultinomialNB().fit(X, np.array(["b", "c", "a"])[y])
    to_spark_ml(model, tmp_path / "m")
    indices = from_spark_ml(tmp_path / "m")
    np.testing.assert_array_equal(indices.classes_, [0.0, 1.0, 2.0])
    assert (model.classes_[indices.predict(X).astype(int)] == model.predict(X)).all()
    # Spark's order is a StringIndexer's (here c, a, b): the rows are reordered to sorted labels
    relabelled = from_spark_ml(tmp_path / "m", classes=["c", "a", "b"])
    np.testing.assert_array_equal(relabelled.classes_, ["a", "b", "c"])
    expected = np.array(["c", "a", "b"])[indices.predict(X).astype(int)]
    np.testing.assert_array_equal(relabelled.predict(X), expected)
    with pytest.raises(ValueError, match="3 classes"):
        from_spark_ml(tmp_path / "m", classes=["a", "b"])
    with pytest.raises(ValueError, match="distinct"):
        from_spark_ml(tmp_path / "m", classes=["a", "a", "b"])


def write_model(path, row, model_type="multinomial", metadata=None, rows=1):
    """A Spark ML model folder holding ``row`` (column -> dict, Spark's struct fields) as its data."""
    (path / "metadata").mkdir(parents=True)
    (path / "data").mkdir()
    meta = {"class": "org.apache.spark.ml.classification.NaiveBayesModel", "sparkVersion": "3.5.1",
            "uid": "NaiveBayes_1", "paramMap": {"modelType": model_type, "smoothing": 1.0}, "defaultParamMap": {}}
    meta.update(metadata or {})
    (path / "metadata" / "part-00000").write_text(json.dumps(meta) + "\n")
    columns = {name: pa.array([value] * rows, VECTOR if name == "pi" else MATRIX) for name, value in row.items()}
    pq.write_table(pa.table(columns), path / "data" / "part-00000.parquet")
    return path


def dense(table, transposed=True):
    table = np.asarray(table, dtype=float)
    values = table.ravel() if transposed else table.T.ravel()
    return {"type": 1, "numRows": table.shape[0], "numCols": table.shape[1], "colPtrs": None, "rowIndices": None,
            "values": values.tolist(), "isTransposed": transposed}


LOG_PI = np.log([0.25, 0.75])
THETA = np.log([[0.5, 0.25, 0.25], [0.1, 0.1, 0.8]])
EMPTY = dense(np.zeros((0, 0)), False)


def good_row(**changes):
    row = {"pi": {"type": 1, "size": None, "indices": None, "values": LOG_PI.tolist()}, "theta": dense(THETA),
           "sigma": EMPTY}
    row.update(changes)
    return row


def test_reads_dense_column_major_and_sparse_vectors_and_matrices(tmp_path):
    X = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]])
    expected = LOG_PI + X @ THETA.T
    column_major = from_spark_ml(write_model(tmp_path / "a", good_row(theta=dense(THETA, transposed=False))))
    np.testing.assert_allclose(column_major.predict_joint_log_proba(X), expected)
    # a gaussian model whose means are mostly 0: Spark stores them sparse (CSC), and pi sparse too
    means = np.array([[0.0, 0.0, 1.5], [2.0, 0.0, 0.0]])
    sparse_theta = {"type": 0, "numRows": 2, "numCols": 3, "colPtrs": [0, 1, 1, 2], "rowIndices": [1, 0],
                    "values": [2.0, 1.5], "isTransposed": False}
    sparse_pi = {"type": 0, "size": 2, "indices": [0, 1], "values": np.log([0.5, 0.5]).tolist()}
    gaussian = from_spark_ml(write_model(tmp_path / "b", good_row(pi=sparse_pi, theta=sparse_theta,
                                                                   sigma=dense(np.ones((2, 3)))), "gaussian"))
    np.testing.assert_array_equal(gaussian.theta_, means)
    np.testing.assert_array_equal(gaussian.predict([[0.1, 0.0, 1.4], [2.1, 0.0, 0.0]]), [0, 1])  # the nearest
    # a transposed sparse matrix is CSR
    sparse_csr = {"type": 0, "numRows": 2, "numCols": 3, "colPtrs": [0, 1, 2], "rowIndices": [2, 0],
                  "values": [1.5, 2.0], "isTransposed": True}
    csr = from_spark_ml(write_model(tmp_path / "c", good_row(pi=sparse_pi, theta=sparse_csr,
                                                              sigma=dense(np.ones((2, 3)))), "gaussian"))
    np.testing.assert_array_equal(csr.theta_, means)


HOSTILE = {
    "values of another shape": (good_row(theta={**dense(THETA), "numCols": 4}), "multinomial", "holds 6 values"),
    "NaN": (good_row(theta=dense(np.where(THETA < -2, np.nan, THETA))), "multinomial", "not log-probabilities"),
    "positive log-probability": (good_row(theta=dense(-THETA)), "multinomial", "not log-probabilities"),
    "pi of another length": (good_row(pi={"type": 1, "values": [0.0]}), "multinomial", "pi has 1 classes"),
    "infinite complement weights": (good_row(theta=dense(np.where(THETA < -2, np.inf, -THETA))), "complement",
                                    "not finite"),
    "huge sparse matrix": (good_row(theta={"type": 0, "numRows": 2, "numCols": 2**30, "colPtrs": [0, 0],
                                           "rowIndices": [], "values": [], "isTransposed": True}),
                           "multinomial", "more entries than the file stores"),
    "pointers out of order": (good_row(theta={"type": 0, "numRows": 2, "numCols": 3, "colPtrs": [0, 2, 1, 2],
                                              "rowIndices": [0, 1], "values": [-1.0, -1.0], "isTransposed": False}),
                              "multinomial", "pointers"),
    "index out of bounds": (good_row(theta={"type": 0, "numRows": 2, "numCols": 3, "colPtrs": [0, 1, 1, 2],
                                            "rowIndices": [0, 7], "values": [-1.0, -1.0], "isTransposed": False}),
                            "multinomial", "out of its bounds"),
    "unknown matrix type": (good_row(theta={**dense(THETA), "type": 5}), "multinomial", "type 5"),
    "zero variance": (good_row(pi={"type": 1, "values": LOG_PI.tolist()}, theta=dense(THETA),
                               sigma=dense(np.zeros((2, 3)))), "gaussian", "variances"),
    "priors not summing to 1": (good_row(pi={"type": 1, "values": [-0.1, -0.1]}, theta=dense(THETA),
                                         sigma=dense(np.ones((2, 3)))), "gaussian", "sum to 1"),
    "unknown model type": (good_row(), "poisson", "modelType 'poisson'"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_refuses_hostile_folders(tmp_path, case):
    row, model_type, message = HOSTILE[case]
    with pytest.raises(ModelFormatError, match=message):
        from_spark_ml(write_model(tmp_path / "m", row, model_type))


def test_refuses_foreign_metadata_and_data(tmp_path):
    with pytest.raises(ModelFormatError, match="no metadata"):
        from_spark_ml(tmp_path)
    with pytest.raises(ModelFormatError, match="LogisticRegressionModel"):
        from_spark_ml(write_model(tmp_path / "a", good_row(),
                                  metadata={"class": "org.apache.spark.ml.classification.LogisticRegressionModel"}))
    with pytest.raises(ModelFormatError, match="2 rows"):
        from_spark_ml(write_model(tmp_path / "b", good_row(), rows=2))
    with pytest.raises(ModelFormatError, match="smoothing"):
        from_spark_ml(write_model(tmp_path / "c", good_row(), metadata={"paramMap": {"smoothing": -1}}))
    big = write_model(tmp_path / "d", good_row())
    (big / "metadata" / "part-00000").write_text(" " * (2 << 20))
    with pytest.raises(ModelFormatError, match="larger than"):
        from_spark_ml(big)
    # the defaults apply where paramMap is silent: multinomial
    assert type(from_spark_ml(write_model(tmp_path / "e", good_row(), metadata={"paramMap": {}}))).__name__ == \
        "MultinomialNB"


def test_to_spark_ml_refuses_what_spark_cannot_score(tmp_path, data):
    X, y = data
    with pytest.raises(TypeError, match="Spark ML has no equivalent of PoissonNB"):
        to_spark_ml(nbfast.PoissonNB().fit(X, y), tmp_path / "a")
    with pytest.raises(TypeError, match="DiscriminativeNB"):
        to_spark_ml(nbfast.DiscriminativeNB().fit(X, y), tmp_path / "a")
    with pytest.raises(nbfast._compat.NotFittedError):
        to_spark_ml(nbfast.MultinomialNB(), tmp_path / "a")
    with pytest.raises(ValueError, match="not finite"):
        to_spark_ml(nbfast.MultinomialNB(alpha=0.0).fit(X, y), tmp_path / "a")
    with pytest.raises(ValueError, match="one number"):
        to_spark_ml(nbfast.MultinomialNB(alpha=np.ones(X.shape[1])).fit(X, y), tmp_path / "a")
    assert not (tmp_path / "a").exists()
    model = nbfast.MultinomialNB().fit(X, y)
    to_spark_ml(model, tmp_path / "a")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        to_spark_ml(model, tmp_path / "a")
    to_spark_ml(nbfast.ComplementNB().fit(X, y), tmp_path / "a", overwrite=True)
    assert type(from_spark_ml(tmp_path / "a")).__name__ == "ComplementNB"
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not a saved Spark ML model"):
        to_spark_ml(model, tmp_path / "b", overwrite=True)
    assert (tmp_path / "b" / "notes.txt").read_text() == "mine"


def test_arrow_table_is_one_dense_row():
    table = _arrow_table(LOG_PI, THETA, None)
    row = table.to_pylist()[0]
    assert row["theta"]["isTransposed"] and row["theta"]["values"] == THETA.ravel().tolist()
    assert (row["sigma"]["numRows"], row["sigma"]["numCols"]) == (0, 0)
