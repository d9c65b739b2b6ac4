"""The inner Jacobian of a transformation called inside a differentiated function, from
the columns of its level-2 jvps (fwdad/nesting.py), nested as the top-level jacfwd nests
it.

    columns[k] = (d out / d e_k, its outer tangent)      k: the flat index of the float
                                                         entries of the arguments
    ->  Dual(J, dJ): for each output leaf, the arguments' structure with a block of shape
        output.shape + leaf.shape per float leaf, and None at a leaf that is not a float
        (grad: each block typed like its leaf, and NoTangent there, as grad gives them)

The flat index is the one of fwdad/seeds.py (leaf by leaf, each in C order), so the
blocks are those `jacfwd(f)(*args)` gives outside: output structure outside, then the
tuple of arguments (argnums a tuple), then each argument's structure. An outer tangent
has the outer batch axis in front when the outer derivative is batched; a column that
does not depend on the outer inputs has a plain zero there, widened to the others' shape.
"""
from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from fwdad import output_blocks, seeds
from fwdad.dual import Dual
from fwdad.errors import InternalError, NonDifferentiableError
from fwdad.tangents import NoTangent, zero_tangent

Column = Tuple[Any, Any]  # (f's output tangent along e_k, its outer tangent)


def jacobian(kind: str, columns: List[Column], value: Any, leaves: Any, xs: Any,
             owner: str) -> Dual:
    """The Jacobian of the output `value` with respect to the arguments `xs` (one, or a
    tuple of them for a tuple of argnums), whose float leaves `leaves` (from
    seeds.leaves_of, in the same structure) number the columns.

    Raises:
        NonDifferentiableError: (naming `owner`, the transformation) an instance in the
            output holds itself, as the top-level jacfwd refuses it."""
    try:
        for _ in output_blocks.output_paths(value):  # (a cycle: refused before it is walked)
            pass
    except NonDifferentiableError as exc:
        raise NonDifferentiableError(f"{owner}: {exc}") from None

    def per_output(path: Tuple) -> Any:
        y = output_blocks.at_path(value, path)
        parts = [_part(column, path, y) for column in columns]
        return seeds.walk_leaves(lambda leaf, x: _block(kind, parts, y, leaf, x), leaves, xs)
    blocks = output_blocks.map_paths(per_output, value)
    return Dual(seeds.tree_map(_primal, blocks), seeds.tree_map(_tangent, blocks))


def _primal(block: Dual) -> Any:
    return block.primal


def _tangent(block: Dual) -> Any:
    return block.tangent


def _part(column: Column, path: Tuple, y: Any) -> Column:
    """A column's part at one output leaf `y`: zeros for a leaf with no float (an int:
    piecewise constant), whose tangents are NoTangent."""
    inner, outer = output_blocks.at_path(column[0], path), output_blocks.at_path(column[1], path)
    if inner is NoTangent:
        inner = np.zeros(np.shape(y)) if np.ndim(y) else 0.0
    return inner, zero_tangent(inner) if outer is NoTangent else outer


def _block(kind: str, parts: List[Column], y: Any, leaf: Any, x: Any) -> Dual:
    """The block of output leaf y and input leaf x (its Leaf `leaf`, None when x is no
    float), shaped y.shape + x.shape."""
    gradient = kind in ("grad", "value_and_grad")
    if leaf is None:
        return Dual(NoTangent if gradient else None, NoTangent)
    mine = parts[leaf.offset:leaf.offset + leaf.size]
    if not mine:  # an empty x has no column: an empty block
        empty = np.zeros(np.shape(y) + leaf.shape, leaf.dtype)
        return Dual(empty, np.zeros_like(empty))
    primal, tangent = (_stacked([part[side] for part in mine], leaf.shape)
                       for side in (0, 1))
    if not gradient:
        return Dual(primal, tangent)
    if isinstance(x, np.ndarray):  # (a gradient: shaped and typed like x)
        return Dual(primal.astype(x.dtype), tangent.astype(x.dtype))
    scalar = isinstance(tangent, (float, np.floating)) or (
        isinstance(tangent, np.ndarray) and tangent.ndim == 0)
    return Dual(type(x)(primal), type(x)(tangent) if scalar else tangent)


def _stacked(columns: list, shape: Tuple[int, ...]) -> Any:
    """Columns stacked on a last axis, shaped like the input leaf (`shape`) there.
    Tangents recorded by linearize (`Linear`) are stacked by their own NumPy functions,
    never made arrays."""
    if not shape:
        return columns[0]
    arrays = [c if hasattr(c, "shape") else np.asarray(c) for c in columns]
    if len({a.shape for a in arrays}) > 1:  # a column whose tangent is a plain zero
        arrays = _zeros_widened(arrays)  # (`float(max(x))`), beside batched ones
    stacked = np.stack(arrays, axis=-1)
    return stacked.reshape(stacked.shape[:-1] + shape)


def _zeros_widened(arrays: list) -> list:
    """The columns at one shape: a zero column takes the others' (broadcast) shape; a
    non-zero one of another shape cannot be placed, and is an internal error."""
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    if any(a.shape != shape and np.any(a) for a in arrays):
        raise InternalError(f"columns of shapes {[a.shape for a in arrays]} met in one "
                            f"Jacobian block")
    return [a if a.shape == shape else np.zeros(shape, np.result_type(a, float))
            for a in arrays]
