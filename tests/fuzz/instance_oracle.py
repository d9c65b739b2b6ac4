"""Oracle r: the program's arguments and output held by instances of user classes.

r held   g(holder) = Result(f(holder.a0, holder.a1, ...)), a plain class in and out,
         which also rebinds a field of the holder and appends its first argument to a
         list it holds: jacfwd, jacrev and linearize (lin and lin.T) of g against the
         same transformations of f, block by block, and vjp of g against vjp of f; the
         holder is left as f's transformations leave its arguments, and after vjp as a
         plain call of g leaves it (the same objects where g kept them). One program
         in HELD_SUBSET (every program with --higher).

g is written out as source beside the program (fwdad transforms it like any user
code), so its field reads and the constructor are differentiated, not unwrapped.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import fwdad
from fwdad.tangents import Tangent
from tests.fuzz.case import EXACT, Case
from tests.fuzz.compare import fresh, inner, mismatch
from tests.fuzz.generate import load
from tests.fuzz.outcome import PASS, Outcome
from tests.fuzz.subsets import in_subset

HELD_SUBSET = 3  # programs whose seed % 3 == 1

WRAPPER = '''

class Holder:
    def __init__(self, {params}):
{stores}
        self.calls = 0
        self.seen = []


class Result:
    def __init__(self, value):
        self.value = value


def g(holder):
    out = Result(f({reads}))
    holder.calls = holder.calls + 1
    holder.seen.append(holder.a0)
    return out
'''


def held(case: Case) -> Outcome:
    if not in_subset(case.program.seed, HELD_SUBSET, 1):
        return Outcome("skipped", "not in the held subset")
    names = [f"a{i}" for i in range(len(case.args))]
    module = load(case.program.source + WRAPPER.format(
        params=", ".join(names),
        stores="\n".join(f"        self.{n} = {n}" for n in names),
        reads=", ".join(f"holder.{n}" for n in names)))

    def holder() -> Any:
        return module.Holder(*fresh(case.args))

    def plain(t: Any) -> Any:  # g's tangents in f's layout
        return _as_tuples(t, names)
    argnums = tuple(range(len(case.args)))
    checks: Sequence[tuple[str, Callable[[], Any], Callable[[], Any]]] = (
        ("jacfwd", lambda: plain(fwdad.jacfwd(module.g)(holder())),
         lambda: fwdad.jacfwd(case.f, argnums=argnums)(*fresh(case.args))),
        ("jacrev", lambda: plain(fwdad.jacrev(module.g)(holder())),
         lambda: fwdad.jacrev(case.f, argnums=argnums)(*fresh(case.args))))
    for what, got, want in checks:
        outcome = _compare(what, got, want)
        if outcome is not None:
            return outcome
    return _linear(case, module, holder, names)


def _linear(case: Case, module: Any, holder: Callable[[], Any], names: list) -> Outcome:
    """lin(t) and lin.T(ct) of g against f's, the dot-product test, and vjp of g."""
    try:
        out, lin = fwdad.linearize(case.f, *fresh(case.args))
    except fwdad.FwdadError:
        return _refused_alike("linearize", lambda: fwdad.linearize(module.g, holder()))
    given = holder()
    held_out, held_lin = fwdad.linearize(module.g, given)
    found = mismatch(held_out.value, out, **EXACT) or mismatch(
        _fields(given, names), case.args, **EXACT)
    if found:
        return _wrong(found, "linearize of the held program: primal or holder after")
    t = Tangent(**dict(zip(names, fresh(case.tangents))))
    applied = lin(*fresh(case.tangents))
    outcome = _compare("lin(t)", lambda: _as_tuples(held_lin(t), names), lambda: applied)
    if outcome is not None:
        return outcome
    ct = case.cotangent(2)
    (cts,) = held_lin.T(Tangent(value=fresh(ct)))  # (one argument: the holder)
    outcome = _compare("lin.T(ct)", lambda: _as_tuples(cts, names), lambda: lin.T(ct))
    if outcome is not None:
        return outcome
    left, right = inner(_as_tuples(cts, names), case.tangents), inner(ct, applied)
    if abs(left - right) > 1e-8 * (1.0 + abs(right)):
        return Outcome("wrong", "held lin.T dot product", f"<lin.T(ct), t> = {left!r}, "
                       f"<ct, lin(t)> = {right!r}")
    try:
        _, pullback = fwdad.vjp(case.f, *fresh(case.args))
    except fwdad.FwdadError:
        return PASS
    given, plain_given = holder(), holder()
    _, held_pullback = fwdad.vjp(module.g, given)
    module.g(plain_given)
    found = _holder_differs(given, plain_given, names)
    if found:
        return _wrong(found, "the holder after vjp of the held program")
    return _compare("vjp", lambda: _as_tuples(held_pullback(Tangent(value=fresh(ct)))[0],
                                              names),
                    lambda: pullback(ct)) or PASS


def _compare(what: str, got: Callable[[], Any], want: Callable[[], Any]) -> Any:
    """None when g's transformation matches f's (or both refuse); else the Outcome."""
    try:
        expected = want()
    except fwdad.FwdadError:
        return _refused_alike(what, got)
    found = mismatch(got(), expected, **EXACT)
    return _wrong(found, f"{what} of the held program") if found else None


def _refused_alike(what: str, held_call: Callable[[], Any]) -> Outcome:
    """f's transformation refused: the held program's must refuse too, not answer."""
    try:
        held_call()
    except fwdad.FwdadError:
        return Outcome("pass", f"{what} refused for both")
    return Outcome("wrong", f"{what}: the held program answered where f's refused")


def _as_tuples(tree: Any, names: list) -> Any:
    """g's derivative in f's layout: Result's Tangent(value=v) -> v, and the holder's
    Tangent(a0=..., a1=...) -> (a0, a1, ...) (one block per argument, as jacfwd with a
    tuple of argnums gives); lists and tuples map item by item."""
    if isinstance(tree, Tangent):
        fields = vars(tree)
        if set(fields) == {"value"}:
            return _as_tuples(fields["value"], names)
        return tuple(_as_tuples(fields.get(n), names) for n in names)
    if isinstance(tree, (tuple, list)):
        return type(tree)(_as_tuples(item, names) for item in tree)
    return tree


def _fields(holder: Any, names: list) -> tuple:
    return tuple(getattr(holder, n) for n in names)


def _wrong(found: tuple, what: str) -> Outcome:
    return Outcome("wrong", f"{what} {found[0]}", f"{what}: {found[1]}")


def _holder_differs(got: Any, want: Any, names: list) -> Any:
    """Where a holder left by vjp differs from one a plain call of g left (None if
    nowhere): the fields f took, the count, and the list of the first argument, which
    must hold the holder's own a0 (the object, not a copy)."""
    found = mismatch(_fields(got, names), _fields(want, names), **EXACT)
    if found:
        return found
    if got.calls != want.calls or len(got.seen) != len(want.seen):
        return f"calls {got.calls} / seen {len(got.seen)} items, where a plain call " \
               f"leaves {want.calls} / {len(want.seen)}"
    if got.seen and got.seen[0] is not got.a0 and want.seen[0] is want.a0:
        return "seen[0] is not the holder's own a0 after vjp"
    return None
