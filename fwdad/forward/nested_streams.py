"""The level-2 rules (fwdad/forward/nested.py) of `runtime.stream`, which the rules of
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

from fwdad.dual import Dual
from fwdad.errors import FwdadError
from fwdad.forward import runtime
from fwdad.forward.nested import outer_of
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


@frule(runtime.stream)
def _stream(duals: Dual) -> Dual:
    split = _Split(runtime.iterate(duals))
    return Dual(runtime.stream(split.view(0)),
                Tangent(primal=split.view(1), tangent=split.view(2)))


@frule(iteration._next)
def _next_of_rule(iterator: Dual, *default: Dual) -> Dual:
    """next(it) at level 2: the next inner item, with the next of each outer iterator
    (the level-1 rule reads the stream itself, whose outer tangents getattr cannot see)."""
    inner = iterator.primal
    if type(inner.tangent) is not runtime.TangentStream:
        if inner.tangent is NoTangent and iterator.tangent is NoTangent:
            return runtime.const(runtime.const(next(inner.primal,
                                                    *(d.primal.primal for d in default))))
        raise FwdadError("second derivatives through next() of this iterator are not "
                         "supported: iterate it with a for loop, or make a list of it.")
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
