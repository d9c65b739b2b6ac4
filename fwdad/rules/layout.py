"""Tangents laid out in memory as their values are.

Whether a reshape or ravel is a view or a copy depends on the memory layout of the
array, and a write through a view reaches the array it views. A tangent must follow its
value: a view where the value's reshape is a view, a copy where it is a copy. So an
array made in some order (np.asfortranarray, copy(order="F"), zeros(order="F"), an
F-ordered argument) gets a tangent whose items are laid out the same way, with the batch
axis, when there is one, outermost:

    value   (2, 3) F-ordered           strides (8, 16)
    tangent (B, 2, 3), batch in front  strides (48, 8, 16)
"""
from __future__ import annotations

from typing import Any, Tuple

import numpy as np


def stride_order(a: np.ndarray) -> Tuple[int, ...]:
    """a's axes from the largest stride to the smallest (C order: 0, 1, ..., n-1)."""
    strides = a.strides
    return tuple(sorted(range(a.ndim), key=lambda k: -abs(strides[k])))


def _in_c_order(value: np.ndarray) -> bool:
    return value.flags.c_contiguous or stride_order(value) == tuple(range(value.ndim))


def follows(value: np.ndarray, tangent: np.ndarray) -> bool:
    """Whether `tangent` (batched or not) has items that a reshape can view wherever it
    can view `value`: their strides proportional to value's, or to those of value's
    shape laid out contiguously in value's order (axes of length 1 do not count)."""
    if value.flags.c_contiguous and tangent.flags.c_contiguous:
        return True
    items = tangent.strides[tangent.ndim - value.ndim:]
    return _proportional(items, value.strides, value.shape) or \
        _proportional(items, _contiguous_strides(value), value.shape)


def _contiguous_strides(value: np.ndarray) -> Tuple[int, ...]:
    """The strides of value's shape laid out contiguously in value's stride order."""
    strides, step = [0] * value.ndim, 1
    for k in reversed(stride_order(value)):
        strides[k], step = step, step * value.shape[k]
    return tuple(strides)


def _proportional(a: Tuple[int, ...], b: Tuple[int, ...], shape: Tuple[int, ...]) -> bool:
    """Whether a = c * b with c > 0, on the axes longer than 1."""
    pairs = [(x, y) for x, y, n in zip(a, b, shape) if n > 1]
    if not pairs:
        return True
    x0, y0 = max(pairs, key=lambda p: abs(p[1]))
    return y0 != 0 and x0 * y0 > 0 and all(x * y0 == y * x0 for x, y in pairs)


def laid_out_like(value: np.ndarray, tangent: Any, dtype: Any = None) -> Any:
    """A copy of `tangent` (of value's shape, a batch axis in front or not) whose items
    are laid out in value's order; of `dtype` (value's float dtype by default;
    dependency sets of fwdad/sparsity keep dtype object). Made of a transpose and a
    copy, so that a tangent linearize records (fwdad/recording.py) records them."""
    if dtype is None:
        dtype = object if tangent.dtype.kind == "O" else value.dtype
    if _in_c_order(value):
        return tangent.astype(dtype, order="C")
    lead = tuple(range(tangent.ndim - value.ndim))
    order = stride_order(value)
    back = tuple(order.index(k) for k in range(value.ndim))
    in_memory_order = tangent.transpose(lead + tuple(len(lead) + k for k in order))
    return in_memory_order.astype(dtype, order="C").transpose(
        lead + tuple(len(lead) + k for k in back))


def matched(value: Any, tangent: Any) -> Any:
    """`tangent` itself when it follows value's layout (or either is not an array);
    else a copy that does (a tangent given for an argument, seeds of a batch)."""
    if type(value) is not np.ndarray or type(tangent) is not np.ndarray or \
            value.ndim < 2 or follows(value, tangent):
        return tangent
    return laid_out_like(value, tangent, tangent.dtype)
