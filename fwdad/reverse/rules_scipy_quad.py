"""The reverse rule of `scipy.integrate.quad`: differentiation under the integral sign,
transposed.

    v = quad(f, a, b, args=(p,))[0]   ->   ct_a = -ct f(a),  ct_b = ct f(b),
                                           ct_p = ct quad(df/dp, a, b)

quad(df/dp) is one quad per entry of each variable parameter, of the column of dF/dp
that forward mode's rule of f gives (fwdad/rules/scipy_quad.py has the forward rule;
the dot-product test checks one against the other), with the call's tolerances. The
parameters come through `args=`; a function defined inside the differentiated function
is refused, as in fwdad/reverse/rules_scipy_optimize.py. This module imports SciPy:
fwdad/reverse/__init__.py loads it only where SciPy imports.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import scipy.integrate as si

from fwdad.core.duals import fresh
from fwdad.dual import Dual
from fwdad.reverse.registry import raw_rrule
from fwdad.reverse.rule_calls import Pure
from fwdad.reverse.rules_scipy_optimize import arguments, plain
from fwdad.reverse.tracked import is_tracked
from fwdad.rules.batching import batch, dense
from fwdad.rules.implicit import Residual, first_order_only
from fwdad.rules.scipy_quad import check_limit, refuse_weight
from fwdad.tangents import NoTangent


@raw_rrule(si.quad)
@first_order_only("integrate.quad")
def _quad(func, a, b, args=(), full_output=0, epsabs=1.49e-08, epsrel=1.49e-08, limit=50,
          points=None, weight=None, *rest, **options):
    refuse_weight(weight)
    params = arguments("integrate.quad", func, args)
    tolerances = dict(epsabs=epsabs, epsrel=epsrel, limit=limit, points=points)
    out = si.quad(func, *plain((a, b)), plain(params), full_output, **tolerances,
                  **options)
    if not any(is_tracked(v) for v in (a, b) + params):
        return out

    def rule(a, b, *values):
        def pullback(ct):
            ends = (lambda: -ct * _edge(func, a, values), lambda: ct * _edge(func, b, values))
            return ends + tuple(
                (lambda i=i: ct * _integral_of_gradient(func, a, b, values, i, tolerances))
                for i in range(len(values)))
        return out[0], pullback
    value = Pure(si.quad, rule)(a, b, *params)
    return (value,) + tuple(out[1:])


def _edge(func: Any, limit: float, values: tuple) -> float:
    """f at a limit that is a variable (its cotangent is ct times f there); asked for
    only when the limit is a variable."""
    check_limit(limit)
    return func(limit, *values)


def _integral_of_gradient(func: Any, a: float, b: float, values: tuple, i: int,
                          tolerances: dict) -> Any:
    """quad(df/dp_i, a, b), one quad per entry of p_i: forward mode's columns."""
    p = values[i]
    size = int(np.size(p))
    seeds = np.eye(size).reshape((size,) + np.shape(p))
    duals = tuple(fresh(v) for v in values)
    duals = duals[:i] + (Dual(np.asarray(p, dtype=float), seeds),) + duals[i + 1:]
    integrand = Residual(Dual(func, NoTangent), duals)

    def column(t: float) -> np.ndarray:
        with batch(size):
            out = integrand(Dual(t, 0.0))
            return np.asarray(dense(out.primal, out.tangent, size), dtype=float)
    entries = [si.quad(lambda t, k=k: column(t)[k], a, b, **tolerances)[0]
               for k in range(size)]
    return entries[0] if np.ndim(p) == 0 else np.reshape(entries, np.shape(p))
