"""Reverse rules for Python's own structures: displays, unpacking, list methods,
attributes, in-place operators, and the builtins that take containers (sum, min, max).

Containers and objects hold reverse values as they are (a list of Vars, an object
whose attributes are VarMats), so most of these rules are the plain operation.
"""
from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np

from fwdad import attributes, lang
from fwdad.errors import FwdadError, NonDifferentiableError, a_type, in_user_code
from fwdad.probe import probe
from fwdad.reverse.complex_parts import write_part
from fwdad.reverse.instances import user_method
from fwdad.reverse.iteration import items as iterated
from fwdad.reverse.registry import get_rrule, nondiff_rrule, raw_rrule
from fwdad.reverse.rules_arrays import assign, transpose, write_constant
from fwdad.reverse.stores import note, note_field
from fwdad.reverse.tracked import is_tracked
from fwdad.reverse.var import Var, VarMat, gather, is_matvar, value_of


# ---- displays, unpacking, list methods -------------------------------------------------
@raw_rrule(lang.build_list)
def _build_list(*items: Any) -> list:
    return list(items)


@raw_rrule(lang.build_tuple)
def _build_tuple(*items: Any) -> tuple:
    return items


@raw_rrule(lang.build_dict)
def _build_dict(*keys_and_values: Any) -> dict:
    return lang.build_dict(*keys_and_values)


@raw_rrule(lang.build_set)
def _build_set(*items: Any) -> set:
    """A set holds hashable values, compared by value: it carries no adjoint, so a
    variable is refused rather than losing its adjoint."""
    return set(set_values(items, "a set display"))


def set_values(items: Any, what: str) -> list:
    """The plain values of `items`, none of which may be a variable."""
    items = list(items)
    for item in items:
        if is_tracked(item):
            at = in_user_code()
            raise NonDifferentiableError(
                f"{what}{at} holds a value that carries a derivative: "
                f"sets carry no adjoint in fwdad (their order is not defined). Use a list "
                f"instead (sorted(...) of a list, or list(dict.fromkeys(...)) to drop "
                f"duplicates).")
    return items


@raw_rrule(lang.unpack)
def unpack_rule(value: Any, count: int, star: int = -1) -> tuple:
    return lang.unpack(value, count, star)  # a VarMat iterates by getitem


@raw_rrule(list.append)
def _append(xs: list, item: Any) -> None:
    xs.append(item)
    note(xs, item)


# ---- builtins over containers ------------------------------------------------------------
@raw_rrule(builtins.sum)
def _sum(items: Any, start: Any = 0) -> Any:
    add, total = get_rrule(operator.add), start
    for item in iterated(items):  # (a user iterator's methods by their reverse rules)
        total = add(total, item)
    return total


def _select(choose, args: tuple, key: Any, default: Any) -> Any:
    """The selected item itself (the first of equal ones, as Python picks)."""
    items = list(iterated(args[0])) if len(args) == 1 else list(args)
    if not items:
        if default is not _NO_DEFAULT:
            return default
        raise ValueError(f"{choose.__name__}() arg is an empty sequence")
    from fwdad.reverse.rules_iteration import by_value  # (it imports dispatch, which
    compare = by_value(key)                              # imports this module)
    index = choose(range(len(items)), key=lambda i: compare(items[i]))
    return items[index]


_NO_DEFAULT = object()


@raw_rrule(builtins.max)
def _max(*args: Any, key: Any = None, default: Any = _NO_DEFAULT) -> Any:
    return _select(max, args, key, default)


@raw_rrule(builtins.min)
def _min(*args: Any, key: Any = None, default: Any = _NO_DEFAULT) -> Any:
    return _select(min, args, key, default)


# ---- attributes -------------------------------------------------------------------------
class Method:
    """A method of a variable, `x.sum`: calling it calls the rule of `fn` on x."""

    __slots__ = ("fn", "obj")

    def __init__(self, fn: Any, obj: Any) -> None:
        self.fn, self.obj = fn, obj

    def __repr__(self) -> str:
        return f"<method {probe(self.fn, '__name__', '?')} of {self.obj!r}>"


_ARRAY_DATA = {"shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides", "flags"}


@raw_rrule(getattr)
def _getattr(obj: Any, name: str, *default: Any) -> Any:
    if type(obj) is VarMat:
        return _varmat_attribute(obj, name)
    if type(obj) is Var:
        if name in ("real", "imag"):
            return _part(obj, name, 0.0)
        return _method_or_value(type(obj.value), obj, name)
    if default and not hasattr(obj, name):
        return default[0]
    if name == "dtype" and is_matvar(obj):  # an array of Vars is a float array to f
        return gather(obj, "value").dtype
    override = attributes.getattribute_override(type(obj))
    if override is not None:  # as object.__getattribute__ would, it calls its override
        return _derived_rrule(override)(obj, name)
    return _get_attribute(obj, name)


@raw_rrule(object.__getattribute__)
def _get_attribute(obj: Any, name: str) -> Any:
    """What object.__getattribute__ does (fwdad/attributes.py), Python code by its rule."""
    hook = attributes.reader(obj, name)
    if hook is not None:
        return _derived_rrule(hook.fn)(*hook.arguments(attributes.wrapped_by_super(obj)))
    return attributes.read_field(obj, name)


def _part(obj: Any, name: str, zero: Any) -> Any:
    """x.real, x.imag: np.real and np.imag of a complex variable; a real one is its own
    real part, and its imaginary part is a constant zero."""
    if np.iscomplexobj(obj.value):
        return get_rrule(np.real if name == "real" else np.imag)(obj)
    return obj if name == "real" else zero


def _varmat_attribute(obj: VarMat, name: str) -> Any:
    if name == "T":
        return transpose(obj)
    if name == "mT":  # (the last two axes swapped: a view, as .T is)
        return get_rrule(np.swapaxes)(obj, -1, -2)
    if name in ("real", "imag"):
        return _part(obj, name, np.zeros_like(obj.value))
    if name in _ARRAY_DATA:
        return getattr(obj.value, name)
    return _method_or_value(np.ndarray, obj, name)


def _method_or_value(cls: type, obj: Any, name: str) -> Any:
    member = getattr(cls, name, None)
    if callable(member):
        return Method(member, obj)
    if member is None and not hasattr(obj.value, name):
        raise AttributeError(f"'{type(obj.value).__name__}' object has no attribute "
                             f"'{name}'")
    raise FwdadError(f"the attribute {name!r} of {a_type(obj.value)} variable "
                     f"has no reverse rule; register one with @fwdad.reverse.raw_rrule.")


raw_rrule(super)(super)  # super(C, obj): its methods are bound to obj and its variables


@raw_rrule(setattr)
def _setattr(obj: Any, name: str, value: Any) -> None:
    if type(obj) is VarMat and name in ("real", "imag"):  # z.imag = v: z.imag[...] = v
        _set_part(obj, name, value)
        return
    override = attributes.setattr_override(type(obj))
    if override is not None:  # as setattr would, it calls its override
        _derived_rrule(override)(obj, name, value)
    else:
        _set_attribute(obj, name, value)


@raw_rrule(object.__setattr__)
def _set_attribute(obj: Any, name: str, value: Any) -> None:
    """What object.__setattr__ does (fwdad/attributes.py), Python code by its rule."""
    hook = attributes.writer(obj, name)
    if hook is not None:
        _derived_rrule(hook.fn)(*hook.arguments(obj, value))
    else:
        attributes.write_field(obj, name, value)
        note_field(obj, name, value)


def _set_part(obj: VarMat, name: str, value: Any) -> None:
    """x.real = v writes all of a real x; z.real = v and z.imag = v, of a complex z,
    write the complex value they make into z (reverse/complex_parts.py)."""
    if np.iscomplexobj(obj.value):
        write_part(obj, name == "real", Ellipsis, value)
        return
    if name == "imag":
        raise TypeError("array does not have imaginary part to set")
    assign(obj, Ellipsis, value)


def _derived_rrule(fn: Any) -> Any:
    from fwdad.reverse.dispatch import derived_rrule  # dispatch imports this module
    return derived_rrule(fn)


@raw_rrule(set.add)
def _set_add(s: set, item: Any) -> None:
    s.add(set_values([item], "set.add")[0])


@raw_rrule(delattr)
def _delattr(obj: Any, name: str) -> None:
    delattr(obj, name)


# ---- in place: `a += b` updates an array where it is --------------------------------------
def _in_place(pure: Any, update: Any):
    """An in-place rule from the pure one: a VarMat is overwritten with the pure result
    (saved and restored, see rules_arrays.assign); a matvar gets the new Vars in place;
    a list is updated; anything else (a Var, a float, an int) is rebound."""
    def rule(x: Any, y: Any) -> Any:
        if type(x) is VarMat:
            assign(x, Ellipsis, get_rrule(pure)(x, y))
            return x
        if type(x) is np.ndarray and x.dtype == object:
            x[...] = get_rrule(pure)(x, y)
            return x
        if type(x) is np.ndarray and x.dtype.kind == "f":
            write_constant(x, Ellipsis, get_rrule(pure)(x, y))
            return x
        if isinstance(x, (list, np.ndarray)):
            if isinstance(x, list):
                note(x, y)
            return update(x, value_of(y) if isinstance(x, np.ndarray) else y)
        method = user_method(update, (x, y))  # an instance's own __iadd__, as Python
        if method is not None:  # runs it (it may differ from __add__, and update x)
            out = method(x, y)
            if out is not NotImplemented:
                return out
        return get_rrule(pure)(x, y)
    rule.__name__ = f"_{update.__name__}"
    return rule


for _pure, _update in [(operator.add, operator.iadd), (operator.sub, operator.isub),
                       (operator.mul, operator.imul), (operator.truediv, operator.itruediv),
                       (operator.pow, operator.ipow), (operator.mod, operator.imod),
                       (operator.matmul, operator.imatmul),
                       (operator.floordiv, operator.ifloordiv)]:
    raw_rrule(_update)(_in_place(_pure, _update))



# Slices hold plain bounds (the forward rule refuses bounds that move).
nondiff_rrule(lang.build_slice, slice)
