"""Rules for attributes: getattr, setattr, delattr on arrays, objects and modules.

The tangent of an instance is a `Tangent` with one field per attribute. The tangent of
a bound method is the tangent of the object it is bound to; dynamic dispatch hands it
back to the method's rule as `self`.
"""
from __future__ import annotations

import types
from typing import Callable, Optional

import numpy as np

from fwdad.dual import Dual
from fwdad.forward.runtime import const
from fwdad.source import is_foreign, python_function
from fwdad.rules.batching import is_batched, lift
from fwdad.rules.registry import frule
from fwdad.rules.widening import FieldDual
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
    method = _python_method(type(primal), "__getattribute__")
    if method is not None:  # as object.__getattribute__ would, it calls its override
        return _derived_rule(method)(obj, const(name))
    return _get_attribute(obj, name)


@frule(object.__getattribute__)
def _get_attribute(obj: Dual, name: str) -> Dual:
    """What object.__getattribute__ does: a data descriptor, the instance's field, a
    descriptor or a class attribute, else `__getattr__` (Python ones by their rules)."""
    primal = obj.primal
    descriptor = _class_attribute(type(primal), name)
    if isinstance(descriptor, property) and descriptor.fget is not None:
        return _derived_rule(descriptor.fget)(obj)
    python_get = _python_method(type(descriptor), "__get__")
    if python_get is not None and (_is_data_descriptor(descriptor) or
                                   name not in getattr(primal, "__dict__", {})):
        return _derived_rule(python_get)(const(descriptor), obj, const(type(primal)))
    getattr_ = _python_method(type(primal), "__getattr__")
    if getattr_ is not None and descriptor is _MISSING and \
            name not in getattr(primal, "__dict__", {}):
        return _derived_rule(getattr_)(obj, const(name))
    overridden = _python_method(type(primal), "__getattribute__") is not None
    value = object.__getattribute__(primal, name) if overridden else getattr(primal, name)
    if _is_bound_to(value, primal):
        return Dual(value, obj.tangent)
    if isinstance(obj.tangent, Tangent):  # (the Dual can widen the field: widening.py)
        tangent = getattr(obj.tangent, name, NoTangent)
        if tangent is NoTangent:
            return Dual(value, zero_tangent(value))
        return FieldDual(value, tangent, obj.tangent, name)
    if _is_namedtuple(obj.tangent):
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
    return isinstance(value, (types.MethodType, types.BuiltinMethodType,
                              types.MethodWrapperType)) \
        and getattr(value, "__self__", None) is owner


@frule(setattr)
def _setattr(obj: Dual, name: str, value: Dual) -> Dual:
    method = _python_method(type(obj.primal), "__setattr__")
    if method is not None:  # as setattr would, it calls its override
        _derived_rule(method)(obj, const(name), value)
        return Dual(None, NoTangent)
    return _set_attribute(obj, name, value)


@frule(object.__setattr__)
def _set_attribute(obj: Dual, name: str, value: Dual) -> Dual:
    """What object.__setattr__ does: a data descriptor's `__set__` (a property's
    setter), else the instance's field (or slot); Python ones by their rules."""
    descriptor = _class_attribute(type(obj.primal), name)
    if isinstance(descriptor, property) and descriptor.fset is not None:
        _derived_rule(descriptor.fset)(obj, value)
        return Dual(None, NoTangent)
    python_set = _python_method(type(descriptor), "__set__")
    if python_set is not None:
        _derived_rule(python_set)(const(descriptor), obj, value)
        return Dual(None, NoTangent)
    if _python_method(type(obj.primal), "__setattr__") is not None:
        object.__setattr__(obj.primal, name, value.primal)  # not the override again
    else:
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


# ---- Python's attribute lookup ----------------------------------------------------------
_MISSING = object()


def _class_attribute(cls: type, name: str) -> object:
    """`name` as the class defines it (the descriptor itself), found along the MRO."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return _MISSING


def _is_data_descriptor(descriptor: object) -> bool:
    kind = type(descriptor)
    return hasattr(kind, "__set__") or hasattr(kind, "__delete__")


def _python_method(cls: type, name: str) -> Optional[Callable]:
    """`cls.name` when it is Python code of the user's (not object's or C's)."""
    method = _class_attribute(cls, name)
    function = python_function(method)
    return function if function is not None and not is_foreign(function) else None


def _derived_rule(fn: Callable) -> Callable:
    from fwdad.forward.dispatch import derived_rule  # dispatch imports the rules
    return derived_rule(fn)


@frule(delattr)
def _delattr(obj: Dual, name: str) -> Dual:
    delattr(obj.primal, name)
    if isinstance(obj.tangent, Tangent) and hasattr(obj.tangent, name):
        delattr(obj.tangent, name)
    return Dual(None, NoTangent)
