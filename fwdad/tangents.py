"""Tangent types and the vector-space helpers every other module uses.

The tangent of a value, by its type:

    float, complex, NumPy inexact scalar      the same type
    ndarray of inexact dtype                  ndarray of the same shape and dtype
    tuple / list / dict (and NamedTuple)      the same container of tangents
    instance of a user class                  Tangent: one tangent per field
    int, bool, str, None, functions, ...      NoTangent

A batch of tangents adds one leading axis to every array leaf (a float's batch is a 1-d
array). The helpers here (zero, random, add, scale, inner) are the only places that
know these shapes; rules and the API call them instead of re-deriving them.
"""
from __future__ import annotations

import copy
import numbers
import reprlib
import threading
import types
from typing import Any, Callable, Dict, Iterator, Tuple

import numpy as np

from fwdad.errors import masked_array_error
from fwdad.probe import probe, shallow_copy


# ---- NoTangent: the tangent of a value that cannot vary ----------------------------
class _NoTangentType:
    """The tangent of a non-differentiable value, and a strong zero in arithmetic.

    `NoTangent * x` is NoTangent and `NoTangent + x` is x, so that a rule like
    `dx * y + x * dy` works when one argument is an int. NumPy defers to these methods
    because `__array_ufunc__` is None.
    """

    __slots__ = ()
    __array_ufunc__ = None
    _instance = None

    def __new__(cls) -> "_NoTangentType":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NoTangent"

    def __reduce__(self) -> Tuple[type, Tuple[()]]:
        return (_NoTangentType, ())

    def __bool__(self) -> bool:
        return False

    def _absorb(self, *_: Any) -> "_NoTangentType":
        return self

    def _identity(self, other: Any) -> Any:
        return other

    def _negated(self, other: Any) -> Any:
        return -other

    __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __matmul__ = __rmatmul__ = _absorb
    __neg__ = __pos__ = __getitem__ = __abs__ = _absorb
    __add__ = __radd__ = __iadd__ = __rsub__ = _identity   # a + 0, 0 + a, a - 0
    __sub__ = __isub__ = _negated                           # 0 - a
    __imul__ = __itruediv__ = _absorb

    @property
    def T(self) -> "_NoTangentType":
        return self


NoTangent = _NoTangentType()


class Tangent:
    """The structural tangent of an instance of a user class: one tangent per field.

    Give the tangent of an instance argument as `fwdad.Tangent(field=dfield, ...)`;
    fields you leave out have a zero tangent.
    """

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    @reprlib.recursive_repr()  # (the tangent of an instance that holds itself: `...`)
    def __repr__(self) -> str:
        inside = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"Tangent({inside})"

    def __eq__(self, other: Any) -> bool:
        if not isinstance(other, Tangent):
            return False
        comparing = _COMPARING.__dict__.setdefault("pairs", set())
        pair = (id(self), id(other))
        if pair in comparing:  # (a cycle, met again: equal if the rest is)
            return True
        comparing.add(pair)
        try:
            return _tree_equal(vars(self), vars(other))
        finally:
            comparing.discard(pair)

    __hash__ = None  # type: ignore[assignment]  # mutable, like the instance it belongs to


_COMPARING = threading.local()  # .pairs: the pairs of Tangents each thread is comparing


def _tree_equal(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_tree_equal(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_tree_equal(x, y) for x, y in zip(a, b))
    return bool(a == b)


# ---- what has a tangent -----------------------------------------------------------
_ATOMS_WITHOUT_TANGENT = (bool, int, str, bytes, type(None), type(Ellipsis), slice,
                          range, type, np.dtype, np.integer, np.bool_)


def tangent_type(t: type) -> type:
    """The type of the tangent of a value of type `t` (arrays: see the module doc)."""
    if issubclass(t, (bool, numbers.Integral, str, bytes, type(None), np.bool_)):
        return _NoTangentType
    if issubclass(t, (float, complex, np.inexact)):
        return t
    if issubclass(t, (np.ndarray, tuple, list, dict)):
        return t
    if issubclass(t, (type, type(tangent_type), type(np), type(print), type(np.sin))):
        return _NoTangentType
    return Tangent


# ---- zero tangents ------------------------------------------------------------------
def zero_tangent(x: Any) -> Any:
    """The zero tangent of `x`: a real zero for every float leaf, NoTangent elsewhere."""
    maker = _ZERO_BY_TYPE.get(type(x))
    if maker is not None:
        return maker(x)
    return _zero_slow(x, {})


def _zero_array(x: np.ndarray) -> Any:
    return np.zeros_like(x) if x.dtype.kind in "fc" else NoTangent


def _zero_slow(x: Any, memo: Dict[int, Any]) -> Any:
    if id(x) in memo:
        return memo[id(x)]
    if isinstance(x, _ATOMS_WITHOUT_TANGENT) or callable(x) and not _is_instance(x):
        return NoTangent
    if isinstance(x, (float, complex, np.inexact)):
        return type(x)(0)
    if isinstance(x, np.ndarray):
        if isinstance(x, np.ma.MaskedArray) and x.dtype.kind in "fc":
            raise masked_array_error(x)  # (its zero would be a masked array too)
        return _zero_array(x)
    if isinstance(x, (tuple, list)):
        return _map_container(x, lambda v: _zero_slow(v, memo))
    if isinstance(x, dict):
        return {k: _zero_slow(v, memo) for k, v in x.items()}
    if _is_instance(x):
        memo[id(x)] = out = Tangent()
        vars(out).update({k: _zero_slow(v, memo) for k, v in instance_fields(x).items()})
        return out
    return NoTangent


_ZERO_BY_TYPE: Dict[type, Callable[[Any], Any]] = {
    float: lambda x: 0.0,
    int: lambda x: NoTangent,
    bool: lambda x: NoTangent,
    str: lambda x: NoTangent,
    type(None): lambda x: NoTangent,
    slice: lambda x: NoTangent,
    np.ndarray: _zero_array,
    np.float64: lambda x: np.float64(0.0),
}
# Functions, methods, classes and modules: what _zero_slow finds for them, without its
# walk (forward mode over fwdad's own reverse code meets one in most lines it runs).
for _kind in (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type,
              types.ModuleType, _NoTangentType):
    _ZERO_BY_TYPE[_kind] = lambda x: NoTangent
del _kind


def has_fields(x: Any) -> bool:
    """Whether x's tangent is a `Tangent` of its fields (an instance of a user class
    whose fields hold floats or not), or x is such a Tangent."""
    if isinstance(x, Tangent):
        return True
    if type(x) in _ZERO_BY_TYPE or isinstance(x, _ATOMS_WITHOUT_TANGENT) or isinstance(
            x, (float, complex, np.inexact, np.ndarray, tuple, list, dict)):
        return False
    return _is_instance(x)


def _is_instance(x: Any) -> bool:
    """An instance of a user class whose fields we can see."""
    return probe(x, "__dict__") is not None and not isinstance(x, (type, type(np))) \
        and not callable(probe(x, "__func__")) and not _is_function(x)


def _is_function(x: Any) -> bool:
    return isinstance(x, (type(_is_function), type(print), type(np.sin)))


def instance_fields(x: Any) -> Dict[str, Any]:
    return dict(vars(x))


def _map_container(x: Any, fn: Callable[[Any], Any]) -> Any:
    """Apply fn to each item of a tuple, NamedTuple or list, keeping the container."""
    return rebuild(x, [fn(v) for v in x])


# ---- random tangents ----------------------------------------------------------------
def random_tangent(x: Any, rng: np.random.Generator) -> Any:
    """A random tangent of `x` (standard normal in every float leaf)."""
    if isinstance(x, (bool, np.bool_)):
        return NoTangent
    if isinstance(x, (float, np.floating)):
        return type(x)(rng.standard_normal())
    if isinstance(x, (complex, np.complexfloating)):
        return type(x)(complex(*rng.standard_normal(2)))
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "f":
            return rng.standard_normal(np.shape(x)).astype(x.dtype)
        if x.dtype.kind == "c":
            return (rng.standard_normal(np.shape(x)) + 1j * rng.standard_normal(np.shape(x)))\
                .astype(x.dtype)
        return NoTangent
    if isinstance(x, (tuple, list)):
        return _map_container(x, lambda v: random_tangent(v, rng))
    if isinstance(x, dict):
        return {k: random_tangent(v, rng) for k, v in x.items()}
    zero = zero_tangent(x)
    if isinstance(zero, Tangent):
        return Tangent(**{k: random_tangent(v, rng) for k, v in instance_fields(x).items()})
    return NoTangent


# ---- vector space ---------------------------------------------------------------------
def add(a: Any, b: Any) -> Any:
    """a + b, leaf by leaf."""
    if a is NoTangent:
        return b
    if b is NoTangent:
        return a
    if isinstance(a, (tuple, list)):
        return map_pairs(a, b, add)
    if isinstance(a, dict):
        return {k: add(a[k], b[k]) for k in a}
    if isinstance(a, Tangent):
        return Tangent(**{k: add(v, getattr(b, k, NoTangent)) for k, v in vars(a).items()})
    return a + b


def scale(a: Any, s: float) -> Any:
    """s * a, leaf by leaf."""
    if a is NoTangent:
        return NoTangent
    if isinstance(a, (tuple, list)):
        return _map_container(a, lambda v: scale(v, s))
    if isinstance(a, dict):
        return {k: scale(v, s) for k, v in a.items()}
    if isinstance(a, Tangent):
        return Tangent(**{k: scale(v, s) for k, v in vars(a).items()})
    return a * s


def inner(a: Any, b: Any) -> float:
    """The real inner product <a, b>, summed over every leaf."""
    if a is NoTangent or b is NoTangent:
        return 0.0
    if isinstance(a, (tuple, list)):
        return float(sum(inner(x, y) for x, y in zip(a, b)))
    if isinstance(a, dict):
        return float(sum(inner(a[k], b[k]) for k in a))
    if isinstance(a, Tangent):
        return float(sum(inner(v, getattr(b, k, NoTangent)) for k, v in vars(a).items()))
    return float(np.real(np.vdot(np.asarray(a), np.asarray(b))))


def map_pairs(a: Any, b: Any, fn: Callable[[Any, Any], Any]) -> Any:
    return rebuild(a, [fn(x, y) for x, y in zip(a, b)])


# ---- moving along a tangent, and batches of tangents --------------------------------
def perturb(primal: Any, tangent: Any, h: float) -> Any:
    """A copy of `primal` moved by `h * tangent` (finite differences use it)."""
    if tangent is NoTangent or tangent is None:
        return copy.deepcopy(primal)
    if isinstance(primal, (tuple, list)):
        return map_pairs(primal, tangent, lambda p, t: perturb(p, t, h))
    if isinstance(primal, dict):
        return {k: perturb(v, tangent[k], h) for k, v in primal.items()}
    if isinstance(tangent, Tangent) or type(tangent) is type(primal) and _is_instance(primal):
        out = shallow_copy(primal)
        for key, value in instance_fields(primal).items():  # (around a frozen dataclass's
            object.__setattr__(out, key,           # own __setattr__, as its __init__)
                               perturb(value, getattr(tangent, key, NoTangent), h))
        return out
    if isinstance(primal, np.ndarray):  # (np.array keeps a 0-d array an array)
        return np.array(primal + h * tangent, dtype=primal.dtype)
    return type(primal)(primal + h * tangent)


def stack(tangents: list[Any], done: Dict[int, Any] | None = None) -> Any:
    """B tangents of one value -> one batched tangent (a leading axis on each leaf).
    (`done`: the batched Tangent made for each of the first tangent's Tangents, so that
    one instance's one Tangent, met again at another place or inside itself, is one.)"""
    first = tangents[0]
    if first is NoTangent:
        return NoTangent
    done = {} if done is None else done
    if isinstance(first, (tuple, list)):
        return rebuild(first, [stack([t[i] for t in tangents], done)
                               for i in range(len(first))])
    if isinstance(first, dict):
        return {k: stack([t[k] for t in tangents], done) for k in first}
    if isinstance(first, Tangent):
        if id(first) not in done:
            done[id(first)] = out = Tangent()  # (before its fields: a cycle comes back)
            vars(out).update({k: stack([getattr(t, k) for t in tangents], done)
                              for k in vars(first)})
        return done[id(first)]
    return np.stack([np.asarray(t) for t in tangents])


def unstack(batched: Any, i: int) -> Any:
    """Tangent number i of a batched tangent."""
    if batched is NoTangent:
        return NoTangent
    if isinstance(batched, (tuple, list)):
        return rebuild(batched, [unstack(t, i) for t in batched])
    if isinstance(batched, dict):
        return {k: unstack(v, i) for k, v in batched.items()}
    if isinstance(batched, Tangent):
        return Tangent(**{k: unstack(v, i) for k, v in vars(batched).items()})
    return np.asarray(batched)[i]


def rebuild(like: Any, items: list[Any]) -> Any:
    """A container of the same kind as `like` (list, tuple, NamedTuple) with `items`."""
    if isinstance(like, list):
        return items
    if hasattr(type(like), "_fields"):
        return type(like)(*items)
    return tuple(items)


def leaves(tree: Any) -> list[Any]:
    """The leaves of a tree of tuples, lists and dicts, in order."""
    if isinstance(tree, (tuple, list)):
        return [x for v in tree for x in leaves(v)]
    if isinstance(tree, dict):
        return [x for v in tree.values() for x in leaves(v)]
    return [tree]


def leaf_paths(tree: Any, path: Tuple[Any, ...] = ()) -> Iterator[Tuple[Tuple[Any, ...], Any]]:
    """(path, leaf) for each leaf of a tree of tuples, lists and dicts, in order: the
    path is the keys from the tree down to the leaf."""
    if isinstance(tree, (tuple, list)):
        for i, v in enumerate(tree):
            yield from leaf_paths(v, path + (i,))
    elif isinstance(tree, dict):
        for k, v in tree.items():
            yield from leaf_paths(v, path + (k,))
    else:
        yield path, tree
