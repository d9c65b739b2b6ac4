"""Level-3 rules of functools.partial: making one (`functools.partial(fn, a, k=b)`) and
calling one, in code differentiated three times (a jvp of a jvp of a jvp).

A partial's tangent, at every level, is the pair (tangents of its bound arguments,
tangents of its keywords) (rules/iteration.py), and a Dual's tangent is the structure
Tangent(primal=..., tangent=...). So a level-3 partial is three Duals around the
partial whose tangents are structures of such pairs, one pair at each leaf; its bound
argument `a` is the same three Duals around `a`, with item `a` of each pair. The
level-2 rules (forward/nested/calls.py), differentiated from their source, read the
bound arguments as fields of the partial, whose tangent is no structure of fields:
they dropped the third-order terms; calls.py registers these as their rules. A fourth
level is refused.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Dict, List, Tuple

from fwdad.core import duals
from fwdad.dual import Dual
from fwdad.errors import FwdadError, in_user_code
from fwdad.forward import dispatch
from fwdad.forward.nested.closures import unwrapped
from fwdad.forward.nested.levels import rule_call
from fwdad.rules.registry import frule, get_frule
from fwdad.tangents import NoTangent, Tangent

Place = Tuple[int, Any]  # (0, i): positional argument i; (1, k): keyword k


def call_partial_at_three(f: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """functools.partial(fn, a, k=b)(x) at level 3: fn called at level 3 (the rule of
    the level-2 call) with the bound arguments as level-3 values."""
    depth, p = unwrapped(f)
    bound = [_bound(f, (0, i), depth) for i in range(len(p.args))]
    named = {k: _bound(f, (1, k), depth) for k in p.keywords}
    named.update(kwargs)  # (as a call of the partial does: the call's keywords win)
    call = get_frule(dispatch.call)  # (the level-2 call: its rule is the level-3 one)
    return rule_call(call, _constant(p.func, depth), *bound, *args, **named)


def partial_at_three(fn: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """functools.partial(fn, a, k=b) at level 3: the partial, whose tangents at every
    level hold its bound arguments' tangents as (args, keywords); a partial of a
    partial is flattened, as Python does."""
    depth, func = unwrapped(fn)
    primal = functools.partial(func, *(unwrapped(a)[1] for a in args),
                               **{k: unwrapped(v)[1] for k, v in kwargs.items()})
    if primal.func is not func:  # flattened: fn's bound arguments come first
        named = {k: _bound(fn, (1, k), depth) for k in func.keywords}
        named.update(kwargs)
        args = tuple(_bound(fn, (0, i), depth) for i in range(len(func.args))) + args
        kwargs = named
    return _made(primal, list(args), kwargs, depth)


def _bound(value: Any, place: Place, depth: int) -> Any:
    """The bound argument at `place` of the partial inside `depth` Duals, as a value of
    that depth."""
    if depth == 0:
        return value.args[place[1]] if place[0] == 0 else value.keywords[place[1]]
    return Dual(_bound(value.primal, place, depth - 1),
                _bound_tangent(value.tangent, place, depth - 1))


def _bound_tangent(tangent: Any, place: Place, depth: int) -> Any:
    """The bound argument's part of the tangent of a partial inside `depth` Duals."""
    if depth == 0:  # (args, keywords); a constant partial's: NoTangent, or an empty Tangent
        return tangent[place[0]][place[1]] if type(tangent) is tuple else NoTangent
    parts = [_bound_tangent(getattr(tangent, field, NoTangent), place, depth - 1)
             for field in ("primal", "tangent")]
    return NoTangent if all(p is NoTangent for p in parts) else \
        Tangent(primal=parts[0], tangent=parts[1])


def _made(primal: functools.partial, args: List[Dual], kwargs: Dict[str, Dual],
          depth: int) -> Any:
    """The partial `primal` inside `depth` Duals, its bound arguments' tangents paired
    at each level."""
    if depth == 0:
        return primal
    return Dual(_made(primal, [a.primal for a in args],
                      {k: v.primal for k, v in kwargs.items()}, depth - 1),
                _paired([a.tangent for a in args], {k: v.tangent for k, v in kwargs.items()},
                        depth - 1))


def _paired(tangents: List[Any], named: Dict[str, Any], depth: int) -> Any:
    """The tangent of a partial inside `depth` Duals, from its bound arguments'."""
    if depth == 0:
        return (tuple(tangents), dict(named))
    return Tangent(**{field: _paired([getattr(t, field, NoTangent) for t in tangents],
                                     {k: getattr(t, field, NoTangent)
                                      for k, t in named.items()}, depth - 1)
                      for field in ("primal", "tangent")})


def _constant(value: Any, depth: int) -> Any:
    for _ in range(depth):
        value = duals.const(value)
    return value


def _fourth_order(what: str) -> Callable:
    """The rule of a level-3 rule above, at a fourth level: refused."""
    def refused(*args: Dual, **kwargs: Dual) -> Dual:
        raise FwdadError(
            f"fourth derivatives through {what} a functools.partial{in_user_code()} are "
            f"not supported yet (third derivatives are): call the function it wraps "
            f"directly, or take the fourth derivative by finite differences of a third.")
    return refused


frule(call_partial_at_three)(_fourth_order("calling"))
frule(partial_at_three)(_fourth_order("making"))
