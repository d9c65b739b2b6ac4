"""Rules for attributes: getattr, setattr, delattr on arrays, objects and modules.

The tangent of an instance is a `Tangent` with one field per attribute. The tangent of
a bound method is the tangent of the object it is bound to; dynamic dispatch hands it
back to the method's rule as `self`.
"""
from __future__ import annotations

import types
from typing import Any

import numpy as np

from fwdad import attributes
from fwdad.core import entry_points
from fwdad.core.duals import const, read_lasting
from fwdad.core.read_only import ReadOnlyDict, ReadOnlyTangent, is_zero, refuse_unless_zero
from fwdad.dual import Dual
from fwdad.errors import FwdadError, a_type, in_user_code
from fwdad.probe import probe
from fwdad.rules.batching import is_batched, lift
from fwdad.rules.registry import frule
from fwdad.rules.widening import FieldDual, widen_before_view_of
from fwdad.tangents import NoTangent, Tangent, zero_tangent

# ndarray attributes whose tangent is the attribute of the tangent (linear), and
# the ones with no tangent.
_ARRAY_LINEAR = {"T", "real", "imag", "mT"}
# ...and those, with the methods that may return a view of the array (a batched write
# through it must reach the array: rules/widening.widen_before_view)
_VIEWS = frozenset(_ARRAY_LINEAR | {"reshape", "ravel", "transpose", "swapaxes", "squeeze",
                                    "view"})


def gives_a_view(primal: Any, name: str) -> bool:
    """Whether `primal.name` is a view of the array `primal`, or a method that may
    return one (a batched write through it must reach the array: widen_before_view)."""
    return name in _VIEWS and isinstance(primal, np.ndarray)  # (the name first: the
    # common reads, .shape and the other methods, are decided by it)


@frule(getattr, pure=True)
def getattr_rule(obj: Dual, name: str, *default: Dual) -> Dual:
    if gives_a_view(obj.primal, name):  # (x.T, or x.reshape, whose bound method holds
        widen_before_view_of(obj, obj.primal)  # x's tangent: a batched write through
    return attribute_rule(obj, name, *default)  # the view must reach x)


def attribute_rule(obj: Dual, name: str, *default: Dual) -> Dual:
    """getattr's rule but for the widening of an array a view is taken of (a level-2
    rule runs it on inner values, whose tangents stay unbatched)."""
    primal = obj.primal
    if default and not hasattr(primal, name):
        return default[0]  # the default, with its own tangent
    if isinstance(primal, np.ndarray):
        return _array_attribute(obj, name)
    if isinstance(primal, (float, complex, np.inexact)) and name in ("real", "imag"):
        return _scalar_part(obj, name)
    method = attributes.getattribute_override(type(primal))
    if method is not None:  # as object.__getattribute__ would, it calls its override
        return entry_points.derived_rule(method)(obj, const(name))
    return get_attribute(obj, name)


def _scalar_part(z: Dual, name: str) -> Dual:
    """z.real, z.imag of a float or complex scalar: that part of its tangent (of each
    tangent of a batch), which reading the field of the number would drop
    (tests/test_regressions.py)."""
    value = getattr(z.primal, name)
    if z.tangent is NoTangent or not isinstance(z.primal, (complex, np.complexfloating)):
        # a real number is its own real part; its imaginary part is a constant 0
        return Dual(value, z.tangent if name == "real" else NoTangent)
    part = np.real(z.tangent) if name == "real" else np.imag(z.tangent)
    if isinstance(part, np.generic) and not isinstance(value, np.generic):
        part = type(value)(part)  # (a Python complex's parts are Python floats)
    return Dual(value, part)


@frule(object.__getattribute__)
def get_attribute(obj: Dual, name: str) -> Dual:
    """What object.__getattribute__ does (fwdad/attributes.py), Python code by its rule."""
    hook = attributes.reader(obj.primal, name)
    if hook is not None:
        if isinstance(obj.primal, super):  # (super().prop: the getter takes the object,
            obj = Dual(obj.primal.__self__, obj.tangent)  # which has super's tangent)
        return entry_points.derived_rule(hook.fn)(*hook.arguments(obj, constant=const))
    value = attributes.read_field(obj.primal, name)
    if attributes.is_bound_to(value, obj.primal):
        return Dual(value, obj.tangent)
    if name == "__self__" and (attributes.is_bound_to(obj.primal, value) or
                               isinstance(obj.primal, super)):
        return Dual(value, obj.tangent)  # a bound method's (super's) tangent is its object's
    if name == "__dict__" and isinstance(obj.tangent, ReadOnlyTangent):
        return Dual(value, ReadOnlyDict(vars(obj.tangent)))  # (a global's: writes checked)
    if isinstance(obj.tangent, Tangent):  # (the Dual can widen the field: widening.py)
        tangent = getattr(obj.tangent, name, NoTangent)
        if tangent is NoTangent:
            if _class_attribute(obj.primal, name, value):  # (every instance's: as a
                return read_lasting(value)                  # global, writes checked)
            return Dual(value, zero_tangent(value))
        return FieldDual(value, tangent, obj.tangent, name)
    if attributes.is_namedtuple(obj.tangent):
        tangent = getattr(obj.tangent, name, NoTangent)
        return Dual(value, tangent if tangent is not NoTangent else zero_tangent(value))
    if attributes.is_item_attribute(obj.primal, name) and isinstance(obj.tangent, dict):
        return Dual(value, obj.tangent.get(name, zero_tangent(value)))  # SciPy's results
    if isinstance(obj.primal, _LASTING):  # (state that outlives the call, as a global's:
        return read_lasting(value)       # tests/forward/test_default_aliases.py)
    return Dual(value, zero_tangent(value))


def _class_attribute(obj: Any, name: str, value: Any) -> bool:
    """Whether `obj.name` is an attribute of obj's class, not a field of obj."""
    fields = probe(obj, "__dict__")
    return isinstance(fields, dict) and name not in fields and any(
        vars(kind).get(name, _MISSING) is value for kind in type(obj).__mro__)


_MISSING = object()

# Owners whose attributes outlive a call: a class's (`Acc.items`), a module's, a
# function's (`helper.__defaults__`).
_LASTING = (type, types.ModuleType, types.FunctionType)


def _is_item_as_attribute(obj: Dual, name: str, value: Any) -> bool:
    """A dict whose __getattr__ reads its items (scipy.optimize.OptimizeResult and the
    other results of SciPy's): the attribute's tangent is the item's."""
    primal = obj.primal
    return isinstance(primal, dict) and isinstance(obj.tangent, dict) and \
        name in primal and primal[name] is value and name not in getattr(primal, "__dict__", {})


def _array_attribute(obj: Dual, name: str) -> Dual:
    value = getattr(obj.primal, name)
    if name == "flat" and obj.tangent is not NoTangent:  # iterating x.flat
        return Dual(value, _flat_tangents(obj.primal, obj.tangent))
    if name in _ARRAY_LINEAR:
        from fwdad.rules.indexing import array_view_tangent
        return Dual(value, array_view_tangent(obj, name))
    if attributes.is_bound_to(value, obj.primal):
        return Dual(value, obj.tangent)
    return Dual(value, NoTangent)


def _flat_tangents(primal, tangent):
    """The tangents of the items of `x.flat`, in order (each a batch when batched), read
    as the iteration reaches them, as x.flat reads its items. An item is a new number:
    a batch of its tangents is copied, not a view into x's."""
    if is_batched(primal, tangent):
        return (tangent[(slice(None),) + i].copy() for i in np.ndindex(primal.shape))
    return tangent.flat


@frule(setattr)
def setattr_rule(obj: Dual, name: str, value: Dual) -> Dual:
    method = attributes.setattr_override(type(obj.primal))
    if method is not None:  # as setattr would, it calls its override
        entry_points.derived_rule(method)(obj, const(name), value)
        return Dual(None, NoTangent)
    return set_attribute(obj, name, value)


@frule(object.__setattr__)
def set_attribute(obj: Dual, name: str, value: Dual) -> Dual:
    """What object.__setattr__ does (fwdad/attributes.py), Python code by its rule."""
    hook = attributes.writer(obj.primal, name)
    if hook is not None:
        entry_points.derived_rule(hook.fn)(*hook.arguments(obj, value, const))
        return Dual(None, NoTangent)
    view = isinstance(obj.primal, np.ndarray) and name in _ARRAY_LINEAR
    if not (view or isinstance(obj.tangent, Tangent) or is_zero(value.tangent)):
        _refuse_lost_attribute(obj.primal, name)
    if isinstance(obj.tangent, ReadOnlyTangent):  # (before the write, as above)
        refuse_unless_zero((value.tangent,))
    attributes.write_field(obj.primal, name, value.primal)
    if isinstance(obj.tangent, Tangent):
        setattr(obj.tangent, name, value.tangent)
    elif view:
        _write_view_tangent(obj, name, value)
    return Dual(None, NoTangent)


def _refuse_lost_attribute(owner: Any, name: str) -> None:
    """A derivative written into an attribute of something that has no tangent to keep
    it in (a module, a class, a function): the next read would see a zero."""
    line = in_user_code()
    raise FwdadError(
        f"a value that depends on the inputs is written into the attribute `{name}` of "
        f"{a_type(owner)}{line}, which carries no derivative "
        f"(a module, a class, a function): the derivative would be lost when it is read "
        f"again. Keep the value in a local variable or an instance, pass it as an "
        f"argument, or return it.")


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
