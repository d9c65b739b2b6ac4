"""Derivatives in the form scipy.optimize asks for them, from a plain function.

    from scipy.optimize import minimize, least_squares
    minimize(f, x0, jac=fwdad.optimize.jac(f), hessp=fwdad.optimize.hessp(f),
             method="trust-ncg")
    minimize(fwdad.optimize.value_and_jac(f), x0, jac=True)
    least_squares(residuals, x0, jac=fwdad.optimize.jac(residuals))

SciPy calls each with the point x (a float array) first and the `args=` of the solver
after it; the derivatives are with respect to x, and the other arguments are constants.
Cost, for n unknowns and m outputs: `jac` of a scalar function is a gradient (reverse
mode: a few times the function, whatever n); `jac` of a vector function is a Jacobian
(jacfwd: one batched pass of n tangents, m x n); `hessp` is a Hessian-vector product
(forward over reverse: a few gradients); `hess` is the n x n Hessian (one batched
forward-over-reverse pass). See docs/scipy.md.

(Named `optimize`, not `scipy`: fwdad does not import SciPy here, and a module named
`scipy` inside the package would read as SciPy itself.)
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from fwdad.api import jvp
from fwdad.errors import FwdadError, describe
from fwdad.higher import hessian
from fwdad.jacobians import jacfwd
from fwdad.probe import probe
from fwdad.reverse.api import grad, value_and_grad


def jac(f: Callable[..., Any]) -> Callable[..., Any]:
    """`jac(x, *args)`: the gradient of a scalar `f(x, *args)` (shape of x), or the
    Jacobian of a vector one (`f`'s shape + x's shape), as minimize's, root's and
    least_squares' `jac=` take them."""
    _check(f, "jac")

    def jac_of_f(x: Any, *args: Any) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        out = f(x.copy(), *args)
        if np.ndim(out) == 0:
            return np.asarray(value_and_grad(f)(x, *args)[1])
        return np.asarray(jacfwd(f)(x, *args))
    jac_of_f.__name__ = f"jac_{probe(f, '__name__', 'f')}"
    return jac_of_f


def value_and_jac(f: Callable[..., Any]) -> Callable[..., Any]:
    """`fun(x, *args) -> (f(x, *args), gradient)`, for `minimize(fun, x0, jac=True)`: one
    reverse pass gives both."""
    _check(f, "value_and_jac")

    def value_and_jac_of_f(x: Any, *args: Any) -> tuple[Any, ...]:
        value, gradient = value_and_grad(f)(np.asarray(x, dtype=float), *args)
        return value, np.asarray(gradient)
    value_and_jac_of_f.__name__ = f"value_and_jac_{probe(f, '__name__', 'f')}"
    return value_and_jac_of_f


def hess(f: Callable[..., Any]) -> Callable[..., Any]:
    """`hess(x, *args)`: the n x n Hessian of a scalar `f(x, *args)`, for `hess=`."""
    _check(f, "hess")

    def hess_of_f(x: Any, *args: Any) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return np.asarray(hessian(f)(x, *args)).reshape(x.size, x.size)
    hess_of_f.__name__ = f"hess_{probe(f, '__name__', 'f')}"
    return hess_of_f


def hessp(f: Callable[..., Any]) -> Callable[..., Any]:
    """`hessp(x, p, *args)`: the Hessian of a scalar `f(x, *args)` times p, for
    `hessp=` (Newton-CG, trust-ncg, trust-krylov): a few gradients, whatever n."""
    _check(f, "hessp")

    def hessp_of_f(x: Any, p: Any, *args: Any) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        p = np.asarray(p, dtype=float).reshape(x.shape)
        tangents = (p,) + (None,) * len(args)  # (the args: no tangent)
        return np.asarray(jvp(grad(f), (x,) + args, tangents)[1])  # (forward over
        # reverse, as hvp: the gradient with respect to x alone)
    hessp_of_f.__name__ = f"hessp_{probe(f, '__name__', 'f')}"
    return hessp_of_f


def _check(f: Any, name: str) -> None:
    if not callable(f):
        raise FwdadError(f"fwdad.optimize.{name} takes the function to differentiate, "
                         f"not a {type(f).__name__} ({describe(f)}): pass f itself, "
                         f"not f(x0).")
