"""Arguments that are one array: one tangent, or each its own copy.

`jvp(f, (x, x), (t, t))` passes one array twice, as a plain call `f(x, x)` does, but each
argument gets its own Dual: an in-place write through one (`a[0] = ...`) changed the
value the other sees, not its tangent, and the derivative was silently wrong. So an
array met twice among the arguments (as two arguments, or twice inside lists, tuples or
dicts, one argument or two) with one tangent gets one tangent array (the call is the
plain call, writes and all); arrays that share memory otherwise (two tangents for one
array, a view and its base) are given each its own copy, as if the caller had passed
`x.copy()`: the derivative is that of f on separate arrays, as vjp and jacfwd take it
(they copy every argument):

    jvp(f, (x, x), (t, t))          ->  both Duals hold x and one copy of t
    jvp(f, ([x, x],), ([t, t],))    ->  the list holds x twice, and one copy of t twice
    jvp(f, (x, x), (t, s))          ->  f(x, copy of x), tangents t and s
    jvp(f, (x, x[1:]), (t, t[1:]))  ->  f(x, copy of x[1:])
"""
from __future__ import annotations

import copy
from typing import Any, Dict, FrozenSet, Iterator, List, Sequence, Set, Tuple

import numpy as np

from fwdad.dual import Dual
from fwdad.tangents import has_fields, leaf_paths, rebuild

_strided_bounds = getattr(np, "byte_bounds", None) or np.lib.array_utils.byte_bounds  # (2.0
# moved it)

Path = Tuple[Any, ...]  # the keys from an argument down to one of its arrays
Place = Tuple[int, Path]  # (argument, path)


def share_tangents(primals: Sequence[Any], tangents: Sequence[Any],
                   duals: List[Dual]) -> List[Dual]:
    """`duals`, with one tangent array for an array met twice with one tangent, and a
    copy of each later array that shares memory otherwise."""
    copied: Set[Place] = set()
    for (i, at_i), (j, at_j) in _sharing(primals):
        if (j, at_j) in copied:
            continue
        if _leaf(primals[i], at_i) is _leaf(primals[j], at_j) and _same_tangent(
                _leaf(tangents[i], at_i), _leaf(tangents[j], at_j)):
            shared = _leaf(duals[i].tangent, at_i)
            if shared is not _MISSING and _leaf(duals[j].tangent, at_j) is not _MISSING:
                duals[j] = Dual(duals[j].primal, _with(duals[j].tangent, at_j, shared))
                continue
        duals[j] = Dual(_with(duals[j].primal, at_j, copy.deepcopy(_leaf(primals[j], at_j))),
                        duals[j].tangent)
        copied.add((j, at_j))
    return duals


def separated(primals: Sequence[Any]) -> Tuple[Any, ...]:
    """The arguments, each later array that shares memory with an earlier one copied
    (for transformations that give each array its own tangents: linearize)."""
    out = list(primals)
    copied: Set[Place] = set()
    for _, (j, at_j) in _sharing(primals):
        if (j, at_j) not in copied:
            out[j] = _with(out[j], at_j, copy.deepcopy(_leaf(primals[j], at_j)))
            copied.add((j, at_j))
    return tuple(out)


def sharing_an_instance(primals: Sequence[Any]) -> FrozenSet[int]:
    """The arguments holding an instance of a user class that another argument holds
    too: such arguments share its one tangent, so none of them is a constant."""
    objects = [i for i, p in enumerate(primals) if type(p) not in _PLAIN]
    if len(objects) < 2:
        return frozenset()
    owner: Dict[int, int] = {}
    out: Set[int] = set()
    for i in objects:
        for held in _instances(primals[i]):
            j = owner.setdefault(held, i)
            if j != i:
                out.update((i, j))
    return frozenset(out)


_PLAIN = frozenset({float, int, complex, str, bool, type(None), np.ndarray, np.float64})


def _instances(x: Any) -> Set[int]:
    """The ids of the instances of user classes in x (a list of arrays costs a type
    test an item)."""
    met: Set[int] = set()
    stack = [x]
    while stack:
        v = stack.pop()
        kind = type(v)
        if kind in _PLAIN:
            continue
        if kind is list or kind is tuple or isinstance(v, (tuple, list)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif id(v) not in met and has_fields(v):
            met.add(id(v))
            stack.extend(vars(v).values())
    return met


def _sharing(primals: Sequence[Any]) -> Iterator[Tuple[Place, Place]]:
    """The places of float arrays that share memory, in pairs (the earlier first)."""
    leaves = [(i, at, leaf) for i, p in enumerate(primals) for at, leaf in leaf_paths(p)
              if isinstance(leaf, np.ndarray) and leaf.dtype.kind in "fc"]
    for first, second in _overlapping(leaves):
        i, at_i, a = leaves[first]
        j, at_j, b = leaves[second]
        if a is b or np.shares_memory(a, b):
            yield (i, at_i), (j, at_j)


def _overlapping(leaves: List[Tuple[int, Path, np.ndarray]]) -> Iterator[Tuple[int, int]]:
    """The pairs (in argument order) of arrays whose bytes may overlap: each pair of a
    few; of many, those met when sweeping them in order of their first byte (n log n,
    not n squared, for a list of many arrays)."""
    if len(leaves) <= 16:
        for k, (_, _, a) in enumerate(leaves):
            for m in range(k + 1, len(leaves)):
                if np.may_share_memory(a, leaves[m][2]):
                    yield k, m
        return
    spans = sorted((_byte_bounds(leaf), k) for k, (_, _, leaf) in enumerate(leaves))
    swept: List[Tuple[int, int]] = []  # (end, k) of the arrays that may still overlap
    for (start, end), k in spans:
        swept = [(e, m) for e, m in swept if e > start]
        for _, m in swept:
            yield min(m, k), max(m, k)
        swept.append((end, k))


def _byte_bounds(a: np.ndarray) -> Tuple[int, int]:
    """The first byte of `a` and the one after its last (np.byte_bounds, which is slow
    Python, only for a strided array)."""
    if a.flags.c_contiguous or a.flags.f_contiguous:
        start = a.__array_interface__["data"][0]
        return start, start + a.nbytes
    low, high = _strided_bounds(a)
    return low, high


_MISSING = object()  # (a tangent not shaped like its primal: a zero, say)


def _leaf(x: Any, at: Path) -> Any:
    for key in at:
        try:
            x = x[key]
        except (TypeError, KeyError, IndexError):
            return _MISSING
    return x


def _with(x: Any, at: Path, value: Any) -> Any:
    """x with the item at `at` replaced by value; the containers on the way are new
    (the caller's are left as they are)."""
    if not at:
        return value
    key, rest = at[0], at[1:]
    if isinstance(x, dict):
        return {**x, key: _with(x[key], rest, value)}
    items = list(x)
    items[key] = _with(items[key], rest, value)
    return rebuild(x, items)


def _same_tangent(s: Any, t: Any) -> bool:
    """Whether two given tangents are one (None: a zero)."""
    if s is _MISSING or t is _MISSING:
        return False
    if s is None or t is None:
        other = t if s is None else s
        return other is None or not np.any(other)
    return np.shape(s) == np.shape(t) and bool(np.array_equal(s, t))
