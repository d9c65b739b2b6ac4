"""A function evaluated by one of two formulas on each element, by region: the
derivatives of np.sinc and scipy.special.exprel use a quadrature near 0, where their
closed forms cancel, and the closed forms elsewhere."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np


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
