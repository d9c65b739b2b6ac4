"""The float arrays, lists, dicts and instances kept in a module's globals or a closure
that code writes into by name: within one derivative they hold a derivative, as a
function's mutable default does.

    SCRATCH = np.zeros(3)                   def make_stash():
                                                store = {}
    def helper(a):                              def stash(a):
        SCRATCH[...] = a  # a derivative...         store["a"] = a
        return SCRATCH * 2.0  # ...read back        return store["a"] * 0.5
                                                return stash

A global is otherwise read as a constant, with a read-only zero tangent: writing a
derivative into it is refused (rules/widening.refused_as_constant, core/read_only.py),
since the next read would not see it. An object that a function writes into by name
(`G[i] = v`, `G[...] += v`, `G.fill(v)`, `np.copyto(G, v)`, `out=G`, `S.append(v)`,
`T[k] = v`, `T.update(d)`, `B.v = w`, `B.a[0] = w`) is registered instead, when the rule
of a function that reaches it is built (forward/default_aliases.py walks them): it is
registered as forward/defaults.FreshDefault registers a mutable default. So, in one
derivative (a jvp, one batched pass of jacfwd, a linearize, a hessian, a sparsity
detection), every read of the object, in any rule, gets the same Dual, whose writable
tangent starts at zero; what one line writes, a later one reads with its derivative;
the next derivative starts from a zero tangent again (the object's value, what the last
call left, is a constant of it). The object itself only ever holds plain values.
Since every read shares the one Dual, a name bound to it before the write
(`a = G; G[0] = x; a[0]`, or a second global naming the same dict) sees the write too.
Rules that read such an object stay unoptimized (the optimizer takes global reads for
constants).

Writes the scan does not see (through another name in a function that does not name the
object, or into a function's parameter that was given the global) are still refused; so
is a live read of a list, object, view or bound method that holds such an object
(core/written_arrays.py), whose zero tangent would not see what the object's Dual holds,
and the object also given as an argument of the derivative (forward/defaults.py).
"""
from __future__ import annotations

import sys
import types
from typing import Any, Iterator

import numpy as np

from fwdad.core.rebinding import forget_rules
from fwdad.core.written_arrays import is_written, note_written, written_within
from fwdad.core.written_names import written_values
from fwdad.forward.default_refusals import met_late, rule_running
from fwdad.forward.defaults import (
    ASSUMED_PLAIN,
    MUTABLE_DEFAULTS,
    FreshDefault,
    derivative_open,
    may_hold_derivative,
)

# Modules whose instances are not the user's state (a generator, a lock).
_LIBRARIES = frozenset({"numpy", "scipy", "fwdad", "builtins"}) | \
    frozenset(sys.stdlib_module_names)


WRITTEN = "a global or closure array that the differentiated code writes into"


WRITTEN_HOLDER = "a global or closure container that the differentiated code writes into"


def register_written_objects(f: types.FunctionType) -> None:
    """Register the float arrays, lists, dicts and instances of `f`'s globals and
    closure cells that `f` writes into by name (kept registered while f lives)."""
    for value in written_objects(f):
        kept = MUTABLE_DEFAULTS.get(id(value))
        if type(value) is np.ndarray:
            note_written(value)  # (before: FreshDefault may raise, and the array is known)
        if kept is None:
            kept = _fresh(value, f)
            _drop_rules_taking_holders_for_constants(kept)
        else:
            kept.own(f)
            if type(value) is not np.ndarray and not is_written(value):
                note_written(value, kept)  # (a mutable default, written through a global)


def _fresh(value: Any, f: types.FunctionType) -> FreshDefault:
    if type(value) is np.ndarray:
        return FreshDefault(value, f, WRITTEN)
    try:
        return FreshDefault(value, f, WRITTEN_HOLDER)
    finally:  # (registered before FreshDefault may raise, as an array is)
        kept = MUTABLE_DEFAULTS.get(id(value))
        if kept is not None and kept.value is value:
            note_written(value, kept)


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


def written_objects(f: types.FunctionType) -> Iterator[Any]:
    """The float arrays, lists, dicts and instances among `f`'s globals and closure
    cells that its code (nested defs included) writes into by name."""
    return written_values(f, _writable)


def _writable(value: Any) -> bool:
    """A float array, a list, a dict, or an instance of a class of the user's."""
    kind = type(value)
    if kind is np.ndarray:
        return value.dtype.kind in "fc"
    if kind is list or kind is dict:
        return True
    return may_hold_derivative(value) and not isinstance(value, (list, dict, np.ndarray)) \
        and kind.__module__.split(".")[0] not in _LIBRARIES
