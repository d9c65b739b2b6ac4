"""The rule of np.linalg.norm: vector norms (any ord) and matrix norms ('fro', 'nuc',
1, -1, 2, -2, inf, -inf), with `axis` and `keepdims`. Norms are real, for complex x
too: d|x_i| = Re(conj(x_i / |x_i|) dx_i), d s_k = Re(u_k^H dx v_k).

Every norm is differentiable where it is smooth. Where it is not, the rule takes a
one-sided choice, stated per norm below: at x = 0 the 2-norm's tangent is NaN (0/0);
|x_i| at x_i = 0 contributes 0 (sign(0) = 0); max-like norms take the first extreme
element; 2 and nuc norms need distinct (resp. nonzero) singular values.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from fwdad.dual import Dual
from fwdad.rules.batching import batch_size, dense, fit, is_batched
from fwdad.rules.reductions import as_array, re_conj_times, to_last
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent


@frule(np.linalg.norm)
def _norm(x: Dual, ord=None, axis=None, keepdims=False) -> Dual:
    """A vector norm over one axis (or all axes when ord is None), else a matrix norm
    over two."""
    x = as_array(x)
    out = np.linalg.norm(x.primal, ord, axis, keepdims)
    ndim = x.primal.ndim
    axes = tuple(range(ndim)) if axis is None else normalize_axis_tuple(axis, ndim)
    if len(axes) == 2 and (ord is not None or axis is not None):
        return Dual(out, _shaped(_matrix(x, ord, axes), x, out))
    return Dual(out, vector_tangent(x, ord, axes, out))


def vector_tangent(x: Dual, ord, axis, out):
    """The tangent of the ord-norm of x over `axis` (all axes when None), flattened."""
    batched = is_batched(x.primal, x.tangent)
    xf = to_last(x.primal, axis, x.primal.ndim, False)
    dxf = to_last(dense(x.primal, x.tangent), axis, x.primal.ndim, batched)
    return _shaped(_vector(xf, dxf, ord, np.linalg.norm(xf, ord, axis=-1)), x, out)


def _shaped(tangent, x: Dual, out):
    if tangent is NoTangent:
        return NoTangent
    size = batch_size(x.primal, x.tangent)
    return fit(np.reshape(tangent, (() if size is None else (size,)) + np.shape(out)), out)


def _vector(xf, dxf, ord, norm):
    """The tangent of the ord-norm of each row of xf (the last axis)."""
    if ord is None or ord == 2:
        return np.sum(re_conj_times(xf, dxf), axis=-1) / norm
    if ord == 0:  # the number of nonzero entries
        return NoTangent
    signed = re_conj_times(np.sign(xf), dxf)  # d|x_i| (complex sign: x_i / |x_i|)
    if ord in (np.inf, -np.inf):  # the tangent of the first largest (smallest) |x_i|
        pick = (np.argmax if ord > 0 else np.argmin)(np.abs(xf), axis=-1)
        return _take_last(signed, pick)
    if ord == 1:
        return np.sum(signed, axis=-1)
    return np.sum(np.abs(xf) ** (ord - 1) * signed, axis=-1) / norm ** (ord - 1)


def _take_last(a, index):
    index = np.broadcast_to(index[..., None], a.shape[:-1] + (1,))
    return np.take_along_axis(a, index, axis=-1)[..., 0]


def _matrix(x: Dual, ord, axes):
    """Matrix norms of the (rows, columns) axes `axes`, moved to the end."""
    batched = int(is_batched(x.primal, x.tangent))
    a = np.moveaxis(x.primal, axes, (-2, -1))
    da = np.moveaxis(dense(x.primal, x.tangent), [ax + batched for ax in axes], (-2, -1))
    if ord in (None, "fro"):
        return np.sum(re_conj_times(a, da), axis=(-2, -1)) / np.linalg.norm(a, axis=(-2, -1))
    if ord in ("nuc", 2, -2):  # d s_k = Re(u_k^H da v_k)
        u, _, vh = np.linalg.svd(a, full_matrices=False)
        ds = np.real(np.einsum("...ik,...ij,...kj->...k", u.conj(), da, vh.conj()))
        return {"nuc": ds.sum(axis=-1), 2: ds[..., 0], -2: ds[..., -1]}[ord]
    if ord in (np.inf, -np.inf):  # the largest (smallest) row sum: as 1 on the transpose
        a, da = np.swapaxes(a, -1, -2), np.swapaxes(da, -1, -2)
        ord = 1 if ord > 0 else -1
    if ord in (1, -1):  # the first largest (smallest) column sum of |a|
        pick = (np.argmax if ord > 0 else np.argmin)(np.abs(a).sum(axis=-2), axis=-1)
        return _take_last(np.sum(re_conj_times(np.sign(a), da), axis=-2), pick)
    raise ValueError(f"Invalid norm order '{ord}' for matrices")
