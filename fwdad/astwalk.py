"""Fast walks over syntax trees, for the passes that build rules.

`ast.walk` and `ast.iter_child_nodes` look at every field of every node through
generators, including fields that never hold nodes (a Name's id, a Constant's value) and
the Load/Store markers. Building one rule walks its trees many times, so these versions
read only the fields that can hold nodes (cached per node class) and return lists.
They visit the same nodes as ast.walk, except the expression-context markers
(ast.Load, ast.Store, ast.Del), which no pass looks for.

The same holds for the other helpers the passes use on every node: copy_location,
fix_missing_locations and clone (for ast.copy_location, ast.fix_missing_locations and
copy.deepcopy), and Transformer (for ast.NodeTransformer).
"""
from __future__ import annotations

import ast
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

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
    append, fields_of = out.append, _NODE_FIELDS.get
    for current in out:  # (the loop goes on over what it appends)
        cls = type(current)
        fields = fields_of(cls)
        if fields is None:
            fields = node_fields(cls)
        if not fields:
            continue
        own = current.__dict__  # (a field left out is None here, as with getattr)
        for name in fields:
            value = own.get(name)
            if type(value) is list:
                for item in value:
                    if isinstance(item, _AST):
                        append(item)
            elif isinstance(value, _AST):
                append(value)
    return out


def walk_by_class(node: ast.AST) -> Dict[type, List[ast.AST]]:
    """The nodes of `walk(node)` grouped by class, each group in walk order: a pass
    that looks for a few classes reads their groups instead of every node. Operators
    (the `op` of a BinOp, UnaryOp, BoolOp or AugAssign, the `ops` of a Compare) are
    left out, as expression contexts are: they are a fifth of the nodes of arithmetic,
    and no pass looks for them."""
    out, groups = [node], {}
    append, fields_of, group_of = out.append, _GROUP_FIELDS.get, groups.get
    for current in out:  # (walk's loop, grouping each node as it goes)
        cls = type(current)
        group = group_of(cls)
        if group is None:
            groups[cls] = [current]
        else:
            group.append(current)
        fields = fields_of(cls)
        if fields is None:
            fields = _GROUP_FIELDS[cls] = tuple(
                f for f in node_fields(cls) if f not in ("op", "ops"))
        if not fields:
            continue
        own = current.__dict__
        for name in fields:
            value = own.get(name)
            if type(value) is list:
                for item in value:
                    if isinstance(item, _AST):
                        append(item)
            elif isinstance(value, _AST):
                append(value)
    return groups


_GROUP_FIELDS: Dict[type, Tuple[str, ...]] = {}  # node_fields, less operators


def names(node: ast.AST) -> List[ast.Name]:
    """Every Name node below `node` (itself included)."""
    return [n for n in walk(node) if type(n) is ast.Name]


def copy_location(new: ast.AST, old: ast.AST) -> ast.AST:
    """`ast.copy_location`, made fast as copy_locations is."""
    where = location(old)
    if where is None or type(new) not in LOCATED:
        return ast.copy_location(new, old)
    new.__dict__.update(where)
    return new


def copy_locations(new: List[ast.AST], old: ast.AST) -> List[ast.AST]:
    """`ast.copy_location` from `old` to each node of `new`, made fast for the common
    case: the nodes are statements or expressions (...) and `old` has its whole
    location, read once."""
    where = location(old)
    for node in new:
        if where is not None and type(node) in LOCATED:
            node.__dict__.update(where)
        else:
            ast.copy_location(node, old)
    return new


def location(node: ast.AST) -> Optional[Dict[str, object]]:
    """The location attributes of `node` when ast.copy_location would copy all four."""
    if type(node) not in LOCATED:
        return None
    own = node.__dict__
    try:
        where = {"lineno": own["lineno"], "col_offset": own["col_offset"],
                 "end_lineno": own["end_lineno"], "end_col_offset": own["end_col_offset"]}
    except KeyError:
        return None
    if where["lineno"] is None or where["col_offset"] is None:
        return None
    return where


# Making nodes on a hot path: a copy of a template __dict__, filled in and given to a
# blank node, is quicker than making a node from its fields and then adding its location
# (the four attributes make its __dict__ grow; copying a dict does not). See refs.call.
def template(*fields: str) -> Dict[str, object]:
    """A __dict__ with these fields and a location, to copy for each node."""
    return dict.fromkeys(fields + _LOCATION)


blank = ast.AST.__new__  # blank(ast.Name): a node with no attributes yet


def fix_missing_locations(tree: ast.AST) -> ast.AST:
    """`ast.fix_missing_locations`: a node without a location takes its parent's."""
    stack = [(tree, {"lineno": 1, "col_offset": 0, "end_lineno": 1, "end_col_offset": 0})]
    pop, push, fields_of = stack.pop, stack.append, _NODE_FIELDS.get
    while stack:
        node, parent = pop()  # parent: the attributes of the nearest located ancestor
        cls = type(node)
        if cls in LOCATED:
            own = node.__dict__
            if own.get("end_col_offset") is None or own.get("end_lineno") is None \
                    or "lineno" not in own or "col_offset" not in own:
                _inherit(own, parent)
            parent = own
        fields = fields_of(cls)
        for name in fields if fields is not None else node_fields(cls):
            value = getattr(node, name, None)
            for item in value if type(value) is list else (value,):
                kind = type(item)
                if kind is ast.Name or kind is ast.Constant:  # a leaf: done here
                    own = item.__dict__
                    if own.get("end_col_offset") is None or own.get("end_lineno") is None \
                            or "lineno" not in own or "col_offset" not in own:
                        _inherit(own, parent)
                elif isinstance(item, _AST):
                    push((item, parent))
    return tree


def _inherit(own: dict, parent: dict) -> None:
    """Sets the location attributes missing from `own` (a node's) to the parent's."""
    for attr in ("lineno", "col_offset"):
        if attr not in own:
            own[attr] = parent[attr]
    for attr in ("end_lineno", "end_col_offset"):
        if own.get(attr) is None:
            own[attr] = parent[attr]


_LOCATION = ("lineno", "col_offset", "end_lineno", "end_col_offset")
LOCATED = {cls for cls in (getattr(ast, name) for name in dir(ast))
            if isinstance(cls, type) and issubclass(cls, ast.AST)
            and tuple(cls._attributes) == _LOCATION}


def clone(node: ast.AST) -> ast.AST:
    """A copy of the tree under `node`: new nodes, new lists, and every other attribute
    shared (unlike copy.deepcopy, a static reference's value stays the object itself)."""
    cls = type(node)
    new = cls.__new__(cls)
    own = new.__dict__
    for name, value in node.__dict__.items():
        if type(value) is list:
            value = [clone(item) if isinstance(item, _AST) else item for item in value]
        elif isinstance(value, _AST):
            value = clone(value)
        own[name] = value
    return new


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

    def visit_part(self, node: ast.AST) -> ast.AST:
        """`visit(node)` for a part that is sure to be replaced by one node (an
        expression): names, constants and operators are returned as they are."""
        if type(node) in self._leaves:
            return node
        return self.visit(node)

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
                if value:
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


def assigned_once(tree: ast.AST, read: Callable[[ast.expr], Any]) -> Dict[str, Any]:
    """local -> read(value) for the locals of `tree` assigned once, by `local = value`
    where `read(value)` is not None (e.g. `m = getattr(x, 'sum')`: a method read)."""
    stores: Dict[str, int] = {}
    found: Dict[str, Any] = {}
    for node in ast.walk(tree):
        if type(node) is ast.Name and type(node.ctx) is ast.Store:
            stores[node.id] = stores.get(node.id, 0) + 1
        if type(node) is ast.Assign and len(node.targets) == 1 and \
                type(node.targets[0]) is ast.Name:
            value = read(node.value)
            if value is not None:
                found[node.targets[0].id] = value
    return {name: value for name, value in found.items() if stores[name] == 1}
