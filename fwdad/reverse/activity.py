"""Activity analysis of a reverse rule: which locals can never hold a variable.

It reads the normalized function (one operation per line), given the kind of each
parameter when the rule is called (fwdad/reverse/kinds.py), and leaves `Activity`:
the locals that may hold a variable (*active*), and the calls that run their primal
itself, with no rule and no dispatch (*direct*):

    t = np.arange(m) / m        m plain                 ->  t inactive, both calls direct
    n = x.shape[0]              x a Var or VarMat       ->  n inactive (shapes are plain)
    y = x * t                                           ->  y active: its rrule records
    z = np.zeros(3); z[0] = y                           ->  z active: made by its rrule,
                                                            so that the write is recorded

Flow-insensitive: a name is active when any line can make it so. A call is direct when
its callee is a primitive known when the rule is built, the call mutates none of its
operands (fwdad/rules/purity.py: a write keeps its rule, which saves what it
overwrites for the backward pass), and its operands and targets are all inactive.
Locals a nested def reads, and names bound by statements the analysis does not model
(with, except, import, global), are active; so is what a call that may mutate its
operands writes a variable into, and, back through the lines that made it, whatever
such a value may alias or be computed from (`z = 0.5 * np.ones(3); z[1] = x` needs
`np.ones` to make a variable, as its rule does), up to the arrays made from nothing.
"""
from __future__ import annotations

import ast
import operator
from dataclasses import dataclass
from typing import Any, Dict, List, Set

import numpy as np

from fwdad.normalize.refs import is_ref
from fwdad.reverse.kinds import OTHER, PLAIN, PLAIN_TYPES, plain_constant
from fwdad.reverse.lines import Line, Reader


@dataclass
class Activity:
    active: Set[str]            # locals that may hold a variable
    direct: Dict[int, Any]      # id(call node) -> the primal it runs itself


# Attributes of a Var, a VarMat or a plain array or number that are plain values.
_SHAPE_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "size"})
# Primitives that, on leaves (no containers, no instances), give leaves: new values
# (`_FRESH`, as ufuncs are), or views of their first operand (`_VIEWS`); and those
# that give new arrays whatever their operands (`_MADE`).
_FRESH = frozenset({operator.add, operator.sub, operator.mul, operator.truediv,
                    operator.floordiv, operator.mod, operator.pow, operator.neg,
                    operator.pos, operator.matmul, operator.abs, np.sum, np.mean, np.prod,
                    np.max, np.min, np.dot, np.matmul, np.cumsum, np.cumprod, np.repeat,
                    np.tile, np.outer, np.diff, np.ndarray.sum, np.ndarray.mean, len})
_VIEWS = frozenset({operator.getitem, np.reshape, np.transpose, np.ravel, np.squeeze,
                    np.expand_dims, np.ndarray.reshape, np.ndarray.transpose,
                    np.ndarray.ravel})
_MADE = frozenset({np.zeros, np.ones, np.empty, np.arange, np.linspace, np.logspace,
                   np.eye, np.identity})
# Calls that write into their first operand alone.
_WRITES_FIRST = frozenset({operator.setitem, operator.delitem, operator.iadd, operator.isub,
                           operator.imul, operator.itruediv, operator.ifloordiv,
                           operator.imod, operator.ipow, operator.imatmul})

def analyse(fn: ast.FunctionDef, kinds: Dict[str, str]) -> Activity:
    """The activity of the normalized function `fn` when called with parameters of
    `kinds` (name -> PLAIN, VARIABLE or OTHER; a missing name counts as OTHER)."""
    reader = Reader()
    reader.block(fn.body)
    params = _params(fn)
    known = reader.bound | params
    leaves = _leaves(reader, params, kinds)
    active = reader.forced | {p for p in params if kinds.get(p, OTHER) != PLAIN}
    mutated = set(reader.mutated)
    active |= mutated
    inactive = _Inactive(known, active)
    changed = True
    while changed:
        changed = False
        for line in reader.lines:
            operands_active = not all(inactive(a) for a in line.operands)
            grown: Set[str] = set()
            if _makes_active(line, operands_active, leaves):
                grown.update(t for t in line.targets if t not in active)
            new = set()
            if operands_active and line.call is not None and not line.pure:
                new = _written(line, leaves)
            if mutated.intersection(line.targets) and line.primal not in _MADE:
                new |= _names(line.operands)  # (the targets may alias them, or be
                # variables only when they are: `z = 0.5 * np.ones(3); z[1] = x`)
            new -= mutated
            if new:
                mutated |= new
                grown |= new
            if grown:
                active |= grown
                changed = True
    direct = {id(line.call): line.primal for line in reader.lines
              if line.call is not None and line.primal is not None and line.pure
              and all(inactive(a) for a in line.operands) and not active.intersection(
                  line.targets)}
    return Activity(active, direct)


def _written(line: Line, leaves: Set[str]) -> Set[str]:
    """The operands a call that may mutate them (with a variable among them) may write
    a variable into, or store in a container that is: all of them, but only the target
    of `x[k] = v` or `x += v` when x is a leaf (an array copies what is written)."""
    if line.primal in _WRITES_FIRST and line.operands and _is_leaf(line.operands[0],
                                                                    leaves):
        return _names(line.operands[:1])
    return _names(line.operands)


def _names(atoms: List[ast.AST]) -> Set[str]:
    return {a.id for a in atoms if type(a) is ast.Name}


def _makes_active(line: Line, operands_active: bool, leaves: Set[str]) -> bool:
    """Whether `line` can give its targets a variable."""
    if line.call is not None and line.primal is None:
        return True  # a derived or dynamic call: what it returns is not known here
    if not operands_active:  # (a rule that may write into its operands, such as a
        # creation rule, may return a variable made from constants: `np.zeros(n)`)
        return line.call is not None and not (line.pure or line.nondiff)
    if line.nondiff:  # no derivative: plain values out, unless an instance's own
        return not all(_is_leaf(a, leaves) for a in line.operands)  # method runs
    if line.primal is getattr and len(line.operands) == 2:
        name = line.operands[1]
        return not (type(name) is ast.Constant and name.value in _SHAPE_ATTRIBUTES
                    and _is_leaf(line.operands[0], leaves))
    return True


class _Inactive:
    """Whether an atom can never hold a variable, given the active names so far."""

    def __init__(self, known: Set[str], active: Set[str]) -> None:
        self.known, self.active = known, active

    def __call__(self, atom: ast.AST) -> bool:
        if type(atom) is ast.Constant:
            return True
        if is_ref(atom):
            return plain_constant(atom.fw_value)  # type: ignore[attr-defined]
        if type(atom) is ast.Name:  # (a name bound nowhere here is a free variable)
            return atom.id in self.known and atom.id not in self.active
        return False


def _leaves(reader: Reader, params: Set[str], kinds: Dict[str, str]) -> Set[str]:
    """The names that only ever hold leaves: plain values, Vars and VarMats, never a
    container or an instance (whose `.shape` could be anything)."""
    leaves = {p for p in params if kinds.get(p, OTHER) != OTHER} | (
        reader.bound - params - reader.forced)
    changed = True
    while changed:
        changed = False
        for line in reader.lines:
            if leaves.intersection(line.targets) and not _gives_leaves(line, leaves):
                leaves.difference_update(line.targets)
                changed = True
    return leaves


def _fresh(line: Line, leaves: Set[str]) -> bool:
    """Whether the targets of `line` are new values that alias none of its operands (a
    write into them reaches nothing else). Other targets may alias their operands: a
    view, an item, a copy of a name, what a call returns."""
    return line.pure and (line.primal in _MADE or (_is_fresh_op(line.primal) and all(
        _is_leaf(a, leaves) for a in line.operands)))


def _gives_leaves(line: Line, leaves: Set[str]) -> bool:
    if line.call is None:  # a copy, or what a for loop binds: the items of a leaf
        return all(_is_leaf(a, leaves) for a in line.operands)
    if line.primal in _VIEWS:  # a view or an item of its first operand
        return bool(line.operands) and _is_leaf(line.operands[0], leaves)
    return _fresh(line, leaves)


def _is_fresh_op(primal: Any) -> bool:
    try:
        return primal in _FRESH or (isinstance(primal, np.ufunc) and primal.nout == 1)
    except TypeError:  # (an unhashable callee)
        return False


def _is_leaf(atom: ast.AST, leaves: Set[str]) -> bool:
    if type(atom) is ast.Constant:
        return type(atom.value) in PLAIN_TYPES
    if is_ref(atom):
        return plain_constant(atom.fw_value)  # type: ignore[attr-defined]
    return type(atom) is ast.Name and atom.id in leaves


def _params(fn: ast.FunctionDef) -> Set[str]:
    args = fn.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    return names | {a.arg for a in (args.vararg, args.kwarg) if a is not None}
