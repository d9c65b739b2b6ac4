"""Gives a new array a tangent of its own where a rule would pass an operand's through.

A rule that returns an operand's tangent array (or a view of it) as the tangent of a
new array is wrong as soon as the program updates the new array in place (`b = a + 0;
b += c`): the update writes into the operand's tangent too. A view of the operand
(`x.T`, `x[1:]`) shares its tangent on purpose: writing through it changes both. These
helpers copy only in the pass-through case; a tangent computed afresh is kept as it is.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad.errors import FwdadError, describe


def own(tangent: Any, *operands: Any) -> Any:
    """`tangent`, copied when it is one of the `operands`' tangents itself (`dx + dy`
    is dx when y has no tangent)."""
    if type(tangent) is np.ndarray:
        for operand in operands:
            if tangent is operand:
                return tangent.copy()
    return tangent


def own_unless_view(out: Any, x: Any, tangent: Any, dx: Any) -> Any:
    """The tangent of `out = f(x)`, computed as f(dx): copied when it shares dx's memory
    while `out` does not share x's (flatten copies a value, and a reshape may copy a
    value but view its tangent, whose batch axis or layout differs)."""
    copied_value = not (isinstance(out, np.ndarray) and isinstance(x, np.ndarray) and
                        _owner(out) is _owner(x))
    if type(tangent) is np.ndarray and type(dx) is np.ndarray and \
            _owner(tangent) is _owner(dx) and copied_value:
        return tangent.copy()
    if copied_value and _is_recorded(tangent):  # (linearize: the replayed tangent may be
        return tangent.copy()                   # laid out so that f(dx) is a view of dx)
    return tangent


def _is_recorded(tangent: Any) -> bool:
    if type(tangent) is np.ndarray:  # (the common case, asked without the import)
        return False
    from fwdad.recording import Linear  # (recording imports the rules' modules)
    return type(tangent) is Linear


def _owner(a: np.ndarray) -> Any:
    """What holds a's memory: a view's `base` is the array that owns it (NumPy points
    a view of a view at the owner too, except across subclasses: a view of an array
    subclass, such as sparsity detection's fwdad/sparsity/unknown.py, keeps the chain,
    which is followed here)."""
    owner = a
    while isinstance(owner, np.ndarray) and owner.base is not None:
        owner = owner.base
    return owner


def view_followed(fn: Any, out: Any, x: Any, tangent: Any, dx: Any) -> None:
    """Refuse `out = fn(x)` (a reshape, a ravel) when it is a view of x but its tangent
    is a copy of x's: the tangent is laid out in another order than the value
    (rules/layout.py), so a write through `out`, or into x, would reach the value but
    not its derivative."""
    if type(out) is np.ndarray and type(x) is np.ndarray and type(tangent) is np.ndarray \
            and type(dx) is np.ndarray and out.size > 1 and _owner(out) is _owner(x) \
            and _owner(tangent) is not _owner(dx):
        raise FwdadError(
            f"{describe(fn)} gives a view of an array whose derivative is laid out in "
            f"memory in another order (shape {x.shape}, strides {x.strides}), so the "
            f"derivative of the view would be a copy, and writes through it would be "
            f"lost. Make the array contiguous first (np.ascontiguousarray), or reshape "
            f"a copy (.copy()).")
