"""The float arrays kept in a module's globals or a closure that code writes into by
name: within one derivative they hold a derivative, as a function's mutable default does.

    SCRATCH = np.zeros(3)

    def helper(a):
        SCRATCH[...] = a            # a derivative written into a global array...
        return SCRATCH * 2.0        # ...and read back

A global array is otherwise read as a constant, with a read-only zero tangent: writing
a derivative into it is refused (rules/widening.refused_as_constant), since the next
read would not see it. An array that a function writes into by name (`G[i] = v`,
`G[...] += v`, `G.fill(v)`, `np.copyto(G, v)`, `out=G`) is registered instead, when
the rule of a function that reaches it is built (forward/default_aliases.py walks them):
it is registered as forward/defaults.FreshDefault registers a mutable default. So, in one
derivative (a jvp, one batched pass of jacfwd, a linearize, a hessian), every read of the
array, in any rule, gets the same Dual, whose writable tangent starts at zero; what one
line writes, a later one reads with its derivative; the next derivative starts from a
zero tangent again (the array's value, what the last call left, is a constant of it).
Since every read shares the one Dual, a name bound to the array before the write
(`a = G; G[0] = x; a[0]`) sees the write too. Rules that read such an array stay
unoptimized (the optimizer takes global reads for constants).

Writes the scan does not see (through another name in a function that does not name the
array, or into a function's parameter that was given the global) are still refused; so
is a live read of a list, object or view that holds such an array (core/written_arrays.py),
whose zero tangent would not see what the array's Dual holds.
"""
from __future__ import annotations

import ast
import types
from typing import Any, Dict, Iterator

import numpy as np

from fwdad.core.rebinding import forget_rules
from fwdad.core.written_arrays import note_written, written_within
from fwdad.errors import FwdadError
from fwdad.forward.default_refusals import met_late, rule_running
from fwdad.forward.defaults import (
    ASSUMED_PLAIN,
    MUTABLE_DEFAULTS,
    FreshDefault,
    derivative_open,
)
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


WRITTEN = "a global or closure array that the differentiated code writes into"


def register_written_arrays(f: types.FunctionType) -> None:
    """Register the float arrays of `f`'s globals and closure cells that `f` writes
    into by name (kept registered while f lives)."""
    for value in written_arrays(f):
        kept = MUTABLE_DEFAULTS.get(id(value))
        if kept is None:
            note_written(value)  # (before: FreshDefault may raise, and the array is known)
            kept = FreshDefault(value, f, WRITTEN)
            _drop_rules_taking_holders_for_constants(kept)
        else:
            note_written(value)
            kept.own(f)


def _drop_rules_taking_holders_for_constants(kept: FreshDefault) -> None:
    """An optimized rule that took a list, object or view holding the array for a
    constant (defaults.ASSUMED_PLAIN) is dropped, as one that took the array itself
    (FreshDefault); it may be running now: then this derivative is refused."""
    for key, (scope, name) in list(ASSUMED_PLAIN.items()):
        holder = scope.get(name) if name is not None else _contents(scope)
        if holder is not None and written_within(holder) is kept.value:
            ASSUMED_PLAIN.clear()
            forget_rules()
            if derivative_open() and rule_running():
                raise met_late(kept)
            return


def _contents(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # (an empty cell)
        return None


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
    written = {name for name in _written_names(tree) if name in arrays}
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


def _written_names(tree: ast.AST) -> Iterator[str]:
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


written_names = _written_names  # (public: reverse/state.py finds written defaults with it)


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
