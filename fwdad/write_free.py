"""Whether a Python function writes into nothing, so that jvp may lend it the caller's
tangent arrays uncopied (fwdad/lent_tangents.py).

    def mlp(w1):                          ->  Verdict: writes nothing, if the free names
        h1 = np.tanh(x @ w1)                  x and w2 hold plain values when it runs
        return np.tanh(h1 @ w2)
    def f(w): return helper(w) * 2.0      ->  helper's verdict, and a check that the
                                              name `helper` still holds that function
    def f(w): w[0] = 1.0; return w        ->  None   (setitem writes)
    def f(w): return w.sum(0)             ->  Verdict (a method that reads, no `out`)
    def f(w): w.sort(); return w          ->  None   (any other method)

A function writes nothing when each call of its normalized code is, by static
reference, a library primitive whose call is pure (rules/purity.call_is_pure, and no
`out` given by position either), a Python function that writes nothing itself, or a
method that only reads on every type that has it (`x.sum()`, `x.reshape(...)`); it
reads attributes only through getattr, and has none of the constructs that run code
not its own (normalize/sealed.REFUSED: nested defs, lambdas, `with`, ...). Anything
else (a dynamic call, any other method, a class, a user's frule) counts as one that
may write.

A pure primitive runs no user code only on plain values (numbers, strings, None, numeric
arrays, and tuples, lists and dicts of them: a user class's `__add__` may write into
its operand), so the verdict is conditional: `holds(verdict, args)` checks, on each
call, that the arguments, the functions' defaults and the globals and closure
variables they read hold plain values, and that the names of the Python functions they
call still hold those functions.
"""
from __future__ import annotations

import ast
import builtins
import types
from dataclasses import dataclass
from typing import Any, Dict, FrozenSet, Optional, Sequence, Set, Tuple

import numpy as np

from fwdad import frontend
from fwdad.astwalk import assigned_once
from fwdad.core import rebinding
from fwdad.forward import records
from fwdad.normalize.refs import is_ref
from fwdad.normalize.sealed import INTROSPECTION, REFUSED, harmless_ref, library_rule, nodes_below
from fwdad.rules.purity import call_is_pure
from fwdad.rules.registry import entry_of, is_primitive, on_register
from fwdad.source import is_generated


@dataclass(frozen=True)
class Verdict:
    """A function that writes nothing, if at each call these hold plain values
    (`reads`: (function, free name)) and still name the functions called (`calls`:
    (function, free name, callee)); `functions` are it and its callees (their
    defaults must be plain too)."""

    functions: Tuple[types.FunctionType, ...]
    reads: FrozenSet[Tuple[types.FunctionType, str]]
    calls: FrozenSet[Tuple[types.FunctionType, str, Any]]


_VERDICTS: Dict[types.FunctionType, Tuple[types.CodeType, Optional[Verdict]]] = {}
_MAX_VERDICTS = 4096  # (lambdas made anew on each call would fill it)


def verdict(fn: types.FunctionType) -> Optional[Verdict]:
    """The Verdict of the Python function `fn`, or None when it may write (kept per
    function and its code)."""
    known = _VERDICTS.get(fn)
    if known is not None and known[0] is fn.__code__:
        return known[1]
    return _found(fn, set())


def _found(fn: types.FunctionType, visiting: Set[types.FunctionType]) -> Optional[Verdict]:
    known = _VERDICTS.get(fn)
    if known is not None and known[0] is fn.__code__:
        return known[1]
    if fn in visiting:  # (recursion: left to the copy)
        return None
    visiting.add(fn)
    found = None
    if not _has_own_rule(fn):
        try:
            _, tree = frontend.normalized(fn)
        except Exception:  # (no source, unsupported syntax: the rule itself will say so)
            pass
        else:
            found = _walk(fn, tree, visiting)
    if len(_VERDICTS) > _MAX_VERDICTS:
        _VERDICTS.clear()
    _VERDICTS[fn] = (fn.__code__, found)
    return found


def _has_own_rule(fn: types.FunctionType) -> bool:
    """Whether calls of `fn` run a rule other than the one derived from its code (a
    registered frule, which may write; a rule of a generated rule; a NamedTuple's)."""
    return is_primitive(fn) or is_generated(fn) or records.rule_for(fn) is not None


def _forget(_: Any = None) -> None:
    _VERDICTS.clear()


on_register(_forget)  # (a new rule may change what a call does)
rebinding.on_forget(_forget)


def _walk(fn: types.FunctionType, tree: ast.FunctionDef,
          visiting: Set[types.FunctionType]) -> Optional[Verdict]:
    """The Verdict of `fn` from its normalized tree, or None where it may write."""
    args = tree.args
    local = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} | {
        a.arg for a in (args.vararg, args.kwarg) if a is not None} | {
        n.id for n in ast.walk(tree) if type(n) is ast.Name and type(n.ctx) is ast.Store}
    functions, reads, calls = [fn], set(), set()
    methods = _methods(tree)
    for node in nodes_below(tree):
        kind = type(node)
        if kind in REFUSED or (kind is ast.Attribute and not is_ref(node)):
            return None
        if kind is ast.Name and type(node.ctx) is ast.Load and not is_ref(node) \
                and node.id not in local:
            reads.add((fn, node.id))
        elif kind is ast.Call:
            callee = _call(node, visiting) if not _method_call(node, methods) else _PURE
            if callee is None:
                return None
            if callee is not _PURE:
                functions.extend(f for f in callee.functions if f not in functions)
                reads |= callee.reads
                calls |= callee.calls
                if type(node.func) is ast.Name:
                    calls.add((fn, node.func.id, node.func.fw_value))
    return Verdict(tuple(functions), frozenset(reads), frozenset(calls))


_PURE = Verdict((), frozenset(), frozenset())  # (a primitive's call)


def _call(call: ast.Call, visiting: Set[types.FunctionType]) -> Optional[Verdict]:
    """_PURE for a pure call of a library primitive, the callee's Verdict for a Python
    function that writes nothing, or None."""
    if not is_ref(call.func):
        return None  # a dynamic call
    operands = call.args + [k.value for k in call.keywords]
    if any(is_ref(a) and not harmless_ref(a.fw_value) for a in operands):
        return None  # a callback that may run user code
    fn = call.func.fw_value
    if library_rule(fn):
        entry = entry_of(fn)
        pure = fn not in INTROSPECTION and fn is not setattr and call_is_pure(
            entry, len(call.args), [k.arg for k in call.keywords])
        return _PURE if pure else None
    if type(fn) is types.FunctionType and not is_primitive(fn):
        return _found(fn, visiting)
    return None


_NO_OUT = 1 << 30

# Methods that write nothing on any value made from plain ones (ndarrays, numbers,
# lists, tuples, dicts, strings), with the number of positional arguments after
# which ndarray's would take `out`.
_READING_METHODS: Dict[str, int] = {
    **dict.fromkeys(("reshape", "transpose", "astype", "swapaxes", "diagonal", "ravel",
                     "flatten", "squeeze", "copy", "conj", "conjugate", "item", "tolist",
                     "argsort", "nonzero", "count", "index", "keys", "values", "items",
                     "get"), _NO_OUT),
    **dict.fromkeys(("sum", "mean", "prod", "std", "var", "cumsum", "cumprod", "clip"), 2),
    **dict.fromkeys(("max", "min", "round", "all", "any", "argmax", "argmin", "dot"), 1),
    "trace": 4,
}


def _methods(tree: ast.FunctionDef) -> Dict[str, int]:
    """local -> the positional arguments its call may take, for the locals assigned
    once, by `m = getattr(x, 'sum')` with a method of _READING_METHODS."""
    return assigned_once(tree, lambda value: _READING_METHODS[value.args[1].value]
                         if _reads_method(value) else None)


def _reads_method(value: ast.expr) -> bool:
    return type(value) is ast.Call and is_ref(value.func) and \
        value.func.fw_value is getattr and len(value.args) == 2 and \
        not value.keywords and type(value.args[1]) is ast.Constant and \
        value.args[1].value in _READING_METHODS


def _method_call(call: ast.Call, methods: Dict[str, int]) -> bool:
    """Whether `call` calls a reading method (see _methods) with no `out`, nor a
    callback among its arguments."""
    func = call.func
    if type(func) is not ast.Name or func.id not in methods:
        return False
    operands = call.args + [k.value for k in call.keywords]
    return len(call.args) <= methods[func.id] and \
        all(k.arg is not None and k.arg != "out" for k in call.keywords) and \
        not any(type(a) is ast.Starred or is_ref(a) and not harmless_ref(a.fw_value)
                for a in operands)


# ---- at each call ---------------------------------------------------------------------
def holds(found: Verdict, args: Sequence[Any]) -> bool:
    """Whether the Verdict's conditions hold for a call with `args` now."""
    for x in args:
        if not plain(x):
            return False
    for fn in found.functions:
        defaults, keywords = fn.__defaults__, fn.__kwdefaults__
        if defaults and not plain(defaults) or keywords and not plain(keywords):
            return False
    for fn, name in found.reads:
        if not plain(free_value(fn, name)):
            return False
    for fn, name, callee in found.calls:
        if free_value(fn, name) is not callee:
            return False
    return True


_UNBOUND = object()


def free_value(fn: types.FunctionType, name: str) -> Any:
    """What the free name `name` of `fn` holds now: a closure variable, a global or a
    builtin."""
    code = fn.__code__
    if name in code.co_freevars:
        try:
            return fn.__closure__[code.co_freevars.index(name)].cell_contents
        except ValueError:  # (an empty cell)
            return _UNBOUND
    found = fn.__globals__.get(name, _UNBOUND)
    return getattr(builtins, name, _UNBOUND) if found is _UNBOUND else found


_SCALARS = frozenset({float, int, bool, complex, str, bytes, type(None)} | {
    t for t in np.sctypeDict.values() if issubclass(t, (np.number, np.bool_))})


def plain(x: Any) -> bool:
    """Whether `x` runs no user code in any primitive: numbers, strings, None, numeric
    arrays (not an object array, nor a subclass), and tuples, lists and dicts of them."""
    kind = type(x)
    if kind is np.ndarray:
        return x.dtype.kind in "biufc"
    if kind in _SCALARS:
        return True
    if kind is tuple or kind is list:
        return all(map(plain, x))
    if kind is dict:
        return all(map(plain, x.keys())) and all(map(plain, x.values()))
    return False
