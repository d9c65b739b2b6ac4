"""Every use of every local in flattened code, as the unboxing pass sees it.

    s = State(a, b)                  ->  Use("make", layout=<State>, bound={t: a, ...})
    _fw_t1 = getattr(s, 't')         ->  Use("read", attr="t")
    setattr(s, 't', v)               ->  Use("write", attr="t"), and v: Use("escape")
    f(s), t = s, return s            ->  Use("escape")
    s is t, for s in ..., if s: ...  ->  Use("refuse")

Each use has the statement it is in and the path to that statement: (block, index)
pairs from the function's body down, so that the pass can tell what may run after it.
Names used inside nested defs (closures) and names declared global or nonlocal are
refused; a function that calls locals(), vars(), eval() or exec() has no uses (None):
it could see the locals the pass removes.
"""
from __future__ import annotations

import ast
import builtins
import operator
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from fwdad.astwalk import child_nodes, walk
from fwdad.normalize.plain_classes import Layout, layout
from fwdad.normalize.refs import is_ref

Path = Tuple[Tuple[List[ast.stmt], int], ...]

_IDENTITY = (operator.is_, operator.is_not, builtins.id, builtins.type)
_INTROSPECTION = (builtins.locals, builtins.vars, builtins.eval, builtins.exec)


@dataclass
class Use:
    kind: str  # make, read, write, escape or refuse
    stmt: ast.stmt
    path: Path
    attr: Optional[str] = None  # the field of a read or a write
    layout: Optional[Layout] = None  # the class of a making
    bound: Optional[Dict[str, ast.expr]] = field(default=None)  # field -> its value


def collect(tree: ast.FunctionDef) -> Optional[Dict[str, List[Use]]]:
    """name -> its uses in program order (the order of the text)."""
    if any(type(n) is ast.Call and _callee(n) in _INTROSPECTION for n in walk(tree)):
        return None
    out: Dict[str, List[Use]] = {}
    _block(tree.body, (), out)
    return out


def _block(block: List[ast.stmt], path: Path, out: Dict[str, List[Use]]) -> None:
    for i, stmt in enumerate(block):
        here = path + ((block, i),)
        kind = type(stmt)
        if kind in _COMPOUND:
            for node in _headers(stmt):
                _refuse_names(node, stmt, here, out)
            for part in _COMPOUND[kind]:
                _block(getattr(stmt, part), here, out)
            for handler in getattr(stmt, "handlers", ()):
                _refuse_names(handler, stmt, here, out, shallow=True)
                if handler.type is not None:
                    _refuse_names(handler.type, stmt, here, out)
                _block(handler.body, here, out)
        elif kind in (ast.Assign, ast.Expr, ast.Return):
            _simple(stmt, here, out)
        else:  # defs (closures), global, nonlocal, del, assert, raise, imports
            _refuse_names(stmt, stmt, here, out)


_COMPOUND = {ast.If: ("body", "orelse"), ast.For: ("body", "orelse"),
             ast.While: ("body", "orelse"), ast.With: ("body",),
             ast.Try: ("body", "orelse", "finalbody")}


def _headers(stmt: ast.stmt) -> List[ast.AST]:
    """The parts of a compound statement outside its blocks: tests, targets, items."""
    kind = type(stmt)
    if kind in (ast.If, ast.While):
        return [stmt.test]
    if kind is ast.For:
        return [stmt.target, stmt.iter]
    if kind is ast.With:
        return list(stmt.items)
    return []


def _refuse_names(node: ast.AST, stmt: ast.stmt, path: Path, out: Dict[str, List[Use]],
                  shallow: bool = False) -> None:
    """Every name under `node` (or only its own, when shallow) stays as it is."""
    names = []
    for part in ([node] if shallow else walk(node)):
        kind = type(part)
        if kind is ast.Name:
            names.append(part.id)
        elif kind in (ast.Global, ast.Nonlocal):
            names.extend(part.names)
        elif kind in (ast.FunctionDef, ast.ExceptHandler) and part.name:
            names.append(part.name)
        elif kind is ast.alias:
            names.append((part.asname or part.name).split(".")[0])
    for name in names:
        _add(out, name, Use("refuse", stmt, path))


def _simple(stmt: ast.stmt, path: Path, out: Dict[str, List[Use]]) -> None:
    """An Assign, an Expr (a call) or a Return: what each name in it does."""
    roles: Dict[str, Use] = {}
    value = stmt.value
    if type(stmt) is ast.Assign:
        target = stmt.targets[0] if len(stmt.targets) == 1 else None
        made = _making(value) if type(target) is ast.Name else None
        if made is not None:
            _role(roles, target.id, Use("make", stmt, path, layout=made[0], bound=made[1]))
        else:
            for node in stmt.targets:
                for name in _names(node):
                    _role(roles, name, Use("refuse", stmt, path))
    identity = type(value) is ast.Call and _callee(value) in _IDENTITY
    for node in (_field_use(stmt, path, roles) if value is not None else []):
        for name in _names(node):
            _role(roles, name, Use("refuse" if identity else "escape", stmt, path))
    for name, use in roles.items():
        _add(out, name, use)


def _field_use(stmt: ast.stmt, path: Path, roles: Dict[str, Use]) -> List[ast.AST]:
    """Records a field read or write of the statement; the parts left to look at."""
    value = stmt.value
    if type(value) is not ast.Call:
        return [value]
    fn, args = _callee(value), value.args
    if fn in (getattr, setattr) and not value.keywords and len(args) >= 2 \
            and type(args[0]) is ast.Name and type(args[1]) is ast.Constant \
            and type(args[1].value) is str:
        if fn is getattr and len(args) == 2:
            _role(roles, args[0].id, Use("read", stmt, path, attr=args[1].value))
            return []
        if fn is setattr and len(args) == 3 and type(stmt) is ast.Expr:
            _role(roles, args[0].id, Use("write", stmt, path, attr=args[1].value))
            return [args[2]]
    return [value.func] + list(value.args) + [k.value for k in value.keywords]


def _names(node: ast.AST) -> List[str]:
    """The names under `node`, but for static references (globals, not locals)."""
    if is_ref(node):
        return []
    if type(node) is ast.Name:
        return [node.id]
    return [name for child in child_nodes(node) for name in _names(child)]


def _making(value: ast.expr) -> Optional[Tuple[Layout, Optional[Dict[str, ast.expr]]]]:
    """(the layout, field -> value) when `value` calls a plain class; the values are
    None when the call's arguments cannot be matched to fields when the rule is built."""
    if type(value) is not ast.Call or not is_ref(value.func):
        return None
    found = layout(value.func.fw_value)
    if found is None:
        return None
    if any(type(a) is ast.Starred for a in value.args) or \
            any(k.arg is None for k in value.keywords):
        return found, None
    return found, found.bind(list(value.args), {k.arg: k.value for k in value.keywords})


def _role(roles: Dict[str, Use], name: str, use: Use) -> None:
    """Two roles in one statement refuse the name, but for two escapes (`f(s, s)`)."""
    had = roles.get(name)
    if had is not None and not (had.kind == use.kind == "escape"):
        use = Use("refuse", use.stmt, use.path)
    roles[name] = use


def _add(out: Dict[str, List[Use]], name: str, use: Use) -> None:
    out.setdefault(name, []).append(use)


def _callee(call: ast.Call) -> Any:
    return call.func.__dict__.get("fw_value")
