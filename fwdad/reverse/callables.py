"""Calling the callable objects of the standard library, and instances with `__call__`,
on reverse values: what each does (fwdad/callables.py), spelled out with reverse rules.

    functools.partial(f, a, k=b)(x)       ->  call(f, a, x, k=b)
    operator.itemgetter(i, j)(obj)        ->  (getitem rule(obj, i), ... j)
    operator.attrgetter("a.b")(obj)       ->  getattr rule(getattr rule(obj, "a"), "b")
    operator.methodcaller("m", a)(obj)    ->  call(getattr rule(obj, "m"), a)
    obj(x)   (a Python __call__)          ->  call(obj.__call__, x)

Reverse values need no boxing: the bound arguments of a partial are variables as they
are, whoever made it.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Optional

from fwdad.callables import attrgetter_paths, itemgetter_keys, kind_of, methodcaller_parts
from fwdad.reverse.registry import get_rrule


def caller_of(fn: Any) -> Optional[Callable]:
    """The rule of calling `fn` if it is one of the objects above, else None."""
    caller = _CALLERS.get(kind_of(fn))
    if caller is None:
        return None

    def call_it(*args: Any, **kwargs: Any) -> Any:
        return caller(fn, args, kwargs)
    call_it.__name__ = f"call_{type(fn).__name__}"
    return call_it


def _call(fn: Any, *args: Any, **kwargs: Any) -> Any:
    from fwdad.reverse.dispatch import call  # dispatch imports this module
    return call(fn, *args, **kwargs)


def call_partial(p: Any, args: tuple, kwargs: dict) -> Any:
    return _call(p.func, *p.args, *args, **{**p.keywords, **kwargs})


def call_itemgetter(getter: Any, args: tuple, kwargs: dict) -> Any:
    (obj,) = args
    getitem = get_rrule(operator.getitem)
    items = tuple(getitem(obj, key) for key in itemgetter_keys(getter))
    return items[0] if len(items) == 1 else items


def call_attrgetter(getter: Any, args: tuple, kwargs: dict) -> Any:
    (obj,) = args
    getattr_ = get_rrule(getattr)
    values = []
    for path in attrgetter_paths(getter):
        value = obj
        for name in path:
            value = getattr_(value, name)
        values.append(value)
    return values[0] if len(values) == 1 else tuple(values)


def call_methodcaller(m: Any, args: tuple, kwargs: dict) -> Any:
    (obj,) = args
    name, bound, keywords = methodcaller_parts(m)
    return _call(get_rrule(getattr)(obj, name), *bound, **keywords)


def call_object(obj: Any, args: tuple, kwargs: dict) -> Any:
    return _call(get_rrule(getattr)(obj, "__call__"), *args, **kwargs)


_CALLERS = {"partial": call_partial, "itemgetter": call_itemgetter,
            "attrgetter": call_attrgetter, "methodcaller": call_methodcaller,
            "object": call_object}
