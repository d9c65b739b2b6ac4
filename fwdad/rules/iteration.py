"""Rules for the builtins and library functions that iterate and rearrange: zip,
enumerate, reversed, sorted, map, filter, list/tuple/dict/set, functools, itertools.

Each runs the function itself on the items as Duals, so primal and tangent move
together; the result is packed back into one Dual. What Python makes lazily (zip, map,
filter, the itertools) stays lazy: the Dual holds a primal iterator and a tangent
iterator that share one stream (`lazy`); they are iterators, though not of Python's
own types (a zip object is not returned as a `zip`).
"""
from __future__ import annotations

import functools
import itertools
import operator
from typing import Any, Iterable, List

from fwdad.core import entry_points
from fwdad.core.duals import TangentStream, bound_arguments, const, iterate, stream
from fwdad.dual import Dual
from fwdad.rules.containers import plain_set_items, sort_order
from fwdad.rules.operators import add_rule
from fwdad.rules.registry import def_nondiff, frule
from fwdad.tangents import NoTangent


def items(d: Dual) -> List[Dual]:
    """The items of a container Dual, each a Dual."""
    return list(iterate(d))


def pack(value: Any) -> Dual:
    """A Dual as it is; a tuple of Duals (and plain values) as one Dual tuple."""
    if isinstance(value, Dual):
        return value
    if isinstance(value, tuple):
        parts = [pack(v) for v in value]
        return Dual(tuple(p.primal for p in parts), tuple(p.tangent for p in parts))
    return const(value)


def lazy(values: Iterable[Any]) -> Dual:
    """An iterator of Duals (or tuples of them) as one Dual whose primal and tangent
    sides share one stream (runtime.stream): each item is computed once, on demand."""
    return stream(map(pack, values))


def pack_list(values: Iterable[Any]) -> Dual:
    parts = [pack(v) for v in values]
    return Dual([p.primal for p in parts], [p.tangent for p in parts])


# ---- builtins -------------------------------------------------------------------------
@frule(zip)
def _zip(*iterables: Dual, strict=False) -> Dual:
    return lazy(zip(*map(iterate, iterables), **({"strict": True} if strict else {})))


@frule(enumerate)
def _enumerate(iterable: Dual, start=0) -> Dual:
    return lazy(enumerate(iterate(iterable), start))


@frule(reversed)
def _reversed(sequence: Dual) -> Dual:
    return lazy(reversed(items(sequence)))


@frule(sorted)
def _sorted(iterable: Dual, key=None, reverse=False) -> Dual:
    """Sorted by the primal values (the key sees plain values): ties keep their order."""
    xs = items(iterable)
    keys = [xs[i].primal if key is None else key(xs[i].primal) for i in range(len(xs))]
    return pack_list([xs[i] for i in sort_order(keys, reverse)])


@frule(map)
def _map(fn: Dual, *iterables: Dual) -> Dual:
    return lazy(entry_points.call(fn, *args) for args in zip(*map(iterate, iterables)))


@frule(filter)
def _filter(fn: Dual, iterable: Dual) -> Dual:
    keep = (lambda d: d.primal) if fn.primal is None else \
        (lambda d: entry_points.call(fn, d).primal)
    return lazy(d for d in iterate(iterable) if keep(d))


@frule(iter)
def _iter(iterable: Dual) -> Dual:
    """An iterator over primals and one over tangents, advanced together by next."""
    tangent = iterable.tangent
    if tangent is NoTangent:
        return Dual(iter(iterable.primal), NoTangent)
    if isinstance(iterable.primal, dict):
        return Dual(iter(iterable.primal), NoTangent)  # the keys
    return lazy(iterate(iterable))


@frule(next)
def next_rule(iterator: Dual, *default: Dual) -> Dual:
    if type(iterator.tangent) is TangentStream:
        return next(iterator.tangent.source, *default)
    if iterator.tangent is NoTangent:
        return const(next(iterator.primal, *(d.primal for d in default)))
    return next(iterate(iterator), *default)


@frule(list)
def _list(iterable: Dual = None) -> Dual:
    return pack_list(() if iterable is None else items(iterable))


@frule(tuple)
def _tuple(iterable: Dual = None) -> Dual:
    return pack(tuple(() if iterable is None else items(iterable)))


@frule(dict)
def dict_rule(*mapping: Dual, **kwargs: Dual) -> Dual:
    """dict(mapping or pairs, **kwargs)."""
    entries = {}
    if mapping:
        source = mapping[0]
        pairs = source.primal.keys() if isinstance(source.primal, dict) else None
        for item in (items(source) if pairs is None else
                     (pack((k, _entry(source, k))) for k in pairs)):
            key, value = iterate(item)
            entries[key.primal] = value
    entries.update(kwargs)
    return Dual({k: v.primal for k, v in entries.items()},
                {k: v.tangent for k, v in entries.items()})


def _entry(mapping: Dual, key: Any) -> Dual:
    tangent = mapping.tangent
    return Dual(mapping.primal[key], NoTangent if tangent is NoTangent else tangent[key])


@frule(set)
def _set(iterable: Dual = None) -> Dual:
    """Sets hold hashable values with no order: they carry no tangent (and take no
    item that carries a derivative)."""
    return Dual(set(_set_items(iterable, "set()")), NoTangent)


@frule(frozenset)
def _frozenset(iterable: Dual = None) -> Dual:
    return Dual(frozenset(_set_items(iterable, "frozenset()")), NoTangent)


def _set_items(iterable: Dual, what: str) -> Iterable[Any]:
    if iterable is None:
        return ()
    if iterable.tangent is NoTangent:
        return iterable.primal
    return [d.primal for d in plain_set_items(iterate(iterable), what)]


# ---- functools --------------------------------------------------------------------------
@frule(functools.reduce)
def _reduce(fn: Dual, iterable: Dual, *initial: Dual) -> Dual:
    return functools.reduce(lambda a, b: entry_points.call(fn, a, b), items(iterable), *initial)


@frule(functools.partial)
def _partial(fn: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """The tangent holds the bound arguments' tangents (forward/callables.py unpacks
    it). A partial of a partial is flattened, as Python does."""
    primal = functools.partial(fn.primal, *(a.primal for a in args),
                               **{k: v.primal for k, v in kwargs.items()})
    if primal.func is not fn.primal:  # flattened: fn's bound arguments come first
        # (dict.update, not a {**a, **b} display: the fence refuses one in rule code
        # differentiated again, at second order)
        inner, named = bound_arguments(fn, fn.primal.args, fn.primal.keywords)
        named.update(kwargs)
        args, kwargs = (*inner, *args), named
    return Dual(primal, (tuple(a.tangent for a in args),
                         {k: v.tangent for k, v in kwargs.items()}))


# ---- operator's callables (forward/callables.py calls them) ------------------------------
def_nondiff(operator.itemgetter, operator.attrgetter)  # keys and names: no tangent


@frule(operator.methodcaller)
def _methodcaller(name: Dual, *args: Dual, **kwargs: Dual) -> Dual:
    """The tangent holds the bound arguments' tangents, as a partial's does."""
    primal = operator.methodcaller(name.primal, *(a.primal for a in args),
                                   **{k: v.primal for k, v in kwargs.items()})
    return Dual(primal, (tuple(a.tangent for a in args),
                         {k: v.tangent for k, v in kwargs.items()}))


# ---- itertools ----------------------------------------------------------------------------
def _rearranging(fn, *, iterable_args: int = -1) -> None:
    """Register fn for arguments that are iterables of Duals (the first
    `iterable_args` of them; -1: all positional); the rest are plain values."""
    def rule(*args: Dual, **kwargs: Dual) -> Dual:
        count = len(args) if iterable_args < 0 else iterable_args
        given = [iterate(a) for a in args[:count]] + [a.primal for a in args[count:]]
        return lazy(fn(*given, **{k: v.primal for k, v in kwargs.items()}))
    rule.__name__ = f"_{fn.__name__}"
    frule(fn)(rule)


_rearranging(itertools.chain)
_rearranging(itertools.islice, iterable_args=1)
_rearranging(itertools.combinations, iterable_args=1)
_rearranging(itertools.combinations_with_replacement, iterable_args=1)
_rearranging(itertools.permutations, iterable_args=1)
_rearranging(itertools.product)
if hasattr(itertools, "pairwise"):
    _rearranging(itertools.pairwise)


@frule(itertools.chain.from_iterable)
def _chain_from_iterable(iterables: Dual) -> Dual:
    return lazy(itertools.chain.from_iterable(iterate(i) for i in iterate(iterables)))


@frule(itertools.zip_longest)
def _zip_longest(*iterables: Dual, fillvalue: Dual = None) -> Dual:
    fill = const(None) if fillvalue is None else fillvalue
    return lazy(itertools.zip_longest(*map(iterate, iterables), fillvalue=fill))


@frule(itertools.repeat)
def _repeat(value: Dual, times=None) -> Dual:
    """Without `times` it never ends, as the primal: a zip or islice ends it."""
    return lazy(itertools.repeat(value, *(() if times is None else (times,))))


@frule(itertools.count)
def _count(start: Dual = Dual(0, NoTangent), step: Dual = Dual(1, NoTangent)) -> Dual:
    """start, start + step, ...: each item adds step to the last, as count does."""
    return lazy(itertools.accumulate(itertools.repeat(step), add_rule, initial=start))


@frule(itertools.cycle)
def _cycle(iterable: Dual) -> Dual:
    return lazy(itertools.cycle(iterate(iterable)))


def _selecting(fn) -> None:
    """takewhile, dropwhile, filterfalse: `predicate` sees the items as Duals (its own
    rule runs) and the selection follows its primal truth."""
    def rule(predicate: Dual, iterable: Dual) -> Dual:
        if predicate.primal is None:  # filterfalse(None, xs): the false items; the
            test = _primal if fn is itertools.filterfalse else None  # others refuse it
        else:
            test = functools.partial(_truth_of, predicate)
        return lazy(fn(test, iterate(iterable)))
    rule.__name__ = f"_{fn.__name__}"
    frule(fn)(rule)


def _primal(d: Dual) -> Any:
    return d.primal


def _truth_of(predicate: Dual, d: Dual) -> Any:
    return entry_points.call(predicate, d).primal


_selecting(itertools.takewhile)
_selecting(itertools.dropwhile)
_selecting(itertools.filterfalse)


@frule(itertools.compress)
def _compress(data: Dual, selectors: Dual) -> Dual:
    return lazy(itertools.compress(iterate(data), (s.primal for s in iterate(selectors))))


@frule(itertools.accumulate)
def _accumulate(iterable: Dual, func: Dual = None, *, initial: Dual = None) -> Dual:
    step = add_rule if func is None else (lambda a, b: entry_points.call(func, a, b))
    return lazy(itertools.accumulate(iterate(iterable), step, initial=initial))


@frule(itertools.starmap)
def _starmap(fn: Dual, iterable: Dual) -> Dual:
    return lazy(entry_points.call(fn, *items(args)) for args in iterate(iterable))
