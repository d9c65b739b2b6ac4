"""Which parameters a rule may be given as instances of plain classes, and which fields.

    def energy(s, k):                    ->  {"s": {"pos", "vel"}}
        e = k * np.sum(s.pos ** 2)           (s: fields read, passed on)
        return e + kinetic(s.vel, s)
    def twice(s): return s * 2           ->  {}   (an operator: the class's own method)
    def kick(s, h): s.vel = s.vel + h    ->  {}   (a field written: see below)

An optimized rule's guard sends an instance argument elsewhere (its operators are its
own methods, which templates do not know). A parameter whose every use in the normalized
code is a read of a named field, a `return` of it, or an argument of a call of a Python
function with source (whose own rule decides again) never meets a template itself: the
optimized rule is right for it when the instance is of a plain class
(normalize/plain_classes.py) whose fields hold numbers and arrays. forward/routes.py
checks that at run time (forward/plain_instances.py) and sends such calls to the
optimized variant for them; every other call goes where it went. Reads stay `getattr`
calls on the caller's own object, done where the code does them: whatever else holds
the instance (another argument, a global, a callee) and writes it, the rule reads what
Python reads.

Note: a parameter whose fields the function writes is left to the general rule. The
write must reach the caller's object at once (a callee, or the caller after an
exception, sees it), so it stays a `setattr`; the optimizer keeps every value stored
by a call that mutates something boxed (forward/optimizer/activity.py), so such a
variant inlines next to nothing and its guard and check cost more than they save.
"""
from __future__ import annotations

import ast
import types
from typing import Dict, FrozenSet

from fwdad.normalize import uses
from fwdad.normalize.refs import is_ref
from fwdad.normalize.uses import Use
from fwdad.rules.registry import is_primitive


def instance_params(tree: ast.FunctionDef) -> Dict[str, FrozenSet[str]]:
    """parameter -> the fields the rule reads, for the parameters of the
    normalized `tree` that it may be given as instances (see the module docstring)."""
    found = uses.collect(tree)
    if not found:
        return {}
    args = tree.args
    out = {}
    for arg in args.posonlyargs + args.args + args.kwonlyargs:
        its = found.get(arg.arg, [])
        fields = {u.attr for u in its if u.kind == "read"}
        if fields and all(_harmless(u, arg.arg) for u in its):
            out[arg.arg] = frozenset(fields)
    return out


def _harmless(use: Use, name: str) -> bool:
    if use.kind == "read":
        return True
    if use.kind != "escape":
        return False
    value = use.stmt.value
    if type(use.stmt) is ast.Return:
        return type(value) is ast.Name and value.id == name
    return type(value) is ast.Call and _user_function(value.func) and \
        not _mentions(value.func, name) and all(
            type(a) is ast.Name or not _mentions(a, name)
            for a in value.args + [k.value for k in value.keywords])


def _user_function(func: ast.expr) -> bool:
    """A static callee that is a Python function with no registered rule: its call
    passes the instance on as it is, to the callee's own derived rule."""
    if not is_ref(func):
        return False
    fn = func.fw_value  # type: ignore[attr-defined]
    return type(fn) is types.FunctionType and not is_primitive(fn) and \
        fn.__module__.partition(".")[0] != "fwdad"


def _mentions(node: ast.AST, name: str) -> bool:
    return any(type(n) is ast.Name and n.id == name for n in ast.walk(node))
