"""Which parameters a rule may be given as instances of plain classes, and which fields.

    def energy(s, k):                    ->  {"s": {"pos", "vel"}}
        e = k * np.sum(s.pos ** 2)           (s: fields read, passed on)
        return e + kinetic(s.vel, s)
    def twice(s): return s * 2           ->  {}   (an operator: the class's own method)
    def kick(s, h): s.vel = s.vel + h    ->  {"s": {"vel"}}, written  (sealed: below)
    def kick(s, h): s.vel = f(s.vel, h)  ->  {}   (a field written, a Python call)

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

Where the function is *sealed* (normalize/sealed.py: nothing it runs can reach the
instance but through that parameter), the parameters that are only read and written
through their fields are `Fields.unboxed`: the variant for them reads each field once on
entry into a local (normalize/param_locals.py), and keeps the written ones in locals up
to the exits (forward/field_writes.py stores them back). Everywhere else a parameter
whose fields the function writes is left to the general rule: the write must reach the
caller's object at once (a callee sees it), so it stays a `setattr`, and the optimizer
keeps every value stored by a call that mutates something boxed
(forward/optimizer/activity.py): such a variant would inline next to nothing.
"""
from __future__ import annotations

import ast
import types
from typing import Any, Dict, FrozenSet, Iterable

from fwdad.normalize import uses
from fwdad.normalize.refs import is_ref
from fwdad.normalize.sealed import Sealed, sealed
from fwdad.normalize.uses import Use
from fwdad.rules.registry import is_primitive


def instance_params(tree: ast.FunctionDef) -> Dict[str, FrozenSet[str]]:
    """parameter -> the fields the rule reads, for the parameters of the
    normalized `tree` that it may be given as instances (see the module docstring)."""
    found = uses.collect(tree)
    if not found:
        return {}
    args = tree.args
    named = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    out: Dict[str, FrozenSet[str]] = {}
    only_fields = {name for name in named if found.get(name) and
                   all(u.kind in ("read", "write") for u in found[name])}
    closed = sealed(tree, only_fields) if only_fields else None
    for name in named:
        its = found.get(name, [])
        written = frozenset(u.attr for u in its if u.kind == "write")
        if closed is not None and name in only_fields and (closed.writes or not written):
            updated = {f for p, f in closed.updated.values() if p == name}
            out[name] = Fields({u.attr for u in its}, written, updated, closed)
            continue
        fields = {u.attr for u in its if u.kind == "read"}
        if fields and all(_harmless(u, name) for u in its):
            out[name] = frozenset(fields)
    return out


class Fields(frozenset):
    """The fields a sealed function uses of a parameter, which the variant for it keeps
    in locals: `written` are written (stored back at the exits), `updated` updated by
    an in-place operator (they must hold immutable numbers)."""

    unboxed = True

    def __new__(cls, used: Iterable[str], written: FrozenSet[str], updated: Any,
                found: Sealed) -> "Fields":
        out = super().__new__(cls, used)
        out.written, out.updated, out.sealed = written, frozenset(updated), found
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
