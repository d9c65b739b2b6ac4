"""Which float arrays of a function's globals and closure cells its code writes into
by name (`G[i] = v`, `G[...] += v`, `G.fill(v)`, `np.copyto(G, v)`, `out=G`): the scan
both modes use (forward/written_globals.py, reverse/state.py).
"""
from __future__ import annotations

import ast
import types
from typing import Any, Dict, Iterator

import numpy as np

from fwdad.errors import FwdadError
from fwdad.source import get_source

# Methods of ndarray that write into the array they are called on.
_WRITING_METHODS = frozenset({"fill", "sort", "put", "itemset", "partition", "resize",
                              "setfield", "byteswap", "__setitem__", "__iadd__",
                              "__isub__", "__imul__", "__itruediv__"})
# Functions (np.copyto, np.put, np.add.at, ...) that write into their first argument.
_WRITING_FUNCTIONS = frozenset({"copyto", "put", "place", "putmask", "fill_diagonal",
                                "put_along_axis", "at"})
# Attributes of an array that are views of it (`G.T[0] = v` writes into G).
_VIEWS = frozenset({"T", "mT", "real", "imag", "flat"})


def written_arrays(f: types.FunctionType) -> Iterator[np.ndarray]:
    """The float arrays among `f`'s globals and closure cells that its code (nested
    defs included) writes into by name."""
    arrays = _named_arrays(f)
    if not arrays:
        return  # (the common case: nothing to parse)
    try:
        tree = get_source(f).tree
    except FwdadError:  # (no source: its calls are foreign, and refuse such writes)
        return
    written = {name for name in written_names(tree) if name in arrays}
    for name in sorted(written):
        yield arrays[name]


def _named_arrays(f: types.FunctionType) -> Dict[str, np.ndarray]:
    """Name -> float array, for the globals that f's code names and its closure cells."""
    found = {}
    scope = f.__globals__
    for name in _names(f.__code__):
        value = scope.get(name)
        if _float_array(value):
            found[name] = value
    for name, cell in zip(f.__code__.co_freevars, f.__closure__ or ()):
        try:
            value = cell.cell_contents
        except ValueError:  # (an empty cell)
            continue
        if _float_array(value):
            found[name] = value
    return found


def _float_array(value: Any) -> bool:
    return type(value) is np.ndarray and value.dtype.kind in "fc"


def _names(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    yield from code.co_freevars
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def written_names(tree: ast.AST) -> Iterator[str]:
    """The names whose arrays the code writes into: `G[i] = v`, `G[i] += v`,
    `del G[i]`, `G.T[i] = v`, `G += v` (G global or nonlocal), `G.fill(v)`,
    `np.copyto(G, v)`, `f(..., out=G)`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
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
    """The name whose array `node` is a part or view of (`G`, `G[0]`, `G.T`)."""
    while isinstance(node, ast.Subscript) or (
            isinstance(node, ast.Attribute) and node.attr in _VIEWS):
        node = node.value
    if isinstance(node, ast.Name):
        yield node.id
