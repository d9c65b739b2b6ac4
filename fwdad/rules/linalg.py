"""Rules for linear algebra: matmul and dot (the rest grows here)."""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import is_batched, lift
from fwdad.rules.operators import _tangents
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent


def _times_right(a, db, b, out):
    """a @ db for the tangent db of b, which may carry a leading batch axis."""
    if db is NoTangent:
        return NoTangent
    if is_batched(b, db) and np.ndim(b) == 1:  # a batch of vectors: one column each
        return np.moveaxis(np.matmul(a, db.T), -1, 0) if np.ndim(a) > 1 else db @ a
    return np.matmul(a, lift(b, db, np.ndim(out)))


def _times_left(da, a, b, out):
    """da @ b for the tangent da of a (batched ones broadcast as stacks)."""
    if da is NoTangent:
        return NoTangent
    return np.matmul(lift(a, da, np.ndim(out)), b)


def matmul_tangent(x: Dual, y: Dual, out):
    """d(x @ y) = dx @ y + x @ dy."""
    return _times_left(x.tangent, x.primal, y.primal, out) + \
        _times_right(x.primal, y.tangent, y.primal, out)


@frule(np.matmul)
def _matmul(x: Dual, y: Dual) -> Dual:
    out = np.matmul(x.primal, y.primal)
    return Dual(out, matmul_tangent(x, y, out))


@frule(np.dot, np.ndarray.dot)
def _dot(x: Dual, y: Dual) -> Dual:
    """dot is matmul for vectors and matrices, and multiplication for scalars."""
    out = np.dot(x.primal, y.primal)
    if np.ndim(x.primal) == 0 or np.ndim(y.primal) == 0:
        dx, dy = _tangents(x, y, out)
        return Dual(out, dx * y.primal + x.primal * dy)
    if np.ndim(y.primal) > 2:
        return Dual(out, _dot_stacks_tangent(x, y))
    return Dual(out, matmul_tangent(x, y, out))


def _dot_stacks_tangent(x: Dual, y: Dual):
    """d dot(x, y) = dot(dx, y) + dot(x, dy) for a y of 3 or more axes, where dot pairs
    x with every stack of y (matmul would broadcast the stacks instead)."""
    dx_y = NoTangent if x.tangent is NoTangent else np.dot(x.tangent, y.primal)
    x_dy = NoTangent if y.tangent is NoTangent else np.dot(x.primal, y.tangent)
    if is_batched(y.primal, y.tangent):  # dot put the batch axis after x's axes
        x_dy = np.moveaxis(x_dy, np.ndim(x.primal) - 1, 0)
    return dx_y + x_dy
