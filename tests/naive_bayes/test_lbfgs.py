"""The L-BFGS solver of the refined models, against closed forms and scipy's L-BFGS-B."""

import numpy as np
import pytest
from scipy.optimize import minimize as scipy_minimize
from scipy.special import logsumexp

from nbfast.naive_bayes import _lbfgs as lbfgs


def quadratic(seed=0, n=40, condition=1e3):
    """f(x) = (x - c)^T A (x - c) / 2 with A's eigenvalues from 1 to ``condition``: (fun, minimizer)."""
    rng = np.random.default_rng(seed)
    basis, _ = np.linalg.qr(rng.normal(size=(n, n)))
    A = basis @ np.diag(np.geomspace(1.0, condition, n)) @ basis.T
    centre = rng.normal(size=n)

    def fun(x):
        shift = x - centre
        gradient = A @ shift
        return 0.5 * float(shift @ gradient), gradient

    return fun, centre


def softmax_regression(seed=0, n_samples=300, n_features=12, n_classes=4, C=0.5):
    """The L2-penalized multinomial log-loss, flat parameters [W (n_features x n_classes), b]: fun."""
    rng = np.random.default_rng(seed)
    X = rng.poisson(1.0, size=(n_samples, n_features)).astype(np.float64)
    y = rng.integers(n_classes, size=n_samples)
    onehot = np.eye(n_classes)[y]

    def fun(x):
        W, b = x[:-n_classes].reshape(n_features, n_classes), x[-n_classes:]
        scores = X @ W + b
        log_norm = logsumexp(scores, axis=1)
        residual = np.exp(scores - log_norm[:, None]) - onehot
        loss = np.sum(log_norm - scores[np.arange(n_samples), y]) / n_samples + 0.5 / C * np.sum(W * W)
        gradient = np.concatenate([(X.T @ residual / n_samples + W / C).ravel(), residual.mean(axis=0)])
        return loss, gradient

    return fun, n_features * n_classes + n_classes


@pytest.mark.parametrize("seed", range(3))
def test_reaches_the_minimum_of_an_ill_conditioned_quadratic_as_fast_as_scipy(seed):
    fun, centre = quadratic(seed)
    result = lbfgs.minimize(fun, np.zeros_like(centre), max_iter=1000, ftol=0.0, gtol=1e-10)
    assert result.converged, result.message
    np.testing.assert_allclose(result.x, centre, atol=1e-8)
    assert result.fun == fun(result.x)[0]
    theirs = scipy_minimize(fun, np.zeros_like(centre), jac=True, method="L-BFGS-B",
                            options={"maxiter": 1000, "ftol": 0.0, "gtol": 1e-10})
    assert result.n_iter <= 1.05 * theirs.nit


@pytest.mark.parametrize("seed", range(3))
def test_agrees_with_scipy_on_softmax_regression(seed):
    fun, n = softmax_regression(seed)
    ours = lbfgs.minimize(fun, np.zeros(n), max_iter=1000, ftol=0.0, gtol=1e-10)
    theirs = scipy_minimize(fun, np.zeros(n), jac=True, method="L-BFGS-B",
                            options={"maxiter": 1000, "ftol": 0.0, "gtol": 1e-10})
    assert ours.converged, ours.message
    assert ours.fun <= theirs.fun + 1e-13  # both stop where rounding hides any further decrease of f
    np.testing.assert_allclose(ours.x, theirs.x, atol=1e-6)


def test_stops_on_the_relative_decrease_of_f_before_the_gradient_bound():
    fun, n = softmax_regression(1)
    result = lbfgs.minimize(fun, np.zeros(n), max_iter=1000, ftol=1e-3, gtol=1e-12)
    assert result.converged and "ftol" in result.message
    assert np.max(np.abs(fun(result.x)[1])) > 1e-12
    tight = lbfgs.minimize(fun, np.zeros(n), max_iter=1000, ftol=0.0, gtol=1e-12)
    assert result.n_iter < tight.n_iter


def test_a_start_at_the_minimum_makes_no_iteration():
    fun, centre = quadratic()
    result = lbfgs.minimize(fun, centre, max_iter=10, ftol=0.0, gtol=1e-12)
    assert result.converged and result.n_iter == 0
    np.testing.assert_array_equal(result.x, centre)


def test_max_iter_is_reported_not_converged():
    fun, centre = quadratic()
    result = lbfgs.minimize(fun, np.zeros_like(centre), max_iter=3, ftol=0.0, gtol=1e-12)
    assert not result.converged and result.n_iter == 3 and "max_iter" in result.message


def test_each_iteration_lowers_f_and_leaves_the_start_alone():
    fun, n = softmax_regression(2)
    x0 = np.zeros(n)
    values = [lbfgs.minimize(fun, x0, max_iter=k, ftol=0.0, gtol=0.0).fun for k in range(8)]
    assert all(later < earlier for earlier, later in zip(values, values[1:]))
    np.testing.assert_array_equal(x0, 0.0)


def test_a_step_into_overflow_is_shortened():
    # f is +inf beyond x = 1: the line search must come back inside rather than stop
    def fun(x):
        if x[0] >= 1.0:
            return np.inf, np.array([np.inf])
        return float(-np.log1p(-x[0]) + 0.5 * x[0] ** 2 * 0 - 3 * x[0]), np.array([1 / (1 - x[0]) - 3])

    result = lbfgs.minimize(fun, np.array([0.0]), max_iter=100, ftol=0.0, gtol=1e-10)
    assert result.converged, result.message
    np.testing.assert_allclose(result.x, [2 / 3], atol=1e-9)


@pytest.mark.parametrize("minimum", [1e-3, 0.3, 1.0, 7.0, 300.0])
def test_the_line_search_step_meets_the_strong_wolfe_conditions(minimum):
    # f(t) = (t - minimum)^2 along the direction 1 from x = 0: t = 1 overshoots or falls short of the minimum
    def fun(x):
        return float((x[0] - minimum) ** 2), 2.0 * (x - minimum)

    f0, gradient0 = fun(np.zeros(1))
    slope = float(gradient0[0])
    trial = np.empty(1)
    f_t, gradient_t = lbfgs._line_search(fun, np.zeros(1), f0, slope, np.ones(1), trial, 20)
    assert f_t == fun(trial)[0]
    assert f_t <= f0 + lbfgs.SUFFICIENT_DECREASE * trial[0] * slope
    assert abs(gradient_t[0]) <= lbfgs.CURVATURE * abs(slope)


def test_the_line_search_gives_up_where_f_cannot_decrease():
    def fun(x):  # the direction goes uphill
        return float(x[0]), np.ones(1)

    assert lbfgs._line_search(fun, np.zeros(1), 0.0, -1.0, np.ones(1), np.empty(1), 5) is None
