"""`for` loops in reverse mode over an instance of a user class whose `__iter__` (or
its iterator's `__next__`) is Python code: those methods run by their reverse rules, as
a plain loop would run them, so the arithmetic they do on the instance's variables is
recorded (run as plain code, it met a variable NumPy cannot take).

    for v in xs:   ->   for v in _fw_items(xs):
    sum(xs), list(xs), zip(xs, ys), ...: items(xs) (reverse/rules_iteration.py)
    iter(xs), next(it): started(xs), stepped(it)

Anything else (a list, an array, a range, a library's iterator) is iterated as it is.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator

from fwdad.reverse.instances import is_plain, method_rule


def items(iterable: Any) -> Any:
    """What a `for` loop over `iterable` iterates: iterable itself, or the items the
    reverse rules of its class's `__iter__` and then its iterator's `__next__` give."""
    if is_plain(iterable):
        return iterable
    start = method_rule(type(iterable), "__iter__")
    if start is None:
        return iterable
    iterator = start(iterable)
    step = None if is_plain(iterator) else method_rule(type(iterator), "__next__")
    return iterator if step is None else _steps(step, iterator)


def _steps(step: Callable[[Any], Any], iterator: Any) -> Iterator[Any]:
    while True:
        try:
            item = step(iterator)
        except StopIteration:  # (the iterator is exhausted: the loop ends, as in Python)
            return
        yield item


def started(iterable: Any) -> Any:
    """iter(iterable), by the reverse rule of its class's `__iter__` when it is Python."""
    start = None if is_plain(iterable) else method_rule(type(iterable), "__iter__")
    return iter(iterable) if start is None else start(iterable)


def stepped(iterator: Any, *default: Any) -> Any:
    """next(iterator, *default), by the reverse rule of its class's `__next__` when it
    is Python."""
    step = None if is_plain(iterator) else method_rule(type(iterator), "__next__")
    if step is None:
        return next(iterator, *default)
    try:
        return step(iterator)
    except StopIteration:
        if default:
            return default[0]
        raise
