"""Which names a function binds locally, and what the other names refer to.

Conservative by design: a name bound anywhere in the tree (nested defs and
comprehensions included) counts as local, so it is never mistaken for a global. The
price of a false "local" is a dynamic call instead of a static one; never a wrong value.
"""
from __future__ import annotations

import ast
import builtins
import types
from typing import Any, Dict, List, Optional, Set, Tuple

from fwdad.astwalk import child_nodes, walk_by_class

_MISSING = object()


def local_names(tree: ast.AST,
                groups: Optional[Dict[type, List[ast.AST]]] = None) -> Set[str]:
    """Every name the tree binds: parameters, assignment and loop targets, defs.
    `groups`, when given, is `walk_by_class(tree)` (for a caller that has it)."""
    group = (walk_by_class(tree) if groups is None else groups).get
    out = {n.id for n in group(ast.Name, ()) if type(n.ctx) is not ast.Load}
    out.update(a.arg for a in group(ast.arg, ()))
    for kind in (ast.FunctionDef, ast.AsyncFunctionDef):
        out.update(n.name for n in group(kind, ()))
    out.update(n.name for n in group(ast.ExceptHandler, ()) if n.name)
    for kind in (ast.Import, ast.ImportFrom):
        out.update((a.asname or a.name).split(".")[0] for n in group(kind, ())
                   for a in n.names)
    return out


class Scope:
    """Resolves the non-local names of one function to the values they have now."""

    def __init__(self, globals_: Dict[str, Any], cells: Dict[str, Any],
                 locals_: Set[str]) -> None:
        self.globals, self.cells, self.locals = globals_, cells, locals_
        self.bound: Dict[str, Any] = {}  # global name -> its value, for each resolved
        # through a global (the rule checks they still hold it: core/rebinding.py)

    def resolve(self, node: ast.expr) -> Tuple[Any, Optional[str]]:
        """The value of a dotted name (`np.linalg.solve`) and its text, when it is a
        global or builtin reached through modules and classes only; else (_MISSING,
        None). Closure cells are not resolved: their contents may change."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id in self.locals \
                or node.id in self.cells:
            return _MISSING, None
        value = root = self.globals.get(node.id, _MISSING)
        if value is _MISSING:
            value = getattr(builtins, node.id, _MISSING)
        for attr in reversed(parts):
            if not isinstance(value, (types.ModuleType, type)):
                return _MISSING, None
            value = getattr(value, attr, _MISSING)
        if value is _MISSING:
            return _MISSING, None
        if root is not _MISSING and not isinstance(root, types.ModuleType):
            self.bound[node.id] = root  # (a module bound to another name: not checked)
        return value, ".".join([node.id] + list(reversed(parts)))


def is_missing(value: Any) -> bool:
    return value is _MISSING


def declared_here(fn: ast.FunctionDef, kind: type) -> Set[str]:
    """Names a function declares `global` (or `nonlocal`), not counting nested defs."""
    out: Set[str] = set()
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, kind):
            out.update(node.names)
        stack.extend(child_nodes(node))
    return out
