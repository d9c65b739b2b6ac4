"""Rules for calling a class: building its instance, primal and tangent together.

A user class: a new instance with an empty structural tangent, then the derived rule of
its `__init__`. Dataclasses and NamedTuples, whose generated constructors have no
source, are built field by field; exceptions carry no tangent.
"""
from __future__ import annotations

import types
from typing import Any, Callable

from fwdad import construction
from fwdad.core.duals import const, read_global
from fwdad.dual import Dual
from fwdad.errors import MissingRuleError
from fwdad.tangents import NoTangent, Tangent


def _derived_rule(fn: Callable) -> Callable:
    from fwdad.forward.dispatch import derived_rule  # dispatch imports this module
    return derived_rule(fn)


class BoundRule:
    """The rule of a method bound to a class or module (a constant: its tangent is
    zero), such as a classmethod reached through its class. An object rather than a
    closure, so that code differentiated again finds its level-2 rule
    (forward/nested/rules.py)."""

    __slots__ = ("rule", "self")

    def __init__(self, rule: Callable, owner: Any) -> None:
        self.rule, self.self = rule, const(owner)

    def __call__(self, *args: Dual, **kwargs: Dual) -> Dual:
        return self.rule(self.self, *args, **kwargs)


def bound_rule(rule: Callable, owner: Any) -> Callable:
    """The rule of a method bound to `owner`: a BoundRule for a class or module; else
    the owner read live at each call."""
    if isinstance(owner, (type, types.ModuleType)):
        return BoundRule(rule, owner)

    def bound_to_live(*args: Dual, **kwargs: Dual) -> Dual:
        """`M = BOX.set` or `PUT = STORE.append`: the owner read live at each call, as
        a global is (the Dual the derivative keeps for it when it is written into by
        name; else read-only zeros, which refuse a derivative written into them)."""
        return rule(read_global(owner), *args, **kwargs)
    return bound_to_live


def class_rule(cls: type, location: str) -> Callable:
    """What calling `cls` does (fwdad/construction.py): build it, or refuse a class
    whose instances are made by a `__new__` or an `__init__` fwdad does not model."""
    how = construction.how_built(cls)
    if how == "exception":
        return exception_rule(cls)
    if how in ("__new__", "__init__"):
        return _refuse(cls, how, location)
    return construct_rule(cls)


def _refuse(cls: type, made_by: str, location: str) -> Callable:
    def refused(*args: Dual, **kwargs: Dual) -> Dual:
        raise MissingRuleError(construction.refusal(cls, made_by, location, "fwdad.frule"))
    refused.__name__ = f"new_{cls.__name__}"
    refused._fw_creates = cls  # (refused again at second order: nested_constructors.py)
    return refused


def construct_rule(cls: type) -> Callable:
    """`cls(...)` for a user class: a new instance with a structural tangent, then the
    derived rule of its `__init__`. Dataclasses and NamedTuples, whose generated
    constructors have no source, are built field by field."""
    how = construction.how_built(cls)
    if how == "dataclass":
        return _construct_dataclass(cls)
    if how == "namedtuple":
        return _construct_namedtuple(cls)
    init = cls.__init__

    def construct(*args: Dual, **kwargs: Dual) -> Dual:
        self = Dual(cls.__new__(cls), Tangent())
        if init is not object.__init__:
            _derived_rule(init)(self, *args, **kwargs)
        return self
    construct.__name__ = f"new_{cls.__name__}"
    construct._fw_creates = cls
    return construct


def exception_rule(cls: type) -> Callable:
    """Exceptions are built from plain values and carry no tangent."""
    def construct(*args: Dual, **kwargs: Dual) -> Dual:
        return Dual(cls(*(a.primal for a in args),
                        **{k: v.primal for k, v in kwargs.items()}), NoTangent)
    construct.__name__ = f"new_{cls.__name__}"
    construct._fw_creates = cls
    return construct


def _construct_dataclass(cls: type) -> Callable:
    """What the generated `__init__` does: set each init field (its default if not
    given), then run `__post_init__`'s derived rule."""
    post_init = getattr(cls, "__post_init__", None)

    def construct(*args: Dual, **kwargs: Dual) -> Dual:
        self = Dual(cls.__new__(cls), Tangent())
        for name, value in construction.dataclass_values(cls, args, kwargs, const):
            object.__setattr__(self.primal, name, value.primal)
            setattr(self.tangent, name, value.tangent)
        if post_init is not None:
            _derived_rule(post_init)(self)
        return self
    construct.__name__ = f"new_{cls.__name__}"
    construct._fw_creates = cls
    return construct


def _construct_namedtuple(cls: type) -> Callable:
    """A NamedTuple's tangent is the same NamedTuple of tangents."""
    def construct(*args: Dual, **kwargs: Dual) -> Dual:
        items = construction.namedtuple_values(cls, args, kwargs, const)
        return Dual(cls(*(d.primal for d in items)), cls(*(d.tangent for d in items)))
    construct.__name__ = f"new_{cls.__name__}"
    construct._fw_creates = cls
    return construct
