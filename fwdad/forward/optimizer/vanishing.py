"""Which tangents of an optimized rule may be NoTangent at run time, and why.

    k = n * A        n an int argument: dk = dn * A is NoTangent, and k an int array
    y = x + k        dy = dx + dk is then dx itself: the scalar tangent of an array,
                     and the very object dx (which a later `x[0] = 1.0` would change)

A template's tangent is NoTangent exactly when the tangents of all its operands that
have one are (NoTangent absorbs products and is the zero of sums); every other line (a
call, a nondiff call, an unpacking, a loop, a statement the optimizer does not know) may
give one whatever the arguments are (an int result), but for a call whose result the
kinds say holds floats (a Dual of floats has a real zero: fwdad/dual.py). An argument's
tangent is NoTangent when the caller passes an int (or a string, None, ...).

Input: the Lines of forward/optimizer/activity.py and the kinds of the locals. Output: for each
local, the set of its causes: the parameters whose having no tangent may make its tangent
NoTangent, and ALWAYS when other values may. A least fixpoint over the lines (loops need
no special care). forward/optimizer/optimize.py specializes the rule on the parameters that
matter (forward/routes.py) and makes the lines that still need it keep the shape.
"""
from __future__ import annotations

from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Set

from fwdad.forward.optimizer.activity import PLAIN, SPLIT
from fwdad.forward.optimizer.kinds import OTHER, Kind
from fwdad.forward.optimizer.lines import Atom, Line

ALWAYS = ""  # the cause of a NoTangent that no argument explains
_NONE: FrozenSet[str] = frozenset()
_ALWAYS = frozenset({ALWAYS})


def causes(lines: Iterable[Line], kinds: Dict[str, str], params: Set[str],
           without_tangent: Set[str], extra: Set[str],
           floats: Set[str] = frozenset(),
           passes: Optional[Callable[[Line], bool]] = None,
           value_kinds: Optional[Dict[str, Kind]] = None) -> Dict[str, FrozenSet[str]]:
    """local -> its causes (see the module docstring); locals whose tangent always
    exists are left out. `without_tangent`: the parameters the rule is specialized for
    as having no tangent; `extra`: *args and **kwargs, whose items are not checked;
    `floats`: parameters without tangent that are Python floats (a copy of one gets
    the real zero 0.0, as a copy of a float literal does); `passes`: the calls whose
    tangent is NoTangent only where their first operand's is (a slice of an array:
    forward/optimizer/array_lines.py); `value_kinds`: the kinds of the locals, where
    known (kind_flow.py): an update of a split float array leaves it a tangent
    (optimizer/updates.py makes a zero one first where it has none)."""
    out: Dict[str, FrozenSet[str]] = {}
    for name in params:
        if kinds.get(name, PLAIN) != PLAIN:
            out[name] = _ALWAYS if name in without_tangent or name in extra \
                else frozenset({name})
    rows = _rows(lines, kinds)
    changed = True
    while changed:
        changed = False
        for line, target in rows:
            if passes is not None and passes(line):
                new = out.get(line.args[0][0].name, _NONE) if is_active(
                    line.args[0][0], kinds) else _ALWAYS
            elif line.kind == "update" and kinds.get(target) == SPLIT and \
                    (value_kinds or {}).get(target, OTHER)[0] == "array":
                new = _NONE
            elif line.kind not in ("template", "copy") and _floats(value_kinds, target):
                new = _NONE  # (a Dual of floats holds a real zero, never NoTangent)
            else:
                new = _of_line(line, target, kinds, out, floats)
            old = out.get(target, _NONE)
            if new and not new <= old:
                out[target] = old | new
                changed = True
    return out


def _floats(value_kinds: Optional[Dict[str, Kind]], name: str) -> bool:
    """Whether `name` always holds a float, a NumPy float or a float array: the result of
    a call (a Dual, whose constructor turns a NoTangent into a real zero: fwdad/dual.py)
    then always has a tangent."""
    kind = (value_kinds or {}).get(name, OTHER)
    return kind[0] in ("float", "npfloat", "array")


def _rows(lines: Iterable[Line], kinds: Dict[str, str]) -> List[tuple]:
    """(line, target) for each local with a tangent that a line assigns; `x, y = a, b`
    gives two copies, and the locals an unknown statement mentions are its targets."""
    rows = []
    for line in lines:
        if line.kind == "copies":
            rows.extend((Line("copy", line.node, [t], [arg]), t)
                        for t, arg in zip(line.targets, line.args))
        elif line.kind == "unknown":
            rows.extend((line, name) for name in line.opaque.mentioned)
        else:
            rows.extend((line, t) for t in line.targets)
    return [(line, t) for line, t in rows if kinds.get(t, PLAIN) != PLAIN]


def _of_line(line: Line, target: str, kinds: Dict[str, str],
             known: Dict[str, FrozenSet[str]], floats: Set[str]) -> FrozenSet[str]:
    if line.kind == "template":
        active = [a for a in line.operands if is_active(a, kinds)]
        if not active:
            return _ALWAYS  # a tangent that is zero whatever the inputs: NoTangent
        if not all(a.name in known for a in active):
            return _NONE
        found = frozenset().union(*(known[a.name] for a in active))
        if not all(ALWAYS in known[a.name] for a in active):
            found = found - _ALWAYS
        return found
    if line.kind == "copy":
        atom = line.operands[0]
        if is_active(atom, kinds):
            return known.get(atom.name, _NONE)
        return _NONE if atom.name in floats or _float_literal(atom) else _ALWAYS
    return _ALWAYS


def _float_literal(atom: Atom) -> bool:
    """A constant whose tangent is the float 0.0 (optimize.py copies that zero)."""
    return atom.kind == "const" and type(getattr(atom.value, "tangent", None)) is float


def is_active(atom: Atom, kinds: Dict[str, str]) -> bool:
    return atom.kind == "local" and kinds.get(atom.name, PLAIN) != PLAIN
