"""Calling the callable objects of the standard library, and instances with `__call__`,
on Duals: what each does (fwdad/callables.py) spelled out with calls that dispatch
already knows:

    functools.partial(f, a, k=b)(x)       ->  call(f, a, x, k=b)
    operator.itemgetter(i, j)(obj)        ->  (operator.getitem(obj, i), ... j)
    operator.attrgetter("a.b")(obj)       ->  getattr(getattr(obj, "a"), "b")
    operator.methodcaller("m", a)(obj)    ->  call(getattr(obj, "m"), a)
    obj(x)   (a Python __call__)          ->  call(obj.__call__, x)

A partial or methodcaller made inside a rule carries the tangents of its bound
arguments, as (args, keywords) (rules/iteration.py); one made elsewhere is a constant.
"""
from __future__ import annotations

import operator
from typing import Any, Callable, Dict, Optional

from fwdad.callables import attrgetter_paths, itemgetter_keys, kind_of, methodcaller_parts
from fwdad.core.duals import bound_arguments, const
from fwdad.dual import Dual

Caller = Callable[[Dual, tuple, dict], Dual]


def caller_of(fn: Any) -> Optional[Caller]:
    """How to call `fn` if it is one of the objects above, else None."""
    return _CALLERS.get(kind_of(fn))


class StaticCaller:
    """A rule for an object known when the rule is built (a constant: zero tangent).
    An object rather than a closure, so that code differentiated again finds its
    level-2 rule (forward/nested/rules.py)."""

    __slots__ = ("fn", "caller", "__name__")

    def __init__(self, fn: Any, caller: Caller) -> None:
        self.fn, self.caller = fn, caller
        self.__name__ = f"call_{type(fn).__name__}"

    def __call__(self, *args: Dual, **kwargs: Dual) -> Dual:
        return self.caller(const(self.fn), args, kwargs)


static_caller = StaticCaller


def call_partial(f: Dual, args: tuple, kwargs: dict) -> Dual:
    p = f.primal
    bound, named = bound_arguments(f, p.args, p.keywords)
    return _dispatch().call(const(p.func), *bound, *args, **{**named, **kwargs})


def call_itemgetter(f: Dual, args: tuple, kwargs: dict) -> Dual:
    (obj,) = args
    getitem = _getitem()
    items = [getitem(obj, const(key)) for key in itemgetter_keys(f.primal)]
    if len(items) == 1:
        return items[0]
    return Dual(tuple(i.primal for i in items), tuple(i.tangent for i in items))


def call_attrgetter(f: Dual, args: tuple, kwargs: dict) -> Dual:
    (obj,) = args
    getattr_ = _getattr()
    values = []
    for path in attrgetter_paths(f.primal):
        value = obj
        for name in path:
            value = getattr_(value, name)
        values.append(value)
    if len(values) == 1:
        return values[0]
    return Dual(tuple(v.primal for v in values), tuple(v.tangent for v in values))


def call_methodcaller(f: Dual, args: tuple, kwargs: dict) -> Dual:
    (obj,) = args
    name, bound_args, keywords = methodcaller_parts(f.primal)
    bound, named = bound_arguments(f, bound_args, keywords)
    return _dispatch().call(_getattr()(obj, name), *bound, **named)


def call_object(f: Dual, args: tuple, kwargs: dict) -> Dual:
    """An instance with `__call__`: call that method, bound to the instance."""
    return _dispatch().call(Dual(f.primal.__call__, f.tangent), *args, **kwargs)


_CALLERS: Dict[Optional[str], Caller] = {
    "partial": call_partial, "itemgetter": call_itemgetter, "attrgetter": call_attrgetter,
    "methodcaller": call_methodcaller, "object": call_object}


def _dispatch():
    from fwdad.forward import dispatch  # dispatch imports this module
    return dispatch


def _getitem() -> Callable:
    from fwdad.rules.registry import get_frule
    return get_frule(operator.getitem)


def _getattr() -> Callable:
    from fwdad.rules.registry import get_frule
    getattr_rule = get_frule(getattr)
    return lambda obj, name: getattr_rule(obj, const(name))
