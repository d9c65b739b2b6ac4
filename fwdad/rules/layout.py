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
    """Whether `tangent` (batched or not) has its items laid out in value's order."""
    lead = tangent.ndim - value.ndim
    if _in_c_order(value):
        return tangent.flags.c_contiguous or \
            _item_order(tangent, lead) == tuple(range(value.ndim))
    return _item_order(tangent, lead) == stride_order(value)


def _item_order(tangent: np.ndarray, lead: int) -> Tuple[int, ...]:
    strides = tangent.strides[lead:]
    return tuple(sorted(range(len(strides)), key=lambda k: -abs(strides[k])))


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
