"""The lines of a reverse schedule, the constants they name, and the adjoints.

`Writer` collects a schedule's forward lines, its backward lines (last step first)
and the constants both bind (`_fw_` names). A cotangent added into an array variable
is an `Add`, turned into a line once the order the lines run in is known: the first one
makes the variable's adjoint (as VarMat.add_adjoint does), the others add into it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Dict, List

import numpy as np

from fwdad.forward.schedule.record import Fallback
from fwdad.probe import probe
from fwdad.reverse.adjoints import unbroadcast
from fwdad.reverse_schedules.record import ReverseRecorder


class Writer:
    """The lines of a schedule and the constants they name."""

    def __init__(self, rec: ReverseRecorder) -> None:
        self.rec = rec
        self.constants: Dict[str, Any] = {}
        self._names: Dict[int, str] = {}
        self.forward: List[str] = []
        self.backward: List[Any] = []   # lines and Adds, last step first
        self.prologue: List[str] = []   # adjoint buffers, in the order of the steps
        self.writes = 0
        self.reached: set = set()
        self.c_layout = all(rec.values[r].value.flags.c_contiguous for r, shape in
                            rec.shapes.items() if shape is not None)
        self.used: set = set()

    def bind(self, value: Any, hint: str = "") -> str:
        name = self._names.get(id(value))
        if name is None:
            hint = hint or probe(value, "__name__") or "k"
            base = "_fw_" + "".join(c for c in hint if c.isalnum() or c == "_")
            name, count = base, 1
            while name in self.constants:
                count += 1
                name = f"{base}_{count}"
            self._names[id(value)], self.constants[name] = name, value
        return name

    def atom(self, arg: Any) -> str:
        if isinstance(arg, str):
            return arg
        value = arg.value
        if type(value) in (int, bool, type(None)) or (type(value) is float and
                                                      math.isfinite(value)):
            return repr(value)
        if type(value) is str and len(value) < 40:
            return repr(value)
        return self.bind(value, probe(value, "__name__") or "k")

    def call(self, callee: Any, args: List[Any], kwargs: Dict[str, Any]) -> str:
        inner = [self.atom(a) for a in args] + [f"{k}={self.atom(v)}"
                                                for k, v in kwargs.items()]
        name = probe(callee, "__name__") or type(callee).__name__
        return f"{self.bind(callee, name)}({', '.join(inner)})"

    def fail(self, test: str) -> None:
        self.forward += [f"if {test}:", f"    raise {self.bind(Fallback, 'Fallback')}"]

    # ---- adjoints -------------------------------------------------------------------
    def accumulate(self, ref: Any, expr: str, shape: Any) -> None:
        """`ct_ref += expr`, as adjoints.accumulate adds a cotangent of `shape` (None for
        a number) into the variable `ref`."""
        if not self.rec.is_variable(ref):
            return
        own = self.rec.shapes[ref]
        if own is None and shape is None:
            self.backward.append(f"ct_{ref} += {expr}")
        elif own is None:
            self.backward.append(f"ct_{ref} = {self.bind(add_to_scalar)}(ct_{ref}, {expr})")
        else:
            self.backward.append(Add(ref, expr, "same" if shape == own else "any"))

    def fill(self, ref: str, expr: str) -> None:
        """`ct_ref += expr` for a scalar expr spread over the array variable `ref`."""
        self.backward.append(Add(ref, expr, "fill"))

    def lines(self, preallocated: set) -> List[str]:
        """The backward lines in the order they run: the first cotangent an array
        variable gets is its adjoint (as VarMat.add_adjoint makes it), unless the
        adjoint must exist before (a view's base, an argument, a write's target)."""
        made, out = set(preallocated), []
        for item in reversed(self.backward):
            if type(item) is not Add:
                out.append(item)
                continue
            name = f"ct_{item.ref}"
            if item.ref in made:
                out.append(f"{name} += {item.expr}" if item.kind != "any" else
                           f"{self.bind(add_to_array)}({name}, {item.expr})")
                continue
            made.add(item.ref)
            out.append(f"{name} = {self.first(item)}")
        return out

    def first(self, item: "Add") -> str:
        """The expression of an array variable's adjoint made by its first cotangent.
        Laid out as the value is (C order when every array of the run was, which the
        signature fixes): a sum over an adjoint adds in the order the tape's does."""
        value = item.ref
        if self.c_layout and item.kind == "fill":
            return f"{self.bind(np.full, 'full')}({self.rec.shapes[value]!r}, {item.expr})"
        if self.c_layout and item.kind == "same":  # (another's adjoint is copied)
            return f"{item.expr}.copy()" if item.expr.isidentifier() else item.expr
        if item.kind == "fill":
            return f"{self.bind(np.full_like, 'full_like')}({value}, {item.expr}, " \
                   f"dtype=float)"
        return f"{self.bind(first_array)}({item.expr}, {value})"


@dataclass
class Add:
    """One cotangent added into an array variable's adjoint."""
    ref: str
    expr: str
    kind: str  # "same": an array of the variable's shape; "fill": a number spread over
    # it; "any": a thunk, None, or a cotangent to sum over broadcast axes


def first_array(ct: Any, value: np.ndarray) -> np.ndarray:
    """The adjoint made by the first cotangent (VarMat.add_adjoint): laid out as the
    value; zeros for None."""
    ct = ct() if callable(ct) else ct
    out = np.empty_like(value, dtype=float)
    out[...] = 0.0 if ct is None else _real(unbroadcast(ct, value.shape))
    return out


def _real(ct: Any) -> Any:
    """The real part of a complex cotangent of a real array (adjoints.accumulate's)."""
    return np.real(ct) if np.iscomplexobj(ct) else ct


def add_to_scalar(total: Any, ct: Any) -> Any:
    """What accumulate adds into a scalar Var's adjoint (a thunk called, None ignored)."""
    ct = ct() if callable(ct) else ct
    if ct is None:
        return total
    if type(ct) is float:
        return total + ct
    ct_sum = np.sum(ct)
    return total + float(ct_sum) if type(ct_sum) is np.float64 else \
        total + float(np.real(ct_sum))


def add_to_array(buffer: np.ndarray, ct: Any) -> None:
    """What accumulate adds into a VarMat's adjoint, in place (a thunk called)."""
    ct = ct() if callable(ct) else ct
    if ct is not None:
        buffer += _real(unbroadcast(ct, buffer.shape))
