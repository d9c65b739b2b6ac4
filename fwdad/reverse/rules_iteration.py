"""Reverse rules for the builtins and library functions that iterate and rearrange:
zip, enumerate, map, filter, sorted, list/tuple/dict, list and dict methods, functools,
itertools, math.fsum and math.prod.

Containers hold variables as they are, so most of these are the function itself (the
`_PLAIN` table). The ones that call a function (map, filter, reduce, ...) call it
through dynamic dispatch, so that its reverse rule runs; the ones that compare
(sorted, list.sort) compare values.
"""
from __future__ import annotations

import functools
import itertools
import math
import operator
from typing import Any

from fwdad.reverse.dispatch import call
from fwdad.reverse.iteration import items as iterated
from fwdad.reverse.iteration import started, stepped
from fwdad.reverse.registry import compare_rrule, get_rrule, raw_rrule
from fwdad.reverse.rule_calls import Pure
from fwdad.reverse.rules_python import set_values
from fwdad.reverse.stores import note
from fwdad.reverse.tracked import is_tracked
from fwdad.reverse.var import compared_value, value_of

_PLAIN = [reversed, dict, functools.partial,
          list.copy, list.pop, list.reverse,
          list.clear, dict.clear, dict.copy, dict.get, dict.items, dict.keys, dict.pop,
          dict.values, itertools.chain,
          itertools.chain.from_iterable, itertools.islice, itertools.product,
          itertools.permutations, itertools.combinations,
          itertools.combinations_with_replacement, itertools.repeat,
          itertools.zip_longest, itertools.cycle] + (
              [itertools.pairwise] if hasattr(itertools, "pairwise") else [])
for _fn in _PLAIN:
    raw_rrule(_fn)(_fn)


def _consuming(fn: Any, first_only: bool) -> Any:
    """fn over iterables (its first argument, or every positional one) of which a user's
    iterator class runs its `__iter__` and `__next__` by their reverse rules, as a `for`
    loop over it does (reverse/iteration.py)."""
    def rule(*args: Any, **kwargs: Any) -> Any:
        if first_only and args:
            return fn(iterated(args[0]), *args[1:], **kwargs)
        return fn(*map(iterated, args), **kwargs)
    rule.__name__ = f"_{fn.__name__}"
    return rule


for _fn, _first_only in ((list, True), (tuple, True), (enumerate, True), (zip, False)):
    raw_rrule(_fn)(_consuming(_fn, _first_only))


@raw_rrule(iter)
def _iter(obj: Any, *sentinel: Any) -> Any:
    return iter(obj, *sentinel) if sentinel else started(obj)


raw_rrule(next)(stepped)


# The methods that put values into a list or dict: noted, so that the user's lists and
# dicts hold plain values again when the pass ends (reverse/stores.py).
@raw_rrule(list.extend)
def _extend(xs: list, items: Any) -> None:
    items = list(items)
    xs.extend(items)
    note(xs, *items)


@raw_rrule(list.insert)
def _insert(xs: list, index: Any, item: Any) -> None:
    xs.insert(index, item)
    note(xs, item)


@raw_rrule(dict.setdefault)
def _setdefault(d: dict, key: Any, default: Any = None) -> Any:
    note(d, default)
    return d.setdefault(key, default)


@raw_rrule(dict.update)
def _update(d: dict, *args: Any, **kwargs: Any) -> None:
    d.update(*args, **kwargs)
    note(d, *args, *kwargs.values())


# A methodcaller holds its arguments as they are (variables too), as a partial does:
# reverse/callables.py calls it.
raw_rrule(operator.methodcaller)(operator.methodcaller)


@raw_rrule(set)
def _set(items: Any = ()) -> Any:
    """Sets compare and hash values: they hold no variable, as build_set."""
    return set(set_values(items, "set()"))


@raw_rrule(frozenset)
def _frozenset(items: Any = ()) -> Any:
    return frozenset(set_values(items, "frozenset()"))


# ---- calling a function on the items -------------------------------------------------
@raw_rrule(map)
def _map(fn: Any, *iterables: Any) -> Any:
    return map(functools.partial(call, fn), *map(iterated, iterables))


@raw_rrule(filter)
def _filter(fn: Any, iterable: Any) -> Any:
    test = bool if fn is None else functools.partial(call, fn)
    return (item for item in iterated(iterable) if value_of(test(item)))


@raw_rrule(itertools.starmap)
def _starmap(fn: Any, iterable: Any) -> Any:
    return (call(fn, *args) for args in iterated(iterable))


@raw_rrule(itertools.count)
def _count(start: Any = 0, step: Any = 1) -> Any:
    """start, start + step, ...: each item adds step to the last, as count does (count
    itself takes numbers only, not variables)."""
    if not (is_tracked(start) or is_tracked(step)):
        return itertools.count(start, step)
    return itertools.accumulate(itertools.repeat(step), get_rrule(operator.add),
                                initial=start)


def _selecting(fn: Any) -> None:
    """takewhile, dropwhile, filterfalse: the predicate runs through its reverse rule,
    and the selection follows the value of its result."""
    def rule(predicate: Any, iterable: Any) -> Any:
        if predicate is None and fn is itertools.filterfalse:
            return fn(value_of, iterable)
        return fn(predicate if predicate is None else
                  (lambda item: value_of(call(predicate, item))), iterable)
    rule.__name__ = f"_{fn.__name__}"
    raw_rrule(fn)(rule)


_selecting(itertools.takewhile)
_selecting(itertools.dropwhile)
_selecting(itertools.filterfalse)


@raw_rrule(itertools.compress)
def _compress(data: Any, selectors: Any) -> Any:
    return itertools.compress(data, (value_of(s) for s in selectors))


@raw_rrule(functools.reduce)
def _reduce(fn: Any, iterable: Any, *initial: Any) -> Any:
    return functools.reduce(functools.partial(call, fn), iterated(iterable), *initial)


@raw_rrule(itertools.accumulate)
def _accumulate(iterable: Any, func: Any = None, *, initial: Any = None) -> Any:
    step = get_rrule(operator.add) if func is None else functools.partial(call, func)
    return itertools.accumulate(iterated(iterable), step, initial=initial)


# ---- comparing values ------------------------------------------------------------------
def by_value(key: Any):
    """The sort key of sorted, list.sort, max and min on reverse values: the values
    (tuples item by item), through the reverse rule of `key`."""
    return compared_value if key is None else (lambda v: compared_value(call(key, v)))


compare_rrule(operator.contains, operator.eq, operator.ne, operator.lt, operator.le,
              operator.gt, operator.ge, list.index, list.count, tuple.index, tuple.count)


@raw_rrule(list.remove)
def _remove(xs: list, item: Any) -> None:
    """Removes the first item equal in value (tests/reverse/inplace_cases.py)."""
    del xs[compared_value(xs).index(compared_value(item))]


@raw_rrule(sorted)
def _sorted(iterable: Any, *, key: Any = None, reverse: bool = False) -> list:
    return sorted(iterated(iterable), key=by_value(key), reverse=reverse)


@raw_rrule(list.sort)
def _sort(xs: list, *, key: Any = None, reverse: bool = False) -> None:
    xs.sort(key=by_value(key), reverse=reverse)


# ---- sums and products of items ----------------------------------------------------------
def _fsum_rule(*xs: Any):
    return math.fsum(xs), lambda ct: (ct,) * len(xs)


def fsum_of_items(*xs: Any) -> float:
    """math.fsum of its arguments: the Pure below calls its function with the rule's
    arguments where none is a variable (math.fsum itself takes one iterable)."""
    return math.fsum(xs)


_FSUM = Pure(fsum_of_items, _fsum_rule)


@raw_rrule(math.fsum)
def _fsum(iterable: Any) -> Any:
    items = list(iterated(iterable))
    return _FSUM(*items) if items else 0.0


@raw_rrule(math.dist)
def _dist(p: Any, q: Any) -> Any:
    """dist(p, q) = hypot(p[0] - q[0], p[1] - q[1], ...)."""
    p, q = list(p), list(q)
    math.dist([value_of(a) for a in p], [value_of(b) for b in q])  # (its errors)
    return get_rrule(math.hypot)(*map(get_rrule(operator.sub), p, q))


@raw_rrule(math.prod)
def _prod(iterable: Any, *, start: Any = 1) -> Any:
    mul, total = get_rrule(operator.mul), start
    for item in iterated(iterable):
        total = mul(total, item)
    return total
