"""Call lines with no active operand: the primal call alone, no rule and no zero tangent.

    a = _fw_getitem(_fw_const(c), _fw_0).primal        ->  a = c[0]
    w = _fw_hanning(_fw_const(n)).primal               ->  w = _fw_np_hanning(n)

A line qualifies when its callee is a registered rule's function or has no rule
(forward/constant_calls.MissingRule), its target is plain (activity.py), and each
operand is provably data (forward/constant_calls.py) wherever the line runs: a
constant that is data, or a plain local whose kind (kind_flow.py, in a rule
specialized on its arguments' kinds) is a number, a float array, a shape, a slice or a
list or tuple of those. A global read live, or a plain local of unknown kind, may hold
a callable or an instance through which the callee reaches a Dual: those lines keep
their rule (which, with no rule, checks the same at run time).
"""
from __future__ import annotations

from typing import Any, Optional

from fwdad.forward.constant_calls import MissingRule, is_data, is_data_kind
from fwdad.forward.optimizer.activity import PLAIN
from fwdad.forward.optimizer.lines import Atom, Line


def primal_function(rw: Any, line: Line, target: Optional[str]) -> Any:
    """The function `line` calls, when it may be called on the primals alone (see the
    module docstring); else None."""
    if line.kind != "call" or target is None or rw.kinds.get(target) != PLAIN:
        return None
    if type(line.callee) is MissingRule:
        fn = line.callee.fn
    elif line.entry is not None and line.pure:
        fn = line.entry.primal
    else:
        return None
    if not all(_data(rw, atom) for atom, _ in line.args) or not all(
            name is not None and _data(rw, atom) for name, atom in line.keywords):
        return None
    return fn


def _data(rw: Any, atom: Atom) -> bool:
    if atom.kind == "const":
        return is_data(getattr(atom.value, "primal", atom.value))
    return atom.kind == "local" and rw.kinds[atom.name] == PLAIN and \
        is_data_kind(rw.value_kinds.get(atom.name))
