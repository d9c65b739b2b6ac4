"""Python's attribute protocol as data: which Python code `getattr(obj, name)` and
`setattr(obj, name, v)` run, for forward and reverse mode to call through their rules.

    getattribute_override(C)   C.__getattribute__ when it is user code, else None
    reader(obj, "v")       ->  Hook(fget, (SELF,))                 a property (of super(C, o):
                                                                   called with o)
                               Hook(D.__get__, (D, SELF, type))    a Python descriptor
                               Hook(C.__getattr__, (SELF, "v"))    the fallback
                               None                                the field, as Python reads it
    setattr_override(C)        C.__setattr__ when it is user code, else None
    writer(obj, "v")       ->  Hook(fset, (SELF, VALUE)), Hook(D.__set__, (D, SELF, VALUE)),
                               or None: the field (or slot), as object.__setattr__ sets it

A mode calls `hook.fn`'s rule with `hook.arguments(obj, value, constant)`: its own
values for the object and the value, and `constant(c)` for everything else.
"""
from __future__ import annotations

import types
import weakref
from typing import Any, Callable, NamedTuple, Optional

from fwdad.source import is_foreign, python_function

SELF, VALUE = "<the object>", "<the value>"  # markers in Hook.args
MISSING = object()


class Hook(NamedTuple):
    """A Python function an attribute access runs, and its arguments."""

    fn: Callable
    args: tuple

    def arguments(self, obj: Any, value: Any = None,
                  constant: Callable = lambda c: c) -> list:
        return [obj if a is SELF else value if a is VALUE else constant(a)
                for a in self.args]


def getattribute_override(cls: type) -> Optional[Callable]:
    return python_method(cls, "__getattribute__")


def setattr_override(cls: type) -> Optional[Callable]:
    return python_method(cls, "__setattr__")


def reader(obj: Any, name: str) -> Optional[Hook]:
    """What object.__getattribute__ runs for `obj.name`: a data descriptor, the
    instance's field, a descriptor or a class attribute, else `__getattr__`."""
    if isinstance(obj, super):
        return _super_reader(obj, name)
    descriptor = class_attribute(type(obj), name)
    if descriptor is MISSING and name in _fields(obj):
        return None  # a field, which no class attribute shadows (the common case)
    if isinstance(descriptor, property) and descriptor.fget is not None:
        return Hook(descriptor.fget, (SELF,))
    python_get = python_method(type(descriptor), "__get__")
    if python_get is not None and (is_data_descriptor(descriptor) or
                                   name not in getattr(obj, "__dict__", {})):
        return Hook(python_get, (descriptor, SELF, type(obj)))
    getattr_ = python_method(type(obj), "__getattr__")
    if getattr_ is not None and descriptor is MISSING and \
            name not in getattr(obj, "__dict__", {}):
        return Hook(getattr_, (SELF, name))
    return None


def _super_reader(obj: super, name: str) -> Optional[Hook]:
    """What `super(C, o).name` runs: a property or Python descriptor that a class after
    C in o's MRO defines, called with o itself (the mode passes o for SELF:
    `wrapped_by_super`); None for a method (bound to o) or a class's own attribute."""
    if isinstance(obj.__self__, type) or obj.__self__ is None:
        return None  # (super() in a classmethod: a property of the class is itself)
    mro = obj.__self_class__.__mro__
    for klass in mro[mro.index(obj.__thisclass__) + 1:]:
        if name in klass.__dict__:
            descriptor = klass.__dict__[name]
            break
    else:
        return None
    if isinstance(descriptor, property) and descriptor.fget is not None:
        return Hook(descriptor.fget, (SELF,))
    python_get = python_method(type(descriptor), "__get__")
    if python_get is not None:
        return Hook(python_get, (descriptor, SELF, obj.__self_class__))
    return None


def wrapped_by_super(obj: Any) -> Any:
    """The object a `super` object wraps, which its properties' getters take as self;
    any other value as it is."""
    return obj.__self__ if isinstance(obj, super) else obj


def _fields(obj: Any) -> Any:
    """The instance's own __dict__ (not through an override of __getattribute__), or ()."""
    try:
        return object.__getattribute__(obj, "__dict__")
    except (AttributeError, TypeError):
        return ()


def writer(obj: Any, name: str) -> Optional[Hook]:
    """What object.__setattr__ runs for `obj.name = v`: a property's setter or a
    Python data descriptor's `__set__`; None when it sets the field (or slot)."""
    descriptor = class_attribute(type(obj), name)
    if isinstance(descriptor, property) and descriptor.fset is not None:
        return Hook(descriptor.fset, (SELF, VALUE))
    python_set = python_method(type(descriptor), "__set__")
    if python_set is not None:
        return Hook(python_set, (descriptor, SELF, VALUE))
    return None


def is_item_attribute(obj: Any, name: str) -> bool:
    """`obj.name` reads the item `obj[name]` of a dict whose class's `__getattr__` gives
    its items (SciPy's OdeResult and OptimizeResult: `res.y` is `res["y"]`)."""
    return isinstance(obj, dict) and name in obj and \
        class_attribute(type(obj), name) is MISSING and \
        class_attribute(type(obj), "__getattr__") is not MISSING


def read_field(obj: Any, name: str) -> Any:
    """The attribute when no hook runs (not the override of __getattribute__ again)."""
    if getattribute_override(type(obj)) is not None:
        return object.__getattribute__(obj, name)
    return getattr(obj, name)


def write_field(obj: Any, name: str, value: Any) -> None:
    """Set the field when no hook runs (not the override of __setattr__ again)."""
    if setattr_override(type(obj)) is not None:
        object.__setattr__(obj, name, value)
    else:
        setattr(obj, name, value)


def class_attribute(cls: type, name: str) -> object:
    """`name` as the class defines it (the descriptor itself), found along the MRO."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return MISSING


def is_data_descriptor(descriptor: object) -> bool:
    kind = type(descriptor)
    return hasattr(kind, "__set__") or hasattr(kind, "__delete__")


def python_method(cls: type, name: str) -> Optional[Callable]:
    """`cls.name` when it is Python code of the user's (not object's or C's). Answers
    are kept per class and name while the class attribute stays the same object (every
    attribute read of an instance asks up to three times)."""
    attribute = class_attribute(cls, name)
    try:
        known = _METHODS[cls]
    except KeyError:
        known = _METHODS[cls] = {}
    except TypeError:  # (a class that cannot be weakly referenced)
        known = {}
    seen = known.get(name)
    if seen is not None and seen[0] is attribute:
        return seen[1]
    function = python_function(attribute)
    method = function if function is not None and not is_foreign(function) else None
    known[name] = (attribute, method)
    return method


_METHODS: "weakref.WeakKeyDictionary[type, dict]" = weakref.WeakKeyDictionary()


def is_bound_to(value: Any, obj: Any) -> bool:
    """A method bound to `obj` (through super(), to the object super wraps)."""
    owner = obj.__self__ if isinstance(obj, super) else obj
    return isinstance(value, (types.MethodType, types.BuiltinMethodType,
                              types.MethodWrapperType)) \
        and getattr(value, "__self__", None) is owner


def is_namedtuple(value: Any) -> bool:
    return isinstance(value, tuple) and hasattr(type(value), "_fields")
