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
from fwdad.seeds import holds_a_leaf, leaves_of, tree_map, unit_tangent, walk_leaves
from fwdad.tangents import has_fields, zero_tangent


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
    return walk_leaves(lambda leaf, row: none_row if leaf is None else row, leaves, blocks)


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
            direction[at] = unit_tangent(args[at], k)
            columns.append(jacobians.jacfwd(
                Directional(f, direction, kwargs), argnums=at, chunk_size=options.chunk_size,
                memory_budget=options.memory_budget)(*args))
            done()
    rows = walk_leaves(lambda leaf, *cs: _stacked(leaf, cs, total), leaves, *columns)
    return walk_leaves(lambda row_leaf, row: tree_map(
        lambda leaf: _block(row, row_leaf, leaf), leaves), leaves, rows)


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
