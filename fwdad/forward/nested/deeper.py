"""Rules for differentiating the level-2 machinery itself: a jvp inside a jvp inside a
differentiated function runs the derived rules of fwdad/higher.py and of the level-2
rules (fwdad/forward/nested/), a third level; their derived rules, a fourth; and so
on. Most of that code is plain code over Duals; these are the pieces that are not:
lookups whose results are rules or kinds (constants), user-facing checks and copies,
structural tangents, new instances, and binding a record's arguments to its fields.
Functions defined inside differentiated code are in fwdad/forward/nested/closures.py.
"""
from __future__ import annotations

from typing import Any, Callable

from fwdad import api_checks, callables, construction, over_reverse_rules
from fwdad.callables import is_bound_c_method
from fwdad.core import duals
from fwdad.dual import Dual
from fwdad.errors import describe
from fwdad.forward import contexts, dispatch, records
from fwdad.forward.defaults import may_hold_derivative
from fwdad.forward.nested import constructors as nested_constructors
from fwdad.forward.nested.closures import unwrapped, wrapped
from fwdad.forward.nested.levels import outer_of
from fwdad.rules import iteration
from fwdad.rules.batching import created_tangent
from fwdad.rules.registry import def_nondiff, frule, get_frule
from fwdad.tangent_checks import check_tangent
from fwdad.tangents import NoTangent, Tangent

# what the level-2 rule of dispatch.call looks up (rules and kinds of callees), and
# which rule runs a `with` statement's manager method: constants
def_nondiff(describe, is_bound_c_method, dispatch._callee_key, dispatch.method_of,
            dispatch.static_rule, get_frule, callables.kind_of, construction.is_user_class,
            records.is_namedtuple_class, contexts.method_rule)


@frule(check_tangent)
def _check_tangent(primal: Dual, tangent: Dual, name: Dual, batch: Dual = None,
                   of: Dual = None) -> Dual:
    checked = check_tangent(primal.primal, tangent.primal, name.primal,
                            None if batch is None else batch.primal,
                            "" if of is None else of.primal)
    return Dual(checked, _outer_of_nones(checked, tangent.primal, tangent.tangent))


def _outer_of_nones(checked: Any, given: Any, outer: Any) -> Any:
    """The outer tangent of a checked tangent: a None given (a zero, whatever the outer
    level does) has a zero outer tangent, shaped as the zero it became."""
    if given is None or given is NoTangent:
        return created_tangent(checked)
    if isinstance(given, (tuple, list)) and isinstance(outer, (tuple, list)):
        return type(outer)(_outer_of_nones(c, g, o) for c, g, o in zip(checked, given, outer))
    if isinstance(given, dict) and isinstance(outer, dict):
        return {k: _outer_of_nones(checked[k], given[k], outer[k]) for k in given}
    return outer


@frule(api_checks.copied)
def _copy(tangent: Dual) -> Dual:
    return Dual(api_checks.copied(tangent.primal), api_checks.copied(tangent.tangent))


@frule(Tangent)
def _tangent(**fields: Dual) -> Dual:
    """A structural tangent built in rule code: its tangent is the structure of its
    fields' tangents."""
    return Dual(Tangent(**{k: v.primal for k, v in fields.items()}),
                Tangent(**{k: v.tangent for k, v in fields.items()}))


@frule(nested_constructors.new_rule)
def _new_instance(cls: Dual) -> Dual:
    """A new instance one level deeper: the instance of the level below, and its
    tangent, empty structures where that one has them."""
    return Dual(nested_constructors.new_rule(cls.primal),
                Tangent(primal=_empty_pair(), tangent=_empty_pair()))


def _empty_pair() -> Tangent:
    return Tangent(primal=Tangent(), tangent=Tangent())


@frule(contexts.primal_of)
def _primal_of(value: Dual) -> Dual:
    """A Dual's primal, seen from a rule differentiated again (as getattr gives it)."""
    return Dual(value.primal.primal, outer_of(value)[0])


# ---- binding a record's arguments to its fields, one level deeper ---------------------
@frule(construction.namedtuple_values)
def _namedtuple_values(cls: Dual, args: Dual, kwargs: Dual, default: Dual) -> Dual:
    values = construction.namedtuple_values(cls.primal, *_bindable(args, kwargs),
                                            _deeper_default(default))
    return Dual([v.primal for v in values], [v.tangent for v in values])


@frule(construction.dataclass_values)
def _dataclass_values(cls: Dual, args: Dual, kwargs: Dual, default: Dual) -> Dual:
    pairs = construction.dataclass_values(cls.primal, *_bindable(args, kwargs),
                                          _deeper_default(default))
    return Dual([(name, v.primal) for name, v in pairs],
                [(NoTangent, v.tangent) for _, v in pairs])


def _bindable(args: Dual, kwargs: Dual) -> tuple:
    """The arguments as Duals of this level, to be bound to fields."""
    positional = tuple(iteration.items(args))
    named = {k: Dual(kwargs.primal[k], NoTangent if kwargs.tangent is NoTangent
                     else kwargs.tangent[k]) for k in kwargs.primal}
    return positional, named


class _DeeperDefault:
    """A field's default as a constant of this level (`default` makes it one of the
    level below)."""

    def __init__(self, default: Callable) -> None:
        self.default = default

    def __call__(self, value: Any) -> Dual:
        return duals.const(self.default(value))


def _deeper_default(default: Dual) -> _DeeperDefault:
    return _DeeperDefault(default.primal)


@frule(over_reverse_rules.fresh_default_rule)
def _fresh_default_deeper(default: Dual) -> Dual:
    """A mutable default of a rule differentiated a third time (or more): the Dual the
    derivative keeps for it at that level, zeros at every level (as at level 2), or a
    new constant where it cannot hold a derivative (a sentinel object). This is its
    own rule, for every level further (the default comes wrapped once more each
    time: its depth counts the levels)."""
    depth, fresh_default = unwrapped(default)
    if not may_hold_derivative(fresh_default.value):
        return wrapped(duals.fresh(fresh_default.value), depth)
    return fresh_default.at_level(depth + 1)


frule(_fresh_default_deeper)(_fresh_default_deeper)
