"""Reverse rules for calling a class (how each is built: fwdad/construction.py).

    ValueError(msg)      ->  built from plain values
    Spring(x)            ->  object.__new__, each field set, the rule of __post_init__
    Point(x, y)          ->  Point(x, y): a NamedTuple holds variables as they are
    Interned(x)          ->  MissingRuleError: its own __new__ is not modelled
    Particle(x, v)       ->  object.__new__, then the reverse rule of __init__

The methods collections.namedtuple generates (_make, _replace, _asdict) only rearrange
their fields, so they run as they are on fields that are variables.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from fwdad import construction
from fwdad.errors import MissingRuleError
from fwdad.reverse.var import value_of


def _derived_rrule(fn: Callable) -> Callable:
    from fwdad.reverse.dispatch import derived_rrule  # dispatch imports this module
    return derived_rrule(fn)


def class_rrule(cls: type, location: str = "") -> Callable:
    """What reverse code calls for `cls(...)`."""
    how = construction.how_built(cls)
    build = _BUILDERS.get(how)
    if build is None:
        return _refuse(cls, how, location)
    rule = build(cls)
    rule.__name__ = f"new_{cls.__name__}"
    return rule


def _exception(cls: type) -> Callable:
    def construct(*args: Any, **kwargs: Any) -> Any:
        return cls(*map(value_of, args), **{k: value_of(v) for k, v in kwargs.items()})
    return construct


def _dataclass(cls: type) -> Callable:
    post_init = getattr(cls, "__post_init__", None)

    def construct(*args: Any, **kwargs: Any) -> Any:
        self = construction.blank(cls)
        for name, value in construction.dataclass_values(cls, args, kwargs, _same):
            object.__setattr__(self, name, value)  # as the generated __init__ does
        if post_init is not None:
            _derived_rrule(post_init)(self)
        return self
    return construct


def _namedtuple(cls: type) -> Callable:
    def construct(*args: Any, **kwargs: Any) -> Any:
        return cls(*construction.namedtuple_values(cls, args, kwargs, _same))
    return construct


def _init(cls: type) -> Callable:
    init = cls.__init__

    def construct(*args: Any, **kwargs: Any) -> Any:
        self = construction.blank(cls)
        if init is not object.__init__:
            _derived_rrule(init)(self, *args, **kwargs)
        return self
    return construct


def _same(value: Any) -> Any:
    return value


_BUILDERS = {"exception": _exception, "dataclass": _dataclass, "namedtuple": _namedtuple,
             "init": _init}


def _refuse(cls: type, made_by: str, location: str) -> Callable:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise MissingRuleError(construction.refusal(cls, made_by, location,
                                                    "fwdad.reverse.raw_rrule"))
    refused.__name__ = f"new_{cls.__name__}"
    return refused


def namedtuple_method_rrule(fn: Any) -> Optional[Callable]:
    """`fn` itself when it is a method collections.namedtuple generates, else None."""
    return fn if construction.namedtuple_method(fn) is not None else None
