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
"""
from __future__ import annotations

import ast
import copy
from typing import Any, Dict, Tuple

from fwdad.core.duals import const, fresh
from fwdad.dual import Dual
from fwdad.forward.transform.astbuild import LOAD, STORE, locate

_IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), range, frozenset)


class FreshDefault:
    """A mutable default: the rule makes a new Dual of it at each call."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def dual(self) -> Dual:
        return fresh(self.value)


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

