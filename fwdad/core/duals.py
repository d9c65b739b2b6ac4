"""The helpers on Duals that generated code calls besides rules, and rules call too.

    const(v)          a value read from a global or closure: a Dual with a zero tangent
    iterate(d)        `for x in d`: yields Duals
    unpack(d, n, s)   `a, *b = d`: a tuple of Duals
    unbox(d)          `f(*d)`: the items of d as Duals
    unbox_kw(d)       `f(**d)`: a dict of Duals
    stream(duals)     a lazy iterator of Duals as one Dual (map, zip, generators)
"""
from __future__ import annotations

from typing import Any, Dict, Iterator, Optional, Tuple

import numpy as np

from fwdad import lang
from fwdad.core import entry_points
from fwdad.core.read_only import is_zero, read_only, refuse_unless_zero
from fwdad.core.written_arrays import WRITTEN, derivative_is_open, refuse_holder
from fwdad.dual import Dual
from fwdad.errors import FwdadError, InternalError, a_type, in_user_code
from fwdad.rules.batching import iterate_tangent
from fwdad.source import is_foreign, python_function
from fwdad.tangents import NoTangent, Tangent, zero_tangent


def const(value: Any) -> Dual:
    """A constant of the rule, or a value bound outside the differentiated code. An
    array's zero tangent is read-only: each read makes a new one, so a derivative
    written into it (`G[0] = G[0] * w`, G read again later) would be lost;
    rules/widening.assign refuses it instead."""
    tangent = zero_tangent(value)
    if type(tangent) is np.ndarray:
        tangent.flags.writeable = False
    return Dual(value, tangent)


def read_global(value: Any) -> Dual:
    """A global or closure variable read live (`_fw_global(G)`): as `const`, and the
    lists and dicts of its zero tangent refuse a non-zero tangent written into them
    (`STORE.append(w)`, STORE read again later: core/read_only.py). A function's mutable
    default reached this way is the Dual its rule uses for it in this derivative."""
    shared = shared_default(value, 1)
    if shared is not None:
        return shared
    if WRITTEN and derivative_is_open():  # (a list, object or view that holds one)
        refuse_holder(value)
    return Dual(value, read_only(zero_tangent(value)))


# id of a mutable default -> the object that keeps its Dual for the derivative running
# now (a forward/defaults.FreshDefault, which registers itself: it keeps the default
# alive, so the id stays its own).
MUTABLE_DEFAULTS: Dict[int, Any] = {}


def shared_default(value: Any, level: int) -> Optional[Dual]:
    """The Dual (at `level`) that the derivative running now keeps for `value`, when
    `value` is a mutable default of a function whose rule was built; else None.

    Note: the default is one object, also reachable as a global or closure variable
    (`STORE = helper.__defaults__[0]`): a read through that name must see what the
    helper wrote into it, derivative included, and a write through it (`STORE.clear()`)
    must reach the Dual the helper reads next (tests/forward/test_default_aliases.py)."""
    default = MUTABLE_DEFAULTS.get(id(value))
    return None if default is None else default.kept(level)


def read_lasting(value: Any) -> Dual:
    """An attribute of a class, module or function (`Acc.items`, `f.__defaults__`), which
    outlives the call as a global does: read as one, and a tuple of defaults with the
    Duals the derivative keeps for the mutable ones."""
    if type(value) is tuple and any(id(v) in MUTABLE_DEFAULTS for v in value):
        items = [read_global(v) for v in value]
        return Dual(value, tuple(d.tangent for d in items))
    if type(value) is dict and any(id(v) in MUTABLE_DEFAULTS for v in value.values()):
        named = {k: read_global(v) for k, v in value.items()}  # (__kwdefaults__)
        return Dual(value, read_only({k: d.tangent for k, d in named.items()}))
    return read_global(value)


def defaults_at_level(value: Any, level: int) -> Optional[Dual]:
    """`f.__defaults__` read by a rule differentiated again (level 2: once; 3: twice),
    when it holds a mutable default: a tuple of that level whose items are the Duals
    the derivative keeps for the mutable defaults (constants for the others); None for
    any other value."""
    if type(value) is not tuple or not any(id(v) in MUTABLE_DEFAULTS for v in value):
        return None
    return packed_at_level([shared_default(v, level) or _constant_at(v, level)
                            for v in value], level)


def _constant_at(value: Any, level: int) -> Dual:
    for _ in range(level):
        value = const(value)
    return value


def packed_at_level(items: list, level: int) -> Dual:
    """The tuple of `items`, Duals of `level`, as one Dual of that level: the tuple of
    their primals (packed one level lower), and their tangents taken apart as the
    tangent of that is."""
    if level == 1:
        return Dual(tuple(i.primal for i in items), tuple(i.tangent for i in items))
    return Dual(packed_at_level([i.primal for i in items], level - 1),
                _tangents_apart([i.tangent for i in items], level - 1))


def _tangents_apart(tangents: list, depth: int) -> Any:
    """The tangent of a tuple of Duals of `depth`, from theirs: a Dual's tangent is the
    structure Tangent(primal=..., tangent=...), so that of the tuple is the structure
    of the tuples of their fields (NoTangent: a constant's, zero in every field)."""
    if depth == 0:
        return tuple(tangents)
    return Tangent(primal=_tangents_apart([_field(t, "primal") for t in tangents], depth - 1),
                   tangent=_tangents_apart([_field(t, "tangent") for t in tangents],
                                           depth - 1))


def _field(tangent: Any, name: str) -> Any:
    return NoTangent if tangent is NoTangent else getattr(tangent, name)


def store_global(value: Dual) -> Any:
    """`G = v` for G declared global, or nonlocal to code that is not differentiated
    (`_fw_store_global(v)`): the value goes into the variable, and a later read of it
    makes a zero tangent (read_global), so a derivative it carries is refused; unless
    the value is the object the variable holds, updated in place, whose Dual the
    derivative keeps (`G += w`, G a global array written into: forward/written_globals.py)."""
    kept = shared_default(value.primal, 1)
    if kept is None or kept.tangent is not value.tangent:
        refuse_unless_zero((value.tangent,), stored=True)
    return value.primal


def fresh(value: Any) -> Dual:
    """A value that becomes the rule's own for the call (a mutable default, an argument
    given on plain values): writes into its tangent last as long as the Dual does."""
    return Dual(value, zero_tangent(value))


NONE = Dual(None, NoTangent)


class TangentStream:
    """The tangent of a lazy iterator of Duals: the shared stream itself."""

    __slots__ = ("source",)

    def __init__(self, source: Iterator[Dual]) -> None:
        self.source = source


class PrimalStream:
    """The primal of a lazy iterator of Duals: yields each item's primal. It pulls from
    the same stream as `iterate`, so code that consumes the plain values (any, next on
    the primal) and code that iterates the Dual can never get out of step."""

    __slots__ = ("source",)

    def __init__(self, source: Iterator[Dual]) -> None:
        self.source = source

    def __iter__(self) -> "PrimalStream":
        return self

    def __next__(self) -> Any:
        return next(self.source).primal


def stream(duals: Iterator[Dual]) -> Dual:
    """A lazy iterator of Duals as one Dual."""
    source = iter(duals)
    return Dual(PrimalStream(source), TangentStream(source))


def _user_iterator(primal: Any, tangent: Tangent) -> Dual:
    """What the derived rule of the instance's own __iter__ (Python code) returns."""
    method = _python_method(primal, "__iter__",
                            "its class has no __iter__ in Python to differentiate")
    return entry_points.derived_rule(method)(Dual(primal, tangent))


def _python_method(primal: Any, name: str, missing: str) -> Any:
    """The method `name` of the instance's class, Python code to differentiate; else
    refused, saying what is `missing`."""
    method = getattr(type(primal), name, None)
    if python_function(method) is None:
        raise FwdadError(
            f"fwdad cannot iterate over {a_type(primal)} instance that carries a "
            f"derivative{in_user_code()}: {missing}. Iterate over the field that holds "
            f"the items (e.g. `for v in obj.items`).")
    return method


def _iterate_instance(primal: Any, tangent: Tangent) -> Iterator[Dual]:
    """`for x in obj`, obj an instance: a library's iterator made from constants
    (`np.ndindex(shape)`) yields constants; a user class's `__iter__` is differentiated,
    and when it returns the instance itself (an iterator: `return self`), each item is
    what the rule of its `__next__` returns, until that raises StopIteration."""
    if is_foreign(type(primal)):
        if not is_zero(tangent):
            raise FwdadError(
                f"fwdad cannot iterate over {a_type(primal)} instance that carries a "
                f"derivative{in_user_code()}: its class is library code, which fwdad "
                f"does not differentiate. Iterate over the values themselves.")
        for item in primal:
            yield Dual(item, zero_tangent(item))
        return
    iterator = _user_iterator(primal, tangent)
    if iterator.primal is not primal:
        yield from iterate(iterator)
        return
    step = entry_points.derived_rule(_python_method(
        primal, "__next__", "its __iter__ returns the instance, and its class has no "
        "__next__ in Python to differentiate"))
    while True:
        try:
            item = step(iterator)
        except StopIteration:  # (the iterator is exhausted, as a plain loop ends)
            return
        yield item


def iterate(d: Dual) -> Iterator[Dual]:
    primal, tangent = d.primal, d.tangent
    if type(tangent) is TangentStream:
        for item in tangent.source:  # (not `yield from`: a loop's break closes this
            yield item  # generator, and must not close the stream others still read)
    elif tangent is NoTangent:
        for item in primal:
            yield Dual(item, zero_tangent(item))
    elif isinstance(primal, dict):
        for key in primal:
            yield Dual(key, NoTangent)
    elif isinstance(primal, np.ndarray):
        yield from map(Dual, primal, iterate_tangent(primal, tangent))
    elif isinstance(tangent, Tangent):  # an instance whose class defines __iter__
        yield from _iterate_instance(primal, tangent)
    else:
        if isinstance(tangent, (list, tuple)) and len(tangent) != len(primal):
            raise InternalError(f"a {type(primal).__name__} of {len(primal)} items has a "
                                f"tangent of {len(tangent)}: its items would be lost.")
        yield from map(Dual, primal, tangent)


def unpack(d: Dual, count: int, star: int = -1) -> Tuple[Dual, ...]:
    primal, tangent = d.primal, d.tangent
    if type(primal) is np.ndarray and type(tangent) is np.ndarray and star < 0 and \
            primal.ndim and len(primal) == count:  # (`a, b = y`, y an array: as iterate)
        if tangent.ndim == primal.ndim:  # (unbatched: item i's tangent is tangent[i])
            return tuple(map(Dual, primal, tangent))
        return tuple(map(Dual, primal, iterate_tangent(primal, tangent)))
    items = tuple(iterate(d))
    values = lang.unpack([i.primal for i in items], count, star)
    if star < 0:
        return items
    after = count - star - 1
    rest = items[star:len(items) - after]
    middle = Dual(list(values[star]), [i.tangent for i in rest])
    return items[:star] + (middle,) + items[len(items) - after:]


def unbox(d: Dual) -> Tuple[Dual, ...]:
    return tuple(iterate(d))


def unbox_kw(d: Dual) -> Dict[str, Dual]:
    tangent = d.tangent
    return {k: Dual(v, zero_tangent(v) if tangent is NoTangent else tangent[k])
            for k, v in d.primal.items()}


def pack(items: Tuple[Dual, ...]) -> Dual:
    """`*args` of a rule: a tuple of Duals as one Dual."""
    return Dual(tuple(d.primal for d in items), tuple(d.tangent for d in items))


def pack_kw(items: Dict[str, Dual]) -> Dual:
    """`**kwargs` of a rule: a dict of Duals as one Dual."""
    return Dual({k: d.primal for k, d in items.items()},
                {k: d.tangent for k, d in items.items()})


def bound_arguments(f: Dual, args: tuple, keywords: dict) -> tuple:
    """The bound arguments of a partial or methodcaller as Duals, with the tangents the
    rule that made it kept (none for one made outside a rule)."""
    given = f.tangent if isinstance(f.tangent, tuple) else None
    args_t, keywords_t = given if given is not None else (None, None)
    bound = [Dual(a, args_t[i] if args_t else NoTangent) for i, a in enumerate(args)]
    named = {k: Dual(v, keywords_t[k] if keywords_t else NoTangent)
             for k, v in keywords.items()}
    return bound, named
