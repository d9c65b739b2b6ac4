"""The batched output tangent of a Jacobian's passes, unpacked into its blocks: one per
output leaf and input leaf (fwdad/seeds.py numbers the input leaves), nested as JAX
nests them; and the paths of an output's leaves, through tuples, lists, dicts and the
fields of instances (`Field`).

    jacobian_blocks(out, chunks, leaves)   ->  per output leaf, the inputs' structure
                                               with a block out.shape + leaf.shape each
    output_paths(out)                      ->  (path, leaf) of each output leaf
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, List, Tuple

import numpy as np

from fwdad.errors import NonDifferentiableError, a_type
from fwdad.seeds import tree_map
from fwdad.tangents import NoTangent, Tangent, has_fields, rebuild


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
        primal = at_path(out, path)
        parts = [at_path(c, path) for c in chunks]
        rows = np.concatenate(parts, axis=0) if len(parts) > 1 or \
            not parts[0].flags.writeable else parts[0]  # (a fresh array already)
        return tree_map(lambda leaf: _block(rows, primal, leaf), leaves)
    return map_paths(per_output, out)


def _block(rows: np.ndarray, primal: Any, leaf: Any) -> Any:
    if leaf is None:
        return None
    part = rows[leaf.offset:leaf.offset + leaf.size]
    block = part.transpose(tuple(range(1, part.ndim)) + (0,))  # the batch axis last
    block = block.reshape(np.shape(primal) + leaf.shape)
    return block[()] if block.ndim == 0 else block


@dataclass(frozen=True)
class Field:
    """A step of a path into an instance's field (or its Tangent's), not an item."""

    name: str


def output_paths(tree: Any, path: Tuple = (), within: frozenset = frozenset()
                 ) -> Iterator[Tuple[Tuple, Any]]:
    """(path, leaf) of each leaf of an output, in the order jacobian_blocks lays them
    out: items of tuples, lists and dicts, and the fields of instances (a `Field`).

    Raises:
        NonDifferentiableError: an instance holds itself (as stacked_output)."""
    if isinstance(tree, (tuple, list)):
        for i, v in enumerate(tree):
            yield from output_paths(v, path + (i,), within)
    elif isinstance(tree, dict):
        for k, v in tree.items():
            yield from output_paths(v, path + (k,), within)
    elif has_fields(tree):
        if id(tree) in within:
            raise _cycle_error(tree)
        for k, v in vars(tree).items():
            yield from output_paths(v, path + (Field(k),), within | {id(tree)})
    else:
        yield path, tree


def _cycle_error(primal: Any) -> NonDifferentiableError:
    return NonDifferentiableError(
        f"the output holds {a_type(primal)} that holds itself through its fields (a "
        f"cycle): a Jacobian has one block per place in the output, which a cycle makes "
        f"endless. Return the arrays to differentiate (a tuple or dict of them).")


def at_path(tree: Any, path: Tuple) -> Any:
    """The part of `tree` (an output or its tangent) at `path` (from output_paths);
    NoTangent inside a symbolic zero (the tangent of a part with no float)."""
    for key in path:
        if tree is NoTangent:
            return NoTangent
        tree = getattr(tree, key.name, NoTangent) if type(key) is Field else tree[key]
    return tree


def map_paths(fn: Callable[[Tuple], Any], tree: Any, path: Tuple = ()) -> Any:
    """fn of the path of each leaf of an output: an instance of a user class in it gives
    a Tangent of its fields (the output's tangent has one)."""
    if isinstance(tree, (tuple, list)):
        return rebuild(tree, [map_paths(fn, v, path + (i,)) for i, v in enumerate(tree)])
    if isinstance(tree, dict):
        return {k: map_paths(fn, v, path + (k,)) for k, v in tree.items()}
    if has_fields(tree):
        return Tangent(**{k: map_paths(fn, v, path + (Field(k),))
                          for k, v in vars(tree).items()})
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
    """The output tangent as a tree of arrays that all carry the batch axis (an
    instance's fields in a Tangent).

    Raises:
        NonDifferentiableError: an instance in the output holds itself (a cycle)."""
    def walk(primal: Any, t: Any, within: frozenset) -> Any:
        if isinstance(primal, (tuple, list)):
            ts = t if t is not NoTangent else [NoTangent] * len(primal)
            return [walk(p, x, within) for p, x in zip(primal, ts)]
        if isinstance(primal, dict):
            return {k: walk(v, NoTangent if t is NoTangent else t[k], within)
                    for k, v in primal.items()}
        if has_fields(primal):  # (read by Field)
            if id(primal) in within:
                raise _cycle_error(primal)
            inner = within | {id(primal)}
            return Tangent(**{k: walk(v, getattr(t, k, NoTangent), inner)
                              for k, v in vars(primal).items()})
        return batched_leaf(primal, t, size)
    return walk(out, tangent, frozenset())
