"""nbfast without scikit-learn, and the thread count seen through OMP_NUM_THREADS."""

import os
import subprocess
import sys
import textwrap

NO_SKLEARN = textwrap.dedent(
    """
    import sys

    class BlockSklearn:
        def find_spec(self, name, path=None, target=None):
            if name == "sklearn" or name.startswith("sklearn."):
                raise ImportError("scikit-learn is blocked for this test")

    sys.meta_path.insert(0, BlockSklearn())

    import numpy as np
    import nbfast
    from nbfast._compat import HAVE_SKLEARN
    from nbfast.datasets import make_documents

    assert not HAVE_SKLEARN
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
