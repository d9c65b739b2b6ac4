"""Shared helpers for the leading batch axis of tangents.

A tangent is batched when it has one more axis than its primal. Rules call these
helpers instead of special-casing that axis themselves.
"""
from __future__ import annotations

from typing import Any, Iterator, Optional, Tuple, Union

import numpy as np

Axis = Optional[Union[int, Tuple[int, ...]]]


def is_batched(primal: Any, tangent: Any) -> bool:
    """True when `tangent` carries a leading batch axis."""
    return np.ndim(tangent) == np.ndim(primal) + 1


def tangent_axis(primal: Any, tangent: Any, axis: Axis) -> Axis:
    """The axis of `tangent` that corresponds to `axis` of `primal`.

    `None` (all axes) becomes every axis but the batch axis."""
    if not is_batched(primal, tangent):
        return axis
    ndim = np.ndim(primal)
    if axis is None:
        return tuple(range(1, ndim + 1))
    if isinstance(axis, tuple):
        return tuple(a % ndim + 1 for a in axis)
    return axis % ndim + 1


def tangent_index(primal: Any, tangent: Any, index: Any) -> Any:
    """The index into `tangent` that selects what `index` selects from `primal`."""
    if not is_batched(primal, tangent):
        return index
    if not isinstance(index, tuple):
        index = (index,)
    return (slice(None),) + index


def iterate_tangent(primal: np.ndarray, tangent: Any) -> Iterator[Any]:
    """The tangents of `primal[0], primal[1], ...` (iteration over the first axis)."""
    if is_batched(primal, tangent):
        return (tangent[:, i] for i in range(len(primal)))
    return iter(tangent)


def move_batch_last(primal: Any, tangent: Any) -> Any:
    """The tangent with its batch axis moved to the end (for matrix products)."""
    return np.moveaxis(tangent, 0, -1) if is_batched(primal, tangent) else tangent


def lift(primal: Any, tangent: Any, out_ndim: int) -> Any:
    """A batched tangent, reshaped so that it broadcasts against a result of `out_ndim`
    axes as its primal does (NumPy aligns shapes on the right; the batch axis is left).
    Unbatched tangents and scalars come back unchanged."""
    if type(tangent) is float or np.ndim(tangent) <= np.ndim(primal) \
            or np.ndim(primal) >= out_ndim:
        return tangent
    extra = out_ndim - np.ndim(primal)
    return tangent.reshape(tangent.shape[:1] + (1,) * extra + tangent.shape[1:])
