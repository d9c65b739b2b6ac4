"""Which objects of a function's globals and closure cells its code writes into by
name (`G[i] = v`, `G[...] += v`, `G.fill(v)`, `np.copyto(G, v)`, `out=G`, `S.append(v)`,
`T.update(d)`, `B.v = w`): the scan both modes use (forward/written_globals.py follows
float arrays, lists, dicts and instances; reverse/state.py float arrays).
"""
from __future__ import annotations

import ast
import types
from typing import Any, Callable, Dict, Iterator

import numpy as np

from fwdad.errors import FwdadError
from fwdad.probe import probe
from fwdad.source import get_source

# Methods of ndarray, list and dict that write into the object they are called on.
_WRITING_METHODS = frozenset({"fill", "sort", "put", "itemset", "partition", "resize",
                              "setfield", "byteswap", "__setitem__", "__iadd__",
                              "__isub__", "__imul__", "__itruediv__", "append", "extend",
                              "insert", "pop", "remove", "clear", "reverse", "update",
                              "setdefault", "popitem", "__delitem__", "__setattr__"})
# Functions (np.copyto, np.put, np.add.at, ...) that write into their first argument.
_WRITING_FUNCTIONS = frozenset({"copyto", "put", "place", "putmask", "fill_diagonal",
                                "put_along_axis", "at"})


def float_array(value: Any) -> bool:
    return type(value) is np.ndarray and value.dtype.kind in "fc"


def written_arrays(f: types.FunctionType) -> Iterator[np.ndarray]:
    """The float arrays among `f`'s globals and closure cells that its code (nested
    defs included) writes into by name."""
    return written_values(f, float_array)


def writes_by_name(f: types.FunctionType) -> bool:
    """Whether f's code writes into an array, list, dict or object of its globals or
    closure cells by name (a static schedule, which reads them as constants, cannot
    follow that: it runs the full rule instead)."""
    return next(written_values(f, _mutable), _NOTHING) is not _NOTHING


_NOTHING = object()


def _mutable(value: Any) -> bool:
    return isinstance(value, (np.ndarray, list, dict)) or (
        probe(value, "__dict__") is not None and not isinstance(
            value, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)))


def written_values(f: types.FunctionType, kept: Callable[[Any], bool]) -> Iterator[Any]:
    """The values of `f`'s globals and closure cells for which `kept(value)` holds and
    that its code (nested defs included) writes into by name."""
    named = _named(f, kept)
    if not named:
        return  # (the common case: nothing to parse)
    try:
        tree = get_source(f).tree
    except FwdadError:  # (no source: its calls are foreign, and refuse such writes)
        return
    written = {name for name in written_names(tree) if name in named}
    for name in sorted(written):
        yield named[name]


def _named(f: types.FunctionType, kept: Callable[[Any], bool]) -> Dict[str, Any]:
    """Name -> value, for the globals that f's code names and its closure cells whose
    values are `kept`."""
    found = {}
    scope = f.__globals__
    for name in _names(f.__code__):
        value = scope.get(name)
        if kept(value):
            found[name] = value
    for name, cell in zip(f.__code__.co_freevars, f.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # (an empty cell)
            continue
        if kept(value):
            found[name] = value
    return found


def _names(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    yield from code.co_freevars
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def written_names(tree: ast.AST) -> Iterator[str]:
    """The names whose objects the code writes into: `G[i] = v`, `G[i] += v`,
    `del G[i]`, `G.T[i] = v`, `G += v` (G global or nonlocal), `G.fill(v)`,
    `np.copyto(G, v)`, `f(..., out=G)`, `S.append(v)`, `S.update(d)`, `B.v = w`."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and \
                not isinstance(node.ctx, ast.Load):
            yield from _base_name(node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            yield node.target.id  # (in place on an array; a local of that name is
            # no global, and registering it costs only optimization)
        elif isinstance(node, ast.Call):
            yield from _written_by_call(node)


def _written_by_call(node: ast.Call) -> Iterator[str]:
    func = node.func
    if isinstance(func, ast.Attribute):
        if func.attr in _WRITING_METHODS:
            yield from _base_name(func.value)
        if func.attr in _WRITING_FUNCTIONS and node.args:
            yield from _base_name(node.args[0])
    for keyword in node.keywords:
        if keyword.arg == "out":
            outs = keyword.value.elts if isinstance(keyword.value, ast.Tuple) \
                else [keyword.value]
            for out in outs:
                yield from _base_name(out)


def _base_name(node: ast.AST) -> Iterator[str]:
    """The name whose object `node` is a part or view of (`G`, `G[0]`, `G.T`, `B.a`)."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    if isinstance(node, ast.Name):
        yield node.id
