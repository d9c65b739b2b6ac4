"""Rules for calling a class: building its instance, primal and tangent together.

A user class: a new instance with an empty structural tangent, then the derived rule of
its `__init__`. Dataclasses and NamedTuples, whose generated constructors have no
source, are built field by field; exceptions carry no tangent.
"""
from __future__ import annotations

import dataclasses
import inspect
from typing import Any, Callable

from fwdad.dual import Dual
from fwdad.errors import MissingRuleError, describe
from fwdad.forward.runtime import const
from fwdad.source import python_function
from fwdad.tangents import NoTangent, Tangent


def _derived_rule(fn: Callable) -> Callable:
    from fwdad.forward.dispatch import derived_rule  # dispatch imports this module
    return derived_rule(fn)


def bound_rule(rule: Callable, owner: Any) -> Callable:
    """The rule of a method bound to `owner` (a constant: its tangent is zero)."""
    self = const(owner)

    def bound(*args: Dual, **kwargs: Dual) -> Dual:
        return rule(self, *args, **kwargs)
    return bound


def class_rule(cls: type, location: str) -> Callable:
    """What calling `cls` does: build a user class (below), or refuse a class whose
    instances are made by a `__new__` or an `__init__` fwdad does not model."""
    if issubclass(cls, BaseException):
        return exception_rule(cls)
    if dataclasses.is_dataclass(cls) or issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return construct_rule(cls)
    made_by = _unmodelled_constructor(cls)
    if made_by is not None:
        return _refuse(cls, made_by, location)
    return construct_rule(cls)


def _unmodelled_constructor(cls: type) -> Any:
    """"__new__" unless it is object's, or "__init__" unless it is object's or has
    Python code: what a new instance plus the rule of `__init__` would skip."""
    if cls.__new__ is not object.__new__:
        return "__new__"
    init = cls.__init__
    if init is not object.__init__ and python_function(init) is None:
        return "__init__"
    return None


def _refuse(cls: type, made_by: str, location: str) -> Callable:
    def refused(*args: Dual, **kwargs: Dual) -> Dual:
        at = f" at {location}" if location else ""
        raise MissingRuleError(
            f"no rule to differentiate creating a {describe(cls)}{at}: its instances are "
            f"made by its own {made_by}, which fwdad does not model (it builds an "
            f"instance with object.__new__ and runs the rule of __init__). Register a "
            f"rule for the class:\n"
            f"    @fwdad.frule({describe(cls)})\n"
            f"    def _new(*args: fwdad.Dual) -> fwdad.Dual: ...\n"
            f"or, if the instance carries no derivative, "
            f"fwdad.def_nondiff({describe(cls)}).")
    refused.__name__ = f"new_{cls.__name__}"
    return refused


def construct_rule(cls: type) -> Callable:
    """`cls(...)` for a user class: a new instance with a structural tangent, then the
    derived rule of its `__init__`. Dataclasses and NamedTuples, whose generated
    constructors have no source, are built field by field."""
    if dataclasses.is_dataclass(cls):
        return _construct_dataclass(cls)
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return _construct_namedtuple(cls)
    init = cls.__init__

    def construct(*args: Dual, **kwargs: Dual) -> Dual:
        self = Dual(cls.__new__(cls), Tangent())
        if init is not object.__init__:
            _derived_rule(init)(self, *args, **kwargs)
        return self
    construct.__name__ = f"new_{cls.__name__}"
    return construct


def exception_rule(cls: type) -> Callable:
    """Exceptions are built from plain values and carry no tangent."""
    def construct(*args: Dual, **kwargs: Dual) -> Dual:
        return Dual(cls(*(a.primal for a in args),
                        **{k: v.primal for k, v in kwargs.items()}), NoTangent)
    construct.__name__ = f"new_{cls.__name__}"
    return construct


def _construct_dataclass(cls: type) -> Callable:
    """What the generated `__init__` does: set each init field (its default if not
    given), then run `__post_init__`'s derived rule."""
    signature = inspect.signature(cls)
    post_init = getattr(cls, "__post_init__", None)

    def construct(*args: Dual, **kwargs: Dual) -> Dual:
        bound = signature.bind(*args, **kwargs)
        self = Dual(cls.__new__(cls), Tangent())
        for field in dataclasses.fields(cls):
            value = bound.arguments.get(field.name)
            if value is None:
                value = _field_default(field)
            if value is not None:
                object.__setattr__(self.primal, field.name, value.primal)
                setattr(self.tangent, field.name, value.tangent)
        if post_init is not None:
            _derived_rule(post_init)(self)
        return self
    construct.__name__ = f"new_{cls.__name__}"
    return construct


def _field_default(field: "dataclasses.Field") -> Any:
    if field.default is not dataclasses.MISSING:
        return const(field.default)
    if field.default_factory is not dataclasses.MISSING:
        return const(field.default_factory())
    return None  # an init=False field without a default: __post_init__ sets it


def _construct_namedtuple(cls: type) -> Callable:
    """A NamedTuple's tangent is the same NamedTuple of tangents."""
    signature = inspect.signature(cls)

    def construct(*args: Dual, **kwargs: Dual) -> Dual:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        items = [v if isinstance(v, Dual) else const(v) for v in bound.arguments.values()]
        return Dual(cls(*(d.primal for d in items)), cls(*(d.tangent for d in items)))
    construct.__name__ = f"new_{cls.__name__}"
    return construct
