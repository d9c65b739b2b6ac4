"""What a value is to a forward rule: its abstract kind, and the signature of a call.

    kind_of(1.5)                        ->  ("float",)
    kind_of(3), kind_of(True)           ->  ("int",), ("bool",)
    kind_of(np.float32(1.5))            ->  ("npfloat", dtype("float32"))
    kind_of(np.ones((2, 3)))            ->  ("array", 2, dtype("float64"))
    kind_of([1.0, np.ones(2)])          ->  ("list", (("float",), ("array", 1, dtype("float64"))))
    kind_of((2, 0.5))                   ->  ("tuple", (("int",), ("float",)))
    kind_of({"w": 0.5})                 ->  ("dict", (("w", ("float",)),))  (string keys)
    kind_of(np.arange(3)), kind_of({1: 2})  ->  OTHER  (an int array, a subclass, anything else)
    shape_kind(2)                       ->  ("shape", 2)  (x.shape of a 2-d array: kind_flow.py)
    SLICE, slices_kind(2)               ->  a slice, a tuple of two  (x[1:], x[1:, :-1])
    fields_kind(("pos", "t"), (("array", 1, float64), ("float",)))
                                        ->  an instance whose fields hold these kinds
    signature((Dual(x, dx), Dual(2, NoTangent)))  ->  (("array", 1, dtype("float64")), ("int",))

Kinds form a flat lattice: None (nothing known yet, the bottom) below every kind, each
kind below OTHER (anything: the top); `join` of two different kinds is OTHER. Only
the exact types above have a kind of their own: a subclass of ndarray or of float may
override its operators, so it is OTHER. A list or tuple of at most MAX_ITEMS items has
the kinds of its items (nested at most MAX_DEPTH deep; longer or deeper ones are
OTHER), so a call with a list of another length or of other items has another
signature; so does a dict with string keys, by its keys in order and its items' kinds
(other dicts are OTHER). Rules keyed by a signature
(forward/routes.py) compute it from each call's arguments, so a rule never sees
arguments of other kinds (forward/optimizer/kind_flow.py propagates kinds through
its lines). A kind holds the dtype itself, not its name (which NumPy computes on each
read, some 10 us). Reverse mode's kinds (fwdad/reverse/kinds.py) say only whether a value
holds a variable; these say what the value is.
"""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

Kind = Tuple[Any, ...]
Signature = Tuple[Kind, ...]

FLOAT: Kind = ("float",)
INT: Kind = ("int",)
BOOL: Kind = ("bool",)
OTHER: Kind = ("other",)
_PYTHON = {float: FLOAT, int: INT, bool: BOOL}
_FLOAT_SCALARS = (np.float16, np.float32, np.float64, np.longdouble)
_SEQUENCES = {list: "list", tuple: "tuple"}
MAX_ITEMS = 8  # (a signature is computed on every call: longer sequences are OTHER)
MAX_DEPTH = 3  # (and a list that holds itself has no kind of its own)


def kind_of(value: Any, depth: int = 0) -> Kind:
    """The kind of a value (see the module docstring)."""
    t = type(value)
    known = _PYTHON.get(t)
    if known is not None:
        return known
    if t is np.ndarray:
        dtype = value.dtype
        return ("array", value.ndim, dtype) if dtype.kind == "f" else OTHER
    if t in _FLOAT_SCALARS:
        return ("npfloat", value.dtype)
    sequence = _SEQUENCES.get(t)
    if sequence is not None and len(value) <= MAX_ITEMS and depth < MAX_DEPTH:
        return (sequence, tuple([kind_of(item, depth + 1) for item in value]))
    if t is dict and len(value) <= MAX_ITEMS and depth < MAX_DEPTH:
        items = []
        for key, item in value.items():
            if type(key) is not str:
                return OTHER
            items.append((key, kind_of(item, depth + 1)))
        return ("dict", tuple(items))
    return OTHER


def signature(args: tuple) -> Signature:
    """The kinds of the primals of the Duals `args` (a loop: it runs per call)."""
    out = []
    for d in args:
        out.append(kind_of(d.primal))
    return tuple(out)


def join(a: Optional[Kind], b: Optional[Kind]) -> Optional[Kind]:
    """The least kind above both (None: nothing known yet)."""
    if a is None:
        return b
    if b is None or a == b:
        return a
    return OTHER


SLICE: Kind = ("slice",)  # a slice of ints and Nones: `x[1:-1]` keeps x's axes


def slices_kind(count: int) -> Kind:
    """The kind of a tuple of `count` slices (`x[1:, :-1]`)."""
    return ("slices", count)


def fields_kind(names: Tuple[str, ...], kinds: Tuple[Kind, ...]) -> Kind:
    """The kind of an instance argument whose fields `names` held values of the kinds
    `kinds` on entry: given only to the instances whose fields a variant reads once on
    entry and never through the instance again (forward/routes.py, key FIELDS)."""
    return ("fields", names, kinds)


def shape_kind(ndim: int) -> Kind:
    """The kind of the shape of an array of `ndim` axes: a tuple of so many ints."""
    return ("shape", ndim)


def is_sequence(kind: Optional[Kind]) -> bool:
    """Whether every value of this kind is a list or a tuple (of known items)."""
    return kind is not None and kind[0] in ("list", "tuple")


def is_value(kind: Optional[Kind]) -> bool:
    """Whether every value of this kind is a float array or a number: never a list or
    tuple (sequences.py: what a NumPy template may read as it is)."""
    return kind is not None and kind[0] in ("float", "int", "bool", "npfloat", "array")


def is_number(kind: Optional[Kind]) -> bool:
    """Whether every value of this kind is a number (a Python or NumPy scalar)."""
    return kind is not None and kind[0] in ("float", "int", "bool", "npfloat")


def ndim(kind: Optional[Kind]) -> Optional[int]:
    """The number of axes of a value of this kind: 0 for a number, None when unknown
    (or not an array nor a number: a shape)."""
    if not is_value(kind):
        return None
    assert kind is not None
    if kind[0] == "array":
        return int(kind[1])
    return 0


def sample(kind: Kind) -> Any:
    """A small value of this kind (every axis of length 1), to ask NumPy what kind an
    operation on such values gives; None for OTHER and sequences."""
    if kind == OTHER or is_sequence(kind) or kind[0] == "dict":
        return None
    if kind[0] == "shape":
        return (1,) * int(kind[1])
    if kind[0] in ("slice", "slices", "fields"):
        return None
    if kind[0] == "array":
        return np.full((1,) * int(kind[1]), 0.5, dtype=kind[2])
    if kind[0] == "npfloat":
        return kind[1].type(0.5)
    return {FLOAT: 0.5, INT: 1, BOOL: True}[kind]
