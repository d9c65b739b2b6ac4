"""The callable objects of the standard library, as data: what calling each one does,
for forward and reverse mode to spell out with calls their dispatch already knows.

    functools.partial(f, a, k=b)(x)       ->  f(a, x, k=b)
    operator.itemgetter(i, j)(obj)        ->  (obj[i], obj[j])
    operator.attrgetter("a.b")(obj)       ->  obj.a.b
    operator.methodcaller("m", a)(obj)    ->  obj.m(a)
    obj(x)   (a Python __call__)          ->  obj.__call__(x)

`kind_of(fn)` names which of these `fn` is (None for anything else); the helpers below
take one apart. `is_bound_c_method(fn)`: a C method bound to an object (`L.count`),
which both modes call through its type's rule with the object first.
"""
from __future__ import annotations

import functools
import operator
import types
from typing import Any, Optional, Tuple

from fwdad.source import python_function

_KINDS = {functools.partial: "partial", operator.itemgetter: "itemgetter",
          operator.attrgetter: "attrgetter", operator.methodcaller: "methodcaller"}


def kind_of(fn: Any) -> Optional[str]:
    """"partial", "itemgetter", "attrgetter", "methodcaller", "object" (an instance
    whose class has a Python `__call__`), or None."""
    for cls, kind in _KINDS.items():
        if isinstance(fn, cls):
            return kind
    if python_function(getattr(type(fn), "__call__", None)) is not None:
        return "object"
    return None


def itemgetter_keys(getter: operator.itemgetter) -> tuple:
    return getter.__reduce__()[1]


def attrgetter_paths(getter: operator.attrgetter) -> Tuple[Tuple[str, ...], ...]:
    """The dotted names, split: attrgetter("inner.v", "v") -> (("inner", "v"), ("v",))."""
    return tuple(tuple(dotted.split(".")) for dotted in getter.__reduce__()[1])


def methodcaller_parts(m: operator.methodcaller) -> tuple:
    """(name, args, keywords) of a methodcaller, from what it pickles as."""
    made, args = m.__reduce__()
    if isinstance(made, functools.partial):  # with keywords
        return made.args[0], args, dict(made.keywords)
    return args[0], args[1:], {}


def is_bound_c_method(fn: Any) -> bool:
    """A C method bound to an object (`L.count`, `np.add.at`, `rng.normal`): not a
    module's function, nor a class's (`dict.fromkeys`, `object.__new__`, or a
    classmethod bound to its class like itertools.chain.from_iterable: functions)."""
    return isinstance(fn, types.BuiltinMethodType) and not isinstance(
        getattr(fn, "__self__", None), (types.ModuleType, type(None), type))
