"""Whether an instance argument may take an optimized rule: the check at run time.

    plain_instance(Dual(State(0.0, pos, vel), Tangent(pos=dpos)), {"pos", "vel"})
        ->  (INSTANCE, its fields) (FIELDS for the Fields of a sealed function, when it
            may keep them in locals: below)
    fields_kind(its fields, ("pos", "vel"))
        ->  ("fields", ("pos", "vel"), (("array", 1, float64), ("array", 1, float64)))

An argument passes when its class (exactly its own: a subclass is checked as itself) is
a plain class (normalize/plain_classes.py), the fields the rule uses are among the
class's fields, the instance holds exactly those fields (in `__dict__`, or every slot
filled), each field holds a number, None, a string or a numeric array, and the tangent
is a structural Tangent of some of those fields, none with a batch axis. Then reading a
field gives a number or an array, on which the rule's templates are its math
(normalize/instance_params.py says which parameters the rule may take so).

Where the function is sealed (normalize/sealed.py) the variant FIELDS keeps the fields
in locals for the whole call (normalize/param_locals.py). It is right when, besides, no
other name for the instance can reach it: every other argument is a number, a string,
None or a numeric array, and no two instance arguments are the same object
(`fields_checked`); when each field it uses that holds an array has its own tangent,
an array (a read would make a new zero tangent each time, which one local cannot stand
for once something updates it in place; the variant's NumPy code reads it as one);
and when each field an in-place operator updates holds
an immutable number. A function that writes fields takes FIELDS or the general rule
(None), never INSTANCE: that variant keeps the writes as they are, boxed.

The FIELDS variant is also keyed on the kinds its fields hold on entry (`fields_kind`,
the kinds arguments get: forward/optimizer/kinds.py), read from the values the check
read, so that its field locals have kinds as locals do and NumPy's functions on them are
inlined; a field of another kind on a later call takes another variant.
"""
from __future__ import annotations

import os
import threading
import weakref
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Tuple

import numpy as np

from fwdad.dual import Dual
from fwdad.forward.optimizer import kinds, unboxed
from fwdad.normalize.plain_classes import layout
from fwdad.probe import probe
from fwdad.rules.registry import on_register
from fwdad.tangents import Tangent

_LEAVES = (int, float, complex, bool, str, type(None), np.number, np.bool_)
_MISSING = object()
_known: "weakref.WeakKeyDictionary[type, Optional[FrozenSet[str]]]" = \
    weakref.WeakKeyDictionary()
_lock = threading.Lock()


# FWDAD_FIELDS=0 in the environment keeps instance arguments' fields where they are (to
# compare, and when debugging): a function that writes them takes the general rule.
IN_LOCALS = os.environ.get("FWDAD_FIELDS", "1") != "0"
INSTANCE = "instance"  # (in a Routes key) an instance of a plain class, with a tangent
FIELDS = "fields"  # the same, its fields kept in locals (see the module docstring)


def plain_instance(d: Dual, fields: FrozenSet[str]
                   ) -> Optional[Tuple[str, Mapping[str, Any]]]:
    """INSTANCE or FIELDS when the Dual `d` holds such an instance (see the module
    docstring), of which the rule uses `fields`, with the instance's fields (name ->
    value) as read; None when it holds none."""
    tangent = d.tangent
    if type(tangent) is not Tangent:
        return None
    primal = d.primal
    names = _fields(type(primal))
    if names is None or not fields <= names:
        return None
    own = probe(primal, "__dict__")
    if own is None:
        own = {name: probe(primal, name, _MISSING) for name in names}
    elif own.keys() != names:  # (an attribute that is no field, a field deleted)
        return None
    if not all(type(v) in _SCALARS or _leaf(v) for v in own.values()):
        return None
    dtangents = vars(tangent)
    if not dtangents.keys() <= names:
        return None
    for name, dvalue in dtangents.items():
        if type(dvalue) not in _SCALARS and not _unbatched(own[name], dvalue):
            return None
    if not getattr(fields, "unboxed", False) or not IN_LOCALS:
        return None if getattr(fields, "written", None) else (INSTANCE, own)
    if any(type(own[name]) is np.ndarray and type(dtangents.get(name)) is not np.ndarray
           for name in fields) \
            or any(type(own[name]) not in _IMMUTABLE for name in fields.updated):
        return None if fields.written else (INSTANCE, own)
    return FIELDS, own


def fields_kind(own: Mapping[str, Any], names: Tuple[str, ...]) -> kinds.Kind:
    """The kind of an instance whose fields are `own`, for a variant that keeps its
    fields `names` in locals (see the module docstring)."""
    kind_of = kinds.kind_of
    return kinds.fields_kind(names, tuple([kind_of(own[name]) for name in names]))


_IMMUTABLE = frozenset((float, int, bool, complex, np.float64, np.float32, np.int64))


def fields_checked(found: List[Tuple[str, str]], named: List[Tuple[str, Dual]],
                   instances: Dict[str, FrozenSet[str]]) -> Optional[List[Tuple[str, str]]]:
    """`found` (parameter, INSTANCE or FIELDS), with FIELDS made INSTANCE where another
    argument could be another name for the instance (see the module docstring); None
    when then a parameter whose fields the function writes has no variant."""
    if all(kind != FIELDS for _, kind in found):
        return found
    given = {name for name, _ in found}
    objects = [id(d.primal) for name, d in named if name in given]
    if len(set(objects)) == len(objects) and all(
            name in given or type(d.primal) in _SCALARS or _leaf(d.primal)
            for name, d in named):
        return found
    if any(instances[name].written for name, kind in found if kind == FIELDS):
        return None
    return [(name, INSTANCE) for name, _ in found]


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
