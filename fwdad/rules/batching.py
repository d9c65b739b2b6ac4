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


def batch_size(primal: Any, tangent: Any) -> Optional[int]:
    """The number of tangents in a batch, or None for a single tangent."""
    return np.shape(tangent)[0] if is_batched(primal, tangent) else None


def map_batch(fn: Any, primal: Any, tangent: Any) -> Any:
    """`fn(tangent)` for a linear `fn` of one array, applied to each tangent of a batch
    (and the results stacked on a leading axis) when the tangent is batched."""
    from fwdad.tangents import NoTangent
    if tangent is NoTangent:
        return NoTangent
    if not is_batched(primal, tangent):
        return fn(tangent)
    return np.stack([fn(t) for t in tangent])


def dense(primal: Any, tangent: Any, size: Optional[int] = None) -> Any:
    """The tangent as an array (zeros for NoTangent), with a batch axis of `size` when
    `size` is not None (an unbatched tangent is repeated along it)."""
    from fwdad.tangents import NoTangent
    if tangent is NoTangent:
        tangent = np.zeros(np.shape(primal))
    if size is None or is_batched(primal, tangent):
        return tangent
    return np.broadcast_to(tangent, (size,) + np.shape(tangent))


def common_batch(primals: Any, tangents: Any) -> Optional[int]:
    """The batch size of the first batched tangent among several, or None."""
    for p, t in zip(primals, tangents):
        if is_batched(p, t):
            return np.shape(t)[0]
    return None


def map_batch_many(fn: Any, primals: Any, tangents: Any) -> Any:
    """`fn(list of tangents)` for a function linear in a list of arrays (concatenate,
    stack ...): the NoTangents become zeros, and a batch is mapped item by item."""
    size = common_batch(primals, tangents)
    full = [dense(p, t, size) for p, t in zip(primals, tangents)]
    if size is None:
        return fn(full)
    return np.stack([fn([t[b] for t in full]) for b in range(size)])


def fit(tangent: Any, out: Any) -> Any:
    """The tangent shaped and typed like the result `out`: broadcast to its shape (a
    batch axis stays in front) and cast to its float dtype; NoTangent when `out` holds
    no floats."""
    from fwdad.tangents import NoTangent
    kind = np.asarray(out).dtype.kind
    if tangent is NoTangent or kind not in "fc":
        return NoTangent
    shape = np.shape(out)
    if np.ndim(tangent) > len(shape):
        shape = np.shape(tangent)[:1] + shape
    if np.shape(tangent) != shape:
        tangent = np.broadcast_to(tangent, shape).copy()
    if isinstance(out, np.ndarray) or np.ndim(tangent) > 0:
        return np.asarray(tangent, dtype=np.asarray(out).dtype)
    return type(out)(tangent)  # a scalar result: a tangent of its own type


def assign(target: Any, index: Any, primal: Any, tangent: Any) -> None:
    """`target.tangent[index] = tangent` for a Dual `target` holding an array, where
    `tangent` (of the value `primal`) broadcasts into the target as the value does.

    A batched tangent written into an unbatched one (an array made inside the function,
    whose zero tangent has no batch axis) first gives the target a batched tangent.
    Note: views taken of the target before that point keep the old, unbatched tangent.
    """
    from fwdad.tangents import NoTangent
    base = target.tangent
    if base is NoTangent:
        return
    part = np.shape(target.primal[index])
    dv = 0.0 if tangent is NoTangent else lift(primal, tangent, len(part))
    if is_batched(primal, tangent) and not is_batched(target.primal, base):
        base = target.tangent = np.repeat(base[None], np.shape(tangent)[0], axis=0)
    if is_batched(target.primal, base) and batch_position(index) and np.ndim(dv):
        dv = np.moveaxis(np.broadcast_to(dv, base.shape[:1] + part), 0, batch_position(index))
    base[tangent_index(target.primal, base, index)] = dv


def batch_position(index: Any) -> int:
    """Where the batch axis lands in `tangent[(slice(None),) + index]`: in front, except
    after the axes of advanced indices that stand apart (`x[i, :, j]` puts those first)."""
    if not isinstance(index, tuple):
        return 0
    arrays = [isinstance(i, (np.ndarray, list)) for i in index]
    advanced = [k for k, i in enumerate(index) if arrays[k] or (
        any(arrays) and isinstance(i, (int, np.integer)) and not isinstance(i, bool))]
    if not advanced or advanced[-1] - advanced[0] + 1 == len(advanced):
        return 0  # together: their axes stay where they are
    shapes = [(1,) if np.asarray(index[k]).dtype == bool else np.shape(index[k])
              for k in advanced]
    return len(np.broadcast_shapes(*shapes))
