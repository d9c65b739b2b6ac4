"""Level-2 rules (fwdad/forward/nested/levels.py) of the attribute rules (rules/objects.py),
whose own code reaches fwdad's attribute protocol (fwdad/attributes.py) and imports
inside functions: attributes are structural, so each rule is written out here.

A level-2 instance is `Dual(Dual(obj, T), Tangent(primal=EO, tangent=ET))`: T is the
inner tangent of obj's fields, EO their outer tangents, and ET the outer tangents of
T's entries (the second-order terms). `obj.v = value` writes one field into each.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fwdad import attributes
from fwdad.core import duals
from fwdad.dual import Dual
from fwdad.errors import FwdadError
from fwdad.forward import dispatch
from fwdad.forward.nested.levels import outer_of, rule_call
from fwdad.rules import objects
from fwdad.rules.batching import in_a_context
from fwdad.rules.registry import frule
from fwdad.rules.widening import FieldDual, widen_before_view
from fwdad.tangents import NoTangent, Tangent


# ---- reading -------------------------------------------------------------------------
@frule(objects.getattr_rule)
def _getattr_of_rule(obj: Dual, name: Dual, *default: Dual) -> Dual:
    """getattr: as on level 1, the outer tangents of an array a view is taken of are
    widened first (the inner ones stay unbatched, as nested calls are)."""
    if objects.gives_a_view(obj.primal.primal, name.primal) and in_a_context():
        widen_outer_before_view(obj)
    return _attribute_of_rule(obj, name, *default)


@frule(objects.attribute_rule)
def _attribute_of_rule(obj: Dual, name: Dual, *default: Dual) -> Dual:
    """getattr is structural: the outer tangent of `obj.name` is the same attribute of
    the outer tangents (a property runs its getter's level-2 rule)."""
    inner, name = obj.primal, name.primal
    if default and not hasattr(inner.primal, name):
        return default[0]  # the default, with its own tangents
    kept = _kept_defaults(inner.primal, name)
    if kept is not None:
        return kept
    if _is_property(type(inner.primal), name):
        return rule_call(dispatch.derived_rule(getattr(type(inner.primal), name).fget), obj)
    if _read_as_object(inner.primal, name):  # (as level 1's attribute_rule does)
        return _get_attribute_of_rule(obj, duals.const(name))
    return _field(obj, name, objects.attribute_rule(inner, name))


def _read_as_object(value: Any, name: str) -> bool:
    """Whether level 1 reads `value.name` by object.__getattribute__ (which runs a
    property of super(), a descriptor or `__getattr__` by its rule), not as an array's
    or a number's attribute, nor by the class's own __getattribute__."""
    return not isinstance(value, np.ndarray) and not (
        isinstance(value, (float, complex, np.inexact)) and name in ("real", "imag")) and \
        attributes.getattribute_override(type(value)) is None


@frule(objects.get_attribute)
def _get_attribute_of_rule(obj: Dual, name: Dual) -> Dual:
    """object.__getattribute__: a property's getter (or a descriptor's __get__, or
    __getattr__) by its level-2 rule, else the field."""
    inner, name = obj.primal, name.primal
    kept = _kept_defaults(inner.primal, name)
    if kept is not None:
        return kept
    hook = attributes.reader(inner.primal, name)
    if hook is not None:
        return rule_call(dispatch.derived_rule(hook.fn),
                         *hook.arguments(_wrapped_by_super(obj), constant=_constant))
    return _field(obj, name, objects.get_attribute(inner, name))


def _wrapped_by_super(obj: Dual) -> Dual:
    """super(C, o) as level 2 passes it to a property's getter: o, with super's tangents
    (which are o's); any other object as it is."""
    inner = obj.primal
    if not isinstance(inner.primal, super):
        return obj
    return Dual(Dual(inner.primal.__self__, inner.tangent), obj.tangent)


def _kept_defaults(owner: Any, name: str) -> Any:
    """`f.__defaults__` holding a mutable default: the Duals the derivative keeps."""
    if name != "__defaults__":
        return None
    return duals.defaults_at_level(getattr(owner, name, None), 2)


def widen_outer_before_view(obj: Dual) -> None:
    """Before a view of a level-2 array is taken (`x.T`, `x.reshape`): the outer
    tangents of its value and of its inner tangent, where the outer call is batched,
    as level 1 does (rules/widening.widen_before_view), so that a batched write through
    the view reaches them. Each is read as a field of the outer Tangent, which is
    moved along."""
    if not isinstance(obj.tangent, Tangent) or not isinstance(obj.primal, Dual):
        return
    for part in ("primal", "tangent"):
        if isinstance(getattr(obj.primal, part), np.ndarray):
            widen_before_view(FieldDual(getattr(obj.primal, part), getattr(obj.tangent, part),
                                        obj.tangent, part), getattr(obj.primal, part))


@frule(widen_outer_before_view)
def _widen_outer_before_view(obj: Dual) -> Dual:
    """Nothing at level 3: the tangents of level 2 stay unbatched (nested calls are),
    as level 2's widen_before_view does nothing (forward/nested/rules.py)."""
    return Dual(None, NoTangent)


def _field(obj: Dual, name: str, value: Dual) -> Dual:
    """`obj.name` as a level-2 value, given its level-1 value."""
    inner = obj.primal
    outer_p, outer_t = outer_of(obj)
    return Dual(value, Tangent(
        primal=_attribute_tangent(inner.primal, outer_p, name),
        tangent=_attribute_of_tangent(inner, value, outer_t, name)))


def _is_property(kind: type, name: str) -> bool:
    descriptor = getattr(kind, name, None)
    return isinstance(descriptor, property) and descriptor.fget is not None


def _attribute_tangent(primal: Any, tangent: Any, name: str) -> Any:
    if tangent is NoTangent or primal is NoTangent:
        return NoTangent
    return objects.attribute_rule(Dual(primal, tangent), name).tangent


def _attribute_of_tangent(inner: Dual, value: Dual, outer: Any, name: str) -> Any:
    """The outer tangent of `value.tangent`, which the level-1 rule took from
    `inner.tangent`: all of it for a bound method, the field of an object's Tangent,
    the same view of an array's tangent."""
    if outer is NoTangent or inner.tangent is NoTangent:
        return NoTangent
    if value.tangent is inner.tangent:  # a bound method carries the object's tangent
        return outer
    if isinstance(inner.tangent, Tangent):
        return getattr(outer, name, NoTangent) if isinstance(outer, Tangent) else NoTangent
    return _attribute_tangent(inner.tangent, outer, name)


# ---- writing -------------------------------------------------------------------------
@frule(objects.setattr_rule)
def _setattr_of_rule(obj: Dual, name: Dual, value: Dual) -> Dual:
    """setattr: the class's own __setattr__ runs by its level-2 rule, as on level 1."""
    method = attributes.setattr_override(type(obj.primal.primal))
    if method is None:
        return _set_attribute_of_rule(obj, name, value)
    rule_call(dispatch.derived_rule(method), obj, _constant(name.primal), value)
    return _constant(None)


@frule(objects.set_attribute)
def _set_attribute_of_rule(obj: Dual, name: Dual, value: Dual) -> Dual:
    """object.__setattr__: a property's setter (or a descriptor's __set__) by its
    level-2 rule, else the field, with its inner and both outer tangents."""
    inner, name = obj.primal, name.primal
    hook = attributes.writer(inner.primal, name)
    if hook is not None:
        rule_call(dispatch.derived_rule(hook.fn), *hook.arguments(obj, value, _constant))
        return _constant(None)
    objects.set_attribute(inner, name, value.primal)
    if isinstance(inner.tangent, Tangent) or isinstance(inner.primal, Tangent):
        outer_p, outer_t = outer_of(obj)
        value_p, value_t = outer_of(value)
        _store(outer_p, name, value_p, inner.primal)
        _store(outer_t, name, value_t, inner.primal)
    elif value.tangent is not NoTangent:
        raise _unsupported(inner.primal, name)
    return _constant(None)


def _store(outer: Any, name: str, tangent: Any, owner: Any) -> None:
    """Write a field's outer tangent into the object's, which must be able to hold it."""
    if isinstance(outer, Tangent):
        setattr(outer, name, tangent)
    elif tangent is not NoTangent:
        raise _unsupported(owner, name)


def _unsupported(owner: Any, name: str) -> FwdadError:
    return FwdadError(
        f"second derivatives through setting {type(owner).__name__}.{name} are not "
        f"supported: the object has no field tangents to hold the outer derivative. "
        f"Compute with plain values, or take the second derivative by finite "
        f"differences of fwdad.jacfwd.")


def _constant(value: Any) -> Dual:
    """A plain value of level-1 code (a name, a constant), as a level-2 value."""
    return duals.const(duals.const(value))
