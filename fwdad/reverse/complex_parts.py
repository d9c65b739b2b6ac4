"""The real and imaginary parts of a complex variable read after a write into it.

`np.real(z)` and `np.imag(z)` of a complex VarMat are read-only views of its value with
adjoints of their own (rules_ufuncs._read_only_part: the imaginary part's adjoint is
minus a view of the complex one, which no array can share), passed to z's adjoint by the
part's callback, where the part was taken. A write into z after that changes what the
part holds, and what is read of it afterwards is of the new value: its adjoint must
reach z as z is after the write, not before it.

    r = z.real           callback 1: r's adjoint -> z's
    z[0] = w             callback 2: z[0]'s adjoint -> w; restore; callback 3 (here):
                         run callback 1 now and zero r's adjoint
    y = np.sum(r * x)    (r read after the write: its adjoint reaches z through 3)

So a write into a complex VarMat pushes, after its own callback, one for each part of
it taken before in the region (`forward_parts`). The regions note where such parts'
callbacks are (`note_part`), so that a write looks at them alone.
"""
from __future__ import annotations

from typing import Any, List

import numpy as np

from fwdad.reverse.tape import Tape, current, recording
from fwdad.reverse.var import VarMat


def note_part(part: np.ndarray) -> None:
    """A read-only part of a complex value is being made: its callback, if it is a
    variable's, is the next one the region records."""
    if recording():
        region = current()
        region.parts = (region.parts or []) + [len(region.chain)]


def forward_parts(region: Tape, x: VarMat) -> None:
    """Before a write into the complex VarMat x is recorded: push the callbacks that
    pass the adjoints of x's parts, taken before, on to x as it is after the write."""
    for chain in _parts_of(region, x):
        region.push(_Forward(chain))


def _parts_of(region: Tape, x: VarMat) -> List[Any]:
    found = []
    for at in region.parts or ():
        if at >= len(region.chain):
            continue
        callback, out = region.chain[at]
        if type(out) is VarMat and out is not x and not out.value.flags.writeable and \
                np.may_share_memory(out.value, x.value):
            found.append((callback, out))
    return found


class _Forward:
    """Run a part's callback now (its adjoint so far is of reads after the write), and
    zero the part's adjoint for the reads before it, which its own callback passes on."""

    __slots__ = ("callback", "part")

    def __init__(self, chain: tuple) -> None:
        self.callback, self.part = chain

    def __call__(self) -> None:
        if self.part.has_adjoint:
            self.callback()
            self.part.zero()
