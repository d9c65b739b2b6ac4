"""Static references: AST nodes that name a value known when the rule is built.

`ref(operator.add, "operator.add")` renders as `operator.add` in normalized code and
carries the value itself in `node.fw_value`, so later stages never look the dotted name
up again (a user's local called `operator` cannot capture it).
"""
from __future__ import annotations

import ast
from typing import Any, List, Optional

from fwdad.astwalk import copy_locations, location


def ref(value: Any, dotted: str, like: Optional[ast.AST] = None) -> ast.expr:
    """A Load node for `dotted` that carries `value`."""
    nodes = _ref_nodes(value, dotted)
    if like is not None:
        copy_locations(nodes, like)
    return nodes[-1]


def _ref_nodes(value: Any, dotted: str) -> List[ast.expr]:
    """The nodes of a reference, innermost first: `operator`, `operator.add`."""
    parts = dotted.split(".")
    nodes = [ast.Name(parts[0], _LOAD)]  # (positional fields: quicker)
    for part in parts[1:]:
        nodes.append(ast.Attribute(nodes[-1], part, _LOAD))
    nodes[-1].fw_value = value
    return nodes


_LOAD = ast.Load()  # shared, as ast.parse shares it


def is_ref(node: ast.AST) -> bool:
    return "fw_value" in getattr(node, "__dict__", ())  # (no AttributeError to raise)


def call(fn: Any, dotted: str, args: list, like: ast.AST, keywords=None) -> ast.Call:
    """`dotted(*args)` as a Call whose callee is a static reference to `fn`."""
    nodes = _ref_nodes(fn, dotted)
    node = ast.Call(nodes[-1], args, keywords or [])
    nodes.append(node)
    where = location(like)
    if where is None:
        copy_locations(nodes, like)
    else:  # (Name, Attribute and Call nodes all take a whole location)
        for each in nodes:
            each.__dict__.update(where)
    return node


def is_atom(node: ast.AST) -> bool:
    """Names, constants and static references: the only arguments after flattening."""
    kind = type(node)
    return kind is ast.Name or kind is ast.Constant or is_ref(node)
