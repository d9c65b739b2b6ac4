"""Rules for NumPy 2's array-API names and the remaining ndarray methods: np.linalg's
matmul, outer, trace, diagonal, cross, tensordot, vecdot, vector_norm, matrix_norm,
svdvals and cond; matrix_transpose, astype, logspace, geomspace, select, extract,
compress, place, putmask, unwrap, partition; conj, view and the methods with no
derivative."""
from __future__ import annotations

from typing import Optional

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from fwdad.dual import Dual
from fwdad.errors import NonDifferentiableError, in_user_code
from fwdad.rules import decompositions as dec
from fwdad.rules import linalg, norms, shapes
from fwdad.rules.batching import common_batch, dense, fit, lift, map_batch
from fwdad.rules.creation import astype_rule, linspace_rule
from fwdad.rules.empty_inputs import zero_at_empty
from fwdad.rules.plain_params import carries
from fwdad.rules.reductions import as_array, flattened
from fwdad.rules.registry import KEYWORD_ONLY, def_nondiff, frule, takes_out
from fwdad.rules.widening import assign
from fwdad.tangents import NoTangent

# ---- np.linalg's array-API functions: the rules of their NumPy counterparts ---------------
frule(np.linalg.matmul)(linalg.np_matmul_rule)
frule(np.linalg.outer)(linalg.outer_rule)
frule(np.linalg.tensordot)(linalg.tensordot_rule)
frule(np.astype)(astype_rule)
shapes.linear(np.linalg.trace, np.ndarray.compress)
# views for a whole batch (of views, as the values are):
shapes.linear(np.linalg.matrix_transpose, np.matrix_transpose,
              batched=lambda out, x, dx: np.swapaxes(dx, -1, -2))
shapes.linear(np.linalg.diagonal,  # (a read-only view, which writes to x show through)
              batched=lambda out, x, dx, offset=0: np.diagonal(dx, offset, -2, -1))
shapes.linear(np.ndarray.conj, np.ndarray.conjugate, batched=lambda out, x, dx: dx.conj())


@frule(np.compress)
def _compress(condition, a: Dual, axis=None) -> Dual:
    return Dual(np.compress(condition, a.primal, axis), map_batch(
        lambda t: np.compress(condition, t, axis), a.primal, as_array(a).tangent))


takes_out(3, np.compress, np.ndarray.compress)  # (rules/outputs.py adds out= to them)


@frule(np.linalg.cross)
def _cross(a: Dual, b: Dual, axis=-1) -> Dual:
    from fwdad.rules.differences import bilinear
    return Dual(np.linalg.cross(a.primal, b.primal, axis=axis),
                bilinear(np.linalg.cross, a, b, axis=axis))


@frule(np.vecdot, np.linalg.vecdot)
def _vecdot(x1: Dual, x2: Dual, axis=-1) -> Dual:
    """sum(conj(x1) * x2) over `axis` (counted from the end, so a batch axis in front
    broadcasts like a stack axis)."""
    out = np.vecdot(x1.primal, x2.primal, axis=axis)
    ndim = max(np.ndim(x1.primal), np.ndim(x2.primal))
    axis = axis - ndim if axis >= 0 else axis
    d1, d2 = (lift(d.primal, d.tangent, ndim) for d in (x1, x2))
    left = NoTangent if d1 is NoTangent else np.vecdot(d1, x2.primal, axis=axis)
    right = NoTangent if d2 is NoTangent else np.vecdot(x1.primal, d2, axis=axis)
    return Dual(out, fit(left + right, out))


@frule(np.linalg.vector_norm)
@zero_at_empty(np.linalg.vector_norm)
def _vector_norm(x: Dual, axis=None, keepdims=False, ord: Dual = None) -> Dual:
    """The vector norm over all of `axis` (all axes when None), as a flat vector; in
    ord too (norms.ord_tangent)."""
    x = as_array(x)
    p = 2 if ord is None else ord.primal
    out = np.linalg.vector_norm(x.primal, axis=axis, keepdims=keepdims, ord=p)
    tangent = norms.vector_tangent(x, p, axis, out)
    if ord is None or not carries(ord.tangent):
        return Dual(out, tangent)
    axes = None if axis is None else normalize_axis_tuple(axis, x.primal.ndim)
    return Dual(out, tangent + norms.ord_tangent(x, ord, axes, keepdims, out))


@frule(np.linalg.matrix_norm)
@zero_at_empty(np.linalg.matrix_norm)
def _matrix_norm(x: Dual, keepdims=False, ord="fro") -> Dual:
    return norms.norm_rule(x, ord, (-2, -1), keepdims)


@frule(np.linalg.svdvals)
@zero_at_empty(np.linalg.svdvals)
def _svdvals(x: Dual) -> Dual:
    return dec.svd_rule(x, compute_uv=False)


def refuse_singular_cond(x, p=None, value=None) -> None:
    """np.linalg.cond of a singular x is infinite (or NaN), with no derivative: refuse it
    (both modes), as its formula with x^-1 would fail. `value`: cond(x, p), if known."""
    value = np.linalg.cond(x, p) if value is None else value
    if not np.all(np.isfinite(value)):
        raise NonDifferentiableError(
            f"np.linalg.cond{in_user_code()}: the matrix is singular (its condition "
            f"number is infinite), where cond has no derivative. Differentiate at an "
            f"invertible matrix.")


@frule(np.linalg.cond)
def _cond(x: Dual, p=None) -> Dual:
    """cond = s_max / s_min for p None, 2 and -2 (distinct, nonzero singular values);
    norm(x, p) norm(inv(x), p) otherwise."""
    out = np.linalg.cond(x.primal, p)
    refuse_singular_cond(x.primal, p, out)
    if p in (None, 2, -2):
        s = _svdvals(x)
        big, small = (0, -1) if p in (None, 2) else (-1, 0)
        ratio = s.primal[..., big] / s.primal[..., small]
        ds = s.tangent
        return Dual(out, ratio * (ds[..., big] / s.primal[..., big]
                                  - ds[..., small] / s.primal[..., small]))
    left, right = norms.norm_rule(x, p, (-2, -1)), norms.norm_rule(dec.inv_rule(x), p, (-2, -1))
    return Dual(out, left.tangent * right.primal + left.primal * right.tangent)


# ---- spaced samples ----------------------------------------------------------------------------
@frule(np.logspace)
def _logspace(start: Dual, stop: Dual, num=50, endpoint=True, base: Dual = None,
              dtype=None, axis=0) -> Dual:
    """base ** linspace(start, stop): the tangent is out * ln(base) * the linspace's,
    plus out * linspace / base * dbase."""
    b = 10.0 if base is None else base.primal
    out = np.logspace(start.primal, stop.primal, num, endpoint, b, dtype, axis)
    exponents = linspace_rule(start, stop, num, endpoint, axis=axis)
    tangent = out * np.log(b) * exponents.tangent
    if base is not None and base.tangent is not NoTangent:
        rate = np.power(b, exponents.primal - 1.0) * exponents.primal
        tangent = tangent + lift(b, base.tangent, np.ndim(rate)) * rate
    return Dual(out, fit(tangent, out))


@frule(np.geomspace)
def _geomspace(start: Dual, stop: Dual, num=50, endpoint=True, dtype=None, axis=0) -> Dual:
    """exp(linspace(log start, log stop)) (with the sign of start): the tangent is out
    times the linspace of dstart / start and dstop / stop."""
    out = np.geomspace(start.primal, stop.primal, num, endpoint, dtype, axis)
    rel = [Dual(np.log(np.abs(d.primal)), d.tangent / _inexact(d.primal)
                if d.tangent is not NoTangent else NoTangent) for d in (start, stop)]
    return Dual(out, fit(out * linspace_rule(*rel, num, endpoint, axis=axis).tangent, out))


def _inexact(x):
    """x as floats, or complex numbers if complex (a complex geomspace is a spiral,
    start (stop / start)**t: the same tangent, out times the linspace of dx / x)."""
    x = np.asarray(x)
    return x.astype(np.result_type(x, 1.0))


# ---- selections -----------------------------------------------------------------------------
@frule(np.select)
def _select(condlist, choicelist: Dual, default: Dual = None) -> Dual:
    """Linear in the choices and the default: the tangent of the one selected."""
    choices = shapes.items(choicelist)
    default = Dual(0, NoTangent) if default is None else default
    out = np.select(condlist, [c.primal for c in choices], default.primal)
    size = _batch_of(choices + [default])
    dense_t = [np.broadcast_to(lift(d.primal, dense(d.primal, d.tangent, size), out.ndim),
                               ((size,) if size else ()) + out.shape)
               for d in choices + [default]]
    conds = [np.broadcast_to(c, out.shape) for c in condlist]
    return Dual(out, fit(np.select(conds, dense_t[:-1], dense_t[-1]), out))


@frule(np.choose)
def _choose(a, choices: Dual, mode="raise") -> Dual:
    """choices[a[i]][i], item by item: linear in the choices."""
    items = shapes.items(choices)
    out = np.asarray(np.choose(a, [c.primal for c in items], mode=mode))
    size = _batch_of(items)
    dense_t = [np.broadcast_to(lift(c.primal, dense(c.primal, c.tangent, size), out.ndim),
                               ((size,) if size else ()) + out.shape) for c in items]
    return Dual(out, fit(np.choose(a, dense_t, mode=mode), out))


takes_out(2, np.choose)  # (rules/outputs.py adds out= to its rule)


def _batch_of(duals: list) -> Optional[int]:
    """The batch size of the first batched tangent among `duals`, or None. (A loop, not
    next() of a generator: these rules are differentiated again at a third order, where
    next() of a lazy iterator is refused.)"""
    return common_batch([d.primal for d in duals], [d.tangent for d in duals])


@frule(np.extract)
def _extract(condition, arr: Dual) -> Dual:
    flat = flattened(as_array(arr))
    keep = np.ravel(condition).astype(bool)
    return Dual(np.extract(condition, arr.primal), flat.tangent[..., keep])


@frule(np.place)
def _place(arr: Dual, mask, vals: Dual) -> Dual:
    """arr[mask] = vals, cycling through vals, primal and tangent alike."""
    vals = as_array(vals)
    np.place(arr.primal, mask, vals.primal)
    where = np.nonzero(mask)
    count = len(where[0])
    values = np.resize(np.asarray(vals.primal, dtype=float), count)
    assign(arr, where, values, map_batch(lambda t: np.resize(t, count), vals.primal,
                                         dense(vals.primal, vals.tangent)))
    return Dual(None, NoTangent)


@frule(np.putmask)
def _putmask(a: Dual, mask, values: Dual) -> Dual:
    """a.flat[i] = values.flat[i % len] where mask.flat[i]."""
    values = as_array(values)
    np.putmask(a.primal, mask, values.primal)
    positions = np.flatnonzero(np.broadcast_to(mask, a.primal.shape))
    index = np.unravel_index(positions, a.primal.shape)
    cycled = map_batch(lambda t: np.resize(t, a.primal.size)[positions], values.primal,
                       dense(values.primal, values.tangent))
    assign(a, index, np.resize(np.asarray(values.primal, float), a.primal.size)[positions],
           cycled)
    return Dual(None, NoTangent)


@frule(np.unwrap)
def _unwrap(p: Dual, discont=None, axis=-1, *, period: Dual = None) -> Dual:
    """Adds piecewise-constant multiples k of the period: the tangent is dp + k dperiod
    (discont, a threshold, has none)."""
    p = as_array(p)
    given = {} if period is None else {"period": period.primal}
    out = np.unwrap(p.primal, discont, axis, **given)
    dp = np.array(dense(p.primal, p.tangent))
    if period is None or period.tangent is NoTangent:
        return Dual(out, dp)
    k = np.round((out - p.primal) / period.primal)
    return Dual(out, dp + lift(period.primal, period.tangent, out.ndim) * k)


@frule(np.ndarray.view)
def _view(x: Dual, *args, **kwargs) -> Dual:
    """A view with the same dtype shares its tangent's memory; another dtype
    reinterprets bytes and has no tangent."""
    out = x.primal.view(*args, **kwargs)
    if out.dtype != x.primal.dtype or x.tangent is NoTangent:
        return Dual(out, NoTangent)
    return Dual(out, x.tangent.view(type(out)))


def_nondiff(np.ndarray.round, np.ndarray.searchsorted, np.ndarray.argpartition,
            np.argpartition, np.isin, np.lexsort, np.einsum_path,
            np.linalg.matrix_rank)
takes_out(2, np.ndarray.round)  # (rules/outputs.py adds out= to its rule)


takes_out(KEYWORD_ONLY, np.vecdot)  # (rules/outputs.py adds out= to its rule)
