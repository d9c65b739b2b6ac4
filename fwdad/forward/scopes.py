"""The names a def binds, declares `global` and mentions, found in one fast walk.

The forward transform needs, for each def, which names hold Duals there (what it binds
itself, not what defs inside it bind, less what it declares global), and every name
the code mentions (constants must not take one).
"""
from __future__ import annotations

import ast
from typing import Set, Tuple

from fwdad.astwalk import child_nodes, walk


def scope_of(fn: ast.FunctionDef) -> Tuple[Set[str], Set[str], Set[str]]:
    """The names `fn` binds itself (parameters, targets, the names of the defs inside,
    not what those bind), those it declares `global`, and every name the def mentions
    (nested defs included)."""
    args = fn.args
    bound = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    bound.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    declared: Set[str] = set()
    mentioned: Set[str] = set()
    nodes = walk(fn)
    for node in nodes:
        kind = type(node)
        if kind is ast.Name:
            mentioned.add(node.id)
            if type(node.ctx) is not ast.Load:
                bound.add(node.id)
        elif kind is ast.Global:
            declared.update(node.names)
        elif kind is ast.ExceptHandler and node.name:
            bound.add(node.name)
        elif kind in _DEFS and node is not fn:  # what nested defs bind is theirs
            return _nested_scope(fn, mentioned | {n.id for n in nodes if type(n) is ast.Name})
    return bound - declared, declared, mentioned


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _nested_scope(fn: ast.FunctionDef, mentioned: Set[str]) -> tuple:
    """scope_of for a def with defs inside: a walk that does not enter them."""
    args = fn.args
    bound = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    bound.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    declared, stack = set(), list(fn.body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Name and type(node.ctx) is not ast.Load:
            bound.add(node.id)
        elif kind in _DEFS:
            bound.update([node.name] if kind is not ast.Lambda else [])
            continue
        elif kind is ast.Global:
            declared.update(node.names)
        elif kind is ast.ExceptHandler and node.name:
            bound.add(node.name)
        stack.extend(child_nodes(node))
    return bound - declared, declared, mentioned
