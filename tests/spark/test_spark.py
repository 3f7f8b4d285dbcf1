"""nbfast.spark on a local Spark (local[2]): Spark ML interop both ways, scoring and fitting DataFrames.

One SparkSession for the module, few rows: each Spark job costs about a second.
Skipped without pyspark or a Java runtime.
"""

import importlib.util
import io
import os
import shutil
import sys

import numpy as np
import pytest

import nbfast
from nbfast.datasets import make_documents, make_text_documents
from nbfast.text import CountVectorizer, HashingVectorizer, TfidfVectorizer


def _spark_missing():
    """Why Spark cannot run here, or None."""
    for module in ("pyarrow", "pyspark"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install 'nbfast[spark]')"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "Spark needs a Java runtime (java on PATH or JAVA_HOME)"
    return None


if _spark_missing():
    if os.environ.get("NBFAST_EXPECT_SPARK"):  # CI installs both: a skip there would hide the tests
        pytest.fail(f"NBFAST_EXPECT_SPARK is set but {_spark_missing()}", pytrace=False)
    pytest.skip(_spark_missing(), allow_module_level=True)

pyspark_sql = pytest.importorskip("pyspark.sql")

import nbfast.spark as nbspark  # noqa: E402
from nbfast.spark import _common  # noqa: E402

MODEL_TYPES = {"multinomial": "MultinomialNB", "bernoulli": "BernoulliNB", "complement": "ComplementNB",
               "gaussian": "GaussianNB"}


@pytest.fixture(scope="module")
def spark():
    # the Python workers run this interpreter, which has nbfast (the driver reads PYSPARK_PYTHON once)
    saved = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (pyspark_sql.SparkSession.builder.master("local[2]").appName("nbfast-tests")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.execution.arrow.maxRecordsPerBatch", "50")  # several batches per partition
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
    if saved is None:
        del os.environ["PYSPARK_PYTHON"]
    else:
        os.environ["PYSPARK_PYTHON"] = saved


@pytest.fixture(scope="module")
def features():
    X, y = make_documents(60, 12, 3, mean_length=10, class_separation=0.4, random_state=3)
    return X.toarray(), y.astype(np.float64)


def vectors_frame(spark, X, y):
    from pyspark.ml.linalg import Vectors

    return spark.createDataFrame([(float(label), Vectors.dense(row)) for row, label in zip(X, y)],
                                 ["label", "features"])


@pytest.mark.parametrize("model_type", sorted(MODEL_TYPES))
def test_spark_ml_models_round_trip_both_ways(spark, features, tmp_path, model_type):
    from pyspark.ml.classification import NaiveBayes, NaiveBayesModel

    X, y = features
    X = (X > 0).astype(np.float64) if model_type == "bernoulli" else X
    df = vectors_frame(spark, X, y)
    # Spark -> nbfast: the same labels, the same probabilities
    spark_model = NaiveBayes(modelType=model_type, smoothing=0.5).fit(df)
    spark_model.save(str(tmp_path / "spark"))
    rows = spark_model.transform(df).select("prediction", "probability").collect()
    read = nbspark.from_spark_ml(tmp_path / "spark")
    assert type(read).__name__ == MODEL_TYPES[model_type]
    np.testing.assert_array_equal(read.predict(X), [row.prediction for row in rows])
    np.testing.assert_allclose(read.predict_proba(X), [row.probability.toArray() for row in rows],
                               rtol=1e-9, atol=1e-12)
    # nbfast -> Spark: a model fitted by nbfast, scored by Spark ML
    model = getattr(nbfast, MODEL_TYPES[model_type])().fit(X, y)
    nbspark.to_spark_ml(model, tmp_path / "nbfast")
    rows = NaiveBayesModel.load(str(tmp_path / "nbfast")).transform(df).select("prediction", "probability").collect()
    np.testing.assert_array_equal(model.predict(X), [row.prediction for row in rows])
    np.testing.assert_allclose(model.predict_proba(X), [row.probability.toArray() for row in rows],
                               rtol=1e-9, atol=1e-12)


@pytest.fixture(scope="module")
def documents(spark):
    docs, y = make_text_documents(240, 3, mean_length=12, n_words=400, class_separation=0.3, random_state=4)
    labels = np.array(["ham", "eggs", "spam"])[np.asarray(y)]
    weight = np.random.default_rng(0).integers(1, 4, size=len(docs)).astype(np.float64)
    rows = [(str(d), str(label), float(w)) for d, label, w in zip(docs, labels, weight)]
    df = spark.createDataFrame(rows, ["text", "label", "weight"]).repartition(3)
    return df.cache(), list(map(str, docs)), labels, weight


def test_fit_equals_a_local_fit_and_predictions_equal_local_ones(spark, documents, tmp_path):
    df, docs, labels, weight = documents
    vectorizer = HashingVectorizer(n_features=2**9, alternate_sign=False, norm=None)
    model = nbspark.fit(nbfast.MultinomialNB(alpha=0.3), df, vectorizer=vectorizer, weight_col="weight")
    local = nbfast.MultinomialNB(alpha=0.3).fit(vectorizer.transform(docs), labels, sample_weight=weight)
    np.testing.assert_array_equal(model.classes_, ["eggs", "ham", "spam"])
    np.testing.assert_array_equal(model.class_count_, local.class_count_)
    np.testing.assert_array_equal(model.feature_count_, local.feature_count_)
    np.testing.assert_array_equal(model.feature_log_prob_, local.feature_log_prob_)
    # the model as an estimator with its vectorizer: labels (and the kept columns) as local nbfast predicts them
    rows = nbspark.predict(model, df, vectorizer=vectorizer, keep_cols=["text"]).collect()
    assert list(rows[0].asDict()) == ["text", "prediction"]
    texts = [row.text for row in rows]
    np.testing.assert_array_equal([row.prediction for row in rows], local.predict(vectorizer.transform(texts)))
    # as a model file (with its vectorizer): probabilities and labels
    nbfast.save(model, tmp_path / "m.nbf", vectorizer=vectorizer)
    rows = nbspark.predict_proba(str(tmp_path / "m.nbf"), df, keep_cols=["text"]).collect()
    X = vectorizer.transform([row.text for row in rows])
    np.testing.assert_allclose([row.probability for row in rows], local.predict_proba(X), rtol=1e-12)
    np.testing.assert_array_equal([row.prediction for row in rows], local.predict(X))
    # the two most probable classes, best first, as nbfast predict --top-k 2 gives them
    rows = nbspark.predict_proba(str(tmp_path / "m.nbf"), df, keep_cols=["text"], top_k=2).collect()
    proba = local.predict_proba(vectorizer.transform([row.text for row in rows]))
    best = np.argsort(-proba, axis=1, kind="stable")[:, :2]
    np.testing.assert_array_equal([row.prediction for row in rows], local.classes_[best])
    np.testing.assert_allclose([row.probability for row in rows], np.take_along_axis(proba, best, 1), rtol=1e-12)
    # as a column function
    scored = df.select("text", nbspark.predict_udf(tmp_path / "m.nbf")("text").alias("label")).collect()
    np.testing.assert_array_equal([row.label for row in scored],
                                  local.predict(vectorizer.transform([row.text for row in scored])))


def test_fit_merges_many_partitions_as_a_tree_and_takes_pipelines(spark, documents, monkeypatch):
    sklearn_pipeline = pytest.importorskip("sklearn.pipeline")
    df, docs, labels, weight = documents
    vectorizer = CountVectorizer().fit(docs[:100])  # a vocabulary every partition shares
    monkeypatch.setattr(_common, "COLLECT_AT_MOST", 1)  # 3 partitions: merged on the executors
    model = nbspark.fit(nbfast.ComplementNB(), df, vectorizer=vectorizer, classes=["eggs", "ham", "spam"])
    local = nbfast.ComplementNB().fit(vectorizer.transform(docs), labels)
    np.testing.assert_array_equal(model.feature_count_, local.feature_count_)
    np.testing.assert_array_equal(model.feature_log_prob_, local.feature_log_prob_)
    pipeline = sklearn_pipeline.make_pipeline(vectorizer, model)
    rows = nbspark.predict_proba(pipeline, df, prediction_col=None, keep_cols=["text"], as_vector=True).collect()
    np.testing.assert_allclose([row.probability.toArray() for row in rows],
                               local.predict_proba(vectorizer.transform([row.text for row in rows])), rtol=1e-12)


@pytest.mark.parametrize("cls, params, merged_on", [
    (CountVectorizer, {"min_df": 2, "max_df": 0.6, "max_features": 150}, "the driver"),
    (TfidfVectorizer, {"min_df": 0.01, "max_df": 50, "max_features": 120, "sublinear_tf": True}, "a tree"),
])
def test_an_unfitted_vectorizer_learns_the_vocabulary_of_one_fit(spark, documents, monkeypatch, cls, params,
                                                                 merged_on):
    df = documents[0]
    if merged_on == "a tree":
        monkeypatch.setattr(_common, "COLLECT_AT_MOST", 1)
    vectorizer = cls(**params)
    model = nbspark.fit(nbfast.MultinomialNB(), df, vectorizer=vectorizer, classes=["eggs", "ham", "spam"])
    # the rows in the order the partitions hold them: vocabulary_ keeps the order of first occurrence
    rows = df.select("text", "label").collect()
    docs, labels = [row.text for row in rows], np.asarray([row.label for row in rows])
    local_vectorizer = cls(**params)
    X = local_vectorizer.fit_transform(docs)
    local = nbfast.MultinomialNB().fit(X, labels)
    assert list(vectorizer.vocabulary_.items()) == list(local_vectorizer.vocabulary_.items())
    np.testing.assert_array_equal(model.class_count_, local.class_count_)
    if cls is CountVectorizer:  # integer counts: sums in any order are exact
        np.testing.assert_array_equal(model.feature_count_, local.feature_count_)
        np.testing.assert_array_equal(model.predict_proba(X), local.predict_proba(X))
    else:
        np.testing.assert_array_equal(vectorizer.idf_, local_vectorizer.idf_)
        np.testing.assert_allclose(model.feature_count_, local.feature_count_, rtol=1e-13)
        np.testing.assert_allclose(model.predict_proba(X), local.predict_proba(X), rtol=1e-12)
        np.testing.assert_array_equal(model.predict(X), local.predict(X))


def test_feature_arrays_are_scored_and_fitted_without_a_vectorizer(spark, features):
    X, y = features
    df = spark.createDataFrame([(row.tolist(), int(label)) for row, label in zip(X, y)], ["x", "label"])
    model = nbspark.fit(nbfast.GaussianNB(), df, vectorizer=None, input_col="x")
    local = nbfast.GaussianNB().fit(X, y.astype(int))
    np.testing.assert_allclose(model.theta_, local.theta_, rtol=1e-12)
    np.testing.assert_allclose(model.var_, local.var_, rtol=1e-9)
    rows = nbspark.predict(local, df, input_col="x").collect()
    np.testing.assert_array_equal([row.prediction for row in rows], local.predict(np.array([r.x for r in rows])))
    assert isinstance(rows[0].prediction, int)


def test_refusals_before_any_job(spark, documents, tmp_path):
    df, docs, labels, weight = documents
    vectorizer = HashingVectorizer(n_features=64, alternate_sign=False, norm=None)
    for estimator, reason in ((nbfast.DiscriminativeNB(), "MultinomialNB or ComplementNB"),
                              (nbfast.MultinomialNBCV(), "estimator_"),
                              (nbfast.CalibratedNB(nbfast.MultinomialNB()), "calibrate"),
                              (nbfast.SemiSupervisedNB(), "EM")):
        with pytest.raises(TypeError, match=rf"nbfast\.spark\.fit needs a model that learns batch by batch.* "
                                            rf"{type(estimator).__name__} does not\..*{reason}"):
            nbspark.fit(estimator, df, vectorizer=vectorizer)
    with pytest.raises(TypeError, match="MixedNB's parts read the columns of a table"):
        nbspark.fit(nbfast.MixedNB([("counts", nbfast.MultinomialNB(), [0])]), df, vectorizer=vectorizer)
    with pytest.raises(ValueError, match="cannot learn its vocabulary from counted partitions"):
        nbspark.fit(nbfast.MultinomialNB(), df, vectorizer=TfidfVectorizer(vocabulary=["spam"]))
    with pytest.raises(ValueError, match="'max_features' parameter of CountVectorizer must be"):
        nbspark.fit(nbfast.MultinomialNB(), df, vectorizer=CountVectorizer(max_features=0))
    with pytest.raises(ValueError, match="no column 'body'"):
        nbspark.fit(nbfast.MultinomialNB(), df, vectorizer=vectorizer, input_col="body")
    with pytest.raises(TypeError, match="must hold numbers"):
        nbspark.fit(nbfast.MultinomialNB(), df, vectorizer=vectorizer, weight_col="label")
    model = nbfast.MultinomialNB().fit(vectorizer.transform(docs), labels)
    with pytest.raises(ValueError, match="no vectorizer"):
        nbspark.predict(model, df)
    with pytest.raises(ValueError, match="also an input column"):
        nbspark.predict(model, df, vectorizer=vectorizer, prediction_col="label")
    with pytest.raises(nbfast._compat.NotFittedError):
        nbspark.predict(nbfast.MultinomialNB(), df, vectorizer=vectorizer)
    for top_k, error in ((0, ValueError), (4, ValueError), ("2", TypeError)):
        with pytest.raises(error, match="top_k"):
            nbspark.predict(model, df, vectorizer=vectorizer, top_k=top_k)
    with pytest.raises(TypeError, match="pyspark.sql.DataFrame"):
        nbspark.predict(model, docs, vectorizer=vectorizer)
    broken = io.BytesIO()
    nbfast.save(model, broken, vectorizer=vectorizer)
    (tmp_path / "broken.nbf").write_bytes(broken.getvalue()[:-8])
    with pytest.raises(nbfast.ModelFormatError):
        nbspark.predict(tmp_path / "broken.nbf", df)
