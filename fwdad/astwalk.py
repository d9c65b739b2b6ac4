"""Fast walks over syntax trees, for the passes that build rules.

`ast.walk` and `ast.iter_child_nodes` look at every field of every node through
generators, including fields that never hold nodes (a Name's id, a Constant's value) and
the Load/Store markers. Building one rule walks its trees many times, so these versions
read only the fields that can hold nodes (cached per node class) and return lists.
They visit the same nodes as ast.walk, except the expression-context markers
(ast.Load, ast.Store, ast.Del), which no pass looks for.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Set, Tuple

_AST = ast.AST

# Fields that hold strings, numbers or expression contexts, never nodes to visit.
_SCALAR = {"ctx", "id", "attr", "arg", "kind", "type_comment", "level", "module",
           "conversion", "is_async", "simple", "tag"}
_NODE_FIELDS: Dict[type, Tuple[str, ...]] = {
    ast.Constant: (), ast.Name: (), ast.Global: (), ast.Nonlocal: (),
    ast.alias: (), ast.Pass: (), ast.Break: (), ast.Continue: (),
}


def node_fields(cls: type) -> Tuple[str, ...]:
    """The fields of nodes of class `cls` that may hold nodes."""
    fields = _NODE_FIELDS.get(cls)
    if fields is None:
        fields = _NODE_FIELDS[cls] = tuple(f for f in cls._fields if f not in _SCALAR)
    return fields


def child_nodes(node: ast.AST) -> List[ast.AST]:
    """The direct children of `node`, in field order (like ast.iter_child_nodes)."""
    out: List[ast.AST] = []
    for name in node_fields(type(node)):
        value = getattr(node, name, None)
        if type(value) is list:
            out.extend(item for item in value if isinstance(item, _AST))
        elif isinstance(value, _AST):
            out.append(value)
    return out


def walk(node: ast.AST) -> List[ast.AST]:
    """`node` and every node below it, breadth first (the order of ast.walk)."""
    out = [node]
    fields_of = _NODE_FIELDS.get
    i = 0
    while i < len(out):
        current = out[i]
        i += 1
        cls = type(current)
        fields = fields_of(cls)
        if fields is None:
            fields = node_fields(cls)
        for name in fields:
            value = getattr(current, name, None)
            if value is None:
                continue
            if type(value) is list:
                for item in value:
                    if isinstance(item, _AST):
                        out.append(item)
            elif isinstance(value, _AST):
                out.append(value)
    return out


def names(node: ast.AST) -> List[ast.Name]:
    """Every Name node below `node` (itself included)."""
    return [n for n in walk(node) if type(n) is ast.Name]


def loaded_names(node: ast.AST) -> Set[str]:
    """The names `node` reads."""
    return {n.id for n in walk(node) if type(n) is ast.Name and type(n.ctx) is ast.Load}
