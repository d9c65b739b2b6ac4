"""hessian with respect to a tuple, list, dict or instance of a user class (a tree).

    hessian(f)((a, s))   ->   ((H_aa, H_as), (H_sa, H_ss))   H_ij: x_i.shape + x_j.shape

The blocks are nested as jacfwd nests the Jacobian of a function from the tree to the
tree (its gradient): the outer structure is the row leaf's, the inner the column leaf's,
as JAX's hessian of a pytree; an instance's structure is a `fwdad.Tangent` of its fields.
A leaf that is not a float (an int, a string) has no derivative: its row is the tree of
None, and its column None in each row (as jacfwd gives None for it).

Forward over reverse (jacfwd of the gradient, batched passes) when reverse mode takes f
and the tree; else forward over forward: one jacfwd of a directional derivative per
float entry of the tree (an instance always goes this way: the reverse pass on Dual
values does not box instances yet).
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from fwdad import api_checks, chunked, jacobians
from fwdad.errors import FwdadError, InternalError, describe
from fwdad.progress import steps
from fwdad.reverse import api as reverse_api
from fwdad.seeds import holds_a_leaf, leaves_of, primal_tree_map, tree_map
from fwdad.tangents import NoTangent, Tangent, has_fields, rebuild, zero_tangent


def is_tree(x: Any) -> bool:
    """Whether hessian's argument is a tree of leaves rather than one float or array."""
    return isinstance(x, (tuple, list, dict)) or has_fields(x)


def tree_hessian(f: Callable[..., Any], at: int, args: Tuple[Any, ...],
                 kwargs: Dict[str, Any], options: chunked.Options) -> Any:
    """The Hessian of the scalar f(*args, **kwargs) with respect to the tree args[at].

    Raises:
        NonDifferentiableError: the tree holds no float, or an instance in it is reached
            twice, or two float arrays of its instances share memory (as jacfwd)."""
    x = args[at]
    leaves, total = leaves_of(x, 0, lambda: f"hessian({describe(f)})")
    if not holds_a_leaf(leaves):
        raise api_checks.no_floats_error("hessian", f, at, (x,))
    try:
        blocks = jacobians.value_and_jacobian(reverse_api.grad(f, at), at, args, kwargs,
                                              f"hessian of {describe(f)}", options)[1]
    except InternalError:
        raise
    except FwdadError:  # reverse mode refuses f or the tree: forward over forward
        blocks = _forward_over_forward(f, at, args, kwargs, leaves, total, options)
    none_row = tree_map(lambda leaf: None, leaves)
    return _walk(lambda leaf, row: none_row if leaf is None else row, leaves, blocks)


def _forward_over_forward(f: Callable[..., Any], at: int, args: Tuple[Any, ...],
                          kwargs: Dict[str, Any], leaves: Any, total: int,
                          options: chunked.Options) -> Any:
    """H e_k for each float entry k of the tree: the jacfwd of f's derivative along the
    unit tangent e_k (a tree like args[at]), assembled into blocks."""
    from fwdad.higher import Directional  # (higher imports this module)
    columns: List[Any] = []
    with steps(f"hessian of {describe(f)}", total, "column", options.progress) as done:
        for k in range(total):
            direction = [zero_tangent(a) for a in args]
            direction[at] = _unit_tangent(args[at], k)
            columns.append(jacobians.jacfwd(
                Directional(f, direction, kwargs), argnums=at, chunk_size=options.chunk_size,
                memory_budget=options.memory_budget)(*args))
            done()
    rows = _walk(lambda leaf, *cs: _stacked(leaf, cs, total), leaves, *columns)
    return _walk(lambda row_leaf, row: tree_map(
        lambda leaf: _block(row, row_leaf, leaf), leaves), leaves, rows)


def _unit_tangent(x: Any, k: int) -> Any:
    """The tangent of the tree x that is 1 at its float entry k (numbered as leaves_of
    numbers them: leaf by leaf, each in C order) and 0 elsewhere."""
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


def _stacked(leaf: Any, column_parts: Tuple[Any, ...], total: int) -> Any:
    """The part of each column at one row leaf, stacked on a last axis: leaf + (total,)."""
    if leaf is None:
        return None
    if not column_parts:  # (every float leaf is empty)
        return np.zeros(leaf.shape + (0,))
    return np.stack([np.asarray(part) for part in column_parts], axis=-1)


def _block(row: Any, row_leaf: Any, leaf: Any) -> Any:
    if row is None or leaf is None:
        return None
    block = row[..., leaf.offset:leaf.offset + leaf.size].reshape(row_leaf.shape + leaf.shape)
    return block[()] if block.ndim == 0 else block


def _walk(fn: Callable[..., Any], leaves: Any, *trees: Any) -> Any:
    """fn(leaf, *parts) for each leaf of `leaves` (from leaves_of) and the parts of
    `trees` (of its structure) at the same place, in that structure."""
    if isinstance(leaves, (tuple, list)):
        return rebuild(leaves, [_walk(fn, v, *(_item(t, i) for t in trees))
                                for i, v in enumerate(leaves)])
    if isinstance(leaves, dict):
        return {k: _walk(fn, v, *(_item(t, k) for t in trees)) for k, v in leaves.items()}
    if isinstance(leaves, Tangent):
        return Tangent(**{k: _walk(fn, v, *(getattr(t, k, None) for t in trees))
                          for k, v in vars(leaves).items()})
    return fn(leaves, *trees)


def _item(tree: Any, key: Any) -> Any:
    return None if tree is None or tree is NoTangent else tree[key]
