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
emptied, starts again from zero.
"""
from __future__ import annotations

import ast
import copy
import threading
from typing import Any, Callable, Dict, Tuple

import numpy as np

from fwdad.core.duals import const, fresh
from fwdad.dual import Dual
from fwdad.errors import FwdadError, a_type, current_user_location
from fwdad.forward.transform.astbuild import LOAD, STORE, locate
from fwdad.tangents import Tangent, zero_tangent

_IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), range, frozenset)


# The Duals of the mutable defaults met in the derivative running now in this thread, by
# the id of the default (kept alive with it): one per default, whichever rule of the
# function (its variants for constants, the batched one) makes it. `_OPEN`: a derivative
# runs and has met none yet (the dict is made on first use).
# Note: a threading.local rather than a ContextVar, which every jvp would set: setting
# one cost a quarter of a small jvp's time (it invalidates every ContextVar's cache).
_LOCAL = threading.local()
_OPEN: Dict[Any, Any] = {}


def begin_derivative() -> Any:
    """From here to `end_derivative(token)`, calls share the Duals of their mutable
    defaults (the public transformations bracket each pass of f with these).

    Note: two functions rather than a context manager: every jvp runs them."""
    token = getattr(_LOCAL, "made", None)
    _LOCAL.made = _OPEN
    return token


def end_derivative(token: Any) -> None:
    _LOCAL.made = token


class FreshDefault:
    """A mutable default: the rule makes a new Dual of it at each call (the same one
    for every call of one derivative)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def dual(self) -> Dual:
        return self._kept(1, fresh)

    def level_two(self) -> Dual:
        """What `dual()` gives, as a value of a rule differentiated again (the rule of
        `dual` at level 2): zero tangents at both levels, which writes land in."""
        return self._kept(2, _fresh_at_level_two)

    def _kept(self, level: int, make: Callable[[Any], Dual]) -> Dual:
        made = getattr(_LOCAL, "made", None)
        if made is None:
            return make(self.value)
        if made is _OPEN:
            made = _LOCAL.made = {}
        kept = made.get((id(self.value), level))
        if kept is not None and not _fits(self.value, _inner(kept[1], level).tangent):
            if not _emptied(self.value):  # (emptied, it holds no derivative to follow)
                raise _changed_outside(self.value)
            kept = None
        if kept is None:
            kept = made[(id(self.value), level)] = (self.value, make(self.value))
        return kept[1]


def _fresh_at_level_two(value: Any) -> Dual:
    inner = fresh(value)
    return Dual(inner, Tangent(primal=zero_tangent(value), tangent=zero_tangent(inner.tangent)))


def _inner(value: Dual, level: int) -> Dual:
    return value if level == 1 else value.primal


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


def _changed_outside(value: Any) -> FwdadError:
    line = current_user_location()
    return FwdadError(
        f"a mutable default ({a_type(value)}) was changed outside its function between "
        f"two calls of one derivative{' (at ' + line + ')' if line else ''}: the "
        f"derivatives it holds no longer match its items. Pass the list, dict or array "
        f"as an argument instead of keeping it in a default.")


def rule_defaults(fn: Any, tree: ast.FunctionDef,
                  constants: Dict[str, Any]) -> Tuple[ast.FunctionDef, list, dict]:
    """The rule to compile, its defaults and keyword defaults: `tree` itself when every
    default is immutable, else a copy that starts with the lines making fresh Duals
    (and the class those lines test, bound in `constants`)."""
    defaults = [_default(v) for v in (fn.__defaults__ or ())]
    kwdefaults = {k: _default(v) for k, v in (fn.__kwdefaults__ or {}).items()}
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


def _default(value: Any) -> Any:
    return const(value) if _is_immutable(value) else FreshDefault(value)


def _is_immutable(value: Any) -> bool:
    if type(value) is tuple:
        return all(map(_is_immutable, value))
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

