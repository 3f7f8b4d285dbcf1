"""nbfast without scikit-learn, and the thread count seen through OMP_NUM_THREADS."""

import os
import subprocess
import sys
import textwrap

import pytest

NO_SKLEARN = textwrap.dedent(
    """
    import sys

    class BlockSklearn:
        def find_spec(self, name, path=None, target=None):
            if name == "sklearn" or name.startswith("sklearn."):
                raise ImportError("scikit-learn is blocked for this test")

    sys.meta_path.insert(0, BlockSklearn())

    import pickle

    import numpy as np
    import nbfast
    from nbfast._compat import SKLEARN_INSTALLED
    from nbfast.datasets import make_documents

    assert not SKLEARN_INSTALLED
    X, y = make_documents(300, 50, 3, random_state=0)
    for cls in (nbfast.MultinomialNB, nbfast.BernoulliNB):
        model = cls(alpha=0.5).fit(X, y)
        proba = model.predict_proba(X)
        assert np.allclose(proba.sum(axis=1), 1.0)
        assert (model.predict(X) == model.classes_[proba.argmax(axis=1)]).all()
        assert 0.0 <= model.score(X, y) <= 1.0
        assert model.get_params()["alpha"] == 0.5
        assert "alpha=0.5" in repr(model)
        model.partial_fit(X[:10], y[:10])
    try:
        nbfast.MultinomialNB().predict(X)
    except nbfast._compat.NotFittedError:
        pass
    else:
        raise AssertionError("predict before fit must raise NotFittedError")
    model = nbfast.MultinomialNB(alpha=0.5).fit(X, y)
    copy = pickle.loads(pickle.dumps(model))
    assert "_sklearn_version" not in vars(copy) and (copy.predict(X) == model.predict(X)).all()
    try:
        nbfast.MultinomialNB(alpha=-1.0).fit(X, y)
    except ValueError as exc:
        assert isinstance(exc, TypeError) and "'alpha' parameter of MultinomialNB" in str(exc)
    else:
        raise AssertionError("fit must refuse alpha=-1")
    try:
        nbfast.MultinomialNB().fit(X, np.linspace(0, 1, X.shape[0]))
    except ValueError as exc:
        assert "continuous" in str(exc)
    else:
        raise AssertionError("fit must refuse continuous y")
    print("ok")
    """
)


def test_fit_and_predict_without_sklearn():
    result = subprocess.run([sys.executable, "-c", NO_SKLEARN], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_omp_num_threads_limits_the_kernels():
    code = "from nbfast._kernels.threads import effective_n_threads; print(effective_n_threads())"
    env = dict(os.environ, OMP_NUM_THREADS="1")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "1"


def _run(code):
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_import_and_version_leave_scikit_learn_unimported():
    output = _run(
        """
        import sys
        import nbfast
        from nbfast.cli import main
        try:
            main(["--version"])
        except SystemExit:
            pass
        import nbfast.persist, nbfast.text, nbfast.naive_bayes  # the estimators themselves too
        print(sorted(m for m in sys.modules if m == "sklearn" or m.startswith("sklearn.")))
        """
    )
    assert output.splitlines()[-1] == "[]"


def test_version_leaves_the_costly_standard_modules_unimported():
    """`nbfast --version` pays for numpy, not for package metadata or the import system's ABCs (tens of
    milliseconds): nbfast imports them only where they are used."""
    output = _run(
        """
        import sys
        from nbfast.cli import main
        main(["--version"])
        print(sorted(m for m in ("importlib.metadata", "importlib.abc") if m in sys.modules))
        """
    )
    assert output.splitlines()[-1] == "[]"


def test_predicting_from_a_model_file_leaves_scikit_learn_unimported(tmp_path):
    pytest.importorskip("sklearn")
    path = tmp_path / "model.nbf"
    _run(
        f"""
        import nbfast
        from nbfast.datasets import make_documents
        X, y = make_documents(200, 30, 3, random_state=0)
        nbfast.save(nbfast.MultinomialNB().fit(X, y), {str(path)!r})  # fit checks y with scikit-learn
        """
    )
    output = _run(
        f"""
        import sys
        import nbfast
        from nbfast.datasets import make_documents
        X, y = make_documents(200, 30, 3, random_state=0)
        model = nbfast.load({str(path)!r})
        model.predict(X), model.predict_proba(X)
        print(sorted(m for m in sys.modules if m == "sklearn" or m.startswith("sklearn.")))
        """
    )
    assert output == "[]"


def test_estimators_made_before_scikit_learn_is_imported_are_scikit_learn_estimators():
    pytest.importorskip("sklearn")
    output = _run(
        """
        import sys
        import nbfast
        from nbfast.datasets import make_documents
        from nbfast.text import CountVectorizer
        model, vectorizer = nbfast.MultinomialNB(alpha=0.5), CountVectorizer()
        mixed = nbfast.MixedNB([("counts", nbfast.MultinomialNB(), [0, 1])])
        assert "sklearn" not in sys.modules
        import importlib.util
        assert importlib.util.find_spec("sklearn") is not None  # another library looks for it first (pyspark)
        assert "sklearn" not in sys.modules

        import sklearn
        from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier
        from sklearn.exceptions import NotFittedError
        from sklearn.pipeline import make_pipeline
        from sklearn.utils import get_tags

        assert isinstance(model, BaseEstimator) and isinstance(model, ClassifierMixin) and is_classifier(model)
        assert isinstance(vectorizer, BaseEstimator) and isinstance(mixed, BaseEstimator)
        assert clone(model).alpha == 0.5 and get_tags(model).estimator_type == "classifier"
        assert mixed.get_params()["counts__alpha"] == 1.0
        assert callable(model.set_fit_request)  # scikit-learn's metadata routing, replayed on the class
        import abc
        assert type(type(model)) is abc.ABCMeta and type(type(mixed)) is abc.ABCMeta  # the contract's metaclass
        assert "MultinomialNB" in model._repr_html_()
        try:
            model.predict([[1.0]])
        except NotFittedError:
            pass
        X, y = make_documents(200, 30, 3, random_state=0)
        assert make_pipeline(nbfast.MultinomialNB()).fit(X, y).score(X, y) > 0.5
        print("ok")
        """
    )
    assert output == "ok"


def test_public_names_imported_on_first_use_are_the_functions_not_their_modules():
    output = _run(
        """
        import nbfast.merge, nbfast.persist  # submodules first: the package's attributes stay the public names
        import nbfast
        assert callable(nbfast.merge) and callable(nbfast.load) and "merge" in dir(nbfast)
        assert nbfast.MultinomialNB.__name__ == "MultinomialNB" and nbfast.text.CountVectorizer
        print("ok")
        """
    )
    assert output == "ok"


def test_openmp_threads_wait_asleep_unless_the_environment_says_otherwise():
    code = "import os, nbfast; print(os.environ['OMP_WAIT_POLICY'])"
    for given, expected in ((None, "passive"), ("active", "active")):
        env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
        if given is not None:
            env["OMP_WAIT_POLICY"] = given
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == expected


def test_nested_parameters_without_scikit_learn_match_scikit_learn():
    # get_params(deep=True) and set_params("estimator__alpha") of estimators holding estimators, before and after
    # scikit-learn is imported (the stand-in bases, then scikit-learn's): the same names, order and objects.
    pytest.importorskip("sklearn")
    output = _run(
        """
        import sys
        import nbfast

        def models():
            mixed = nbfast.MixedNB([("counts", nbfast.MultinomialNB(alpha=0.2), [0, 1])])
            return [
                nbfast.SemiSupervisedNB(nbfast.MultinomialNB(alpha=0.3)),
                nbfast.CalibratedNB(nbfast.BernoulliNB(), cv=3),
                nbfast.CalibratedNB(nbfast.SemiSupervisedNB(mixed)),
            ]

        def params(model):
            return [(key, id(value)) for key, value in model.get_params(deep=True).items()]

        def after_set(model):
            model.set_params(estimator__alpha=0.7, max_iter=3) if hasattr(model, "max_iter") else None
            model.set_params(estimator=nbfast.ComplementNB(), estimator__alpha=0.4)
            try:
                model.set_params(estimator__no_such_parameter=1)
            except ValueError:
                refused = True
            else:
                refused = False
            estimator = model.get_params()["estimator"]
            return type(estimator).__name__, estimator.alpha, getattr(model, "max_iter", None), refused

        def nested(model):
            model.set_params(estimator__estimator__counts__alpha=0.9)
            return model.estimator.estimator.get_params()["counts__alpha"]

        def results():
            built = models()
            deep = [params(model) for model in built]
            shallow = [sorted(model.get_params(deep=False)) for model in built]
            return deep, shallow, nested(models()[2]), [after_set(model) for model in models()]

        assert "sklearn" not in sys.modules
        built = models()
        assert repr(built[0]) == ("SemiSupervisedNB(estimator=MultinomialNB(alpha=0.3, class_prior=None, "
                                  "fit_prior=True, force_alpha=True, n_jobs=None), max_iter=10, n_jobs=None, "
                                  "tol=0.0001, unlabeled=-1, unlabeled_weight=1.0)"), repr(built[0])
        assert "__" not in repr(built[2]), repr(built[2])  # nested parameters show inside their estimator
        standalone = results()
        assert "sklearn" not in sys.modules
        assert "estimator__alpha" in dict(params(built[0]))

        import sklearn.base
        assert isinstance(built[0], sklearn.base.BaseEstimator)
        with_sklearn = results()
        assert standalone[1:] == with_sklearn[1:], (standalone[1:], with_sklearn[1:])
        names = lambda deep: [[key for key, _ in model] for model in deep]
        assert names(standalone[0]) == names(with_sklearn[0]), (names(standalone[0]), names(with_sklearn[0]))
        print("ok")
        """
    )
    assert output == "ok"
