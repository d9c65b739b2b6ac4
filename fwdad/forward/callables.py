"""Calling the callable objects of the standard library, and instances with `__call__`.

What each object does is spelled out with calls that dispatch already knows:

    functools.partial(f, a, k=b)(x)       ->  call(f, a, x, k=b)
    operator.itemgetter(i, j)(obj)        ->  (operator.getitem(obj, i), ... j)
    operator.attrgetter("a.b")(obj)       ->  getattr(getattr(obj, "a"), "b")
    operator.methodcaller("m", a)(obj)    ->  call(getattr(obj, "m"), a)
    obj(x)   (a Python __call__)          ->  call(obj.__call__, x)

A partial or methodcaller made inside a rule carries the tangents of its bound
arguments, as (args, keywords) (rules/iteration.py); one made elsewhere is a constant.
"""
from __future__ import annotations

import functools
import operator
from typing import Any, Callable, Dict, Optional

from fwdad.dual import Dual
from fwdad.forward.runtime import const
from fwdad.source import python_function
from fwdad.tangents import NoTangent

Caller = Callable[[Dual, tuple, dict], Dual]


def caller_of(fn: Any) -> Optional[Caller]:
    """How to call `fn` if it is one of the objects above, else None."""
    for kind, caller in _CALLERS.items():
        if isinstance(fn, kind):
            return caller
    if python_function(getattr(type(fn), "__call__", None)) is not None:
        return call_object
    return None


def static_caller(fn: Any, caller: Caller) -> Callable:
    """A rule for an object known when the rule is built (a constant: zero tangent)."""
    f = const(fn)

    def call_constant(*args: Dual, **kwargs: Dual) -> Dual:
        return caller(f, args, kwargs)
    call_constant.__name__ = f"call_{type(fn).__name__}"
    return call_constant


def bound_arguments(f: Dual, args: tuple, keywords: dict) -> tuple:
    """The bound arguments of a partial or methodcaller as Duals, with the tangents the
    rule that made it kept (none for one made outside a rule)."""
    given = f.tangent if isinstance(f.tangent, tuple) else None
    args_t, keywords_t = given if given is not None else (None, None)
    bound = [Dual(a, args_t[i] if args_t else NoTangent) for i, a in enumerate(args)]
    named = {k: Dual(v, keywords_t[k] if keywords_t else NoTangent)
             for k, v in keywords.items()}
    return bound, named


def call_partial(f: Dual, args: tuple, kwargs: dict) -> Dual:
    p = f.primal
    bound, named = bound_arguments(f, p.args, p.keywords)
    return _dispatch().call(const(p.func), *bound, *args, **{**named, **kwargs})


def call_itemgetter(f: Dual, args: tuple, kwargs: dict) -> Dual:
    (obj,) = args
    getitem = _getitem()
    items = [getitem(obj, const(key)) for key in f.primal.__reduce__()[1]]
    if len(items) == 1:
        return items[0]
    return Dual(tuple(i.primal for i in items), tuple(i.tangent for i in items))


def call_attrgetter(f: Dual, args: tuple, kwargs: dict) -> Dual:
    (obj,) = args
    getattr_ = _getattr()
    values = []
    for dotted in f.primal.__reduce__()[1]:
        value = obj
        for name in dotted.split("."):
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


def methodcaller_parts(m: operator.methodcaller) -> tuple:
    """(name, args, keywords) of a methodcaller, from what it pickles as."""
    made, args = m.__reduce__()
    if isinstance(made, functools.partial):  # with keywords
        return made.args[0], args, dict(made.keywords)
    return args[0], args[1:], {}


def call_object(f: Dual, args: tuple, kwargs: dict) -> Dual:
    """An instance with `__call__`: call that method, bound to the instance."""
    return _dispatch().call(Dual(f.primal.__call__, f.tangent), *args, **kwargs)


_CALLERS: Dict[type, Caller] = {
    functools.partial: call_partial, operator.itemgetter: call_itemgetter,
    operator.attrgetter: call_attrgetter, operator.methodcaller: call_methodcaller,
}


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
