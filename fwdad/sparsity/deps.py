"""Dependency sets: the tangent values of sparsity detection.

A `Deps` is the set of input positions a value depends on, as a bit mask. Arithmetic on
it is structural: `a + b`, `a - b`, `a * b` and `2.0 * a` are all the union, so a
cancellation (x - x) or a product with a zero never drops a dependency. A number in a
tangent array is the empty set (the zeros of constants).

    seeds((2,), 0)  ->  array([Deps{0}, Deps{1}], dtype=object)
"""
from __future__ import annotations

from typing import Any, Tuple

import numpy as np


class Deps:
    """The set of inputs a value depends on; arithmetic gives the union."""

    __slots__ = ("bits",)

    def __init__(self, bits: int) -> None:
        self.bits = bits

    def _union(self, other: Any) -> Any:
        if type(other) is Deps:
            return Deps(self.bits | other.bits)
        if isinstance(other, _NUMBERS):
            return self
        return NotImplemented  # (an array: NumPy broadcasts, item by item)

    __add__ = __radd__ = __sub__ = __rsub__ = _union
    __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _union
    __matmul__ = __rmatmul__ = __pow__ = __rpow__ = _union

    def _same(self) -> "Deps":
        return self

    __neg__ = __pos__ = __abs__ = conjugate = conj = _same

    @property
    def real(self) -> "Deps":
        return self

    @property
    def imag(self) -> "Deps":
        return self

    def __bool__(self) -> bool:
        return self.bits != 0

    def __float__(self) -> float:
        # A rule that turns a tangent into numbers cannot carry sets: it fails here and
        # its call falls back to the dense row (fwdad/sparsity/rules.py).
        raise TypeError("a dependency set is not a number")

    __complex__ = __int__ = __index__ = __float__

    def __repr__(self) -> str:
        return f"Deps{set(indices(self.bits, self.bits.bit_length()).tolist())}"


_NUMBERS = (int, float, complex, np.number, np.bool_)


def bits_of(value: Any) -> int:
    """The bit mask of a tangent item (0 for a number: the zero of a constant; the
    union of its items for an array held as an item)."""
    if type(value) is Deps:
        return value.bits
    if isinstance(value, np.ndarray):
        bits = 0
        for item in value.reshape(-1):
            bits |= bits_of(item)
        return bits
    return 0


def seeds(shape: Tuple[int, ...], offset: int) -> Any:
    """Each item of an input of this shape depends on itself: inputs offset, offset+1,
    ... in C order. A scalar input gets one `Deps`."""
    size = int(np.prod(shape, dtype=np.int64))
    items = np.empty(size, dtype=object)
    items[:] = [Deps(1 << (offset + i)) for i in range(size)]
    return items.reshape(shape) if shape else items[0]


def full(shape: Tuple[int, ...], every: Deps) -> Any:
    """A tangent of this shape whose every item depends on `every` (the dense row)."""
    if not shape:
        return every
    out = np.empty(shape, dtype=object)
    out.fill(every)
    return out


def indices(bits: int, size: int) -> np.ndarray:
    """The positions of the set bits of `bits` below `size`, ascending."""
    if bits.bit_count() <= _FEW:  # (a sparse row: one step per bit, not per column)
        found = []
        while bits:
            low = bits & -bits
            found.append(low.bit_length() - 1)
            bits ^= low
        return np.array(found, dtype=np.int64)
    raw = np.frombuffer(bits.to_bytes((size + 7) // 8, "little"), dtype=np.uint8)
    return np.flatnonzero(np.unpackbits(raw, bitorder="little")[:size])


_FEW = 64
