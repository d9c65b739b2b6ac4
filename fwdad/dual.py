"""Dual(primal, tangent): the one boxed value of forward mode; nothing else."""
from __future__ import annotations

from typing import Any

from fwdad.tangents import NoTangent, zero_tangent


class Dual:
    """A primal value and its tangent.

    Invariant: `tangent` is a tangent of `primal` (see `fwdad.tangents`). A rule may
    compute the tangent of a float value as `NoTangent` (e.g. `math.sin(2)`); the
    constructor turns that symbolic zero into a real zero so that every float value has
    a real tangent, which in-place updates and views rely on.
    """

    __slots__ = ("primal", "tangent")

    def __init__(self, primal: Any, tangent: Any) -> None:
        self.primal = primal
        self.tangent = tangent if tangent is not NoTangent else zero_tangent(primal)

    def __repr__(self) -> str:
        return f"Dual({self.primal!r}, {self.tangent!r})"
