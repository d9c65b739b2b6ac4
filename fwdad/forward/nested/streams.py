"""The level-2 rules (fwdad/forward/nested/levels.py) of `core/duals.stream`, which the rules of
lazy iterators (zip, map, enumerate, iter, the itertools: rules/iteration.py) return
through, and of `next`, which reads such a stream.

    stream(items)  ->  Dual(Dual(PrimalStream, TangentStream),
                            Tangent(primal=<the ep>, tangent=<the et>))

A level-2 item is `Dual(Dual(p, t), Tangent(primal=ep, tangent=et))`. The level-1
stream yields the `Dual(p, t)`; its outer tangents are two iterators, of the ep and of
the et, kept in step with it: whichever side is read first pulls the next item from the
one shared source and queues its other parts, so every item is computed once, when
first asked for, as on level 1.
"""
from __future__ import annotations

import collections
from typing import Any, Iterator

from fwdad.core.duals import TangentStream, const, iterate, stream
from fwdad.dual import Dual
from fwdad.errors import FwdadError, in_user_code
from fwdad.forward import dispatch
from fwdad.forward.nested.levels import outer_of
from fwdad.rules import iteration
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent, Tangent


class _Split:
    """One source of level-2 items, read through three views (inner, ep, et)."""

    __slots__ = ("source", "queues")

    def __init__(self, source: Iterator[Dual]) -> None:
        self.source, self.queues = source, (collections.deque(), collections.deque(),
                                            collections.deque())

    def view(self, part: int) -> Iterator[Any]:
        queue = self.queues[part]
        while True:
            if not queue:
                try:
                    item = next(self.source)
                except StopIteration:
                    return
                outer_p, outer_t = outer_of(item)
                for q, value in zip(self.queues, (item.primal, outer_p, outer_t)):
                    q.append(value)
            yield queue.popleft()


@frule(stream)
def _stream(duals: Dual) -> Dual:
    split = _Split(iterate(duals))
    return Dual(stream(split.view(0)),
                Tangent(primal=split.view(1), tangent=split.view(2)))


@frule(iteration.next_rule)
def _next_of_rule(iterator: Dual, *default: Dual) -> Dual:
    """next(it) at level 2: the next inner item, with the next of each outer iterator
    (the level-1 rule reads the stream itself, whose outer tangents getattr cannot see)."""
    inner = iterator.primal
    if type(inner.tangent) is not TangentStream:
        if inner.tangent is NoTangent and iterator.tangent is NoTangent:
            return const(const(next(inner.primal,
                                                    *(d.primal.primal for d in default))))
        raise FwdadError(f"second derivatives through next() of this iterator"
                         f"{in_user_code()} are not supported: iterate it with a for "
                         f"loop, or make a list of it.")
    try:
        item = next(inner.tangent.source)
    except StopIteration:
        if default:
            return default[0]
        raise
    outer_p, outer_t = outer_of(iterator)
    return Dual(item, Tangent(primal=_next_outer(outer_p), tangent=_next_outer(outer_t)))


def _next_outer(outer: Any) -> Any:
    return NoTangent if outer is NoTangent else next(outer)


def stream_items(value: Dual) -> Iterator[Dual]:
    """The level-2 items of a level-2 lazy iterator, each read when asked for (what
    `iterate` gives for one at level 2: a list of them would use it up at once)."""
    outer_p, outer_t = outer_of(value)
    for item in iterate(value.primal):
        if outer_p is NoTangent and outer_t is NoTangent:
            yield Dual(item, NoTangent)
        else:
            yield Dual(item, Tangent(primal=_next_outer(outer_p),
                                     tangent=_next_outer(outer_t)))


@frule(_stream)
def _stream_at_level_three(duals: Dual) -> Dual:
    """A lazy iterator at a third level or deeper is a list of its items, made at once:
    the three views above would each need views of their own at every level, and lists
    are iterated by every level's rules."""
    return dispatch.derived_rule(_listed)(duals)


def _listed(duals: Iterator[Dual]) -> Dual:
    """What `_stream(duals)` stands for, as a list made at once (this function is only
    ever differentiated: `_stream_at_level_three`)."""
    items = list(iterate(duals))
    return Dual(Dual([i.primal.primal for i in items], [i.primal.tangent for i in items]),
                Tangent(primal=[outer_of(i)[0] for i in items],
                        tangent=[outer_of(i)[1] for i in items]))


@frule(_next_of_rule)
def _next_at_level_three(iterator: Dual, *default: Dual) -> Dual:
    raise FwdadError(
        "next() of a lazy iterator (zip, map, enumerate, iter, itertools) in a "
        "third-order (or higher) derivative is not supported yet: iterate it with a "
        "for loop, or make a list of it first.")
