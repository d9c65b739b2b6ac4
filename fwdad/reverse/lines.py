"""The lines of a normalized body, as the reverse activity analysis reads them.

    y = operator.mul(x, s)         ->  Line(["y"], [x, s], call, primal=operator.mul)
    for v in items: ...            ->  Line(["v"], [items])   (what the loop binds)
    with open(p) as fh: ...        ->  "fh" forced: the analysis does not model it

`Reader` walks a body (not into nested defs, whose free names it forces and marks as
possibly mutated) and notes, for each call of a primitive known when the rule is built,
whether it has no derivative and whether it mutates none of its operands.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, List, Optional, Set

import numpy as np

from fwdad import lang
from fwdad.normalize.refs import is_ref
from fwdad.reverse.registry import get_rrule
from fwdad.reverse.rule_calls import NonDiff
from fwdad.rules.purity import call_is_pure
from fwdad.rules.registry import entry_of


@dataclass
class Line:
    targets: List[str]
    operands: List[ast.AST]          # the atoms it reads (a dynamic callee too)
    call: Optional[ast.Call] = None  # None: a copy, or what a for loop binds
    primal: Any = None               # the callee, when a primitive known at build time
    nondiff: bool = False
    pure: bool = False


@dataclass
class Reader:
    """The lines of a normalized body, with the names it binds; `forced` names are
    active whatever the lines say, `mutated` ones may also be changed in place by code
    the lines do not show (a nested def)."""

    lines: List[Line] = field(default_factory=list)
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
        self.lines.append(Line(names, operands))

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
        line = Line(targets, operands, node)
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
# of pure calls (fwdad/rules/purity.py, kept for forward mode's needs) leaves out.
_ALSO_PURE = frozenset({lang.build_slice, lang.unpack, np.arange, np.linspace,
                        np.logspace, np.repeat, np.tile, np.reshape, np.transpose,
                        np.expand_dims, np.squeeze, np.flip, np.broadcast_to, np.diag,
                        np.eye, np.identity, np.meshgrid, np.atleast_1d, np.atleast_2d,
                        np.ravel, np.copy, np.shape, np.ndarray.reshape,
                        np.ndarray.transpose, np.ndarray.ravel, np.ndarray.flatten,
                        np.ndarray.astype, np.ndarray.copy, len, range})


def _is_pure(primal: Any, args: List[ast.expr], keywords: List[ast.keyword]) -> bool:
    """Whether the call mutates none of its operands (fwdad/rules/purity.py)."""
    starred = any(type(a) is ast.Starred for a in args)
    if not starred and all(k.arg not in ("out", None) for k in keywords):
        try:
            if primal in _ALSO_PURE:
                return True
        except TypeError:  # (an unhashable callee)
            return False
    entry = entry_of(primal)  # (None for an unhashable callee)
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
