"""Static references: AST nodes that name a value known when the rule is built.

`ref(operator.add, "operator.add")` renders as `operator.add` in normalized code and
carries the value itself in `node.fw_value`, so later stages never look the dotted name
up again (a user's local called `operator` cannot capture it).
"""
from __future__ import annotations

import ast
import functools
from typing import Any, List, Optional

from fwdad.astwalk import blank, copy_locations, location, template


def ref(value: Any, dotted: str, like: Optional[ast.AST] = None) -> ast.expr:
    """A Load node for `dotted` that carries `value`."""
    nodes = _ref_nodes(value, dotted)
    if like is not None:
        copy_locations(nodes, like)
    return nodes[-1]


def as_ref(name: ast.expr, value: Any, dotted: str) -> ast.expr:
    """`ref(value, dotted, name)` made of the nodes of `name`, a Load of the dotted name
    `dotted` (a Name, or Attributes down to a Name): relocated the same way, instead of
    made anew and the parsed ones thrown away."""
    where = location(name)
    if where is None:
        return ref(value, dotted, name)
    part = name
    while type(part) is ast.Attribute:
        part.__dict__.update(where)
        part = part.value
    part.__dict__.update(where)
    name.fw_value = value
    return name


def _ref_nodes(value: Any, dotted: str) -> List[ast.expr]:
    """The nodes of a reference, innermost first: `operator`, `operator.add`."""
    parts = _split(dotted)
    nodes = [ast.Name(parts[0], _LOAD)]  # (positional fields: quicker)
    for part in parts[1:]:
        nodes.append(ast.Attribute(nodes[-1], part, _LOAD))
    nodes[-1].fw_value = value
    return nodes


_LOAD = ast.Load()  # shared, as ast.parse shares it


@functools.lru_cache(maxsize=1024)  # (a few dotted names make most references)
def _split(dotted: str) -> tuple:
    return tuple(dotted.split("."))


def is_ref(node: ast.AST) -> bool:
    return "fw_value" in getattr(node, "__dict__", ())  # (no AttributeError to raise)


def call(fn: Any, dotted: str, args: list, like: ast.AST, keywords=None) -> ast.Call:
    """`dotted(*args)` as a Call whose callee is a static reference to `fn`."""
    where = location(like)
    if where is None:
        nodes = _ref_nodes(fn, dotted)
        node = ast.Call(nodes[-1], args, keywords or [])
        copy_locations(nodes + [node], like)
        return node
    # (_ref_nodes, inline, each node made from a template: see astwalk.template.
    # Operators make most calls.)
    at = where["lineno"], where["col_offset"], where["end_lineno"], where["end_col_offset"]
    parts = _split(dotted)
    own = _NAME.copy()
    own["id"], own["ctx"] = parts[0], _LOAD
    own["lineno"], own["col_offset"], own["end_lineno"], own["end_col_offset"] = at
    func = blank(ast.Name)
    func.__dict__ = own
    for part in parts[1:]:
        own = _ATTRIBUTE.copy()
        own["value"], own["attr"], own["ctx"] = func, part, _LOAD
        own["lineno"], own["col_offset"], own["end_lineno"], own["end_col_offset"] = at
        func = blank(ast.Attribute)
        func.__dict__ = own
    func.fw_value = fn
    own = _CALL.copy()
    own["func"], own["args"], own["keywords"] = func, args, keywords or []
    own["lineno"], own["col_offset"], own["end_lineno"], own["end_col_offset"] = at
    node = blank(ast.Call)
    node.__dict__ = own
    return node


_NAME, _ATTRIBUTE = template("id", "ctx"), template("value", "attr", "ctx")
_CALL = template("func", "args", "keywords")


def is_atom(node: ast.AST) -> bool:
    """Names, constants and static references: the only arguments after flattening."""
    kind = type(node)
    return kind is ast.Name or kind is ast.Constant or is_ref(node)
