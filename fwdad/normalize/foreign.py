"""Callees known when the rule is built are resolved; calls into C become foreigncall.

    np.sin(x)       ->  np.sin(x)                     (now a static reference to np.sin)
    helper(x)       ->  helper(x)                     (a static reference to helper)
    np.frexp(x)     ->  fwdad.foreigncall(np.frexp, x)   when no frule is registered
    obj.method(x)   ->  obj.method(x)                 (unchanged: a dynamic call)

After this pass every callee that is a global or builtin, reached through modules and
classes, carries its value (`fw_value`). A callee without Python source and without a
registered frule is wrapped in `fwdad.foreigncall`, whose rule reports it by name at the
user's line (or uses a rule registered later).
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional

from fwdad import lang
from fwdad.astwalk import walk_by_class
from fwdad.normalize.names import Namer
from fwdad.normalize.refs import as_ref, ref
from fwdad.normalize.scope import Scope, is_missing
from fwdad.rules.registry import is_primitive
from fwdad.source import is_foreign


def run(tree: ast.FunctionDef, names: Namer, scope: Scope,
        groups: Optional[Dict[type, List[ast.AST]]] = None) -> ast.FunctionDef:
    """`groups`, when given, is `walk_by_class(tree)` (normalize has it for the scope)."""
    for node in (walk_by_class(tree) if groups is None else groups).get(ast.Call, ()):
        _resolve(node, scope)
    return tree


def _resolve(node: ast.Call, scope: Scope) -> None:
    """Rewrites the call in place (each call on its own: the order does not matter)."""
    value, dotted = scope.resolve(node.func)
    if is_missing(value):
        return
    target = as_ref(node.func, value, dotted)
    if is_primitive(value) or not is_foreign(value):
        node.func = target
    else:
        node.func = ref(lang.foreigncall, "fwdad.foreigncall", node)
        node.args = [target] + node.args
