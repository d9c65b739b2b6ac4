"""Functions `derivative(n, x)` giving the n-th derivative of np.sinc or
scipy.special.exprel: evaluated by one of two formulas on each element, by region (a
quadrature near 0, where the closed forms cancel, and the closed forms elsewhere), and
differentiated in x as the (n + 1)-th."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import fit, lift, ndim
from fwdad.rules.registry import frule


def by_region(x: Any, near: Callable[[np.ndarray], np.ndarray],
              inside: Callable[[np.ndarray], np.ndarray],
              outside: Callable[[np.ndarray], np.ndarray]) -> Any:
    """`inside` of the elements of x where `near(x)` holds and `outside` of the others,
    in x's shape (at least float64); a scalar for a scalar x."""
    x = np.asarray(x)
    x = x.astype(np.result_type(x, np.float64), copy=False)
    where = near(x)
    out = np.empty_like(x)
    out[where] = inside(x[where])
    out[~where] = outside(x[~where])
    return out[()]


def next_order_frule(derivative: Callable[[int, Any], Any]) -> None:
    """Register the frule of `derivative(n, x)`: d/dx derivative(n, x) is
    derivative(n + 1, x); n is an integer."""
    @frule(derivative)
    def next_order(n: Dual, x: Dual) -> Dual:
        y = derivative(n.primal, x.primal)
        dx = lift(x.primal, x.tangent, ndim(y))
        return Dual(y, fit(derivative(n.primal + 1, x.primal) * dx, y))
