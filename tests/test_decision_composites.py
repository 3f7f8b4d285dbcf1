"""nbfast.with_prior on the composites that wrap one fitted estimator, with and without scikit-learn loaded."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import nbfast
from nbfast.datasets import make_documents

PRIOR = [0.2, 0.3, 0.5]


def wrappers():
    return [nbfast.SemiSupervisedNB(), nbfast.SemiSupervisedNB(nbfast.BernoulliNB()), nbfast.CalibratedNB(),
            nbfast.CalibratedNB(nbfast.BernoulliNB(), cv=3), nbfast.MultinomialNBCV(cv=3)]


@pytest.mark.parametrize("model", wrappers(), ids=["semi", "semi-bernoulli", "calibrated", "calibrated-bernoulli",
                                                     "multinomial-cv"])
def test_with_prior_equals_the_wrapped_model_shifted(model):
    X, y = make_documents(300, 40, 3, mean_length=20, random_state=0)
    model.fit(X, y)
    original = model.predict_joint_log_proba(X)
    shifted = nbfast.with_prior(model, PRIOR)
    expected = nbfast.with_prior(model.estimator_, PRIOR)
    np.testing.assert_allclose(shifted.predict_joint_log_proba(X), expected.predict_joint_log_proba(X))
    np.testing.assert_array_equal(shifted.estimator_.get_params()["class_prior"], PRIOR)
    if getattr(model, "estimator", None) is not None:  # the parameter too: a refit keeps the prior
        np.testing.assert_array_equal(shifted.estimator.get_params()["class_prior"], PRIOR)
        assert model.estimator.get_params()["class_prior"] is None  # the original is not modified
    np.testing.assert_array_equal(model.predict_joint_log_proba(X), original)


def test_with_prior_on_composites_before_scikit_learn_is_imported():
    code = """
        import sys
        import numpy as np
        import nbfast
        from nbfast.datasets import make_documents
        X, y = make_documents(300, 40, 3, mean_length=20, random_state=0)
        for model in (nbfast.SemiSupervisedNB(), nbfast.CalibratedNB(nbfast.BernoulliNB(), cv=3)):
            shifted = nbfast.with_prior(model.fit(X, y), [0.2, 0.3, 0.5])
            assert np.all(np.isfinite(shifted.predict_proba(X)))
        assert "sklearn" not in sys.modules
        """
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
