"""Which operands of a NumPy function's template may be a list or a tuple.

NumPy reads `np.add([a, b], [c, d])` as the sum of two arrays, but a template spells
its tangent with Python's operators on the operands' tangents: on two lists, `da + dc`
would concatenate them. So a template of a NumPy function is inlined only where each
operand is known not to hold a sequence; elsewhere the line calls the rule, which
makes arrays of lists first (rules/array_like.py).

    y = np.sin(x)          x a parameter: checked on entry (the rule's guard)
    z = np.add(y, 2.0)     y the result of a NumPy function: never a sequence
    v = [y, 1.0]           built as a list
    w = np.multiply(v, z)  v may be a sequence: the rule is called

A local is *free* of sequences when every line that assigns it gives an array or a
number: a template (a NumPy function's result is an array or a NumPy scalar; `-`, `/`,
`@`, `**` and the other operators raise on a list), but `+` and `*` (which concatenate
and repeat lists) only of free operands; or a copy of a free local. Named parameters
count as free in a rule with a guard: `checked_params` names those the guard tests,
the ones that reach a NumPy template's operand through copies and operators'
templates (`p + q` of two lists is a list), and a call with a list or tuple among
them runs the plain rule. `*args` is a tuple, and a variant with no guard checks
nothing: their parameters are not free.

An operator's template is kept from the lists the rule builds (`x * [a, 2, b]`:
`built`), whose tangents hold NoTangent for an int item: the rule reads the list as the
array NumPy makes of it, with a tangent of floats.
"""
from __future__ import annotations

import operator
from typing import Dict, Iterator, List, Set, Tuple

from fwdad import lang
from fwdad.forward.optimizer.lines import Atom, Line
from fwdad.rules.array_like import SEQUENCES, reads_lists_as_arrays

# Operators whose result may be a list or tuple: `a + b` concatenates, `a * 2` repeats.
_PASS_SEQUENCES = frozenset({operator.add, operator.mul, operator.iadd, operator.imul,
                             operator.concat, operator.iconcat})
_BUILDS = frozenset({lang.build_list, lang.build_tuple, list, tuple})


def reads_arrays(line: Line) -> bool:
    """Whether `line` is a template of a NumPy function that returns one value."""
    fn = getattr(line.entry, "primal", None)
    return line.kind == "template" and reads_lists_as_arrays(fn) and \
        getattr(fn, "nout", 1) == 1


def unfree_locals(lines: List[Line], unchecked: Set[str]) -> Set[str]:
    """The locals that may hold a list or tuple (see the module docstring); the
    parameters `unchecked` may on entry."""
    defs: Dict[str, List[Tuple[str, List[Atom]]]] = {}
    for target, how, operands in _assignments(lines):
        defs.setdefault(target, []).append((how, operands))
    unfree: Set[str] = set(unchecked)
    changed = True
    while changed:  # (a local only ever joins: this ends)
        changed = False
        for name, assigned in defs.items():
            if name not in unfree and not all(
                    how == "array" or how == "same" and all(free(a, unfree) for a in operands)
                    for how, operands in assigned):
                unfree.add(name)
                changed = True
    return unfree


def _assignments(lines: List[Line]) -> Iterator[Tuple[str, str, List[Atom]]]:
    """(target, how, operands) for each local each line assigns: "array" (a NumPy
    function's result), "same" (free when its operands are: a copy, an operator's
    template) or "any"."""
    for line in lines:
        if line.kind == "copies":  # a, b = x, y
            for target, (atom, _) in zip(line.targets, line.args):
                yield target, "same", [atom]
            continue
        fn = getattr(line.entry, "primal", None)
        if line.kind == "template" and getattr(fn, "nout", 1) == 1:
            how = "same" if fn in _PASS_SEQUENCES else "array"
        else:
            how = "same" if line.kind == "copy" else "any"
        for target in line.targets:
            yield target, how, line.operands


def built(lines: List[Line]) -> Set[str]:
    """The locals that hold, on some path, a list or tuple the rule builds (a display
    or a comprehension), or a copy of one."""
    out: Set[str] = set()
    copies = [(target, operands) for target, how, operands in _assignments(lines)
              if how == "same"]
    out.update(t for line in lines if getattr(line.entry, "primal", None) in _BUILDS
               for t in line.targets)
    grown = bool(out)
    while grown:
        grown = False
        for target, operands in copies:
            if target not in out and any(a.kind == "local" and a.name in out
                                         for a in operands):
                out.add(target)
                grown = True
    return out


def free(atom: Atom, unfree: Set[str]) -> bool:
    """Whether the operand `atom` is known not to hold a list or tuple."""
    if atom.kind == "local":
        return atom.name not in unfree
    if atom.kind == "const":
        return type(getattr(atom.value, "primal", atom.value)) not in SEQUENCES
    return False  # a global read live


def checked_params(lines: List[Line], params: List[str]) -> List[str]:
    """The parameters (of `params`, in order) that reach an operand of a NumPy
    function's template through copies and operators' templates alone."""
    feeds: Dict[str, Set[str]] = {}  # local -> the locals its value may come from
    for target, how, operands in _assignments(lines):
        if how == "same":
            feeds.setdefault(target, set()).update(
                a.name for a in operands if a.kind == "local")
    reached: Set[str] = set()
    todo = [a.name for line in lines if reads_arrays(line)
            for a in line.operands if a.kind == "local"]
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo.extend(feeds.get(name, ()))
    return [p for p in params if p in reached]
