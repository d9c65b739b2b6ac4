"""Read the Dual code of forward/transform.py as Lines: one operation each, with its
operands as Atoms (a local, a constant Dual, or a global read live).

    y = _fw_mul(x, _fw_2_0)        ->  Line("template", targets=["y"], args=[x, 2.0])
    a, b = _fw_unpack(t, 2)        ->  Line("unpack", ...)
    try: ...                       ->  Line("unknown"): the optimizer leaves it as it is
Which calls are pure is forward/purity.py's to say.
"""
from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Set, Tuple

from fwdad.astwalk import child_nodes
from fwdad.forward import runtime
from fwdad.forward.purity import (PURE_HELPERS, call_is_pure, plain_call_is_pure,
                                  rule_tables)
from fwdad.rules.registry import RuleEntry


class Atom:
    """An operand of Dual code: a local, a constant Dual of the rule (a literal), or a
    global or closure value read live (`_fw_const(name)`)."""

    __slots__ = ("kind", "name", "value")

    def __init__(self, kind: str, name: str, value: Any = None) -> None:
        self.kind = kind  # "local", "const" or "global"
        self.name = name
        self.value = value  # the constant Dual, for "const"


class Line:
    """One statement of Dual code, as the optimizer sees it."""

    __slots__ = ("kind", "node", "targets", "args", "keywords", "callee", "entry", "pure",
                 "_operands")

    def __init__(self, kind: str, node: ast.stmt, targets: Optional[List[str]] = None,
                 args: Optional[List[Tuple[Atom, bool]]] = None,
                 keywords: Optional[List[Tuple[Optional[str], Atom]]] = None,
                 callee: Any = None, entry: Optional[RuleEntry] = None,
                 pure: bool = True) -> None:
        self.kind = kind  # template, call, copy, unpack, for, use, keep, unknown
        self.node = node
        self.targets = targets if targets is not None else []
        self.args = args if args is not None else []  # (atom, starred)
        self.keywords = keywords if keywords is not None else []
        self.callee, self.entry = callee, entry
        self.pure = pure  # the call mutates none of its arguments
        self._operands: Optional[List[Atom]] = None

    @property
    def operands(self) -> List[Atom]:
        """The atoms it reads (kept: read it once `args` and `keywords` are final)."""
        known = self._operands
        if known is None:
            known = self._operands = [a for a, _ in self.args] + [a for _, a in self.keywords]
        return known


_NOT_BOUND = object()


class Reader:
    """Turns the statements of one rule into Lines."""

    def __init__(self, constants: Dict[str, Any], templates: Dict[int, Any]) -> None:
        self.k, self.templates = constants, templates
        self.rules, self.rules_by_primal = rule_tables()
        self.atoms: Dict[str, Atom] = {}  # one Atom per name (atoms are not changed)
        self.globals: Set[str] = set()  # the globals read live
        self.fn: Optional[ast.FunctionDef] = None  # the rule, and how often it reads
        self.reads: Optional[Dict[str, int]] = None  # each name (when first needed)

    def atom(self, node: ast.expr) -> Optional[Atom]:
        """A bare name of Dual code is a constant of the rule or a local (the transform
        reads every other name as `_fw_const(name)`)."""
        if type(node) is ast.Name:
            name = node.id
            atom = self.atoms.get(name)
            if atom is None:
                atom = self.atoms[name] = Atom("const", name, self.k[name]) \
                    if name in self.k else Atom("local", name)
            return atom
        if isinstance(node, ast.Call) and self.helper(node) is runtime.const \
                and len(node.args) == 1 and isinstance(node.args[0], ast.Name):
            self.globals.add(node.args[0].id)
            return Atom("global", node.args[0].id)
        return None

    def locals(self) -> Set[str]:
        """The names read as locals so far."""
        return {name for name, atom in self.atoms.items() if atom.kind == "local"}

    def helper(self, call: ast.Call) -> Any:
        func = call.func
        return self.k.get(func.id) if isinstance(func, ast.Name) else None

    def line(self, stmt: ast.stmt) -> Line:
        line = self._line(stmt)
        return line if line is not None else Line("unknown", stmt, pure=False)

    def _line(self, stmt: ast.stmt) -> Optional[Line]:
        if type(stmt) is ast.Assign and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
            if type(target) is ast.Name:
                if type(value) is ast.Call and (self.helper(value) is not runtime.const
                                                or self.atom(value) is None):
                    return self.call(stmt, value, [target.id])
                item = self.atom(value)
                return None if item is None else Line("copy", stmt, [target.id],
                                                      [(item, False)])
            if isinstance(target, ast.Tuple) and isinstance(value, ast.Call):
                return self.unpack(stmt, target, value)
            return None
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            return self.call(stmt, stmt.value, [])
        if isinstance(stmt, ast.For):
            return self.loop(stmt)
        if isinstance(stmt, (ast.If, ast.While)):
            return Line("use", stmt) if self.test_ok(stmt.test) else None
        if isinstance(stmt, ast.Return):
            item = self.atom(stmt.value)
            return None if item is None else Line("use", stmt, args=[(item, False)])
        if isinstance(stmt, (ast.Assert, ast.Raise)):
            parts = [p for p in child_nodes(stmt) if isinstance(p, ast.expr)]
            return Line("use", stmt) if all(map(self.test_ok, parts)) else None
        if isinstance(stmt, (ast.Break, ast.Continue, ast.Pass)):
            return Line("keep", stmt)
        return None

    def test_ok(self, node: ast.expr) -> bool:
        """Tests read `t.primal` (or `not t.primal`, or a constant)."""
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            node = node.operand
        if isinstance(node, ast.Constant):
            return True
        return isinstance(node, ast.Attribute) and node.attr == "primal" and \
            isinstance(node.value, ast.Name) and self.atom(node.value) is not None

    def call(self, stmt: ast.stmt, call: ast.Call, targets: List[str]) -> Optional[Line]:
        func = call.func
        callee = self.k.get(func.id, _NOT_BOUND) if type(func) is ast.Name else _NOT_BOUND
        if callee is _NOT_BOUND:
            return None
        line = Line("call", stmt, targets, callee=callee, entry=self.rules.get(id(callee)))
        starred_any, atoms, args = False, self.atoms, line.args
        for arg in call.args:
            if type(arg) is ast.Name:  # most arguments: an atom made already
                item = atoms.get(arg.id) or self.atom(arg)
                args.append((item, False))
                continue
            starred = type(arg) is ast.Starred
            inner = arg.value.args[0] if starred and isinstance(arg.value, ast.Call) \
                and arg.value.args else arg
            item = self.atom(inner)
            if item is None:
                return None
            line.args.append((item, starred))
            starred_any = starred_any or starred
        for kw in call.keywords:
            inner = kw.value.args[0] if kw.arg is None and isinstance(kw.value, ast.Call) \
                else kw.value
            item = self.atom(inner)
            if item is None:
                return None
            line.keywords.append((kw.arg, item))
        names = [name for name, _ in line.keywords]
        if line.entry is None:
            line.pure = any(callee is h for h in PURE_HELPERS) and "out" not in names
        elif names or starred_any:
            line.pure = call_is_pure(line.entry, len(line.args), names, starred_any)
        else:
            line.pure = plain_call_is_pure(line.entry, len(line.args))
        template = self.templates.get(id(callee))
        if template is not None and not names and not starred_any and \
                len(line.args) == len(template.params):
            line.kind = "template"
        return line

    def unpack(self, stmt: ast.Assign, target: ast.Tuple, call: ast.Call) -> Optional[Line]:
        if self.helper(call) is not runtime.unpack or not all(
                isinstance(t, ast.Name) for t in target.elts):
            return None
        item = self.atom(call.args[0])
        return None if item is None else Line(
            "unpack", stmt, [t.id for t in target.elts], [(item, False)])

    def loop(self, stmt: ast.For) -> Optional[Line]:
        it = stmt.iter
        if not isinstance(stmt.target, ast.Name) or not isinstance(it, ast.Call) or \
                self.helper(it) is not runtime.iterate:
            return None
        item = self.atom(it.args[0])
        return None if item is None else Line("for", stmt, [stmt.target.id],
                                              [(item, False)])


def local_names(fn: ast.FunctionDef) -> Set[str]:
    """Parameters and every name the rule assigns (nested defs' own locals excluded)."""
    args = fn.args
    names = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    return bound_below(fn.body, names)


def bound_below(nodes: List[ast.AST], names: Set[str]) -> Set[str]:
    """`names` with every name the statements `nodes` assign (nested defs' own locals
    excluded)."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            names.add(node.id)
        if isinstance(node, ast.arg):
            names.add(node.arg)
        if isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        stack.extend(child_nodes(node))
    return names
