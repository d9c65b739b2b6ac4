"""The Duals of one piece of state (a mutable default, a global or closure object written
by name) at the levels of a derivative that nests jvps (forward/defaults.py keeps them).

A level-k Dual carries k perturbations, the innermost one the jvp running deepest:

    level 1   Dual(G, t)                          t: the outer derivative of G
    level 2   Dual(Dual(G, a), Tangent(primal=t, tangent=b))
                                                  a: the inner one; b: across both

Code at level k (the function of a jvp called by code at level k - 1) sees the state as
the level-1 ... k-1 code left it, with a new inner perturbation of zero: `lifted`, whose
Dual shares the arrays, lists and structures of the level below, so that a write at
level k (`G[...] = v`) updates what level k - 1 sees, its outer part. When the jvp
returns, its perturbation is gone: `settle` gives the level below what the deeper Dual
holds without it (the same objects, unless a write replaced one), and the deeper Dual is
dropped, so that the next jvp starts from a zero inner perturbation again.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import created_tangent
from fwdad.tangents import Tangent, zero_tangent


def lifted(lower: Dual, level: int) -> Dual:
    """The Dual at `level` of the state whose Dual at `level - 1` is `lower`: a new
    innermost perturbation of zero, the others shared with `lower`. The new zeros in
    the outermost tangent are the running context's (batched in jacfwd), as a new
    array's are; the inner ones plain (nested calls are unbatched inside)."""
    plain = lower
    while isinstance(plain, Dual):
        plain = plain.primal
    return Dual(_lift(lower.primal, level - 2, plain),
                _lift_tangent(lower.tangent, level - 2, plain, True))


def _lift(value: Any, depth: int, plain: Any) -> Dual:
    """The lift of `value`, a Dual of `depth` (0: the plain value)."""
    if depth == 0:
        return Dual(value, zero_tangent(plain))
    return Dual(_lift(value.primal, depth - 1, plain),
                _lift_tangent(value.tangent, depth - 1, plain, False))


def _lift_tangent(tangent: Any, depth: int, plain: Any, outermost: bool) -> Tangent:
    """The tangent of the lift of a Dual of `depth` whose tangent is `tangent`: each
    plain tangent t in it becomes Tangent(primal=t, tangent=<a new zero>)."""
    if depth == 0:
        zero = zero_tangent(plain)
        return Tangent(primal=tangent, tangent=created_leaves(zero) if outermost else zero)
    return Tangent(primal=_lift_tangent(tangent.primal, depth - 1, plain, outermost),
                   tangent=_lift_tangent(tangent.tangent, depth - 1, plain, outermost))


def settle(lower: Dual, deeper: Dual, level: int) -> None:
    """`lower`, the Dual at `level - 1`, gets what `deeper`, its lift at `level`, holds
    with the innermost perturbation dropped (in place: code may hold `lower`)."""
    if level == 2:
        lower.tangent = _outer(deeper.tangent, lower.tangent)
        return
    settle(lower.primal, deeper.primal, level - 1)
    lower.tangent = _settled_tangent(lower.tangent, deeper.tangent, level - 2)


def _settled_tangent(lower: Any, deeper: Any, depth: int) -> Any:
    """`lower`, the tangent of a Dual of `depth`, from `deeper`, that of its lift."""
    if depth == 0:
        return _outer(deeper, lower)
    if type(lower) is not Tangent or type(deeper) is not Tangent:
        return lower
    lower.primal = _settled_tangent(lower.primal, deeper.primal, depth - 1)
    lower.tangent = _settled_tangent(lower.tangent, deeper.tangent, depth - 1)
    return lower


def _outer(tangent: Any, otherwise: Any) -> Any:
    """The part of a lift's tangent without the innermost perturbation."""
    return tangent.primal if type(tangent) is Tangent and hasattr(tangent, "primal") \
        else otherwise


def created_leaves(zero: Any, seen: Optional[set] = None) -> Any:
    """A zero tangent whose float arrays (items, fields) are the running context's, as
    a new array's are: a batched write into one (`BOX.a[0] = w[0]` in jacfwd) could not
    widen it where the container's tangent holds it (rules/widening.py). Changed in
    place, but for a top-level array."""
    if type(zero) is np.ndarray:
        return created_tangent(zero)
    seen = set() if seen is None else seen
    if id(zero) in seen:
        return zero
    seen.add(id(zero))
    if type(zero) is list:
        zero[:] = [created_leaves(t, seen) for t in zero]
    elif type(zero) is dict:
        zero.update({k: created_leaves(t, seen) for k, t in zero.items()})
    elif type(zero) is Tangent:
        fields = vars(zero)
        fields.update({k: created_leaves(t, seen) for k, t in fields.items()})
    return zero
