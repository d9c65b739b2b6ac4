"""Reverse rules for SciPy's root finders and minimizers (`scipy.optimize`): the
implicit function theorem transposed.

    x = root(F, x0, args=(p,)).x   ->   lam = (dF/dx)^-T ct,   ct_p = -(dF/dp)^T lam

SciPy solves on plain values. dF/dx, dF/dp and the conditions (a converged solve, a
nonsingular dF/dx, for the minimizers a positive definite Hessian, an interior minimum)
are forward mode's (fwdad/rules/implicit.py, scipy_roots.py, scipy_minimize.py): the
dot-product test checks one against the other. dF/dp is taken by one batched forward
pass over each variable parameter's entries. The parameters come through `args=` (the
solver's variables may sit in that tuple); a function defined inside the differentiated
function is refused, as its captured variables would not reach the solver's rule.
minimize's `fun` and least_squares' `fun` and `cost` are recomputed from the solution on
the tape (their total derivative); other fields are constants. This module imports
SciPy: fwdad/reverse/__init__.py loads it only where SciPy imports.
"""
from __future__ import annotations

import copy
from typing import Any, Callable

import numpy as np
import scipy.optimize as so

from fwdad.core.duals import fresh
from fwdad.dual import Dual
from fwdad.errors import NonDifferentiableError, in_user_code
from fwdad.reverse.dispatch import ReverseClosure
from fwdad.reverse.dispatch import call as reverse_call
from fwdad.reverse.registry import raw_rrule
from fwdad.reverse.rule_calls import Pure
from fwdad.reverse.tracked import is_tracked
from fwdad.reverse.var import value_of
from fwdad.rules import implicit
from fwdad.rules import scipy_minimize as minimizers
from fwdad.rules import scipy_roots as roots
from fwdad.rules.batching import batch, dense
from fwdad.tangents import NoTangent


# ---- the theorem, on plain values ----------------------------------------------------------
def solution(call: str, x: Any, params: tuple, residual_of: Callable[[tuple], Any],
             check: Callable = implicit.check_nonsingular) -> Any:
    """x, a reverse value of the variables among `params` (a plain x when there are
    none); residual_of(duals) is the forward Residual of F with those arguments."""
    def rule(*values):
        constants = tuple(fresh(v) for v in values)
        residual = residual_of(constants)
        jacobian = implicit.jacobian_at(residual, x)
        check(jacobian, call)

        def pullback(ct):
            lam = np.linalg.solve(jacobian.T, np.reshape(ct, -1))
            return tuple(_parameter_cotangent(residual_of, x, constants, i, -lam)
                         if is_tracked(params[i]) else None for i in range(len(values)))
        return x, pullback
    return Pure(_named(call), rule)(*params)


def _parameter_cotangent(residual_of: Callable, x: Any, constants: tuple, i: int,
                         lam: np.ndarray) -> Any:
    """(dF/dp_i)^T lam, from one batched forward pass of p_i's unit tangents."""
    p = constants[i].primal
    seeds = np.eye(np.size(p)).reshape((np.size(p),) + np.shape(p))
    duals = constants[:i] + (Dual(np.asarray(p, dtype=float), seeds),) + constants[i + 1:]
    with batch(len(seeds)):
        out = residual_of(duals)(Dual(x, implicit.zero_like(x)))
        columns = dense(out.primal, out.tangent, len(seeds)).reshape(len(seeds), -1)
    ct = columns @ lam
    return float(ct[0]) if np.ndim(p) == 0 else ct.reshape(np.shape(p))


def _named(call: str) -> Callable:
    """The primitive Pure records (its name is the SciPy function's)."""
    return getattr(so, call.split(".")[-1])


def arguments(call: str, fun: Any, args: Any) -> tuple:
    """The solver's args= as a tuple (a lone value is a 1-tuple), after refusing a
    function that closes over variables."""
    if isinstance(fun, ReverseClosure):
        at = in_user_code()
        raise NonDifferentiableError(
            f"scipy.{call}{at}: in reverse mode fwdad differentiates "
            f"the solution with respect to the solver's args= only, and {fun.__name__} is "
            f"defined inside the differentiated function (what it captures would be "
            f"constants). Define it outside, and pass the parameters with args=(...); or "
            f"use forward mode (fwdad.jvp, fwdad.jacfwd), which follows captured values.")
    return args if isinstance(args, tuple) else (args,)


def plain(params: tuple) -> tuple:
    return tuple(value_of(p) for p in params)


def plain_tuple(values: Any) -> Any:
    """A bracket, whose ends (variables or not) do not move the solution: their values."""
    return None if values is None else plain(tuple(values))


def duals_of(fun: Any) -> Callable[[tuple], Any]:
    return lambda duals: implicit.Residual(Dual(fun, NoTangent), duals)


def _any_tracked(params: tuple) -> bool:
    return any(is_tracked(p) for p in params)


# ---- root finders --------------------------------------------------------------------------
@raw_rrule(so.root)
@implicit.first_order_only("optimize.root")
def _root(fun, x0, args=(), method="hybr", jac=None, tol=None, callback=None, options=None):
    params = arguments("optimize.root", fun, args)
    res = so.root(fun, value_of(x0), plain(params), method, jac, tol, callback, options)
    if not _any_tracked(params):
        return res
    if not res.success:
        raise roots.failed("optimize.root", f"success is False: {res.message}")
    pick = roots.first_output if jac is True else roots.same
    out = copy.copy(res)
    out["x"] = solution("optimize.root", res.x, params, lambda duals: implicit.Residual(
        Dual(fun, NoTangent), duals, pick=pick))
    return out


@raw_rrule(so.fsolve)
@implicit.first_order_only("optimize.fsolve")
def _fsolve(func, x0, args=(), fprime=None, full_output=0, *rest, **options):
    params = arguments("optimize.fsolve", func, args)
    out = so.fsolve(func, value_of(x0), plain(params), fprime, True, *rest, **options)
    x, info, ier, message = out
    if _any_tracked(params):
        if ier != 1:
            raise roots.failed("optimize.fsolve", f"ier is {ier}: {message}")
        x = solution("optimize.fsolve", x, params, duals_of(func))
    return (x, info, ier, message) if full_output else x


def _bracketing(solver: Any, name: str):
    def rule(f, a, b, args=(), *rest, full_output=False, disp=True, **options):
        params = arguments(f"optimize.{name}", f, args)
        x, info = solver(f, value_of(a), value_of(b), plain(params), *rest,
                         full_output=True, disp=False, **options)
        x = _scalar_solution(name, f, params, x, info)
        return (x, info) if full_output else x
    rule.__name__ = f"_{name}"
    return implicit.first_order_only(f"optimize.{name}")(rule)


def _scalar_solution(name: str, f: Any, params: tuple, x: Any, info: Any) -> Any:
    if not info.converged:
        raise roots.failed(f"optimize.{name}", f"converged is False: {info.flag}")
    if not _any_tracked(params):
        return x
    return solution(f"optimize.{name}", x, params, duals_of(f))


for _solver in (so.brentq, so.brenth, so.ridder, so.bisect, so.toms748):
    raw_rrule(_solver)(_bracketing(_solver, _solver.__name__))


@raw_rrule(so.newton)
@implicit.first_order_only("optimize.newton")
def _newton(func, x0, fprime=None, args=(), tol=1.48e-8, maxiter=50, fprime2=None, x1=None,
            rtol=0.0, full_output=False, disp=True):
    params = arguments("optimize.newton", func, args)
    out = so.newton(func, value_of(x0), fprime, plain(params), tol, maxiter, fprime2, x1, rtol,
                    full_output=True, disp=False)
    if np.ndim(x0) == 0:
        x, info = out
        x = _scalar_solution("newton", func, params, x, info)
        return (x, info) if full_output else x
    if not np.all(out.converged):
        raise roots.failed("optimize.newton", f"converged is False at entries "
                           f"{np.flatnonzero(~out.converged).tolist()}")
    x = solution("optimize.newton", out.root, params, duals_of(func)) \
        if _any_tracked(params) else out.root
    return type(out)(x, out.converged, out.zero_der) if full_output else x


@raw_rrule(so.root_scalar)
@implicit.first_order_only("optimize.root_scalar")
def _root_scalar(f, args=(), method=None, bracket=None, fprime=None, fprime2=None,
                 x0=None, x1=None, xtol=None, rtol=None, maxiter=None, options=None):
    params = arguments("optimize.root_scalar", f, args)
    sol = so.root_scalar(f, plain(params), method, plain_tuple(bracket), fprime, fprime2,
                         value_of(x0), value_of(x1), xtol, rtol, maxiter, options)
    if not _any_tracked(params):
        return sol
    if not sol.converged:
        raise roots.failed("optimize.root_scalar", f"converged is False: {sol.flag}")
    pick = roots.first_output if fprime is True or fprime2 is True else roots.same
    out = copy.copy(sol)
    out["root"] = solution("optimize.root_scalar", sol.root, params,
                           lambda duals: implicit.Residual(Dual(f, NoTangent), duals,
                                                           pick=pick))
    return out


# ---- minimizers ----------------------------------------------------------------------------
@raw_rrule(so.minimize)
@implicit.first_order_only("optimize.minimize")
def _minimize(fun, x0, args=(), method=None, jac=None, hess=None, hessp=None, bounds=None,
              constraints=(), tol=None, callback=None, options=None):
    params = arguments("optimize.minimize", fun, args)
    if constraints:
        raise minimizers.refused("minimize", "constraints", "the stationarity of the "
                                 "Lagrangian")
    res = so.minimize(fun, value_of(x0), plain(params), method, jac, hess, hessp, bounds,
                      constraints, tol, callback, options)
    if not _any_tracked(params):
        return res
    minimizers.check_solved("minimize", res, bounds, pairs=True)
    of = minimizers.objective_of_pair if jac is True else minimizers.objective
    out = copy.copy(res)
    out["x"] = solution("optimize.minimize", res.x, params, lambda duals: (
        minimizers.gradient_residual(of, Dual(fun, NoTangent), duals)),
        implicit.check_positive_definite)
    value = reverse_call(fun, out["x"], *params)
    out["fun"] = value[0] if jac is True else value
    return out


@raw_rrule(so.least_squares)
@implicit.first_order_only("optimize.least_squares")
def _least_squares(fun, x0, jac="2-point", bounds=(-np.inf, np.inf), *rest, args=(),
                   kwargs=None, loss="linear", **options):
    params = arguments("optimize.least_squares", fun, args)
    minimizers.check_options(loss, kwargs)
    res = so.least_squares(fun, value_of(x0), jac, bounds, *rest, args=plain(params), loss=loss,
                           **options)
    if not _any_tracked(params):
        return res
    minimizers.check_solved("least_squares", res, bounds, pairs=False)
    out = copy.copy(res)
    out["x"] = solution("optimize.least_squares", res.x, params, lambda duals: (
        minimizers.gradient_residual(minimizers.half_squared_norm, Dual(fun, NoTangent),
                                     duals)), implicit.check_positive_definite)
    out["fun"] = reverse_call(fun, out["x"], *params)
    out["cost"] = reverse_call(minimizers.cost, out["fun"])
    return out
