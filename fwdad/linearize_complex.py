"""`lin.T` of a linearization with complex arguments, outputs or intermediates: the
pullback of reverse mode (fwdad.vjp), recorded once at the linearization point, so that
lin.T is the transpose of lin for the pairing Re(sum(ct * t)) of docs/complex.md and
agrees with vjp by construction.

    out, lin = linearize(f, z)     (z complex)
    lin.T(ct)  ==  vjp(f, z)[1](ct)

Note: the recorded tangent program (fwdad/transposition.py) is not run backwards here:
its transpose rules are written for real values, and a complex function is in general
only real-linear (np.conj, np.real), which a complex Jacobian cannot represent either.
Reverse mode's rules are checked for complex values (its complex_ready rules) and
refuse the others by name.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from fwdad import seeds


class ComplexTranspose:
    """The pullback of f at primals, made on the first call (f runs once in reverse
    mode, on copies of the primals) and kept for the next ones."""

    def __init__(self, f: Callable[..., Any], primals: Sequence[Any]) -> None:
        self.f, self.primals = f, tuple(primals)
        self._pullback: Any = None

    def __call__(self, cotangent: Any, batch: tuple[int, ...]) -> tuple[Any, ...]:
        """The cotangents of the arguments; with a leading batch axis on the cotangent's
        leaves (`batch`, its size), one pullback each, stacked."""
        if self._pullback is None:
            from fwdad.api_checks import copied
            from fwdad.reverse.api import vjp
            _, self._pullback = vjp(self.f, *[copied(p) for p in self.primals])
        if not batch:
            return tuple(self._pullback(cotangent))
        from fwdad.tangents import stack
        rows = [tuple(self._pullback(seeds.tree_map(lambda c: np.asarray(c)[b], cotangent)))
                for b in range(batch[0])]
        stacked: tuple[Any, ...] = stack(rows)
        return stacked
