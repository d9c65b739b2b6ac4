"""Whole Jacobians from batched tangents: basis seeds over the leaves of the arguments,
and the batched output tangent unpacked into Jacobian blocks.

The float leaves of the differentiated arguments are numbered in one flat index
(leaf by leaf, each in C order). Row i of the batch seeds unit vector i; a chunk is
the rows `start:stop`. `Leaf` records one leaf's place in that index.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, List, Tuple

import numpy as np

from fwdad.tangents import NoTangent, rebuild, zero_tangent


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
    """fn applied to every leaf of nested tuples, lists and dicts (NamedTuples too)."""
    if isinstance(tree, (tuple, list)):
        return rebuild(tree, [tree_map(fn, v) for v in tree])
    if isinstance(tree, dict):
        return {k: tree_map(fn, v) for k, v in tree.items()}
    return fn(tree)


def leaves_of(tree: Any, start: int = 0) -> Tuple[Any, int]:
    """The same structure with a `Leaf` for each float leaf (None elsewhere), and the
    flat index just past the last leaf."""
    count = [start]

    def leaf(value: Any) -> Any:
        if not _has_floats(value):
            return None
        out = Leaf(np.shape(value), np.asarray(value).dtype, count[0])
        count[0] += out.size
        return out
    return tree_map(leaf, tree), count[0]


def holds_a_leaf(leaves: Any) -> bool:
    """Whether `leaves` (from leaves_of) holds a float leaf, perhaps an empty one."""
    found: List[bool] = []
    tree_map(lambda leaf: found.append(leaf is not None), leaves)
    return any(found)


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


def batched_leaf(primal: Any, tangent: Any, size: int) -> np.ndarray:
    """An output leaf's tangent with the batch axis, even when it does not depend on the
    inputs (an unbatched zero, or NoTangent for an int)."""
    shape = np.shape(primal)
    if tangent is NoTangent:
        return np.zeros((size,) + shape)
    tangent = np.asarray(tangent)
    if tangent.ndim == len(shape) + 1:
        return tangent
    return np.broadcast_to(tangent, (size,) + shape)


def jacobian_blocks(out: Any, chunks: List[Any], leaves: Any) -> Any:
    """Output tree (primal `out`, batched tangents in `chunks`) -> for each output leaf,
    the input structure with one block of shape `out.shape + leaf.shape` per leaf."""
    def per_output(path: Tuple) -> Any:
        primal = _at(out, path)
        parts = [_at(c, path) for c in chunks]
        rows = np.concatenate(parts, axis=0) if len(parts) > 1 or \
            not parts[0].flags.writeable else parts[0]  # (a fresh array already)
        return tree_map(lambda leaf: _block(rows, primal, leaf), leaves)
    return _map_paths(per_output, out, ())


def _block(rows: np.ndarray, primal: Any, leaf: Any) -> Any:
    if leaf is None:
        return None
    part = rows[leaf.offset:leaf.offset + leaf.size]
    block = part.transpose(tuple(range(1, part.ndim)) + (0,))  # the batch axis last
    block = block.reshape(np.shape(primal) + leaf.shape)
    return block[()] if block.ndim == 0 else block


def _at(tree: Any, path: Tuple) -> Any:
    for key in path:
        tree = tree[key]
    return tree


def _map_paths(fn: Callable[[Tuple], Any], tree: Any, path: Tuple) -> Any:
    if isinstance(tree, (tuple, list)):
        return rebuild(tree, [_map_paths(fn, v, path + (i,)) for i, v in enumerate(tree)])
    if isinstance(tree, dict):
        return {k: _map_paths(fn, v, path + (k,)) for k, v in tree.items()}
    return fn(path)


def batched_output(out: Any, tangent: Any, size: int) -> Any:
    """The output tangent of a batched call with the batch axis on every float leaf
    (zeros for one that does not depend on the inputs); containers keep their kind and
    the leaves with no float, their NoTangent."""
    if isinstance(out, (tuple, list)) and isinstance(tangent, (tuple, list)):
        return rebuild(tangent, [batched_output(p, t, size) for p, t in zip(out, tangent)])
    if isinstance(out, dict) and isinstance(tangent, dict):
        return {k: batched_output(out[k], t, size) for k, t in tangent.items()}
    if np.ndim(tangent) == np.ndim(out) + 1 or not _is_float(out):
        return tangent
    return np.array(batched_leaf(out, tangent, size))  # (writable, not a broadcast)


def _is_float(primal: Any) -> bool:
    return isinstance(primal, (float, complex, np.inexact)) or (
        isinstance(primal, np.ndarray) and primal.dtype.kind in "fc")


def stacked_output(out: Any, tangent: Any, size: int) -> Any:
    """The output tangent as a tree of arrays that all carry the batch axis."""
    def walk(primal: Any, t: Any) -> Any:
        if isinstance(primal, (tuple, list)):
            ts = t if t is not NoTangent else [NoTangent] * len(primal)
            return [walk(p, x) for p, x in zip(primal, ts)]
        if isinstance(primal, dict):
            return {k: walk(v, NoTangent if t is NoTangent else t[k])
                    for k, v in primal.items()}
        return batched_leaf(primal, t, size)
    return walk(out, tangent)
