"""Which rules read a function's mutable default through a global or closure variable.

A mutable default is one object, which a module may also name:

    def helper(w, store=[]):            STORE = helper.__defaults__[0]
        store.append(w[0] * w[1])       def f(w):
        return store[0]                     STORE.clear()
                                            return helper(w) * STORE[0]

Within one derivative the rule of `helper` and every live read of `STORE` share one
Dual of the list (forward/defaults.py, core/duals.read_global), so what one writes,
derivative included, the other reads. The optimizer takes a value read from a global
for a constant, with a zero tangent (it inlines `STORE[0]` as plain Python): a rule that
reads such a default must stay unoptimized. `reads_mutable_default` tells, when a rule
is built, from the defaults of the functions the rule's own function reaches through its
globals and closure cells, and of every function whose rule was built before. A default
met only later (a function passed as an argument) whose object an optimized rule took
for a constant drops every rule (forward/defaults.FreshDefault), so that they are built
again with what is known then; met in the middle of a derivative, while such a rule
may be running, it is refused for that call.
"""
from __future__ import annotations

import sys
import types
import weakref
from typing import Any, Callable, Dict, Iterable, Iterator, Set, Tuple

import numpy as np

from fwdad.core.duals import MUTABLE_DEFAULTS
from fwdad.core.written_arrays import refers, written_within
from fwdad.forward.defaults import ASSUMED_PLAIN, may_hold_derivative, registered
from fwdad.forward.written_globals import register_written_objects
from fwdad.source import FunctionSource

_LIBRARIES = frozenset({"numpy", "scipy", "fwdad"}) | frozenset(sys.stdlib_module_names)
_MOST_FUNCTIONS = 500  # walked from one function: a bound on the time a build may take
_WALKED: "weakref.WeakSet[Any]" = weakref.WeakSet()  # (the functions and classes walked)
_READS_DEFAULTS = frozenset({"__defaults__", "__kwdefaults__"})


def reads_mutable_default(src: FunctionSource, names: Iterable[str]) -> bool:
    """Whether one of the globals or closure variables `names`, which the rule of
    `src.fn` reads live, holds a mutable default of a function. The mutable values among
    them that are not (yet) are noted as taken for constants (ASSUMED_PLAIN)."""
    register_reachable(src.fn)
    code = getattr(src.fn, "__code__", None)
    if code is not None and _READS_DEFAULTS & set(_names(code)):
        return True  # (`helper.__defaults__[0]`: an attribute the optimizer may fold)
    read = {name: src.live_value(name, _MISSING) for name in names}
    if code is not None:  # (`GET = STORE.__getitem__` called: a callee, bound when the
        # rule is built, that a write into STORE reaches)
        for name in set(_names(code)) | set(code.co_freevars):
            value = src.live_value(name, _MISSING)
            if name not in read and refers(value):
                read[name] = value
    mutable = {name: v for name, v in read.items() if may_hold_derivative(v) or refers(v)}
    # (where to look each up again, which tells a live entry from a reused id)
    where = {name: (src.globals, name) if name not in src.cells else (src.cells[name], None)
             for name in mutable}
    if code is not None:  # (`config.BUF`, `Model.cache`: attributes it may fold too)
        for scope, attribute, value in _attributes_read(read.values(), set(_names(code))):
            mutable[attribute] = value
            where[attribute] = (scope, attribute)
    if any(id(v) in MUTABLE_DEFAULTS for v in mutable.values()):
        return True
    if any(written_within(v) is not None for v in list(mutable.values()) + list(read.values())
           if type(v) is np.ndarray or may_hold_derivative(v) or refers(v)):
        return True  # (a list, object or view holding an array written into: its reads refuse)
    for name, value in mutable.items():
        ASSUMED_PLAIN[id(value)] = where[name]
    return False


def _attributes_read(values: Iterable[Any], names: Set[str]
                     ) -> Iterator[Tuple[Any, str, Any]]:
    """(namespace, name, value) for the mutable attributes named in the code of the
    user's modules and classes among `values`, and of the modules those hold."""
    todo, seen = [v for v in values if isinstance(v, (types.ModuleType, type))], set()
    while todo:
        holder = todo.pop()
        if id(holder) in seen or _in_library(holder):
            continue
        seen.add(id(holder))
        space = vars(holder)
        for name in names & space.keys():
            value = space[name]
            if isinstance(value, types.ModuleType):
                todo.append(value)
            elif may_hold_derivative(value):
                yield space, name, value


def register_reachable(fn: Callable[..., Any]) -> None:
    """Register (as FreshDefault) the mutable defaults of `fn` and of the Python
    functions it reaches through its globals and closure cells (its static calls, and
    theirs), library code left out; and the global and closure objects they write into
    (forward/written_globals.py)."""
    todo, count = [fn], 0
    while todo and count < _MOST_FUNCTIONS:
        f = _function_of(todo.pop())
        if isinstance(f, type):
            if not _in_library(f) and f not in _WALKED:
                _WALKED.add(f)
                todo.extend(vars(f).values())  # (its methods)
            continue
        if not isinstance(f, types.FunctionType) or f in _WALKED or _in_library(f):
            continue
        _WALKED.add(f)
        count += 1
        for value in _defaults(f):
            if may_hold_derivative(value):
                registered(value, f)  # (registers it, kept while f lives)
        register_written_objects(f)  # (a global object it writes into: as a default)
        todo.extend(_reached(f))


def _function_of(value: Any) -> Any:
    """The function of a method, staticmethod or classmethod; else the value."""
    if isinstance(value, (types.MethodType, staticmethod, classmethod)):
        return value.__func__
    return value


def _defaults(f: types.FunctionType) -> Iterator[Any]:
    yield from f.__defaults__ or ()
    yield from (f.__kwdefaults__ or {}).values()


def _reached(f: types.FunctionType) -> Iterator[Any]:
    """The values `f` may call: its globals named in its code (nested defs' too), and
    its closure cells."""
    scope: Dict[str, Any] = f.__globals__
    names = set(_names(f.__code__))
    for name in names:
        value = scope.get(name)
        if isinstance(value, (dict, list, tuple)):  # (a table of functions: one level)
            yield from value.values() if isinstance(value, dict) else value
        elif isinstance(value, types.ModuleType) and not _in_library(value):
            space = vars(value)  # (`config.helper(x)`: its functions it names)
            yield from (space[n] for n in names & space.keys())
        elif value is not None:
            yield value
    for cell in f.__closure__ or ():
        try:
            yield cell.cell_contents
        except ValueError:  # (an empty cell)
            continue


def _names(code: types.CodeType) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _in_library(f: Any) -> bool:
    module = f.__name__ if isinstance(f, types.ModuleType) else \
        getattr(f, "__module__", None) or ""
    return module.split(".", 1)[0] in _LIBRARIES


_MISSING = object()
