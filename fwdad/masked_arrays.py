"""Masked arrays (numpy.ma) are refused where a derivative would meet one.

NumPy's masked operations leave the masked entries out; the rules, written for plain
arrays, do not, so a derivative through a masked array counts entries its value leaves
out. An argument (`refuse_masked_arguments`), a value whose zero tangent is made
(tangents.zero_tangent), and a global or closure variable a derived rule reads
(`refuse_masked_globals`, when the rule is built) are refused with
errors.masked_array_error.

Note: a global rebound to a masked array after the rule was built is not seen here;
its zero tangent refuses it where a rule makes one, but an optimized rule reads globals
as plain values.
"""
from __future__ import annotations

import dis
import types
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from fwdad.dual import Dual
from fwdad.errors import describe, location_of, masked_array_error
from fwdad.source import FunctionSource


def is_masked_float(x: Any) -> bool:
    return isinstance(x, np.ma.MaskedArray) and x.dtype.kind in "fc"


def refuse_masked_arguments(f: Callable[..., Any], duals: Sequence[Dual]) -> None:
    for i, d in enumerate(duals):
        if is_masked_float(d.primal):
            raise masked_array_error(d.primal, f"argument {i} of {describe(f)}")


def refuse_masked_globals(src: FunctionSource) -> None:
    """The globals and closure variables the function reads, at the rule's build."""
    code = src.fn.__code__
    for name in _all_names(code):  # (attribute names too: cheap, and rarely a global's)
        value = src.globals.get(name)
        if is_masked_float(value) and name in set(_names(code)):
            raise masked_array_error(value, f"global {name!r} read by {_named(src)}")
    for name, cell in src.cells.items():
        value = getattr(cell, "cell_contents", None)
        if is_masked_float(value):
            raise masked_array_error(value, f"closure variable {name!r} read by "
                                            f"{_named(src)}")


def _named(src: FunctionSource) -> str:
    return f"{describe(src.fn)} ({location_of(src.fn)})"


def _all_names(code: types.CodeType) -> Iterator[str]:
    """The names code and the code nested in it use: globals and attributes."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _all_names(const)


def _names(code: types.CodeType) -> Iterator[str]:
    """The globals code reads, and the code nested in it (not its attribute names)."""
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            yield instruction.argval
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)
