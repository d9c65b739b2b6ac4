"""Whether a normalized function can run code that reaches its instance arguments.

    def step(s, k, h):                           ->  Sealed(writes=True)
        s.vel = s.vel - h * k * np.sin(s.pos)        (primitives on locals and refs)
    def step(s, k): s.x = helper(s.x, k)         ->  None   (a Python function runs)
    def step(s, k): s.x = G.x * k                ->  None   (a global: it may be s)

An instance argument's fields may live in locals for the whole call (the entry reads
them, the exits write them back: normalize/param_locals.py) only where nothing else can
read or write the instance meanwhile. Something else could only through code the
function runs that is not its own (a Python function, a user class's dunder method, a
callback given to a primitive) or through another name for the instance (a global, a
closure cell, another argument, something one of those holds). So the function is
*sealed* when it calls only registered primitives, by static reference; mentions no
global or closure variable but through those references (modules, primitives);
touches attributes (getattr) only of values its own primitives made or of its
parameters, and sets none but its instance parameters' fields (the caller's uses.py
says which); and has no nested def, lambda, class, `with`, `try`, `global`, `yield`.
Its other arguments must be numbers, strings, None or numeric arrays, which run no user
code in any primitive; forward/plain_instances.py checks that on each call.

A sealed function may also write fields (`writes`) when, in addition, its every call
but those writes is pure (mutates none of its operands; an in-place operator on a
field's value counts as pure where plain_instances checks that the value is an
immutable number) and draws no random numbers: an exception part-way through then
left nothing changed, and the general rule can run the call again from the start
(forward/field_writes.py).
"""
from __future__ import annotations

import ast
import operator
import types
from dataclasses import dataclass, field
from typing import Any, Dict, List, Set

import numpy as np

from fwdad.astwalk import assigned_once
from fwdad.normalize.refs import is_ref
from fwdad.probe import probe
from fwdad.rules.purity import call_is_pure
from fwdad.rules.registry import entry_of, is_primitive

REFUSED = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With,
            ast.AsyncWith, ast.Try, ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom,
            ast.Await, ast.Starred, ast.Match) + tuple(
                getattr(ast, name) for name in ("TryStar",) if hasattr(ast, name))
# in-place operator -> the operator it is on an immutable number
IN_PLACE = {operator.iadd: operator.add, operator.isub: operator.sub,
            operator.imul: operator.mul, operator.itruediv: operator.truediv,
            operator.ifloordiv: operator.floordiv, operator.ipow: operator.pow,
            operator.imod: operator.mod}
INTROSPECTION = (delattr, vars, locals, eval, exec)  # (they reach names, not values)
_RANDOM_MODULES = ("random", "numpy.random", "secrets", "time", "os")


@dataclass
class Sealed:
    writes: bool  # may keep written fields in locals too (see the module docstring)
    # local -> the (instance parameter, field) it holds, for the reads of fields whose
    # value an in-place operator updates (`s.t += h`)
    updated: Dict[str, Any] = field(default_factory=dict)


def sealed(tree: ast.FunctionDef, instances: Set[str]) -> "Sealed | None":
    """Whether `tree` is sealed for the instance parameters `instances` (see the module
    docstring), and whether it may write their fields; None when it is not."""
    args = tree.args
    if args.vararg or args.kwarg:
        return None
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}
    local = params | {n.id for n in ast.walk(tree)
                      if type(n) is ast.Name and type(n.ctx) is ast.Store}
    reads = _field_reads(tree, instances)
    found = Sealed(writes=True)
    for node in nodes_below(tree):
        kind = type(node)
        if kind in REFUSED:
            return None
        if kind is ast.Name and type(node.ctx) is ast.Load and not is_ref(node) \
                and node.id not in local:
            return None  # a global or closure variable: it may hold the instance
        if kind is ast.Attribute and not is_ref(node):
            return None
        if kind is ast.Call and not _call(node, instances, reads, found):
            return None
    return found


def nodes_below(tree: ast.FunctionDef) -> List[ast.AST]:
    """The nodes below the def, but for the parts of static references (`operator` in
    `operator.add`)."""
    out: List[ast.AST] = []
    todo = list(ast.iter_child_nodes(tree))
    while todo:
        node = todo.pop()
        out.append(node)
        if not is_ref(node):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _field_reads(tree: ast.FunctionDef, instances: Set[str]) -> Dict[str, Any]:
    """local -> (parameter, field) for `local = getattr(p, 'f')`, where that is the
    local's only assignment."""
    return assigned_once(tree, lambda value: _field_read(value, instances))


def _field_read(value: ast.expr, instances: Set[str]) -> Any:
    if type(value) is ast.Call and is_ref(value.func) and \
            value.func.fw_value is getattr and len(value.args) == 2 and \
            type(value.args[0]) is ast.Name and value.args[0].id in instances and \
            type(value.args[1]) is ast.Constant:
        return value.args[0].id, value.args[1].value
    return None


def _call(call: ast.Call, instances: Set[str], reads: Dict[str, Any],
          found: Sealed) -> bool:
    """Whether `call` runs no code but a primitive's own; clears `found.writes` when
    it may change something (or draws random numbers)."""
    if not is_ref(call.func):
        return False
    fn = call.func.fw_value
    if not library_rule(fn) or fn in INTROSPECTION:
        return False
    first = call.args[0] if call.args else None
    if fn is setattr:  # (uses.py: a write only of an instance parameter's field)
        return type(first) is ast.Name and first.id in instances
    if fn in IN_PLACE and type(first) is ast.Name and first.id in reads:
        found.updated[first.id] = reads[first.id]
        return True
    if _random(fn) or not call_is_pure(entry_of(fn), len(call.args),
                                       [k.arg for k in call.keywords]):
        found.writes = False
    return not any(is_ref(a) and not harmless_ref(a.fw_value) for a in call.args) and \
        not any(is_ref(k.value) and not harmless_ref(k.value.fw_value) for k in call.keywords)


def library_rule(fn: Any) -> bool:
    """A primitive whose rule and primal are the libraries' own (no user code: a user's
    frule, a user function marked linear, a user class, may read anything)."""
    entry = entry_of(fn)
    if entry is None or not _library(getattr(entry.rule, "__module__", None)):
        return False
    if isinstance(fn, type):
        return fn.__module__ in ("builtins", "numpy")
    return not isinstance(fn, types.FunctionType) or _library(fn.__module__)


def _library(module: Any) -> bool:
    return isinstance(module, str) and module.partition(".")[0] in _LIBRARIES


_LIBRARIES = frozenset({"fwdad", "numpy", "math", "operator", "builtins", "scipy"})
_PLAIN_VALUES = (types.ModuleType, types.BuiltinFunctionType, np.ufunc, int, float,
                 complex, str, bytes, type(None), np.number, np.dtype)


def harmless_ref(value: Any) -> bool:
    """A static reference given as an argument runs no user code when called back."""
    if isinstance(value, _PLAIN_VALUES):
        return True
    if isinstance(value, type):
        return value.__module__ in ("builtins", "numpy")
    return isinstance(value, types.FunctionType) and is_primitive(value) and \
        value.__module__.partition(".")[0] == "fwdad"


def _random(fn: Any) -> bool:
    """Whether `fn` may give another result, or do something seen outside, when the
    call is run again (the general rule runs it again after an exception)."""
    if fn in (print, input, open, breakpoint):
        return True
    owner = probe(fn, "__self__")
    module = probe(fn, "__module__") or getattr(type(owner), "__module__", "")
    return module.startswith(_RANDOM_MODULES) or \
        type(owner).__module__.startswith("numpy.random")
