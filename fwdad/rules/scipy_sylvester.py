"""Rules for SciPy's Sylvester and Lyapunov equation solvers (`scipy.linalg`):
solve_sylvester and solve_continuous_lyapunov.

    x = sl.solve_sylvester(a, b, q)   (a x + x b = q)
        ->   dx = solve_sylvester(a, b, dq - da x - x db)

The tangent solves the same equation with another right-hand side, by SciPy's solver,
which has this rule: so the rules can be differentiated again. SciPy's solvers take
stacks of matrices and broadcast their leading axes, so a batch of right-hand sides is
one call. Real matrices only; the solution must be unique (a and -b share no
eigenvalue). This module imports SciPy: fwdad/rules/scipy_support.py loads it when first needed.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sl

from fwdad.dual import Dual
from fwdad.errors import FwdadError, in_user_code
from fwdad.rules.batching import dense, fit, lift, linear_call
from fwdad.rules.complex_input import real_only
from fwdad.rules.registry import frule


def _T(a):
    return np.swapaxes(a, -1, -2)


def _d(x: Dual, out):
    """x's tangent, aligned with the result `out` (a batch axis before out's stack axes)."""
    return lift(x.primal, dense(x.primal, x.tangent), np.ndim(out))


def refuse_empty_operator(a, b, q) -> None:
    """SciPy answers an empty a or b with an uninitialized array shaped like q: values
    only for an empty q (m x n: a m x m, b n x n), refused otherwise (both modes)."""
    if (np.size(a) == 0 or np.size(b) == 0) and np.size(q):
        raise FwdadError(
            f"scipy.linalg.solve_sylvester{in_user_code()}: a ({_shape(a)}) or b "
            f"({_shape(b)}) is empty and q ({_shape(q)}) is not, where SciPy returns an "
            f"uninitialized array, with no derivative. Pass a square a (m x m) and b "
            f"(n x n) for q (m x n).")


def _shape(x) -> str:
    return " x ".join(map(str, np.shape(x)))


@frule(sl.solve_sylvester)
def _solve_sylvester(a: Dual, b: Dual, q: Dual) -> Dual:
    """a x + x b = q: a dx + dx b = dq - da x - x db."""
    real_only("scipy.linalg.solve_sylvester", a.primal, b.primal, q.primal)
    refuse_empty_operator(a.primal, b.primal, q.primal)
    x = sl.solve_sylvester(a.primal, b.primal, q.primal)
    rhs = _d(q, x) - _d(a, x) @ x - x @ _d(b, x)
    return Dual(x, fit(linear_call(sl.solve_sylvester, a.primal, b.primal, rhs), x))


@frule(sl.solve_continuous_lyapunov)
def _solve_continuous_lyapunov(a: Dual, q: Dual) -> Dual:
    """a x + x a^T = q: a dx + dx a^T = dq - da x - x da^T."""
    real_only("scipy.linalg.solve_continuous_lyapunov", a.primal, q.primal)
    x = sl.solve_continuous_lyapunov(a.primal, q.primal)
    rhs = _d(q, x) - _d(a, x) @ x - x @ _T(_d(a, x))
    return Dual(x, fit(linear_call(sl.solve_continuous_lyapunov, a.primal, rhs), x))
