"""Rules for linear algebra: matmul and dot (the rest grows here)."""
from __future__ import annotations

import numpy as np

from fwdad.dual import Dual
from fwdad.rules.batching import is_batched
from fwdad.tangents import NoTangent
from fwdad.rules.registry import frule


def _times_right(a, db, b):
    """a @ db for the tangent db of b, which may carry a leading batch axis."""
    if db is NoTangent:
        return NoTangent
    if is_batched(b, db) and np.ndim(b) == 1:  # a batch of vectors: one column each
        return np.moveaxis(np.matmul(a, db.T), -1, 0) if np.ndim(a) > 1 else db @ a
    return np.matmul(a, db)


def _times_left(da, a, b):
    """da @ b for the tangent da of a (batched ones broadcast as stacks)."""
    if da is NoTangent:
        return NoTangent
    return np.matmul(da, b)


def matmul_tangent(x: Dual, y: Dual, out):
    """d(x @ y) = dx @ y + x @ dy."""
    return _times_left(x.tangent, x.primal, y.primal) + \
        _times_right(x.primal, y.tangent, y.primal)


@frule(np.matmul)
def _matmul(x: Dual, y: Dual) -> Dual:
    out = np.matmul(x.primal, y.primal)
    return Dual(out, matmul_tangent(x, y, out))


@frule(np.dot, np.ndarray.dot)
def _dot(x: Dual, y: Dual) -> Dual:
    """dot is matmul for vectors and matrices, and multiplication for scalars."""
    out = np.dot(x.primal, y.primal)
    if np.ndim(x.primal) == 0 or np.ndim(y.primal) == 0:
        return Dual(out, x.tangent * y.primal + x.primal * y.tangent)
    return Dual(out, matmul_tangent(x, y, out))
