"""Rules for the methods that collections.namedtuple generates, which fwdad does not
trace into (`_make` is `tuple.__new__`; the others call it):

    NT._make(items)         ->  NT(*items)
    t._replace(b=v)         ->  NT(*(v if name == "b" else field ...))
    t._asdict()             ->  {name: field ...}

Fields keep their tangents: a NamedTuple's tangent is the same NamedTuple of tangents.
"""
from __future__ import annotations

import types
from typing import Any, Callable, Optional

from fwdad.construction import namedtuple_method
from fwdad.core.duals import iterate
from fwdad.core.missing_rules import missing_rule_error
from fwdad.dual import Dual
from fwdad.forward.constructors import BoundRule


def rule_for(fn: Any) -> Optional[Callable]:
    """The rule of `fn` if it is one of the methods above (bound or not), else None."""
    rule = _RULES.get(namedtuple_method(fn))
    if rule is None or not isinstance(fn, types.MethodType):
        return rule
    return BoundRule(rule, fn.__self__)  # (the class, for _make; a constant record)


def is_namedtuple_class(cls: Any) -> bool:
    return isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields")


def _make(cls: Dual, iterable: Dual) -> Dual:
    """`NT._make(items)`, and `tuple.__new__(NT, items)` that it is."""
    if not is_namedtuple_class(cls.primal):
        raise missing_rule_error(tuple.__new__, (cls, iterable))
    return _new(cls.primal, list(iterate(iterable)))


def _replace(self: Dual, **changes: Dual) -> Dual:
    fields = type(self.primal)._fields
    unknown = set(changes) - set(fields)
    if unknown:
        raise ValueError(f"Got unexpected field names: {sorted(unknown)!r}")
    items = [changes.get(name, item) for name, item in zip(fields, iterate(self))]
    return _new(type(self.primal), items)


def _asdict(self: Dual) -> Dual:
    items = dict(zip(type(self.primal)._fields, iterate(self)))
    return Dual({k: v.primal for k, v in items.items()},
                {k: v.tangent for k, v in items.items()})


def _new(cls: type, items: list) -> Dual:
    if len(items) != len(cls._fields):
        raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(items)}")
    return Dual(cls(*(d.primal for d in items)), cls(*(d.tangent for d in items)))


_RULES = {"_make": _make, "_replace": _replace, "_asdict": _asdict}
