"""Rules for attributes: getattr, setattr, delattr on arrays, objects and modules.

The tangent of an instance is a `Tangent` with one field per attribute. The tangent of
a bound method is the tangent of the object it is bound to; dynamic dispatch hands it
back to the method's rule as `self`.
"""
from __future__ import annotations

import types

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import is_batched, lift
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent, Tangent, zero_tangent

# ndarray attributes whose tangent is the attribute of the tangent (linear), and
# the ones with no tangent.
_ARRAY_LINEAR = {"T", "real", "imag", "mT"}


@frule(getattr)
def _getattr(obj: Dual, name: str, *default: Dual) -> Dual:
    primal = obj.primal
    if default and not hasattr(primal, name):
        return default[0]  # the default, with its own tangent
    if isinstance(primal, np.ndarray):
        return _array_attribute(obj, name)
    descriptor = getattr(type(primal), name, None)
    if isinstance(descriptor, property) and descriptor.fget is not None:
        from fwdad.forward.dispatch import derived_rule
        return derived_rule(descriptor.fget)(obj)
    value = getattr(primal, name)
    if _is_bound_to(value, primal):
        return Dual(value, obj.tangent)
    if isinstance(obj.tangent, Tangent) or _is_namedtuple(obj.tangent):
        tangent = getattr(obj.tangent, name, NoTangent)
        return Dual(value, tangent if tangent is not NoTangent else zero_tangent(value))
    return Dual(value, zero_tangent(value))


def _array_attribute(obj: Dual, name: str) -> Dual:
    value = getattr(obj.primal, name)
    if name == "flat" and obj.tangent is not NoTangent:  # iterating x.flat
        return Dual(value, _flat_tangents(obj.primal, obj.tangent))
    if name in _ARRAY_LINEAR:
        from fwdad.rules.indexing import array_view_tangent
        return Dual(value, array_view_tangent(obj, name))
    if _is_bound_to(value, obj.primal):
        return Dual(value, obj.tangent)
    return Dual(value, NoTangent)


def _flat_tangents(primal, tangent):
    """The tangents of the items of `x.flat`, in order (each a batch when batched), read
    as the iteration reaches them, as x.flat reads its items. An item is a new number:
    a batch of its tangents is copied, not a view into x's."""
    if is_batched(primal, tangent):
        return (tangent[(slice(None),) + i].copy() for i in np.ndindex(primal.shape))
    return tangent.flat


def _is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _is_bound_to(value, primal) -> bool:
    """A method bound to `primal` (through super(), to the object super wraps)."""
    owner = primal.__self__ if isinstance(primal, super) else primal
    return isinstance(value, (types.MethodType, types.BuiltinMethodType)) \
        and getattr(value, "__self__", None) is owner


@frule(setattr)
def _setattr(obj: Dual, name: str, value: Dual) -> Dual:
    setattr(obj.primal, name, value.primal)
    if isinstance(obj.tangent, Tangent):
        setattr(obj.tangent, name, value.tangent)
    elif isinstance(obj.primal, np.ndarray) and name in _ARRAY_LINEAR:
        _write_view_tangent(obj, name, value)
    return Dual(None, NoTangent)


def _write_view_tangent(obj: Dual, name: str, value: Dual) -> None:
    """`x.real = v` writes through a view of x; so does its tangent."""
    from fwdad.rules.indexing import array_view_tangent
    view = array_view_tangent(obj, name)
    if view is not NoTangent:
        view[...] = 0.0 if value.tangent is NoTangent else \
            lift(value.primal, value.tangent, np.ndim(obj.primal))


@frule(delattr)
def _delattr(obj: Dual, name: str) -> Dual:
    delattr(obj.primal, name)
    if isinstance(obj.tangent, Tangent) and hasattr(obj.tangent, name):
        delattr(obj.tangent, name)
    return Dual(None, NoTangent)
