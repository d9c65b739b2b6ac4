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

A write through a whole part (`z.imag[...] = 0.0`, `np.real(z)[k] = v`) is the write
of the complex value it makes into z (`z[...] = z.real + 0j`, `z[k] = v + 1j *
z.imag[k]`), recorded as such (`write_through_part`), as `z.imag = v` is
(rules_python._set_part); through a view of a part (`z.imag[1:] *= 3.0`) it is still
refused (rules_arrays.read_only_write_error).
"""
from __future__ import annotations

import operator
from typing import Any, Iterator, List, Tuple

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
    return [(callback, out) for callback, out in _parts(region)
            if out is not x and np.may_share_memory(out.value, x.value)]


def _parts(region: Tape) -> Iterator[Tuple[Any, VarMat]]:
    """The callbacks and outputs of the parts of complex variables taken in `region`."""
    for at in region.parts or ():
        if at < len(region.chain):
            callback, out = region.chain[at]
            if type(out) is VarMat and not out.value.flags.writeable:
                yield callback, out


def write_through_part(x: VarMat, key: Any, v: Any) -> bool:
    """x[key] = v for x the real or imaginary part of a complex VarMat taken in this
    region: written into the complex value instead; False when x is no such part."""
    if not recording():
        return False
    region = current()
    for callback, out in _parts(region):
        if out is x:
            base = getattr(callback, "inputs", [(0, None)])[0][1]
            if type(base) is VarMat and base.shape == x.shape:
                real = x.value.ctypes.data == base.value.ctypes.data
                write_part(base, real, key, v)
                return True
    return False


def write_part(base: VarMat, real: bool, key: Any, v: Any) -> None:
    """base.real[key] = v (or base.imag[key] = v), as base[key] = the complex value."""
    from fwdad.reverse.registry import get_rrule  # (the rules import this module)
    from fwdad.reverse.rules_arrays import assign
    old = get_rrule(operator.getitem)(base, key)
    if real:
        other = get_rrule(operator.mul)(get_rrule(np.imag)(old), 1j)
    else:
        other, v = get_rrule(np.real)(old), get_rrule(operator.mul)(v, 1j)
    assign(base, key, get_rrule(operator.add)(v, other))


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
