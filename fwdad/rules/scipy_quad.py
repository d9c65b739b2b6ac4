"""The rule of `scipy.integrate.quad`: differentiation under the integral sign.

    v = quad(f, a, b, args=(p,))[0]   ->   dv = quad(df/dp dp, a, b) + f(b) db - f(a) da

The integrand's tangent at each point t is fwdad's rule of the user's f (the tangents
of `args`, and of the Duals f captured when it was defined inside differentiated code),
integrated by quad with the call's own tolerances, one quad per tangent of a batch. The
error estimate, and full_output's other items, are constants. A limit at infinity with
a tangent, and `weight=` (whose singular weights move with the limits), are refused.
This module imports SciPy: fwdad/rules/scipy_support.py loads it when first needed.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.integrate as si

from fwdad.dual import Dual
from fwdad.errors import NonDifferentiableError, in_user_code
from fwdad.rules.batching import dense, running_batch_size
from fwdad.rules.implicit import Residual, as_arguments, first_order_only, primals
from fwdad.rules.recorded_solves import recorded
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent


@frule(si.quad)
@first_order_only("integrate.quad")
def _quad(func: Dual, a: Dual, b: Dual, args: Dual = (), full_output=0,
          epsabs=1.49e-08, epsrel=1.49e-08, limit=50, points=None, weight=None,
          *rest, **options) -> Dual:
    """(value, abserr[, infodict, ...]): value's tangent as in the module docstring."""
    refuse_weight(weight)
    args = as_arguments(args)
    tolerances = dict(epsabs=epsabs, epsrel=epsrel, limit=limit, points=points)
    out = si.quad(func.primal, a.primal, b.primal, primals(args), full_output,
                  **tolerances, **options)
    integrand, lower, upper = Residual(func, args), a.primal, b.primal

    def value_tangent() -> Any:
        return _integral_of_tangent(integrand, lower, upper, tolerances) + \
            _limit_term(func, args, b) - _limit_term(func, args, a)
    # (linearize: one op of its tape, replayed on the tangents: recorded_solves.py)
    dvalue = recorded(value_tangent, [func, a, b, *args], "integrate.quad")
    return Dual(out, (dvalue,) + (NoTangent,) * (len(out) - 1))


def _integral_of_tangent(integrand: Residual, a: float, b: float, tolerances: dict) -> Any:
    """quad(df/dp dp, a, b), one quad per tangent of a batch (zero without a tangent)."""
    size = running_batch_size()

    def tangent_at(t: float) -> np.ndarray:
        out = integrand(Dual(t, 0.0))
        return np.asarray(dense(out.primal, out.tangent, size), dtype=float)
    if size is None:
        return si.quad(tangent_at, a, b, **tolerances)[0]
    return np.array([si.quad(lambda t, k=k: tangent_at(t)[k], a, b, **tolerances)[0]
                     for k in range(size)])


def _limit_term(func: Dual, args: tuple, limit: Dual) -> Any:
    """f(limit) dlimit (zero for a limit without a tangent)."""
    if limit.tangent is NoTangent or not np.any(limit.tangent):
        return 0.0
    check_limit(limit.primal)
    return func.primal(limit.primal, *primals(args)) * np.asarray(limit.tangent)


def check_limit(limit: float) -> None:
    """A limit that moves must be finite (f there is the derivative)."""
    if not np.isfinite(limit):
        raise _refused("with respect to an infinite limit", "keep the limit at infinity "
                       "constant, or integrate to a finite limit")


def refuse_weight(weight: Any) -> None:
    if weight is not None:
        raise _refused("with weight=", "integrate the weighted function itself instead")


def _refused(what: str, todo: str) -> NonDifferentiableError:
    at = in_user_code()
    return NonDifferentiableError(
        f"scipy.integrate.quad{at}: fwdad does not differentiate "
        f"it {what}: {todo}.")
