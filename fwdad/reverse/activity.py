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
operands (fwdad/forward/purity.py: a write keeps its rule, which saves what it
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
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set

import numpy as np

from fwdad import lang
from fwdad.forward.purity import call_is_pure, rule_tables
from fwdad.normalize.refs import is_ref
from fwdad.reverse.kinds import OTHER, PLAIN, PLAIN_TYPES, plain_constant
from fwdad.reverse.registry import NonDiff, get_rrule


@dataclass
class Activity:
    active: Set[str]            # locals that may hold a variable
    direct: Dict[int, Any]      # id(call node) -> the primal it runs itself


@dataclass
class _Line:
    targets: List[str]
    operands: List[ast.AST]          # the atoms it reads (a dynamic callee too)
    call: Optional[ast.Call] = None  # None: a copy, or what a for loop binds
    primal: Any = None               # the callee, when a primitive known at build time
    nondiff: bool = False
    pure: bool = False


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
    reader = _Reader()
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


def _written(line: _Line, leaves: Set[str]) -> Set[str]:
    """The operands a call that may mutate them (with a variable among them) may write
    a variable into, or store in a container that is: all of them, but only the target
    of `x[k] = v` or `x += v` when x is a leaf (an array copies what is written)."""
    if line.primal in _WRITES_FIRST and line.operands and _is_leaf(line.operands[0],
                                                                    leaves):
        return _names(line.operands[:1])
    return _names(line.operands)


def _names(atoms: List[ast.AST]) -> Set[str]:
    return {a.id for a in atoms if type(a) is ast.Name}


def _makes_active(line: _Line, operands_active: bool, leaves: Set[str]) -> bool:
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


def _leaves(reader: "_Reader", params: Set[str], kinds: Dict[str, str]) -> Set[str]:
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


def _fresh(line: _Line, leaves: Set[str]) -> bool:
    """Whether the targets of `line` are new values that alias none of its operands (a
    write into them reaches nothing else). Other targets may alias their operands: a
    view, an item, a copy of a name, what a call returns."""
    return line.pure and (line.primal in _MADE or (_is_fresh_op(line.primal) and all(
        _is_leaf(a, leaves) for a in line.operands)))


def _gives_leaves(line: _Line, leaves: Set[str]) -> bool:
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


@dataclass
class _Reader:
    """The lines of a normalized body, with the names it binds; `forced` names are
    active whatever the lines say, `mutated` ones may also be changed in place by code
    the lines do not show (a nested def)."""

    lines: List[_Line] = field(default_factory=list)
    bound: Set[str] = field(default_factory=set)
    forced: Set[str] = field(default_factory=set)
    mutated: Set[str] = field(default_factory=set)

    def block(self, stmts: List[ast.stmt]) -> None:
        for stmt in stmts:
            self.statement(stmt)

    def statement(self, node: ast.stmt) -> None:
        t = type(node)
        if t is ast.Assign:
            self.assign(node)  # type: ignore[arg-type]
        elif t is ast.Expr and type(node.value) is ast.Call:  # type: ignore[attr-defined]
            self.call(node.value, [])  # type: ignore[attr-defined]
        elif t is ast.For:
            self.binds(node.target, [node.iter])  # type: ignore[attr-defined]
            self.block(node.body + node.orelse)  # type: ignore[attr-defined]
        elif t in (ast.If, ast.While):
            self.block(node.body + node.orelse)  # type: ignore[attr-defined]
        elif t is ast.Try:
            for handler in node.handlers:  # type: ignore[attr-defined]
                self.force({handler.name} if handler.name else set())
                self.block(handler.body)
            self.block(node.body + node.orelse + node.finalbody)  # type: ignore
        elif t is ast.With:
            self.force(_names_in(node))
            self.block(node.body)  # type: ignore[attr-defined]
        elif t in (ast.Return, ast.Assert, ast.Raise, ast.Break, ast.Continue, ast.Pass,
                   ast.Delete, ast.Expr):
            return
        else:  # a nested def, global, import ...: everything it names may change
            names = _names_in(node) | {getattr(node, "name", None) or ""}
            names |= set(getattr(node, "names", ()) if t in (ast.Global, ast.Nonlocal)
                         else ())
            self.force(names, mutated=True)
            if t in (ast.Import, ast.ImportFrom):
                self.force({(a.asname or a.name).split(".")[0]
                            for a in node.names})  # type: ignore[attr-defined]

    def assign(self, node: ast.Assign) -> None:
        targets: List[str] = []
        for target in node.targets:
            names = _plain_targets(target)
            if names is None:
                self.force(_names_in(target))
                return
            targets += names
        if type(node.value) is ast.Call:
            self.call(node.value, targets)
        else:
            self.binds(ast.Tuple([ast.Name(t) for t in targets]), [node.value])

    def binds(self, target: ast.AST, operands: List[ast.AST]) -> None:
        names = _plain_targets(target)
        if names is None:
            self.force(_names_in(target))
            return
        self.bound.update(names)
        self.lines.append(_Line(names, operands))

    def call(self, node: ast.Call, targets: List[str]) -> None:
        self.bound.update(targets)
        args, operands, primal = list(node.args), [], None
        if is_ref(node.func):
            primal = node.func.fw_value  # type: ignore[attr-defined]
            if primal is lang.foreigncall and args and is_ref(args[0]):
                primal, args = args[0].fw_value, args[1:]  # type: ignore[attr-defined]
        else:
            operands.append(node.func)
        operands += [a.value if type(a) is ast.Starred else a for a in args]
        operands += [k.value for k in node.keywords]
        line = _Line(targets, operands, node)
        rule = get_rrule(primal) if primal is not None else None
        if rule is not None:
            line.primal, line.nondiff = primal, type(rule) is NonDiff
            line.pure = _is_pure(primal, args, node.keywords)
        self.lines.append(line)

    def force(self, names: Set[str], mutated: bool = False) -> None:
        names = names - {""}
        self.bound |= names
        self.forced |= names
        if mutated:
            self.mutated |= names


# Primitives without `out` that mutate none of their arguments, which the forward table
# of pure calls (fwdad/forward/purity.py, kept for forward mode's needs) leaves out.
_ALSO_PURE = frozenset({lang.build_slice, lang.unpack, np.arange, np.linspace,
                        np.logspace, np.repeat, np.tile, np.reshape, np.transpose,
                        np.expand_dims, np.squeeze, np.flip, np.broadcast_to, np.diag,
                        np.eye, np.identity, np.meshgrid, np.atleast_1d, np.atleast_2d,
                        np.ravel, np.copy, np.shape, np.ndarray.reshape,
                        np.ndarray.transpose, np.ndarray.ravel, np.ndarray.flatten,
                        np.ndarray.astype, np.ndarray.copy, len, range})


def _is_pure(primal: Any, args: List[ast.expr], keywords: List[ast.keyword]) -> bool:
    """Whether the call mutates none of its operands (fwdad/forward/purity.py)."""
    starred = any(type(a) is ast.Starred for a in args)
    if not starred and all(k.arg not in ("out", None) for k in keywords):
        try:
            if primal in _ALSO_PURE:
                return True
        except TypeError:  # (an unhashable callee)
            return False
    try:
        by_id, by_primal = rule_tables()
        entry = by_id.get(id(by_primal.get(primal)))
    except TypeError:  # (an unhashable callee)
        return False
    return entry is not None and call_is_pure(
        entry, len(args), [k.arg for k in keywords],
        any(type(a) is ast.Starred for a in args))


def _plain_targets(target: ast.AST) -> Optional[List[str]]:
    """The names a target binds, when it is a name or a tuple or list of names."""
    if type(target) is ast.Name:
        return [target.id]
    if type(target) in (ast.Tuple, ast.List):
        names: List[str] = []
        for item in target.elts:  # type: ignore[attr-defined]
            inner = _plain_targets(item.value if type(item) is ast.Starred else item)
            if inner is None:
                return None
            names += inner
        return names
    return None


def _names_in(node: ast.AST) -> Set[str]:
    return {n.id for n in ast.walk(node) if type(n) is ast.Name}
