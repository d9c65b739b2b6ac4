"""Rules for SciPy's root finders (`scipy.optimize`): root, fsolve, brentq, brenth,
ridder, bisect, toms748, newton and root_scalar, by the implicit function theorem.

    x = brentq(f, a, b, args=(p,))   ->   dx = -(df/dx)^-1 (df/dp dp)   at x

SciPy solves on primal values (its iterations are not differentiated); the tangent comes
from fwdad's rule of the user's f at the solution (fwdad/rules/implicit.py), with the
tangents of `args` and of the Duals f captured when it was defined inside differentiated
code. A bracket or starting point has no effect on the solution nearby: no tangent. A
result that reports failure raises `ImplicitFunctionError`. Results keep SciPy's types:
an OptimizeResult (a RootResults) whose `x` (`root`) carries the tangent, and whose `fun`
carries zero (F stays 0 along the solutions); its other fields are constants. This
module imports SciPy: fwdad/rules/scipy_support.py loads it when first needed.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.optimize as so

from fwdad.dual import Dual
from fwdad.rules.implicit import (
    Residual,
    as_arguments,
    first_order_only,
    primals,
    refuse,
    solution_tangent,
)
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent, zero_tangent


def result_tangent(result: Any, **tangents: Any) -> so.OptimizeResult:
    """A result's tangent: `tangents` for the fields named, none for the others (an
    OptimizeResult, so that `res.x` reads it as it reads the result)."""
    fields = {name: NoTangent for name in result}
    fields.update(tangents)
    return so.OptimizeResult(fields)


def first_output(out: Dual) -> Dual:
    """F of a function that returns (F, its Jacobian): `jac=True`."""
    tangent = NoTangent if out.tangent is NoTangent else out.tangent[0]
    return Dual(out.primal[0], tangent)


def failed(call: str, what: str, todo: str = "Start closer to a root, raise the "
            "iteration limit, or loosen the tolerance.") -> Exception:
    return refuse(call, f"a converged solve (here {what})", todo)


# ---- n equations in n unknowns ---------------------------------------------------------------
@frule(so.root)
@first_order_only("optimize.root")
def _root(fun: Dual, x0, args: Dual = (), method="hybr", jac=None, tol=None,
          callback=None, options=None) -> Dual:
    """res.x solves fun(x, *args) = 0 (fun returns (F, dF/dx) when jac is True)."""
    args = as_arguments(args)
    res = so.root(fun.primal, x0, args=primals(args), method=method, jac=jac, tol=tol,
                  callback=callback, options=options)
    if not res.success:
        raise failed("optimize.root", f"success is False: {res.message}")
    residual = Residual(fun, args, pick=first_output if jac is True else same)
    dx = solution_tangent(residual, res.x, "optimize.root")
    return Dual(res, result_tangent(res, x=dx, fun=zero_tangent(res.fun)))


def same(out: Dual) -> Dual:
    return out


@frule(so.fsolve)
@first_order_only("optimize.fsolve")
def _fsolve(func: Dual, x0, args: Dual = (), fprime=None, full_output=0, *rest,
            **options) -> Dual:
    """x solves func(x, *args) = 0; SciPy's ier is 1 when it converged."""
    args = as_arguments(args)
    x, info, ier, message = so.fsolve(func.primal, x0, primals(args), fprime, True,
                                      *rest, **options)
    if ier != 1:
        raise failed("optimize.fsolve", f"ier is {ier}: {message}")
    dx = solution_tangent(Residual(func, args), x, "optimize.fsolve")
    if not full_output:
        return Dual(x, dx)
    info_tangent = {name: NoTangent for name in info}
    info_tangent["fvec"] = np.zeros(np.shape(info["fvec"]))
    return Dual((x, info, ier, message), (dx, info_tangent, NoTangent, NoTangent))


# ---- one equation in one unknown -------------------------------------------------------------
def _bracketing(solver: Any, name: str):
    """The rule of a bracketing solver (brentq, brenth, ridder, bisect, toms748):
    f(x, *args) = 0 in [a, b]."""
    def rule(f: Dual, a, b, args: Dual = (), *rest, full_output=False, disp=True,
             **options) -> Dual:
        args = as_arguments(args)
        x, info = solver(f.primal, a, b, primals(args), *rest, full_output=True,
                         disp=False, **options)
        dx = _scalar_tangent(f, args, x, info, name)
        if not full_output:
            return Dual(x, dx)
        return Dual((x, info), (dx, result_tangent(info, root=dx)))
    rule.__name__ = f"_{name}"
    return first_order_only(f"optimize.{name}")(rule)


def _scalar_tangent(f: Dual, args: tuple, x: Any, info: Any, name: str) -> Any:
    if not info.converged:
        raise failed(f"optimize.{name}", f"converged is False: {info.flag}")
    return solution_tangent(Residual(f, args), x, f"optimize.{name}")


for _solver in (so.brentq, so.brenth, so.ridder, so.bisect, so.toms748):
    frule(_solver)(_bracketing(_solver, _solver.__name__))


@frule(so.newton)
@first_order_only("optimize.newton")
def _newton(func: Dual, x0, fprime=None, args: Dual = (), tol=1.48e-8, maxiter=50,
            fprime2=None, x1=None, rtol=0.0, full_output=False, disp=True) -> Dual:
    """Newton's, the secant or Halley's method; an array x0 solves one scalar equation
    per entry (func elementwise), and gives an array."""
    args = as_arguments(args)
    out = so.newton(func.primal, x0, fprime, primals(args), tol, maxiter, fprime2, x1,
                    rtol, full_output=True, disp=False)
    if np.ndim(x0) == 0:
        (x, info) = out
        dx = _scalar_tangent(func, args, x, info, "newton")
        return Dual((x, info), (dx, result_tangent(info, root=dx))) if full_output \
            else Dual(x, dx)
    if not np.all(out.converged):
        raise failed("optimize.newton", f"converged is False at entries "
                      f"{np.flatnonzero(~out.converged).tolist()}")
    dx = solution_tangent(Residual(func, args), out.root, "optimize.newton")
    return Dual(out, type(out)(dx, NoTangent, NoTangent)) if full_output \
        else Dual(out.root, dx)


@frule(so.root_scalar)
@first_order_only("optimize.root_scalar")
def _root_scalar(f: Dual, args: Dual = (), method=None, bracket=None, fprime=None,
                 fprime2=None, x0=None, x1=None, xtol=None, rtol=None, maxiter=None,
                 options=None) -> Dual:
    """sol.root solves f(x, *args) = 0 (f returns (f, f') when fprime is True, and
    (f, f', f'') when fprime2 is)."""
    args = as_arguments(args)
    sol = so.root_scalar(f.primal, primals(args), method, bracket, fprime, fprime2, x0,
                         x1, xtol, rtol, maxiter, options)
    if not sol.converged:
        raise failed("optimize.root_scalar", f"converged is False: {sol.flag}")
    pick = first_output if fprime is True or fprime2 is True else same
    root = solution_tangent(Residual(f, args, pick=pick), sol.root, "optimize.root_scalar")
    return Dual(sol, result_tangent(sol, root=root))


