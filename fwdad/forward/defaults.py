"""The default arguments of a derived rule.

A default of the user's function is one object for every call; the rule's default is a
Dual of it. An immutable default (a number, a string, None, a tuple of those) can be one
constant Dual too. A mutable one cannot: a call that writes into it (`buf[:] = x * 2`)
writes into the Dual's tangent as well, and the next call would start from that tangent
instead of zero (or from a batched one left by jacfwd). So a mutable default is given
to the rule as a FreshDefault, and the rule's first lines make a new Dual of it:

    def f_frule(x, buf=<FreshDefault>):
        if type(buf) is _fw_FreshDefault:
            buf = buf.dual()
        ...

The value itself stays the user's object, changed in place across calls as in Python.

Within one derivative (one pass of the function: a jvp, one batched pass of jacfwd, a
linearize), every call gets the same Dual of a default (`begin_derivative`, which the
public transformations call), so that what one call writes into it, a later call reads
with its derivative (tests/forward/test_defaults.py). A default that code outside the
function changed between two such calls is refused (its tangent no longer fits), or,
emptied, starts again from zero. A default also reached through a global or closure
variable, a class attribute or `f.__defaults__` is that same Dual there
(forward/default_aliases.py, core/duals.read_global).

A jvp (jacfwd, grad, hessian) that the function calls itself runs its function one
level deeper (higher.py): there a default is the Dual of the level below lifted, as the
outer code left it, with a new inner perturbation of zero; when the jvp returns, what it
wrote settles into the level below and the deeper Dual is dropped, so that the outer
code reads it with its outer derivative only, and the next nested jvp starts from a
zero inner perturbation again (`close_nested`, forward/state_levels.py,
tests/forward/test_nested_state.py).

The rule of a rule (forward over reverse: the forward rule of a reverse rule, whose
default is the user's object itself; forward over forward) makes its Duals the same way,
per derivative: one Dual made when the rule was built kept what one hvp wrote into the
default for the next hvp (tests/forward/test_default_aliases.py).
"""
from __future__ import annotations

import ast
import copy
import threading
import types
import weakref
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from fwdad.core.duals import MUTABLE_DEFAULTS, const, fresh
from fwdad.core.lazy_rule import LazyRule
from fwdad.core.rebinding import forget_rules
from fwdad.core.written_arrays import refuse_holder, tell_derivative_open
from fwdad.dual import Dual
from fwdad.forward.default_refusals import (
    an_argument_too,
    changed_outside,
    met_late,
    rule_running,
)
from fwdad.forward.state_levels import created_leaves, lifted, settle
from fwdad.forward.transform.astbuild import LOAD, STORE, locate
from fwdad.probe import probe
from fwdad.rules.batching import created_tangent
from fwdad.tangents import zero_tangent

_OWN_DEFAULT = "a function's mutable default"
_IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), range, frozenset)


# The Duals of the mutable defaults met in the derivative running now in this thread, by
# the id of the default (kept alive with it): one per default, whichever rule of the
# function (its variants for constants, the batched one) makes it.
# Note: a threading.local rather than a ContextVar, which every jvp would set: setting
# one cost a quarter of a small jvp's time (it invalidates every ContextVar's cache).
# `made` is None outside a derivative; inside one, the arguments of its pass (a
# sequence, `()` for none) until a default is met, then a dict of the Duals met, which
# keeps the arguments under _ARGUMENTS (one attribute: every jvp sets and restores it).
_LOCAL = threading.local()
_ARGUMENTS = "arguments"

# id of a mutable value (a list, dict, array, instance) that an optimized rule reads
# from a module's global or a closure cell as a constant -> (the module's globals, the
# name), or (the cell, None): a default met later with that id is that value while the
# global or cell still holds it (forward/default_aliases.py).
ASSUMED_PLAIN: Dict[int, Tuple[Any, Optional[str]]] = {}


def begin_derivative(arguments: Sequence[Any] = ()) -> Any:
    """From here to `end_derivative(token)`, calls share the Duals of their mutable
    defaults (the public transformations bracket each pass of f with these), which
    must not be among the `arguments` (Duals) of the pass (`_given_as_argument`).

    Note: two functions rather than a context manager: every jvp runs them."""
    token = getattr(_LOCAL, "made", None)
    _LOCAL.made = arguments
    return token


def end_derivative(token: Any) -> None:
    _LOCAL.made = token


def derivative_open() -> bool:
    """Whether a derivative runs now in this thread (begin_derivative)."""
    return getattr(_LOCAL, "made", None) is not None


tell_derivative_open(derivative_open)  # (core/duals.read_global asks)


def close_nested(level: int) -> None:
    """A jvp whose function runs at `level` (nested in code at `level - 1`) returns:
    its perturbation is gone. The Duals of the state at that level and deeper settle
    into the level below (state_levels.settle) and are dropped, so that the next nested
    jvp lifts the state again from what the code below sees, with a new zero inner
    perturbation (the first one's inner tangent was taken for the second's)."""
    made = getattr(_LOCAL, "made", None)
    if type(made) is not dict:
        return
    deeper = sorted((key for key in made if key is not _ARGUMENTS and key[1] >= level),
                    key=lambda key: -key[1])
    for key in deeper:
        kept = made.pop(key)
        below = made.get((key[0], key[1] - 1))
        if below is not None:
            settle(below[1], kept[1], key[1])


def kept_duals() -> List[Dual]:
    """The Duals (level 1) of the mutable defaults met in the derivative running now."""
    made = getattr(_LOCAL, "made", None)
    if type(made) is not dict:
        return []
    return [kept[1] for key, kept in made.items() if key is not _ARGUMENTS and key[1] == 1]


class EntryRule(LazyRule):
    """`f.frule`, which a user may call on Duals outside any transformation: such a
    call is one derivative, whose calls share the Duals of their mutable defaults (each
    call of a helper made a new one, and what one call wrote into the default lost its
    derivative for the next).

    Note: begin_derivative and end_derivative written out: this wraps every direct call
    of a rule (0.5 us of a 3-operation rule's 1.3 as three calls)."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        rule = self.rule
        if rule is None:
            rule = self.rule = self.derive(self.fn)
        if getattr(_LOCAL, "made", None) is not None:
            return rule(*args, **kwargs)
        _LOCAL.made = ()
        try:
            return rule(*args, **kwargs)
        finally:
            _LOCAL.made = None


class FreshDefault:
    """A mutable default: the rule makes a new Dual of it at each call (the same one
    for every call of one derivative). It stays registered (MUTABLE_DEFAULTS, which
    keeps the value alive, so that its id stays its own) while a function whose
    default it is lives: `own`."""

    __slots__ = ("value", "owners", "lasting", "what", "__weakref__")

    def __init__(self, value: Any, owner: Any = None, what: Optional[str] = None) -> None:
        self.value = value
        self.what = what or _OWN_DEFAULT  # (for messages: forward/written_globals.py
        # registers global arrays and containers too)
        self.owners: "weakref.WeakSet[Any]" = weakref.WeakSet()
        self.lasting = owner is None  # (no owner to outlive: registered for good)
        if owner is not None:
            self.own(owner)
        if may_hold_derivative(value) and id(value) not in MUTABLE_DEFAULTS:
            # (read through a global or attribute too: core/duals.py)
            MUTABLE_DEFAULTS[id(value)] = self
            if _assumed_plain(value):  # an optimized rule reads it as a constant:
                forget_rules()  # built again, it will not (forward/default_aliases.py)
                if derivative_open() and rule_running():  # and it may be that rule
                    raise met_late(self)

    def own(self, owner: Any) -> None:
        """Keep the registration while `owner`, a function with this default, lives.

        Note: the owners' weak references, not the value's: lists and dicts, the usual
        mutable defaults, cannot be referenced weakly. A function gone, nothing calls
        it with the default; a global still holding the value reads it as any global
        (tests/forward/test_defaults.py::test_a_default_is_let_go_with_its_function)."""
        if owner in self.owners:
            return
        try:
            self.owners.add(owner)
            weakref.finalize(owner, self._disowned)
        except TypeError:  # (an owner that cannot be referenced weakly: kept for good)
            self.lasting = True

    def _disowned(self) -> None:
        if not self.lasting and not any(True for _ in self.owners) and \
                MUTABLE_DEFAULTS.get(id(self.value)) is self:
            del MUTABLE_DEFAULTS[id(self.value)]

    def dual(self) -> Dual:
        return self._kept(1)

    def at_level(self, level: int) -> Dual:
        """What `dual()` gives, as a value of a rule differentiated `level - 1` times
        (level 2: the rule of `dual`; 3: the rule of that rule): zero tangents at every
        level, which writes land in."""
        return self._kept(level)

    def kept(self, level: int) -> Optional[Dual]:
        """The Dual at `level` shared by the derivative running now, None outside one
        (a global read then keeps its read-only zero tangent)."""
        if getattr(_LOCAL, "made", None) is None:
            return None
        return self._kept(level)

    def _kept(self, level: int) -> Dual:
        made = getattr(_LOCAL, "made", None)
        if made is None:
            return _fresh_at(self.value, level)
        if type(made) is not dict:
            made = _LOCAL.made = {_ARGUMENTS: made}
        kept = made.get((id(self.value), level))
        if kept is not None and not _fits(self.value, _inner(kept[1], level).tangent):
            if not _emptied(self.value):  # (emptied, it holds no derivative to follow)
                raise changed_outside(self)
            kept = None
        if kept is None:
            if (type(self.value) is np.ndarray or self.what is not _OWN_DEFAULT) and \
                    _given_as_argument(self.value):  # (a default list: its own Dual)
                raise an_argument_too(self)
            # (deeper: the level below, as its code left it, seen from a nested jvp)
            dual = _fresh_at_level_one(self.value) if level == 1 else \
                lifted(self._kept(level - 1), level)
            kept = made[(id(self.value), level)] = (self.value, dual)
        return kept[1]


def _given_as_argument(value: Any) -> bool:
    """Whether `value` (a global or closure array, list, dict or instance written into)
    is among the arguments of the derivative running now (in lists, tuples and dicts
    too; for an array, one that shares memory with it): its Dual would be another than
    the one the derivative keeps for `value`, and a write through one would not reach
    the other's tangent."""
    made = getattr(_LOCAL, "made", None)
    todo = list(made.get(_ARGUMENTS, ()) if type(made) is dict else made or ())
    array = type(value) is np.ndarray
    while todo:
        item = todo.pop()
        while isinstance(item, Dual):
            item = item.primal
        if item is value:
            return True
        if isinstance(item, (list, tuple)):
            todo.extend(item)
        elif isinstance(item, dict):
            todo.extend(item.values())
        elif array and type(item) is np.ndarray and np.may_share_memory(item, value):
            return True
    return False


def _fresh_at_level_one(value: Any) -> Dual:
    """An array's tangent is the running context's, as a new array's is (batched in
    jacfwd): a batched write through a bound method (`buf.fill(w[0])`), which holds the
    tangent, could not widen a plain one (rules/widening.py)."""
    if type(value) is np.ndarray:
        return Dual(value, created_tangent(value))
    refuse_holder(value)  # (a default list holding a global array written into)
    return Dual(value, created_leaves(zero_tangent(value)))


def _fresh_at(value: Any, level: int) -> Dual:
    """A new Dual of `value` at `level` (1: a Dual; 2: a Dual of that Dual; ...) whose
    tangents are zero at every level."""
    dual = _fresh_at_level_one(value)
    for deeper in range(2, level + 1):
        dual = lifted(dual, deeper)
    return dual


def _inner(value: Dual, level: int) -> Dual:
    """The level-1 Dual inside a Dual of `level`."""
    for _ in range(level - 1):
        value = value.primal
    return value


def _fits(value: Any, tangent: Any) -> bool:
    """Whether the tangent kept for a default still has its structure (code outside
    the function may have changed the default between two calls)."""
    if isinstance(value, list):
        return isinstance(tangent, list) and len(tangent) == len(value)
    if isinstance(value, dict):
        return isinstance(tangent, dict) and tangent.keys() == value.keys()
    if isinstance(value, np.ndarray) and isinstance(tangent, np.ndarray):
        return tangent.shape[tangent.ndim - value.ndim:] == value.shape
    return True


def _emptied(value: Any) -> bool:
    return isinstance(value, (list, dict)) and not value


def _assumed_plain(value: Any) -> bool:
    scope, name = ASSUMED_PLAIN.pop(id(value), (None, ""))
    if scope is None:
        return False
    if name is None:  # (a closure cell)
        try:
            return scope.cell_contents is value
        except ValueError:  # (emptied)
            return False
    return scope.get(name) is value


def rule_defaults(fn: Any, tree: ast.FunctionDef,
                  constants: Dict[str, Any]) -> Tuple[ast.FunctionDef, list, dict]:
    """The rule to compile, its defaults and keyword defaults: `tree` itself when every
    default is immutable, else a copy that starts with the lines making fresh Duals
    (and the class those lines test, bound in `constants`)."""
    defaults = [_default(v, fn) for v in (fn.__defaults__ or ())]
    kwdefaults = {k: _default(v, fn) for k, v in (fn.__kwdefaults__ or {}).items()}
    args = tree.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    fresh = [name for name, d in zip(positional[len(positional) - len(defaults):], defaults)
             if isinstance(d, FreshDefault)]
    fresh += [name for name, d in kwdefaults.items() if isinstance(d, FreshDefault)]
    if not fresh:
        return tree, defaults, kwdefaults
    marker = _free_name("_fw_FreshDefault", constants)
    constants[marker] = FreshDefault
    out = copy.copy(tree)  # (the tree itself may be compiled again, as it is)
    out.body = [locate(_renew(name, marker), tree) for name in fresh] + tree.body
    return out, defaults, kwdefaults


def _default(value: Any, owner: Any) -> Any:
    if isinstance(value, (Dual, FreshDefault)):  # a default of a forward rule, whose rule
        return fresh(value)  # is derived again: its own first lines renew it per call
    if is_immutable(value):
        return const(value)
    return registered(value, owner)


def registered(value: Any, owner: Any) -> "FreshDefault":
    """The FreshDefault of `value`, a mutable default of the function `owner` (one per
    default, however many rules and functions have it)."""
    kept = MUTABLE_DEFAULTS.get(id(value))
    if kept is None:
        return FreshDefault(value, owner)
    kept.own(owner)
    return kept


def is_immutable(value: Any) -> bool:
    """A number, string, None, ..., or a tuple of those: one constant Dual serves."""
    if type(value) is tuple:
        return all(map(is_immutable, value))
    return isinstance(value, _IMMUTABLE)


def _renew(name: str, marker: str) -> ast.If:
    """`if type(name) is marker: name = name.dual()`"""
    test = ast.Compare(ast.Call(ast.Name("type", LOAD), [ast.Name(name, LOAD)], []),
                       [ast.Is()], [ast.Name(marker, LOAD)])
    call = ast.Call(ast.Attribute(ast.Name(name, LOAD), "dual", LOAD), [], [])
    return ast.If(test, [ast.Assign([ast.Name(name, STORE)], call)], [])


def _free_name(base: str, taken: Dict[str, Any]) -> str:
    name, count = base, 1
    while name in taken and taken[name] is not FreshDefault:
        count += 1
        name = f"{base}_{count}"
    return name


def may_hold_derivative(value: Any) -> bool:
    """A list, dict, float array or instance: what a derivative can be written into."""
    if isinstance(value, (list, dict)):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "fcO"
    return probe(value, "__dict__") is not None and not isinstance(
        value, (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                types.MethodType))
