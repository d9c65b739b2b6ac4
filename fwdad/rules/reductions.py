"""Rules for reductions: sums and means, products, extremes, moments, order statistics
and cumulative sums and products, with `axis` and `keepdims`, as NumPy functions and as
ndarray methods.

Nonlinear reductions move the reduced axes of x (and of its tangent, after the batch
axis) to the end as one axis, compute there, and reshape to the result's shape.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from fwdad.dual import Dual
from fwdad.rules.batching import batch_size, dense, fit, is_batched, lift, tangent_axis
from fwdad.rules.creation import array_rule
from fwdad.rules.empty_inputs import zero_at_empty
from fwdad.rules.registry import def_nondiff, frule, takes_out
from fwdad.rules.widening import overwrite
from fwdad.tangents import NoTangent


def as_array(x: Dual) -> Dual:
    """Lists of values (and their Duals) become arrays; floats, 0-d arrays."""
    if isinstance(x.primal, (list, tuple)):
        return array_rule(x)  # batched tangents of the items: the batch axis goes first
    if not isinstance(x.primal, np.ndarray):  # a new 0-d array, with a new tangent (a
        return Dual(np.asarray(x.primal), _new_array(x.tangent))  # batch's is an array)
    return x


def _new_array(tangent):
    """np.array(tangent); for one linearize records, a copy on its tape (np.array is
    not recorded)."""
    from fwdad.recording import Linear  # (recording imports the rules' modules)
    return np.copy(tangent) if type(tangent) is Linear else np.array(tangent)


def _reduce_linear(fn, x: Dual, axis, kwargs, primal_only=None) -> Dual:
    """Linear reductions: the tangent is the same reduction of the tangent."""
    if isinstance(x.primal, (list, tuple)):
        x = array_rule(x)
    out = fn(x.primal, axis=axis, **kwargs, **(primal_only or {}))
    if x.tangent is NoTangent:
        return Dual(out, NoTangent)
    return Dual(out, fn(x.tangent, axis=tangent_axis(x.primal, x.tangent, axis), **kwargs))


@frule(np.sum, np.ndarray.sum, pure=True)
def sum_rule(x: Dual, axis=None, dtype=None, keepdims=False, *, where=True,
             initial: Dual = None) -> Dual:
    """Linear in x and in `initial`, which each sum starts from (`where` leaves entries
    out)."""
    start = {} if initial is None else dict(initial=initial.primal)
    total = _reduce_linear(np.sum, x, axis, dict(dtype=dtype, keepdims=keepdims,
                                                 where=where), start)
    return total if initial is None else _plus_initial(total, initial, 1.0)


def _plus_initial(reduced: Dual, initial: Dual, factor) -> Dual:
    """`reduced` (whose value NumPy computed from `initial`), with `factor` times the
    tangent of `initial` added to its tangent: initial enters each result once."""
    if initial.tangent is NoTangent:
        return reduced
    out = reduced.primal
    d = lift(initial.primal, initial.tangent, np.ndim(out)) * factor
    return Dual(out, fit(d if reduced.tangent is NoTangent else reduced.tangent + d, out))


@frule(np.mean, np.ndarray.mean, pure=True)
@zero_at_empty(np.mean)  # (a mean of nothing: NaN, constant)
def _mean(x: Dual, axis=None, dtype=None, keepdims=False, *, where=True) -> Dual:
    return _reduce_linear(np.mean, x, axis, dict(dtype=dtype, keepdims=keepdims,
                                                 where=where))


def _nan_reduction(fn):
    """nansum, nanmean: NaNs are left out, so their tangents are too."""
    @zero_at_empty(fn)  # (nanmean of nothing: NaN, constant)
    def rule(x: Dual, axis=None, dtype=None, keepdims=False) -> Dual:
        x = as_array(x)
        out = fn(x.primal, axis=axis, dtype=dtype, keepdims=keepdims)
        valid = ~np.isnan(x.primal)
        dx = dense(x.primal, x.tangent) * valid
        if fn is np.nanmean:  # the mean of the valid entries: their sum / their count
            count = np.sum(valid, axis=axis, keepdims=keepdims)
            return Dual(out, fit(np.sum(dx, tangent_axis(x.primal, dx, axis),
                                        keepdims=keepdims) / count, out))
        return Dual(out, fit(np.sum(dx, tangent_axis(x.primal, dx, axis),
                                    keepdims=keepdims), out))
    rule.__name__ = f"_{fn.__name__}"
    frule(fn)(rule)


_nan_reduction(np.nansum)
_nan_reduction(np.nanmean)


# ---- reduced axes, moved to the end ----------------------------------------------------
def to_last(a, axis, ndim: int, batched: bool):
    """`a` with the axes `axis` of an ndim-array (after a batch axis if `batched`) moved
    to the end and merged into one."""
    axes = tuple(range(ndim)) if axis is None else normalize_axis_tuple(axis, ndim)
    axes = [ax + batched for ax in axes]
    rest = [i for i in range(np.ndim(a)) if i not in axes]
    moved = np.transpose(a, rest + axes)  # (the merged size given: -1 fails for an empty a)
    return moved.reshape(moved.shape[:len(rest)] + (math.prod(moved.shape[len(rest):]),))


def _gathered(x: Dual, axis, out, combine) -> Dual:
    """A reduction whose tangent is `combine(xf, dxf)` over the merged last axis."""
    batched = is_batched(x.primal, x.tangent)
    xf = to_last(x.primal, axis, x.primal.ndim, False)
    dxf = to_last(dense(x.primal, x.tangent), axis, x.primal.ndim, batched)
    tangent = combine(xf, dxf)
    size = batch_size(x.primal, x.tangent)
    return Dual(out, fit(np.reshape(tangent, (() if size is None else (size,))
                                    + np.shape(out)), out))


# ---- products --------------------------------------------------------------------------
@frule(np.prod, np.ndarray.prod)
def prod_rule(x: Dual, axis=None, dtype=None, keepdims=False, *, where=True,
              initial: Dual = None) -> Dual:
    """d prod(x) = sum_i dx_i * prod_{j != i} x_j: exact when some x_j are 0. Entries
    left out by `where` count as 1; `initial` is one more factor."""
    x = _left_out(as_array(x), where, 1.0)
    start = 1 if initial is None else initial.primal
    out = np.prod(x.primal, axis=axis, dtype=dtype, keepdims=keepdims, initial=start)
    product = _gathered(x, axis, out, lambda xf, dxf: start * np.sum(dxf * others_product(xf), -1))
    if initial is None:
        return product
    rest = np.prod(x.primal, axis=axis, dtype=dtype, keepdims=keepdims)
    return _plus_initial(product, initial, rest)


def _left_out(x: Dual, where, neutral: float) -> Dual:
    """x with the entries `where` leaves out set to `neutral` and their tangents to 0."""
    if where is True:
        return x
    where = np.broadcast_to(where, x.primal.shape)
    return Dual(np.where(where, x.primal, neutral), dense(x.primal, x.tangent) * where)


def others_product(xf):
    """prod_{j != i} x_j along the last axis, from prefix and suffix products (both
    modes' rules of prod)."""
    ones = np.ones(xf.shape[:-1] + (1,))
    before = np.cumprod(np.concatenate([ones, xf[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, xf[..., :0:-1]], axis=-1), axis=-1)
    n = xf.shape[-1]  # (the slices keep an empty axis empty)
    return before[..., :n] * after[..., ::-1][..., :n]


# ---- extremes: ties take the tangent of the first extreme element (what argmax picks) --
def extreme_rule(fn, arg):
    """max-like reductions: the tangent of the element `arg` (argmax ...) points to; among
    equal extreme elements, the first in C order (over the reduced axes). Where
    `initial` wins, the tangent is initial's."""
    def rule(x: Dual, axis=None, keepdims=False, *, initial: Dual = None,
             where=True) -> Dual:
        x = as_array(x)
        given = {} if initial is None else {"initial": initial.primal}
        out = fn(x.primal, axis=axis, keepdims=keepdims, where=where, **given)
        if initial is not None or where is not True:  # left out: beyond every value
            far = -np.inf if arg in (np.argmax, np.nanargmax) else np.inf
            x = _left_out(x, where, far)

        def pick(xf, dxf):
            if xf.shape[-1] == 0:  # (nothing reduced: `initial` is every result)
                return np.zeros(dxf.shape[:-1], dxf.dtype)
            index = arg(xf, axis=-1)
            won = True if initial is None else np.take_along_axis(
                xf, index[..., None], -1)[..., 0] == np.reshape(out, index.shape)
            return _take_last(dxf, index) * won  # initial won: its tangent, added below
        picked = _gathered(x, axis, out, pick)
        if initial is None:
            return picked
        from_x = fn(x.primal, axis=axis, keepdims=keepdims, initial=far) == out
        return _plus_initial(picked, initial, np.where(from_x, 0.0, 1.0))
    rule.__name__ = f"_{fn.__name__}"
    rule.__doc__ = extreme_rule.__doc__
    return rule


def _take_last(dxf, index):
    index = np.broadcast_to(index[..., None], dxf.shape[:-1] + (1,))
    return np.take_along_axis(dxf, index, axis=-1)[..., 0]


# (made once, here: a rule made inside _ptp's would be made again at second order, inside
# its level-2 rule, where setting its __doc__ fails)
_MAX = frule(np.max, np.amax, np.ndarray.max)(extreme_rule(np.max, np.argmax))
_MIN = frule(np.min, np.amin, np.ndarray.min)(extreme_rule(np.min, np.argmin))
frule(np.nanmax)(extreme_rule(np.nanmax, np.nanargmax))
frule(np.nanmin)(extreme_rule(np.nanmin, np.nanargmin))


@frule(np.ptp)
def _ptp(x: Dual, axis=None, keepdims=False) -> Dual:
    """max - min, with the tie rule of max and min."""
    high, low = _MAX(x, axis, keepdims), _MIN(x, axis, keepdims)
    return Dual(np.ptp(as_array(x).primal, axis=axis, keepdims=keepdims),
                high.tangent - low.tangent)


# ---- moments ---------------------------------------------------------------------------
def re_conj_times(a, b):
    """Re(conj(a) b): the terms of the real inner product <a, b> (a * b for real a)."""
    return a * b if np.asarray(a).dtype.kind != "c" else np.real(np.conj(a) * b)


@frule(np.var, np.ndarray.var)
@zero_at_empty(np.var)  # (a mean of nothing: NaN, constant)
def _var(x: Dual, axis=None, dtype=None, ddof: Dual = 0, keepdims=False) -> Dual:
    """d var = 2 / (n - ddof) * sum(Re(conj(x - mean) dx)): real, for complex x too;
    plus ddof_term for a float ddof with a derivative."""
    x, ddof_dual, ddof = as_array(x), ddof, plain_ddof(ddof)
    out = np.var(x.primal, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    centered = x.primal - np.mean(x.primal, axis=axis, keepdims=True)
    n = x.primal.size // max(np.size(out), 1) if x.primal.size else 0
    dx = dense(x.primal, x.tangent)
    total = np.sum(re_conj_times(centered, dx), axis=tangent_axis(x.primal, dx, axis),
                   keepdims=keepdims)
    with np.errstate(divide="ignore", invalid="ignore"):  # as NumPy: nan or inf, warned
        scale = np.float64(2.0) / max(n - ddof, 0)  # once, by the primal's own call
    return Dual(out, fit(scale * total + ddof_term(ddof_dual, out, n), out))


def plain_ddof(ddof):
    return ddof.primal if isinstance(ddof, Dual) else ddof


def ddof_term(ddof, out, n):
    """The tangent of var = s / (n - ddof) along ddof's: var / (n - ddof) dddof (0 when
    ddof has no derivative: an int, or a constant)."""
    if not isinstance(ddof, Dual) or ddof.tangent is NoTangent:
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):  # (n <= ddof: as the value)
        rate = out / (n - np.float64(ddof.primal))
    return lift(ddof.primal, ddof.tangent, np.ndim(out)) * rate


@frule(np.std, np.ndarray.std)
@zero_at_empty(np.std)  # (a mean of nothing: NaN, constant)
def _std(x: Dual, axis=None, dtype=None, ddof: Dual = 0, keepdims=False) -> Dual:
    return std_of(_var(x, axis, dtype, ddof, keepdims))


def std_of(var: Dual) -> Dual:
    """sqrt(var), var a variance (NaNs skipped or not). d std = d var /
    (2 std), where std > 0. Where std = 0 (equal values), std(x + h t) = |h| std(t) has
    no derivative: the tangent is the subgradient 0, as reverse mode's gradient and
    PyTorch's (JAX gives NaN; docs/errors-and-debugging.md, "Kinks")."""
    out = np.sqrt(var.primal)
    with np.errstate(divide="ignore", invalid="ignore"):
        dout = var.tangent / (2.0 * out)
    if np.any(out == 0):
        dout = np.where(out == 0, 0.0, dout)
    return Dual(out, fit(dout, out))


# ---- order statistics --------------------------------------------------------------------
@frule(np.sort)
def _sort(x: Dual, axis=-1, kind=None, order=None, **kwargs) -> Dual:
    """The tangents go where their values go; equal values keep their order (stable)."""
    x = as_array(x)
    out = np.sort(x.primal, axis=axis, kind=kind, order=order, **kwargs)
    return Dual(out, fit(_permuted(x, axis), out))


def _permuted(x: Dual, axis):
    """The tangent of x sorted the way x sorts along `axis` (None: flattened)."""
    if axis is None:
        x, axis = flattened(x), -1
    dx = dense(x.primal, x.tangent)
    order = np.argsort(x.primal, axis=axis, kind="stable")
    if is_batched(x.primal, dx):
        order, axis = order[None], tangent_axis(x.primal, dx, axis)
    return np.take_along_axis(dx, order, axis=axis)


@frule(np.ndarray.sort)
def _sort_in_place(x: Dual, axis=-1, kind=None, order=None) -> Dual:
    """x.sort(): the tangent is permuted in place, like x."""
    dx = _permuted(x, axis)
    x.primal.sort(axis=axis, kind=kind, order=order)
    if x.tangent is not NoTangent:
        overwrite(x, dx, "x.sort()")
    return Dual(None, NoTangent)


@frule(np.median)
def _median(x: Dual, axis=None, keepdims=False) -> Dual:
    """The middle element's tangent (the mean of the two middle ones for even counts)."""
    x = as_array(x)
    out = np.median(x.primal, axis=axis, keepdims=keepdims)

    def middle(xf, dxf):
        order = np.argsort(xf, axis=-1, kind="stable")
        n = xf.shape[-1]
        if n == 0:  # (the median of nothing is NaN, a constant: nothing moves it)
            return np.zeros(dxf.shape[:-1], dxf.dtype)
        pick = [np.broadcast_to(order[..., k:k + 1], dxf.shape[:-1] + (1,))
                for k in ((n - 1) // 2, n // 2)]
        return sum(np.take_along_axis(dxf, p, axis=-1)[..., 0] for p in pick) / 2.0
    return _gathered(x, axis, out, middle)


# ---- cumulative ------------------------------------------------------------------------
def flattened(x: Dual) -> Dual:
    """x.ravel(), with its (dense) tangent flattened after the batch axis."""
    dx, size = dense(x.primal, x.tangent), batch_size(x.primal, x.tangent)
    return Dual(x.primal.ravel(), dx.reshape(-1) if size is None else dx.reshape(size, -1))


@frule(np.cumsum, np.ndarray.cumsum)
def cumsum_rule(x: Dual, axis=None, dtype=None) -> Dual:
    x = as_array(x)
    out = np.cumsum(x.primal, axis=axis, dtype=dtype)
    x, axis = (flattened(x), 0) if axis is None else (x, axis)
    dx = dense(x.primal, x.tangent)
    return Dual(out, fit(np.cumsum(dx, tangent_axis(x.primal, dx, axis), dtype), out))


@frule(np.cumprod, np.ndarray.cumprod)
def cumprod_rule(x: Dual, axis=None, dtype=None) -> Dual:
    """c_k = c_{k-1} x_k, so dc_k = dc_{k-1} x_k + c_{k-1} dx_k (exact with zeros)."""
    x = as_array(x)
    out = np.cumprod(x.primal, axis=axis, dtype=dtype)
    x, axis = (flattened(x), 0) if axis is None else (x, axis)
    dx = dense(x.primal, x.tangent)
    t_axis = tangent_axis(x.primal, dx, axis)
    c, xs = np.moveaxis(out, axis, -1), np.moveaxis(x.primal, axis, -1)
    dxs = np.moveaxis(dx, t_axis, -1)
    dc = dxs.astype(np.result_type(dxs, float))  # a copy (of a recorded tangent too)
    for k in range(1, xs.shape[-1]):
        dc[..., k] = dc[..., k - 1] * xs[..., k] + c[..., k - 1] * dxs[..., k]
    return Dual(out, fit(np.moveaxis(dc, -1, t_axis), out))


# ---- no derivative: positions, counts, tests ----------------------------------------------
def_nondiff(np.argmax, np.argmin, np.argsort, np.ndarray.argmax, np.ndarray.argmin,
            np.ndarray.argsort, np.nanargmax, np.nanargmin, np.nonzero, np.ndarray.nonzero,
            np.count_nonzero, np.flatnonzero, np.argwhere, np.searchsorted, np.any, np.all,
            np.ndarray.any, np.ndarray.all, np.digitize, np.may_share_memory,
            np.shares_memory)


# ---- out=: where each reduction takes it (rules/outputs.py adds it to the rules) -------
takes_out(3, np.sum, np.mean, np.prod, np.var, np.std, np.cumsum, np.cumprod, np.nansum,
          np.nanmean, np.ndarray.sum, np.ndarray.mean, np.ndarray.prod, np.ndarray.var,
          np.ndarray.std, np.ndarray.cumsum, np.ndarray.cumprod)
takes_out(2, np.max, np.min, np.amax, np.amin, np.ptp, np.median, np.argmax, np.argmin,
          np.any, np.all, np.nanmax, np.nanmin, np.nanargmax, np.nanargmin, np.ndarray.max,
          np.ndarray.min, np.ndarray.argmax, np.ndarray.argmin, np.ndarray.any, np.ndarray.all)
