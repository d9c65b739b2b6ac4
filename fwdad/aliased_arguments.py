"""Arguments that are one array: one tangent, or each its own copy.

`jvp(f, (x, x), (t, t))` passes one array twice, as a plain call `f(x, x)` does, but each
argument gets its own Dual: an in-place write through one (`a[0] = ...`) changed the
value the other sees, not its tangent, and the derivative was silently wrong. So an
array passed as two whole arguments with one tangent gets one Dual tangent (the call is
the plain call, writes and all); arrays that share memory otherwise (two tangents for
one array, a view and its base, the same array inside two lists) are given each its
own copy, as if the caller had passed `x.copy()`: the derivative is that of f on
separate arrays, as vjp and jacfwd take it (they copy every argument):

    jvp(f, (x, x), (t, t))          ->  both Duals hold x and one copy of t
    jvp(f, (x, x), (t, s))          ->  f(x, copy of x), tangents t and s
    jvp(f, (x, x[1:]), (t, t[1:]))  ->  f(x, copy of x[1:])
"""
from __future__ import annotations

import copy
from typing import Any, Iterator, List, Sequence, Tuple

import numpy as np

from fwdad.dual import Dual

_strided_bounds = getattr(np, "byte_bounds", None) or np.lib.array_utils.byte_bounds  # (2.0
# moved it)


def share_tangents(primals: Sequence[Any], tangents: Sequence[Any],
                   duals: List[Dual]) -> List[Dual]:
    """`duals`, with one tangent for an array passed as two whole arguments with one
    tangent, and a copy of each later argument that shares memory otherwise."""
    for i, j, whole in _sharing(primals):
        if whole and _same_tangent(tangents[i], tangents[j]):
            duals[j] = Dual(duals[j].primal, duals[i].tangent)
        elif duals[j].primal is primals[j]:
            duals[j] = Dual(copy.deepcopy(primals[j]), duals[j].tangent)
    return duals


def separated(primals: Sequence[Any]) -> Tuple[Any, ...]:
    """The arguments, each later one that shares memory with an earlier one copied (for
    transformations that give each argument its own tangents: linearize)."""
    out = list(primals)
    for _, j, _ in _sharing(primals):
        if out[j] is primals[j]:
            out[j] = copy.deepcopy(primals[j])
    return tuple(out)


def _sharing(primals: Sequence[Any]) -> Iterator[Tuple[int, int, bool]]:
    """(i, j, whole) for arguments i < j holding arrays that share memory; `whole`
    when both arguments are that one array."""
    leaves = [(i, whole, leaf) for i, p in enumerate(primals) for whole, leaf in _leaves(p)]
    for first, second in _overlapping(leaves):
        i, whole_i, a = leaves[first]
        j, whole_j, b = leaves[second]
        if i != j and (a is b or np.shares_memory(a, b)):
            yield i, j, a is b and whole_i and whole_j


def _overlapping(leaves: List[Tuple[int, bool, np.ndarray]]) -> Iterator[Tuple[int, int]]:
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


def _leaves(x: Any, whole: bool = True) -> Iterator[Tuple[bool, np.ndarray]]:
    if isinstance(x, np.ndarray):
        if x.dtype.kind in "fc":
            yield whole, x
    elif isinstance(x, (list, tuple)):
        for item in x:
            yield from _leaves(item, False)
    elif isinstance(x, dict):
        for item in x.values():
            yield from _leaves(item, False)


def _same_tangent(s: Any, t: Any) -> bool:
    """Whether two given tangents are one (None: a zero)."""
    if s is None or t is None:
        other = t if s is None else s
        return other is None or not np.any(other)
    return np.shape(s) == np.shape(t) and bool(np.array_equal(s, t))
