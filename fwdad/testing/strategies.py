"""Hypothesis strategies for rule tests: floats and float arrays inside a domain, and
shapes (alone, or in broadcastable pairs).

A `Domain` is a closed interval kept away from the points where a function or its
derivative blows up, so that central finite differences (step 1e-6) stay inside it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

Shape = Tuple[int, ...]


@dataclass(frozen=True)
class Domain:
    """The values `low <= x <= high`; with `either_sign`, also their negatives (so a
    domain can leave out a neighbourhood of 0, as NONZERO does)."""

    name: str
    low: float
    high: float
    either_sign: bool = False

    def __str__(self) -> str:
        return self.name


REAL = Domain("REAL", -4.0, 4.0)
POSITIVE = Domain("POSITIVE", 0.1, 4.0)                       # log, sqrt, x ** y
NONZERO = Domain("NONZERO", 0.1, 4.0, either_sign=True)       # 1 / x, abs, sign
UNIT_OPEN = Domain("UNIT_OPEN", -0.9, 0.9)                    # (-1, 1): arcsin, atanh
ABOVE_ONE = Domain("ABOVE_ONE", 1.1, 4.0)                     # acosh
ABOVE_MINUS_ONE = Domain("ABOVE_MINUS_ONE", -0.9, 4.0)        # log1p
TAN_PERIOD = Domain("TAN_PERIOD", -1.4, 1.4)                  # tan, away from its poles
GAMMA_POSITIVE = Domain("GAMMA_POSITIVE", 0.2, 6.0)           # gamma, lgamma
FRACTION = Domain("FRACTION", 0.1, 0.9)                       # x in x % y, y in (1, 2)
DIVISOR = Domain("DIVISOR", 1.1, 1.9)                         # so x / y is never whole


def values_in(domain: Domain, shape: Optional[Shape] = None) -> st.SearchStrategy:
    """Floats in `domain`: a Python float when `shape` is None, else a float64 array
    of that shape (`()` gives a 0-d array)."""
    magnitude = st.floats(domain.low, domain.high, allow_nan=False, allow_infinity=False)
    element = magnitude if not domain.either_sign else st.builds(
        lambda x, negative: -x if negative else x, magnitude, st.booleans())
    if shape is None:
        return element
    return hnp.arrays(np.float64, shape, elements=element)


def shapes(min_side: int = 1) -> st.SearchStrategy:
    """None (a Python float) or a small array shape with 0 to 3 axes (`min_side=0`:
    empty arrays too)."""
    return st.none() | array_shapes(min_side=min_side)


def array_shapes(min_dims: int = 0, max_dims: int = 3, min_side: int = 1,
                 max_side: int = 3) -> st.SearchStrategy:
    """Array shapes only (0-d included unless min_dims > 0)."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side,
                            max_side=max_side)


def distinct_values_in(domain: Domain, shape: Shape) -> st.SearchStrategy:
    """A float64 array of `shape` whose entries differ from each other by at least
    0.01 (no ties for max, sort or median, even after a finite-difference step)."""
    size = int(np.prod(shape))
    span = domain.high - domain.low
    slots = st.lists(st.integers(0, int(span * 100)), min_size=size, max_size=size,
                     unique=True)
    return slots.map(lambda s: (domain.low + np.array(s, dtype=float) / 100.0)
                     .reshape(shape))


def axes_of(ndim: int) -> st.SearchStrategy:
    """An `axis` argument for an array of `ndim` axes: None, an int (maybe negative) or a
    tuple of distinct axes."""
    if ndim == 0:
        return st.none()
    single = st.integers(-ndim, ndim - 1)
    several = st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim,
                       unique=True).map(tuple)
    return st.none() | single | several


def broadcastable_shapes(min_side: int = 1) -> st.SearchStrategy:
    """Pairs of shapes that broadcast together, 0 to 3 axes each (empty ones too with
    `min_side=0`); None stands for a Python float."""
    pairs = hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                              min_side=min_side, max_side=3)
    scalar_and_shape = shapes(min_side).map(lambda shape: (None, shape))
    return pairs.map(lambda shapes_: shapes_.input_shapes) | scalar_and_shape | \
        scalar_and_shape.map(lambda pair: pair[::-1])


def scalars_or_arrays(domain: Domain, min_side: int = 1) -> st.SearchStrategy:
    """A float or a small float array (0-d included; empty with `min_side=0`) in
    `domain`."""
    return shapes(min_side).flatmap(lambda shape: values_in(domain, shape))
