"""Whether an instance argument may take an optimized rule: the check at run time.

    plain_instance(Dual(State(0.0, pos, vel), Tangent(pos=dpos)), {"pos", "vel"})  ->  True

An argument passes when its class (exactly its own: a subclass is checked as itself) is
a plain class (normalize/plain_classes.py), the fields the rule uses are among the
class's fields, the instance holds exactly those fields (in `__dict__`, or every slot
filled), each field holds a number, None, a string or a numeric array, and the tangent
is a structural Tangent of some of those fields, none with a batch axis. Then reading a
field gives a number or an array, on which the rule's templates are its math
(normalize/instance_params.py says which parameters the rule may take so).
"""
from __future__ import annotations

import threading
import weakref
from typing import Any, FrozenSet, Optional

import numpy as np

from fwdad.dual import Dual
from fwdad.forward.optimizer import unboxed
from fwdad.normalize.plain_classes import layout
from fwdad.rules.registry import on_register
from fwdad.tangents import Tangent

_LEAVES = (int, float, complex, bool, str, type(None), np.number, np.bool_)
_MISSING = object()
_known: "weakref.WeakKeyDictionary[type, Optional[FrozenSet[str]]]" = \
    weakref.WeakKeyDictionary()
_lock = threading.Lock()


def plain_instance(d: Dual, fields: FrozenSet[str]) -> bool:
    """Whether the Dual `d` holds such an instance (see the module docstring), of which
    the rule uses `fields`."""
    tangent = d.tangent
    if type(tangent) is not Tangent:
        return False
    primal = d.primal
    names = _fields(type(primal))
    if names is None or not fields <= names:
        return False
    own = getattr(primal, "__dict__", None)
    if own is None:
        values = [getattr(primal, name, _MISSING) for name in names]
    elif own.keys() == names:  # (no attribute that is no field, no field deleted)
        values = list(own.values())
    else:
        return False
    if not all(type(v) in _SCALARS or _leaf(v) for v in values):
        return False
    dtangents = vars(tangent)
    if not dtangents.keys() <= names:
        return False
    for name, dvalue in dtangents.items():
        if type(dvalue) not in _SCALARS and not _unbatched(
                own[name] if own is not None else getattr(primal, name), dvalue):
            return False
    return True


_SCALARS = frozenset((float, int, bool, complex, np.float64, type(None)))


def _leaf(value: Any) -> bool:
    if type(value) is np.ndarray:
        return value.dtype.kind in "biufc"
    return isinstance(value, _LEAVES)


def _unbatched(value: Any, dvalue: Any) -> bool:
    if type(dvalue) is np.ndarray and type(value) is np.ndarray:
        return dvalue.ndim == value.ndim  # (the common case, asked without a Dual)
    return not unboxed.batched(Dual(value, dvalue))


def _forget(fn: Any) -> None:
    """A rule registered for a class makes it no plain class (plain_classes.layout)."""
    with _lock:
        _known.clear()


on_register(_forget)


def _fields(cls: type) -> Optional[FrozenSet[str]]:
    """The fields of `cls` when it is a plain class, kept per class (asking reads the
    class's source)."""
    try:
        return _known[cls]
    except KeyError:
        pass
    found = layout(cls)
    names = None if found is None else frozenset(found.fields)
    with _lock:
        _known[cls] = names
    return names
