"""The rule of np.linalg.norm: vector norms (any ord) and matrix norms ('fro', 'nuc',
1, -1, 2, -2, inf, -inf), with `axis` and `keepdims`. Norms are real, for complex x
too: d|x_i| = Re(conj(x_i / |x_i|) dx_i), d s_k = Re(u_k^H dx v_k).

Every norm is differentiable where it is smooth. Where the norm is 0 it moves like |h|
(norm(x + h t) = |h| norm(t) at x = 0) and has no derivative; the tangent there is the
subgradient 0, for every ord and axis (`_at_zero`), as reverse mode's gradient and abs
at 0 (docs/errors-and-debugging.md, "Kinks"). Elsewhere the rule takes a one-sided
choice, stated per norm
below: |x_i| at x_i = 0 contributes 0 (sign(0) = 0); max-like norms take the first
extreme element; 2 and nuc norms need distinct (resp. nonzero) singular values.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from fwdad.dual import Dual
from fwdad.errors import FwdadError, in_user_code
from fwdad.rules.batching import batch_size, dense, fit, is_batched, lift
from fwdad.rules.empty_inputs import zero_at_empty
from fwdad.rules.plain_params import carries
from fwdad.rules.reductions import as_array, re_conj_times, to_last
from fwdad.rules.registry import frule
from fwdad.tangents import NoTangent


@frule(np.linalg.norm)
@zero_at_empty(np.linalg.norm)
def _norm(x: Dual, ord: Dual = None, axis=None, keepdims=False) -> Dual:
    """norm_rule, and the term of ord's tangent in a vector p-norm (a matrix norm's ord
    picks one of a few norms: it has none)."""
    out = norm_rule(x, None if ord is None else ord.primal, axis, keepdims)
    if ord is None or not carries(ord.tangent) or _is_matrix_norm(x, ord.primal, axis):
        return out
    axes = None if axis is None else normalize_axis_tuple(axis, np.ndim(x.primal))
    return Dual(out.primal, out.tangent + ord_tangent(x, ord, axes, keepdims, out.primal))


def _is_matrix_norm(x: Dual, ord, axis) -> bool:
    ndim = np.ndim(x.primal)
    axes = tuple(range(ndim)) if axis is None else normalize_axis_tuple(axis, ndim)
    return len(axes) == 2 and (ord is not None or axis is not None)


def ord_tangent(x: Dual, ord: Dual, axes, keepdims, out):
    """The tangent of the p-norm over `axes` (None: all) along p = ord's: d|x|_p / dp =
    |x|_p (sum |x_i|^p ln|x_i| / (p s) - ln(s) / p^2), s = sum |x_i|^p (0 where the
    norm is 0, as it stays for every p > 0). At p = +-inf (max, min |x_i|) that tends
    to 0; at p = 0 (a count) the norm has no derivative in p: refused."""
    p = ord.primal
    if np.isinf(p):
        return NoTangent
    if p == 0:
        raise FwdadError(f"numpy.linalg.norm{in_user_code()}: ord={p} has a derivative, "
                         f"and the norm has none in ord there: give ord no tangent.")
    w = np.abs(np.asarray(x.primal))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        wp = np.where(w > 0, w ** p, 0.0)
        s = np.sum(wp, axis=axes, keepdims=keepdims)
        moment = np.sum(wp * np.log(np.where(w > 0, w, 1.0)), axis=axes, keepdims=keepdims)
        rate = np.where(out > 0, out * (moment / (p * s) - np.log(s) / p ** 2), 0.0)
    return lift(p, ord.tangent, np.ndim(out)) * rate


def norm_rule(x: Dual, ord=None, axis=None, keepdims=False) -> Dual:
    """A vector norm over one axis (or all axes when ord is None), else a matrix norm
    over two (ord a constant)."""
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
    norm = np.linalg.norm(xf, ord, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):  # (0/0 where the norm is 0)
        tangent = _vector(xf, dxf, ord, norm)
    if tangent is not NoTangent and np.any(norm == 0):
        tangent = _at_zero(norm, tangent)
    return _shaped(tangent, x, out)


def _at_zero(norm, tangent):
    """The tangent where the norm is 0: the subgradient 0 (the norm is never below its
    value there), which is also the derivative along a direction that keeps it 0.
    Note: NaN (no derivative along a direction that moves it, as JAX gives) was the
    rule before; it made jvp and grad disagree (tests/test_kink_conventions.py)."""
    return np.where(norm == 0, 0.0, tangent)


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
    weight = np.where(xf == 0, 0.0, np.abs(xf) ** (ord - 1))  # (|0| ** (p - 1): as sign(0))
    return np.sum(weight * signed, axis=-1) / norm ** (ord - 1)


def _take_last(a, index):
    index = np.broadcast_to(index[..., None], a.shape[:-1] + (1,))
    return np.take_along_axis(a, index, axis=-1)[..., 0]


def _matrix(x: Dual, ord, axes):
    """Matrix norms of the (rows, columns) axes `axes`, moved to the end."""
    batched = int(is_batched(x.primal, x.tangent))
    a = np.moveaxis(x.primal, axes, (-2, -1))
    da = np.moveaxis(dense(x.primal, x.tangent), [ax + batched for ax in axes], (-2, -1))
    norm = np.linalg.norm(a, ord, axis=(-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):  # (0/0 where the norm is 0)
        tangent = _matrix_away_from_zero(a, da, ord, norm)
    if np.any(norm == 0):
        tangent = _at_zero(norm, tangent)
    return tangent


def _matrix_away_from_zero(a, da, ord, norm):
    """The tangent of a matrix norm where it is not 0."""
    if ord in (None, "fro"):
        return np.sum(re_conj_times(a, da), axis=(-2, -1)) / norm
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
