"""The rule `jvp` runs for a Python function of Python floats, resolved once per call
pattern (the fast path of small calls).

    jvp(f, (0.5, 2.0), (1.0, 0.0))  ->  f's rule for y constant, called on two Duals

A float argument with a float tangent needs no check and no copy, and its tangent has
no batch axis: what dispatch, `Specialized` and `Routes` decide on every call (which
rule, which variant, whether the guard lets it through) depends only on f, on how many
arguments there are and on which tangents are zero. That decision is made on the first
call and kept, keyed by `(f, the zero pattern, the count)`, for as long as f's lazy
rule holds the rule it was made from (a new frule registered since forgets it, as
dispatch forgets its rules). It is the variant of f's optimized rule for those
constants and for arguments that are all Python floats (routes.Routes.one_tangent):
the pattern is its guard, so it runs with none of its own.
"""
from __future__ import annotations

import types
from typing import Any, Callable, Dict, Optional, Tuple

from fwdad.dual import Dual
from fwdad.forward import dispatch
from fwdad.forward.optimizer import kinds
from fwdad.forward.routes import FLOAT, routes_of
from fwdad.rules.registry import on_register

_FUNCTION = types.FunctionType
_SEQUENCES = (tuple, list)
_MAX_ENTRIES = 4096  # (lambdas made anew on each call would grow it without end)


class _Resolved:
    """The rule to call for one pattern, and what it was resolved from."""

    __slots__ = ("lazy", "seen", "rule")

    def __init__(self, lazy: Any, seen: Any, rule: Any) -> None:
        self.lazy, self.seen, self.rule = lazy, seen, rule


_UNSEEN = _Resolved(None, None, None)  # (no entry yet)
_RESOLVED: Dict[Tuple[Any, int, int], Optional[_Resolved]] = {}
on_register(lambda fn: _RESOLVED.clear())


def pattern(f: Any, primals: Any, tangents: Any) -> Optional[Tuple[Any, int, int]]:
    """`(f, a bit per zero tangent, how many)` when f is a Python function and every
    primal and tangent a Python float (as many of each); None for any other call.
    (Loops: faster than set or map tests on a few items.)"""
    if type(f) is not _FUNCTION or type(primals) not in _SEQUENCES or \
            type(tangents) not in _SEQUENCES or len(primals) != len(tangents):
        return None
    zeros, bit = 0, 1
    for t in tangents:
        if type(t) is not float:
            return None
        if t == 0.0:  # (-0.0 too, as jvp's constant_positions)
            zeros |= bit
        bit <<= 1
    for p in primals:
        if type(p) is not float:
            return None
    return f, zeros, len(primals)


def call(key: Tuple[Any, int, int], primals: Any, tangents: Any) -> Optional[Dual]:
    """f's rule on Duals of the primals and tangents (key: `pattern`'s), or None when
    f has no derived rule to call this way (a registered rule, say): `jvp`'s general
    path runs it. Builds the rule on first use (and raises what building raises)."""
    entry = _RESOLVED.get(key, _UNSEEN)
    if entry is None:  # (no derived rule)
        return None
    if entry is _UNSEEN or entry.lazy.rule is not entry.seen:
        entry = _resolve(key)
        if entry is None:
            return None
    out: Dual = entry.rule(*map(Dual, primals, tangents))
    return out


def _resolve(key: Tuple[Any, int, int]) -> Optional[_Resolved]:
    """What `api.call_with_constants` (or `api.call`, with no zero) would run for Duals
    of floats: the variant for the parameters with zero tangents and float arguments,
    else the rule."""
    f, zeros, count = key
    if len(_RESOLVED) > _MAX_ENTRIES:
        _RESOLVED.clear()
    constants = frozenset(i for i in range(zeros.bit_length()) if zeros >> i & 1)
    specialized = dispatch.specialized_rule(f, constants)  # (its lazy rule; with no
    if specialized is None:  # constant, jvp calls the same rule through dispatch.call)
        _RESOLVED[key] = None
        return None
    lazy = specialized.lazy
    seen = lazy.rule
    if seen is None:
        seen = lazy.rule = lazy.derive(lazy.fn)
    entry = _RESOLVED[key] = _Resolved(lazy, seen, _rule_for(seen, zeros, count))
    return entry


def _rule_for(rule: Callable, zeros: int, count: int) -> Callable:
    """As Routes.without decides for `count` float Duals (never batched; a zero tangent
    at a named parameter makes it a key entry; each named one a float): the variant,
    or `rule` when it has none."""
    routes = routes_of(rule)
    if routes is False:
        return rule
    if routes.specialize is None:
        return routes.plain if zeros else rule
    key = tuple((name, FLOAT) for i, name in enumerate(routes.positional) if zeros >> i & 1)
    floats = (kinds.FLOAT,) * min(count, len(routes.positional))
    variant: Callable = routes.one_tangent(key, floats)
    return variant
