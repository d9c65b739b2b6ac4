"""Rules for SciPy's minimizers (`scipy.optimize`): minimize (the argmin) and
least_squares (the solution), by the implicit function theorem on stationarity.

    res = minimize(f, x0, args=(p,))   ->   dx = -H^-1 (d grad_x f / dp) dp    at res.x

The residual F is the gradient in x of the objective (minimize: f; least_squares:
0.5 |r|^2, whose gradient is J^T r), from fwdad's rules: its tangent gives the mixed
term, and dF/dx is the Hessian, exact (not least_squares' Gauss-Newton J^T J). The
minimum must be strict (a positive definite Hessian) and interior: an active bound, a
constraint or a robust loss changes the conditions, and is refused. `res.fun` (and
least_squares' `cost`) carry their total derivative; other fields are constants. This
module imports SciPy: fwdad/rules/scipy_support.py loads it when first needed.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
import scipy.optimize as so

from fwdad import api
from fwdad.dual import Dual
from fwdad.errors import NonDifferentiableError, in_user_code
from fwdad.reverse.api import grad
from fwdad.rules.batching import is_batched
from fwdad.rules.implicit import (
    Residual,
    as_arguments,
    check_positive_definite,
    first_order_only,
    primals,
    refuse,
    solution_tangent,
)
from fwdad.rules.registry import frule
from fwdad.rules.scipy_roots import first_output, result_tangent, same
from fwdad.tangents import NoTangent


# ---- the objectives, as fwdad differentiates them (plain code: their rules are derived) ---
def objective(fun, x, *args):
    return fun(x, *args)


def objective_of_pair(fun, x, *args):
    """minimize(..., jac=True): fun returns (f, its gradient)."""
    return fun(x, *args)[0]


def half_squared_norm(fun, x, *args):
    return cost(fun(x, *args))


def cost(r):
    """least_squares' cost of the residuals r."""
    return 0.5 * np.sum(r * r)


def gradient_residual(of: Callable, fun: Dual, args: tuple) -> Residual:
    """F(x) = the gradient in x of `of(fun, x, *args)`."""
    gradient = api.call(grad, [Dual(of, NoTangent), Dual(1, NoTangent)])
    return Residual(gradient, args, before=(fun,))


# ---- minimize ------------------------------------------------------------------------------
@frule(so.minimize)
@first_order_only("optimize.minimize")
def _minimize(fun: Dual, x0, args: Dual = (), method=None, jac=None, hess=None,
              hessp=None, bounds=None, constraints=(), tol=None, callback=None,
              options=None) -> Dual:
    """res.x minimizes fun(x, *args): grad f = 0 there, with H positive definite."""
    args = as_arguments(args)
    if constraints:
        raise refused("minimize", "constraints", "the stationarity of the Lagrangian")
    res = so.minimize(fun.primal, x0, primals(args), method, jac, hess, hessp, bounds,
                      constraints, tol, callback, options)
    check_solved("minimize", res, bounds, pairs=True)
    of, pick = (objective_of_pair, first_output) if jac is True else (objective, same)
    dx = solution_tangent(gradient_residual(of, fun, args), res.x, "optimize.minimize",
                          check_positive_definite)
    moved = Residual(fun, args, pick=pick)(Dual(res.x, dx))
    return Dual(res, result_tangent(res, x=dx, fun=moved.tangent))


# ---- least_squares -------------------------------------------------------------------------
@frule(so.least_squares)
@first_order_only("optimize.least_squares")
def _least_squares(fun: Dual, x0, jac="2-point", bounds=(-np.inf, np.inf), *rest,
                   args: Dual = (), kwargs=None, loss="linear", **options) -> Dual:
    """res.x minimizes 0.5 |fun(x, *args)|^2: J^T r = 0 there."""
    args = as_arguments(args)
    check_options(loss, kwargs)
    res = so.least_squares(fun.primal, x0, jac, bounds, *rest, args=primals(args),
                           loss=loss, **options)
    check_solved("least_squares", res, bounds, pairs=False)
    dx = solution_tangent(gradient_residual(half_squared_norm, fun, args), res.x,
                          "optimize.least_squares", check_positive_definite)
    moved = Residual(fun, args)(Dual(res.x, dx))  # r at the solution, and its tangent
    dr = moved.tangent
    dcost = NoTangent if dr is NoTangent else np.sum(
        np.asarray(moved.primal) * dr, axis=-1 if is_batched(moved.primal, dr) else None)
    return Dual(res, result_tangent(res, x=dx, fun=dr, cost=dcost))


# ---- the conditions -----------------------------------------------------------------------
def check_options(loss: str, kwargs: Any) -> None:
    """least_squares: the plain sum of squares, with its parameters in args=."""
    if loss != "linear":
        raise refused("least_squares", f"loss={loss!r}", "loss='linear' (a robust loss "
                      "rescales the residuals, and the stationarity with them)")
    if kwargs:
        raise refused("least_squares", "kwargs=", "args= (pass the parameters by "
                      "position, so that their derivatives reach fun)")


def check_solved(call: str, res: Any, bounds: Any, pairs: bool) -> None:
    if not res.success:
        raise refuse(f"optimize.{call}", f"a converged solve (here success is False: "
                     f"{res.message})", "Tighten or loosen the tolerance, raise the "
                     "iteration limit, pass jac= (fwdad.optimize.jac), or start closer.")
    active = _active_bounds(res.x, bounds, pairs)
    if active:
        raise refuse(f"optimize.{call}", f"an interior solution (the bounds are active at "
                     f"entries {active})", "Differentiate where no bound holds, or "
                     "remove the bound if it does not constrain the solution.")


def _active_bounds(x: np.ndarray, bounds: Any, pairs: bool) -> list:
    """The entries of x at one of its bounds: SciPy's Bounds, minimize's sequence of
    (min, max) `pairs` (None for none), or least_squares' (lb, ub)."""
    if bounds is None:
        return []
    if isinstance(bounds, so.Bounds):
        lb, ub = bounds.lb, bounds.ub
    elif pairs:
        lb, ub = zip(*[(-np.inf if lo is None else lo, np.inf if hi is None else hi)
                       for lo, hi in bounds])
    else:
        lb, ub = bounds
    lb, ub = (np.broadcast_to(np.asarray(b, dtype=float), np.shape(x)) for b in (lb, ub))
    near = 1e-8 * (1.0 + np.abs(x))
    return np.flatnonzero((np.abs(x - lb) <= near) | (np.abs(x - ub) <= near)).tolist()


def refused(call: str, what: str, instead: str) -> NonDifferentiableError:
    at = in_user_code()
    return NonDifferentiableError(
        f"scipy.optimize.{call}{at}: fwdad does not differentiate "
        f"its solution with {what} (it differentiates an unconstrained, interior "
        f"solution). Use {instead}.")
