"""The seeds of whole Jacobians: basis tangents over the float leaves of the arguments
(fwdad/output_blocks.py unpacks the batched output tangent into the blocks).

The float leaves of the differentiated arguments are numbered in one flat index
(leaf by leaf, each in C order). Row i of the batch seeds unit vector i; a chunk is
the rows `start:stop`. `Leaf` records one leaf's place in that index.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from fwdad.errors import NonDifferentiableError, a_type
from fwdad.tangents import NoTangent, Tangent, has_fields, rebuild, zero_tangent


@dataclass
class Leaf:
    """A float leaf of the inputs: its shape, dtype and first row in the flat index."""

    shape: Tuple[int, ...]
    dtype: Any
    offset: int
    size: int = 0

    def __post_init__(self) -> None:
        self.size = math.prod(self.shape)


def tree_map(fn: Callable[[Any], Any], tree: Any) -> Any:
    """fn applied to every leaf of nested tuples, lists and dicts (NamedTuples too) and
    of the fields of `Tangent`s (kept as Tangents)."""
    return _mapped(fn, tree, {}, False)


def primal_tree_map(fn: Callable[[Any], Any], tree: Any,
                    owner: Callable[[], str] = lambda: "this transformation",
                    shared: bool = False, apart: bool = False) -> Any:
    """tree_map over arguments: an instance of a user class maps to a `Tangent` of its
    fields (its structural tangent, as grad gives it). With `shared`, an instance met
    at two places maps to one Tangent, the same at both (one object, one tangent, as
    jvp takes it, and one total cotangent, as grad gives it). With `apart`, the float
    arrays of each item of `tree` (a tuple of arguments) are checked apart: arrays of
    two arguments may share memory (each has its own tangent, as `separated` of
    fwdad/aliased_arguments.py gives them).

    Raises:
        NonDifferentiableError: (naming `owner()`, the transformation) an instance is met
            twice (shared by two fields, or, even with `shared`, in a cycle), or a float
            array in an instance's fields shares memory with another leaf: one object at
            two places would need one tangent at both, which the structure of a Tangent
            of fields cannot say."""
    memo: Dict[int, Tangent] = {}
    out = _mapped(fn, tree, memo, True, owner, set() if shared else None)
    if memo:
        for part in tree if apart else (tree,):
            _check_unshared(part, owner)
    return out


def _mapped(fn: Callable[[Any], Any], tree: Any, memo: Dict[int, Tangent],
            instances: bool, owner: Optional[Callable[[], str]] = None,
            opened: Optional[set] = None) -> Any:
    """(owner: None maps an instance met twice to one Tangent; a name refuses it, but
    for one met again outside itself when `opened`, the ids of the instances being
    walked, is given.)"""
    if isinstance(tree, (tuple, list)):
        return rebuild(tree, [_mapped(fn, v, memo, instances, owner, opened) for v in tree])
    if isinstance(tree, dict):
        return {k: _mapped(fn, v, memo, instances, owner, opened) for k, v in tree.items()}
    if isinstance(tree, Tangent) or instances and has_fields(tree):
        out = memo.get(id(tree))
        if out is not None:
            if owner is not None and (opened is None or id(tree) in opened):
                raise _shared_error(owner, f"{a_type(tree)} is reached twice")
            return out
        memo[id(tree)] = out = Tangent()  # (before its fields: a cycle comes back here)
        if opened is not None:
            opened.add(id(tree))
        vars(out).update({k: _mapped(fn, v, memo, instances, owner, opened)
                          for k, v in vars(tree).items()})
        if opened is not None:
            opened.discard(id(tree))
        return out
    return fn(tree)


def _check_unshared(tree: Any, owner: Callable[[], str]) -> None:
    """Refuse float arrays of an argument holding instances that share memory."""
    arrays: List[np.ndarray] = [a for a in leaf_list(tree, instances=True)
                                if isinstance(a, np.ndarray) and a.dtype.kind in "fc"]
    for k, a in enumerate(arrays):
        for b in arrays[k + 1:]:
            if np.may_share_memory(a, b):
                raise _shared_error(owner, "two of its float arrays share memory")


def _shared_error(owner: Callable[[], str], what: str) -> NonDifferentiableError:
    return NonDifferentiableError(
        f"{owner()} differentiates with respect to an argument "
        f"holding instances of classes, in which {what} (shared by two fields, a view "
        f"of another, or a cycle). It takes instances whose fields form a tree, one "
        f"tangent per place: give each field an object of its own (a copy).")


def leaf_list(tree: Any, instances: bool = False) -> List[Any]:
    """The leaves of `tree`, in order, as tree_map (or, with `instances`,
    primal_tree_map) meets them."""
    found: List[Any] = []
    _mapped(found.append, tree, {}, instances, None)  # (an instance met twice: once)
    return found


def leaves_of(tree: Any, start: int = 0,
              owner: Callable[[], str] = lambda: "this transformation",
              shared: bool = False) -> Tuple[Any, int]:
    """The same structure with a `Leaf` for each float leaf (None elsewhere), and the
    flat index just past the last leaf (`shared`: as primal_tree_map's)."""
    count = [start]

    def leaf(value: Any) -> Any:
        if not _has_floats(value):
            return None
        out = Leaf(np.shape(value), np.asarray(value).dtype, count[0])
        count[0] += out.size
        return out
    return primal_tree_map(leaf, tree, owner, shared), count[0]


def holds_a_leaf(leaves: Any) -> bool:
    """Whether `leaves` (from leaves_of) holds a float leaf, perhaps an empty one."""
    found: List[bool] = []
    tree_map(lambda leaf: found.append(leaf is not None), leaves)
    return any(found)


def unit_tangent(x: Any, k: int) -> Any:
    """The tangent of x (a float, an array or a tree of them) that is 1 at its float
    entry k (numbered as leaves_of numbers them: leaf by leaf, each in C order) and 0
    elsewhere (NoTangent where a leaf is not a float)."""
    start = [0]

    def tangent(value: Any) -> Any:
        zero = zero_tangent(value)
        if not isinstance(zero, (float, np.ndarray, np.inexact)):
            return zero  # (an int's NoTangent: no entry)
        size = int(np.size(value))
        if start[0] <= k < start[0] + size:
            if isinstance(zero, np.ndarray):
                zero = np.zeros_like(value)  # (laid out as the leaf)
                zero[np.unravel_index(k - start[0], zero.shape)] = 1
            else:
                zero = type(zero)(1.0)
        start[0] += size
        return zero
    return primal_tree_map(tangent, x)


def walk_leaves(fn: Callable[..., Any], leaves: Any, *trees: Any) -> Any:
    """fn(leaf, *parts) for each leaf of `leaves` (from leaves_of) and the parts of
    `trees` (of its structure) at the same place, in that structure."""
    if isinstance(leaves, (tuple, list)):
        return rebuild(leaves, [walk_leaves(fn, v, *(_item(t, i) for t in trees))
                                for i, v in enumerate(leaves)])
    if isinstance(leaves, dict):
        return {k: walk_leaves(fn, v, *(_item(t, k) for t in trees))
                for k, v in leaves.items()}
    if isinstance(leaves, Tangent):
        return Tangent(**{k: walk_leaves(fn, v, *(getattr(t, k, None) for t in trees))
                          for k, v in vars(leaves).items()})
    return fn(leaves, *trees)


def _item(tree: Any, key: Any) -> Any:
    return None if tree is None or tree is NoTangent else tree[key]


def _has_floats(value: Any) -> bool:
    if type(value) is np.ndarray:  # (without making its zero tangent)
        return value.dtype.kind in "fc"
    return isinstance(zero_tangent(value), (float, complex, np.ndarray, np.inexact))


def seed(leaves: Any, start: int, stop: int) -> Any:
    """The batched tangent of rows `start:stop` of the identity, shaped like the inputs
    (NoTangent where a leaf is not a float)."""
    def rows(leaf: Any) -> Any:
        if leaf is None:
            return NoTangent
        block = np.zeros((stop - start, leaf.size), dtype=leaf.dtype)
        first, last = max(start, leaf.offset), min(stop, leaf.offset + leaf.size)
        if first < last:  # the ones of rows first..last-1: one strided slice of the block
            begin = (first - start) * leaf.size + first - leaf.offset
            block.reshape(-1)[begin:begin + (last - first) * (leaf.size + 1):leaf.size + 1] = 1
        return block.reshape((stop - start,) + leaf.shape)
    return tree_map(rows, leaves)


def rows_of(seeded: Any) -> int:
    """How many rows (tangents) the seeds of `seed` hold."""
    first = next(s for s in leaf_list(seeded) if s is not NoTangent)
    return int(np.shape(first)[0])
