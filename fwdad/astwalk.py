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


def copy_location(new: ast.AST, old: ast.AST) -> ast.AST:
    """`ast.copy_location`, without its per-attribute membership tests for the nodes
    that have all four location attributes (statements, expressions, ...)."""
    if type(new) not in _LOCATED or type(old) not in _LOCATED:
        return ast.copy_location(new, old)
    lineno = getattr(old, "lineno", None)
    if lineno is not None:
        new.lineno = lineno
    col = getattr(old, "col_offset", None)
    if col is not None:
        new.col_offset = col
    end = getattr(old, "end_lineno", _ABSENT)  # copied even when None, as ast does
    if end is not _ABSENT:
        new.end_lineno = end
    end = getattr(old, "end_col_offset", _ABSENT)
    if end is not _ABSENT:
        new.end_col_offset = end
    return new


def fix_missing_locations(tree: ast.AST) -> ast.AST:
    """`ast.fix_missing_locations`: a node without a location takes its parent's."""
    stack = [(tree, 1, 0, 1, 0)]
    while stack:
        node, lineno, col, end_lineno, end_col = stack.pop()
        cls = type(node)
        if cls in _LOCATED:
            lineno = _own(node, "lineno", lineno, _ABSENT)
            col = _own(node, "col_offset", col, _ABSENT)
            end_lineno = _own(node, "end_lineno", end_lineno, None)
            end_col = _own(node, "end_col_offset", end_col, None)
        for child in reversed(child_nodes(node)):
            stack.append((child, lineno, col, end_lineno, end_col))
    return tree


def _own(node: ast.AST, attr: str, inherited, missing):
    """The node's own `attr`, or else (when it is `missing`) the inherited one, set."""
    value = getattr(node, attr, _ABSENT)
    if value is missing or value is _ABSENT:
        setattr(node, attr, inherited)
        return inherited
    return value


_ABSENT = object()
_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")
_LOCATED = {cls for cls in (getattr(ast, name) for name in dir(ast))
            if isinstance(cls, type) and issubclass(cls, ast.AST)
            and tuple(cls._attributes) == _LOCATION}


class Transformer:
    """`ast.NodeTransformer`, made fast for the passes that build rules.

    `visit` dispatches through a per-class table of `visit_<Class>` methods, and
    `generic_visit` visits only the fields that may hold nodes, skipping children that
    hold no nodes and have no visit method (names, constants, operators) instead of
    calling into them. What a visit returns replaces the node, as with NodeTransformer:
    None removes it, and a list (in a list field) is spliced in.
    """

    _methods: Dict[type, object]
    _leaves: Set[type]

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._methods, cls._leaves = {}, set()

    def visit(self, node: ast.AST):
        cls = type(node)
        method = self._methods.get(cls)
        if method is None:
            method = self._learn(cls)
        return method(self, node)

    @classmethod
    def _learn(cls, node_cls: type):
        method = getattr(cls, "visit_" + node_cls.__name__, None)
        if method is None:
            method = cls.generic_visit
            if not node_fields(node_cls):
                cls._leaves.add(node_cls)
        cls._methods[node_cls] = method
        return method

    def generic_visit(self, node: ast.AST) -> ast.AST:
        leaves = self._leaves
        for name in node_fields(type(node)):
            value = getattr(node, name, None)
            if type(value) is list:
                value[:] = self._visit_list(value)
            elif isinstance(value, _AST) and type(value) not in leaves:
                new = self.visit(value)
                if new is None:
                    delattr(node, name)
                elif new is not value:
                    setattr(node, name, new)
        return node

    def _visit_list(self, items: list) -> list:
        leaves, out = self._leaves, []
        for item in items:
            if isinstance(item, _AST) and type(item) not in leaves:
                item = self.visit(item)
                if item is None:
                    continue
                if not isinstance(item, _AST):
                    out.extend(item)
                    continue
            out.append(item)
        return out
