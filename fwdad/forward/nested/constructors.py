"""Level-2 rules (fwdad/forward/nested/levels.py) of the constructor rules of
fwdad/forward/constructors.py: creating an instance inside code differentiated twice.

A level-2 instance is `Dual(Dual(obj, T), Tangent(primal=EO, tangent=ET))`, each of T,
EO, ET a structural `Tangent` with one entry per field (nested_attributes.py writes
them). As on level 1:

    C(a)  (a user class)   ->  a new instance, then the level-2 rule of C.__init__'s rule
    D(a)  (a dataclass)    ->  each field set, with its tangents; then __post_init__
    N(a)  (a NamedTuple)   ->  N of the fields, N of their tangents, N of their outer ones
    E(a)  (an exception)   ->  built from plain values, no tangent
"""
from __future__ import annotations

from typing import Any, Callable

from fwdad import construction
from fwdad.core import duals
from fwdad.dual import Dual
from fwdad.errors import MissingRuleError, in_user_code
from fwdad.forward import dispatch
from fwdad.forward.nested.levels import outer_of, rule_call
from fwdad.tangents import NoTangent, Tangent


def class_rule_of_rule(cls: type) -> Callable:
    """What calling `cls` does at level 2."""
    how = construction.how_built(cls)
    build = _BUILDERS.get(how)
    if build is None:  # made by its own __new__ or C __init__: refused on level 1 too
        return _refused(cls, how)
    rule = build(cls)
    rule.__name__ = f"new_{cls.__name__}_of_rule"
    return rule


def new_rule(cls: type) -> Dual:
    """A new instance with empty inner and outer tangents."""
    return Dual(Dual(cls.__new__(cls), Tangent()), Tangent(primal=Tangent(), tangent=Tangent()))


def _instance(cls: type) -> Callable:
    init = cls.__init__

    def construct(*args: Dual, **kwargs: Dual) -> Dual:
        self = new_rule(cls)
        if init is not object.__init__:
            rule_call(dispatch.derived_rule(init), self, *args, **kwargs)
        return self
    return construct


def _dataclass(cls: type) -> Callable:
    post_init = getattr(cls, "__post_init__", None)

    def construct(*args: Dual, **kwargs: Dual) -> Dual:
        self = new_rule(cls)
        for name, value in construction.dataclass_values(cls, args, kwargs, _constant):
            _set_field(self, name, value)
        if post_init is not None:
            rule_call(dispatch.derived_rule(post_init), self)
        return self
    return construct


def _set_field(obj: Dual, name: str, value: Dual) -> None:
    """What the generated __init__ does (it bypasses a frozen class's __setattr__)."""
    object.__setattr__(obj.primal.primal, name, value.primal.primal)
    setattr(obj.primal.tangent, name, value.primal.tangent)
    for outer, part in zip(outer_of(obj), outer_of(value)):
        setattr(outer, name, part)


def _namedtuple(cls: type) -> Callable:
    def construct(*args: Dual, **kwargs: Dual) -> Dual:
        items = construction.namedtuple_values(cls, args, kwargs, _constant)
        outers = [outer_of(item) for item in items]
        inner = Dual(cls(*(i.primal.primal for i in items)),
                     cls(*(i.primal.tangent for i in items)))
        return Dual(inner, Tangent(primal=cls(*(p for p, _ in outers)),
                                   tangent=cls(*(t for _, t in outers))))
    return construct


def _exception(cls: type) -> Callable:
    def construct(*args: Dual, **kwargs: Dual) -> Dual:
        value = cls(*(a.primal.primal for a in args),
                    **{k: v.primal.primal for k, v in kwargs.items()})
        return Dual(Dual(value, NoTangent), NoTangent)
    return construct


def _refused(cls: type, made_by: str) -> Callable:
    def refused(*args: Dual, **kwargs: Dual) -> Dual:
        raise MissingRuleError(construction.refusal(cls, made_by, in_user_code(),
                                                    "fwdad.frule"))
    return refused


_BUILDERS = {"init": _instance, "dataclass": _dataclass, "namedtuple": _namedtuple,
             "exception": _exception}


def _constant(value: Any) -> Dual:
    """A default value (a constant of level-1 code) as a level-2 value."""
    return duals.const(duals.const(value))
