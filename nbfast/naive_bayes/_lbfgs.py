"""L-BFGS for the smooth convex objectives of the refined models, its vector work on preallocated buffers.

Limited-memory BFGS (Nocedal & Wright, *Numerical Optimization*, 2nd ed.,
algorithm 7.4 for the direction, 7.5 for the iteration) with a line search
for the strong Wolfe conditions (algorithms 3.5 and 3.6, the trial steps by
cubic interpolation, equation 3.59).  Each evaluation of the objective gives
f and its gradient together, as the kernels compute them in one pass.

scipy's L-BFGS-B solves the same problems; for an objective with millions of
parameters and a cheap gradient, its bound handling and bookkeeping cost as
much as the gradient itself (performance.md, "Discriminative refinement").  Here an
iteration costs its evaluations plus about 4 m + 6 passes over a vector (m the
curvature pairs kept).  The stopping rules are L-BFGS-B's: an iteration lowers f
by at most ``ftol * max(|f_old|, |f|, 1)``, or every entry of the gradient is
at most ``gtol``.
"""

from dataclasses import dataclass

import numpy as np

#: The Wolfe conditions' constants: a step lowers f by at least SUFFICIENT_DECREASE times what the slope
#: promises, and leaves at most CURVATURE times the slope (its magnitude) along the direction.
SUFFICIENT_DECREASE = 1e-4
CURVATURE = 0.9


@dataclass
class Result:
    """What :func:`minimize` found: the point, f there, the iterations made and whether a stopping rule held."""

    x: np.ndarray
    fun: float
    n_iter: int
    converged: bool
    message: str


def minimize(fun, x0, *, max_iter, ftol, gtol, inverse_curvature_guess=None, history=10, max_line_search=20):
    """Minimize a smooth convex function of a float64 vector by L-BFGS.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (f, gradient)``, a float and a new array; it must not keep
        or modify ``x``.
    x0 : ndarray of shape (n,)
        The starting point (not modified).
    max_iter : int
        Most iterations (each a line search and an update).
    ftol : float
        Stop when an iteration lowers f by at most ``ftol * max(|f_old|, |f|, 1)``.
    gtol : float
        Stop when every entry of the gradient is at most ``gtol`` in absolute value.
    inverse_curvature_guess : float, default=None
        The first step is ``-inverse_curvature_guess * gradient``: a Newton
        step where the Hessian is near that multiple of the identity (as for
        parameters scaled by a diagonal preconditioner).  None: a step of
        length one, as L-BFGS-B's first.  Later steps take their scale from
        the curvature pairs.
    history : int, default=10
        Curvature pairs kept (L-BFGS-B's ``maxcor``).
    max_line_search : int, default=20
        Most evaluations in one line search.

    Returns
    -------
    result : Result
    """
    n = x0.shape[0]
    x = np.array(x0, dtype=np.float64)
    f, gradient = fun(x)
    steps, changes = np.empty((history, n)), np.empty((history, n))  # s_i = x_i+1 - x_i, y_i = g_i+1 - g_i
    inverse_curvature = np.empty(history)  # rho_i = 1 / (s_i . y_i)
    n_pairs, newest = 0, -1
    direction, trial, scratch = np.empty(n), np.empty(n), np.empty(n)
    for iteration in range(max_iter):
        if np.max(np.abs(gradient)) <= gtol:
            return Result(x, f, iteration, True, "the gradient is within gtol")
        order = [(newest - i) % history for i in range(n_pairs)]  # newest first
        _two_loop(gradient, steps, changes, inverse_curvature, order, direction, scratch)
        slope = float(np.dot(gradient, direction))
        if n_pairs and not slope < 0.0:  # rounding spoilt the estimate: forget it
            n_pairs = 0
            np.negative(gradient, out=direction)
        if n_pairs == 0:
            direction *= 1.0 / np.sqrt(np.dot(gradient, gradient)) if inverse_curvature_guess is None \
                else inverse_curvature_guess
            slope = float(np.dot(gradient, direction))
        found = _line_search(fun, x, f, slope, direction, trial, max_line_search)
        if found is None:
            return Result(x, f, iteration, False, "the line search found no step that lowers f enough "
                                                  "(rounding in f or its gradient)")
        f_trial, gradient_trial = found
        newest = (newest + 1) % history
        np.subtract(trial, x, out=steps[newest])
        np.subtract(gradient_trial, gradient, out=changes[newest])
        curvature = float(np.dot(steps[newest], changes[newest]))
        if curvature > np.finfo(np.float64).eps * float(np.dot(changes[newest], changes[newest])):
            inverse_curvature[newest] = 1.0 / curvature
            n_pairs = min(n_pairs + 1, history)
        else:  # not a pair to trust: its slot takes the next one
            newest = (newest - 1) % history
        decrease = f - f_trial
        x, trial = trial, x
        f, gradient = f_trial, gradient_trial
        if decrease <= ftol * max(abs(f + decrease), abs(f), 1.0):
            return Result(x, f, iteration + 1, True, "the relative decrease of f is within ftol")
    if np.max(np.abs(gradient)) <= gtol:
        return Result(x, f, max_iter, True, "the gradient is within gtol")
    return Result(x, f, max_iter, False, f"max_iter ({max_iter}) iterations made")


def _two_loop(gradient, steps, changes, inverse_curvature, order, direction, scratch):
    """direction = -H gradient, H the L-BFGS inverse Hessian estimate of the pairs in ``order`` (newest first),
    scaled by s . y / y . y of the newest pair (Nocedal & Wright, algorithm 7.4); -gradient without pairs."""
    np.negative(gradient, out=direction)
    alphas = []
    for i in order:
        alpha = inverse_curvature[i] * float(np.dot(steps[i], direction))
        alphas.append(alpha)
        direction -= np.multiply(changes[i], alpha, out=scratch)
    if order:
        newest = changes[order[0]]
        direction *= 1.0 / (inverse_curvature[order[0]] * float(np.dot(newest, newest)))
    for i, alpha in zip(reversed(order), reversed(alphas)):
        beta = inverse_curvature[i] * float(np.dot(changes[i], direction))
        direction += np.multiply(steps[i], alpha - beta, out=scratch)


def _line_search(fun, x, f, slope, direction, trial, max_evaluations):
    """A step t along ``direction`` that meets the strong Wolfe conditions (Nocedal & Wright, algorithms 3.5
    and 3.6), first trying t = 1, given f at x and its slope along the direction: ``trial`` receives
    x + t direction, and (f, gradient) there is returned; None when ``max_evaluations`` found no step that lowers
    f enough.

    ``low`` is the best step so far that lowers f enough, ``high`` the other end of an interval known to hold
    an acceptable step (None until one is found); each is (t, f, slope along the direction, gradient).
    """
    low, high, t = (0.0, f, slope, None), None, 1.0
    for _ in range(max_evaluations):
        np.multiply(direction, t, out=trial)
        trial += x
        f_t, gradient_t = fun(trial)
        slope_t = float(np.dot(gradient_t, direction))
        if not f_t <= f + SUFFICIENT_DECREASE * t * slope or f_t > low[1]:
            high = (t, f_t, slope_t, gradient_t)  # too far: a step between low and t is better (NaN too)
        elif abs(slope_t) <= -CURVATURE * slope:
            return f_t, gradient_t
        else:
            if slope_t * (t - low[0]) >= 0:  # past a minimum along the line: it lies between t and low
                high = low
            low = (t, f_t, slope_t, gradient_t)
        t = 2.0 * t if high is None else _interpolated(low, high)
    if low[0] == 0.0:
        return None
    np.multiply(direction, low[0], out=trial)  # the best step found lowers f enough: take it
    trial += x
    return low[1], low[3]


def _interpolated(low, high):
    """The minimizer of the cubic through f and its slope at the steps ``low`` and ``high`` (Nocedal & Wright,
    equation 3.59), kept a tenth of the interval away from its ends; the midpoint where the cubic fails."""
    (a, f_a, d_a, _), (b, f_b, d_b, _) = low, high
    d1 = d_a + d_b - 3.0 * (f_a - f_b) / (a - b)
    radicand = d1 * d1 - d_a * d_b
    width = b - a
    if np.isfinite(radicand) and radicand >= 0.0:
        d2 = np.copysign(np.sqrt(radicand), width)
        denominator = d_b - d_a + 2.0 * d2
        if denominator != 0.0:
            t = b - width * (d_b + d2 - d1) / denominator
            lo, hi = sorted((a + 0.1 * width, b - 0.1 * width))
            if np.isfinite(t):
                return min(max(t, lo), hi)
    return a + 0.5 * width
