"""How calling a class builds its instance, as data both modes build from.

    how_built(ValueError)  ->  "exception"    built from plain values, no derivative
    how_built(Spring)      ->  "dataclass"    field by field (its __init__ has no source)
    how_built(Point)       ->  "namedtuple"   the tuple of its fields
    how_built(Interned)    ->  "__new__"      its own __new__: refused, not modelled
    how_built(Particle)    ->  "init"         object.__new__, then the rule of __init__

`dataclass_values` and `namedtuple_values` bind the arguments of a call as the generated
constructors would; `refusal` is the message for a class that fwdad does not model.
"""
from __future__ import annotations

import collections
import dataclasses
import inspect
import weakref
from typing import Any, Callable, List, Optional, Tuple

from fwdad.errors import describe
from fwdad.probe import probe
from fwdad.source import is_foreign, python_function


def how_built(cls: type) -> str:
    if issubclass(cls, BaseException):
        return "exception"
    if dataclasses.is_dataclass(cls):
        return "dataclass"
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return "namedtuple"
    if cls.__new__ is not object.__new__:
        return "__new__"
    init = cls.__init__
    if init is not object.__init__ and python_function(init) is None:
        return "__init__"
    return "init"


def blank(cls: type) -> Any:
    """A new instance with no fields yet (object.__new__): the constructors of both modes
    set its fields next. A function of its own, so that forward mode over reverse code
    has a rule for it (fwdad/over_reverse.py)."""
    return object.__new__(cls)


def is_user_class(cls: Any) -> bool:
    """A class whose call fwdad builds itself (user code, or an exception)."""
    return isinstance(cls, type) and (issubclass(cls, BaseException) or not is_foreign(cls))


def dataclass_values(cls: type, args: tuple, kwargs: dict,
                     default: Callable[[Any], Any]) -> List[Tuple[str, Any]]:
    """(field, value) for each field the generated `__init__` sets, in order: the
    argument, or `default(value)` of its default (a fresh one from a default_factory).
    An init=False field without a default is left to `__post_init__`."""
    signature, fields = _init_of(cls)
    bound = signature.bind(*args, **kwargs)
    values = []
    for field in fields:
        if field.name in bound.arguments:
            values.append((field.name, bound.arguments[field.name]))
        elif field.default is not dataclasses.MISSING:
            values.append((field.name, default(field.default)))
        elif field.default_factory is not dataclasses.MISSING:
            values.append((field.name, default(field.default_factory())))
    return values


def _init_of(cls: type) -> tuple:
    """The signature of a dataclass's constructor and its fields, kept per class while
    its `__init__` stays the same object (building one takes some 20 us)."""
    init = cls.__init__
    known = _INITS.get(cls)
    if known is None or known[0] is not init:
        known = _INITS[cls] = (init, inspect.signature(cls), dataclasses.fields(cls))
    return known[1], known[2]


_INITS: "weakref.WeakKeyDictionary[type, tuple]" = weakref.WeakKeyDictionary()


def namedtuple_values(cls: type, args: tuple, kwargs: dict,
                      default: Callable[[Any], Any]) -> list:
    """The fields of `cls(*args, **kwargs)`, defaults as `default(value)`."""
    bound = inspect.signature(cls).bind(*args, **kwargs)
    given = bound.arguments
    bound.apply_defaults()
    return [v if k in given else default(v) for k, v in bound.arguments.items()]


def refusal(cls: type, made_by: str, location: str, register: str) -> str:
    """Why creating a `cls` is refused, and what to do (`register`: the decorator;
    `location`: ` in f at file.py:12`, errors.user_code's phrase, or empty)."""
    return (f"no rule to differentiate creating a {describe(cls)}{location}: its instances are "
            f"made by its own {made_by}, which fwdad does not model (it builds an "
            f"instance with object.__new__ and runs the rule of __init__). Register a "
            f"rule for the class:\n"
            f"    @{register}({describe(cls)})\n"
            f"    def _new(*args): ...\n"
            f"or, if the instance carries no derivative, "
            f"fwdad.def_nondiff({describe(cls)}).")


# ---- the methods collections.namedtuple generates (fwdad does not trace into them) -------
_Sample = collections.namedtuple("_Sample", "a")
_GENERATED = {getattr(getattr(_Sample, name), "__func__", getattr(_Sample, name)).__code__:
              name for name in ("_make", "_replace", "_asdict")}


def namedtuple_method(fn: Any) -> Optional[str]:
    """"_make", "_replace" or "_asdict" when `fn` (bound or not) is that generated
    method (`_make` is `tuple.__new__` on some versions of Python), else None."""
    func = probe(fn, "__func__", fn)
    if func is tuple.__new__:
        return "_make"
    return _GENERATED.get(probe(func, "__code__"))
