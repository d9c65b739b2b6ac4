"""The names a def binds, declares `global` or `nonlocal` and mentions, in one fast walk.

The forward transform needs, for each def, which names hold Duals there (what it binds
itself, not what defs inside it bind, less what it declares global), which it declares
nonlocal (Duals when an enclosing differentiated def binds them, plain otherwise), and
every name the code mentions (constants must not take one).
"""
from __future__ import annotations

import ast
from typing import Set, Tuple

from fwdad.astwalk import child_nodes, walk

Scope = Tuple[Set[str], Set[str], Set[str], Set[str]]


def scope_of(fn: ast.FunctionDef) -> Scope:
    """The names `fn` binds itself (parameters, targets, the names of the defs inside,
    not what those bind), those it declares `global`, every name the def mentions
    (nested defs included), and those it declares `nonlocal`."""
    bound = _params(fn)
    declared: Set[str] = set()
    nonlocals: Set[str] = set()
    mentioned: Set[str] = set()
    stack: list = list(fn.body)
    todo: list = [fn.args] + fn.decorator_list + ([fn.returns] if fn.returns else [])
    while stack or todo:
        if not todo:
            node = stack.pop()
            if type(node) is ast.Assign and _one_call(node, bound, mentioned):
                continue  # `t = f(a, b)`, most of normalized code, read without a walk
            todo.append(node)
        node = todo.pop()
        kind = type(node)
        if kind is ast.Name:
            mentioned.add(node.id)
            if type(node.ctx) is not ast.Load:
                bound.add(node.id)
            continue
        if kind in _DECLARING:
            _declares(node, kind, bound, declared, nonlocals)
        elif kind in _DEFS:  # what nested defs bind is theirs
            return _nested_scope(fn, {n.id for n in walk(fn) if type(n) is ast.Name})
        for child in child_nodes(node):
            (stack if isinstance(child, ast.stmt) else todo).append(child)
    return bound - declared, declared, mentioned, nonlocals


def _one_call(node: ast.Assign, bound: Set[str], mentioned: Set[str]) -> bool:
    """Record `name = f(atoms)`, f a name or a dotted name (False, recording nothing,
    for any other statement)."""
    targets, value = node.targets, node.value
    if len(targets) != 1 or type(targets[0]) is not ast.Name or type(value) is not ast.Call:
        return False
    names = []
    for part in (value.func, *value.args, *[k.value for k in value.keywords]):
        while type(part) is ast.Attribute:  # `operator.add`, `np.linalg.norm`
            part = part.value
        if type(part) is ast.Name:
            names.append(part.id)
        elif type(part) is not ast.Constant:
            return False
    target = targets[0].id
    bound.add(target)
    mentioned.add(target)
    mentioned.update(names)
    return True


def _params(fn: ast.FunctionDef) -> Set[str]:
    args = fn.args
    bound = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    bound.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    return bound


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_DECLARING = (ast.Global, ast.Nonlocal, ast.ExceptHandler)


def _declares(node: ast.AST, kind: type, bound: Set[str], declared: Set[str],
              nonlocals: Set[str]) -> None:
    """What a `global`, a `nonlocal` or an `except ... as name` adds to the scope."""
    if kind is ast.Global:
        declared.update(node.names)  # type: ignore[attr-defined]
    elif kind is ast.Nonlocal:
        nonlocals.update(node.names)  # type: ignore[attr-defined]
    elif node.name:  # type: ignore[attr-defined]  # (an ExceptHandler)
        bound.add(node.name)  # type: ignore[attr-defined]


def _nested_scope(fn: ast.FunctionDef, mentioned: Set[str]) -> Scope:
    """scope_of for a def with defs inside: a walk that does not enter them."""
    bound = _params(fn)
    declared: Set[str] = set()
    nonlocals: Set[str] = set()
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Name and type(node.ctx) is not ast.Load:
            bound.add(node.id)
        elif kind in _DEFS:
            bound.update([node.name] if kind is not ast.Lambda else [])
            continue
        elif kind in _DECLARING:
            _declares(node, kind, bound, declared, nonlocals)
        stack.extend(child_nodes(node))
    return bound - declared, declared, mentioned, nonlocals
